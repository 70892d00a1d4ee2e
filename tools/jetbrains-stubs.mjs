// Checks that clients/jetbrains/stubs/src, the stub of the IntelliJ Platform API that CI compiles
// the plugin adapter against (.ci/clients-jetbrains.sh), holds exactly the classes plugin/ uses:
// every com.intellij / org.jetbrains class that plugin/ imports or names in full has a stub, and
// every stub is one of those or a type another needed stub names (a return or parameter type).
// Member signatures are checked by javac when it compiles plugin/ against the stub.
// Usage: node tools/jetbrains-stubs.mjs [--root DIR] (DIR: the repository, default this one).
// Exit 0 when the sets match; 1 with the differences listed.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const at = process.argv.indexOf('--root');
const repo = at > 0 ? resolve(process.argv[at + 1]) : resolve(dirname(fileURLToPath(import.meta.url)), '..');
const client = join(repo, 'clients/jetbrains');
const pluginDir = join(client, 'src/main/java/dev/levelcode/sessions/plugin');
const stubDir = join(client, 'stubs/src');
const API = /\b((?:com\.intellij|org\.jetbrains)(?:\.[a-z]\w*)+)\.([A-Z]\w*)/g;

function javaFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.java'))
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/** The API classes a Java text names in full (imports and inline names), as package.Class. */
function named(text) {
  return new Set([...text.matchAll(API)].map((m) => `${m[1]}.${m[2]}`));
}

const used = new Set();
for (const f of javaFiles(pluginDir)) for (const c of named(readFileSync(f, 'utf8'))) used.add(c);

const stubs = new Map(); // package.Class -> text
for (const f of javaFiles(stubDir)) stubs.set(relative(stubDir, f).slice(0, -'.java'.length).split(sep).join('.'), readFileSync(f, 'utf8'));

// The stubs needed: what plugin/ uses, then what those stubs name (in full or, in their own
// package, by simple name), until nothing new is added.
const needed = new Set([...used].filter((c) => stubs.has(c)));
for (let grew = true; grew; ) {
  grew = false;
  for (const c of [...needed]) {
    const text = stubs.get(c) ?? '';
    const pkg = c.slice(0, c.lastIndexOf('.'));
    const refs = [...named(text)];
    for (const s of stubs.keys())
      if (s.slice(0, s.lastIndexOf('.')) === pkg && new RegExp(`\\b${s.slice(pkg.length + 1)}\\b`).test(text)) refs.push(s);
    for (const r of refs)
      if (stubs.has(r) && !needed.has(r)) {
        needed.add(r);
        grew = true;
      }
  }
}

const missing = [...used].filter((c) => !stubs.has(c)).sort();
const unused = [...stubs.keys()].filter((c) => !needed.has(c)).sort();
for (const c of missing) process.stderr.write(`jetbrains-stubs: plugin/ uses ${c}, which has no stub in clients/jetbrains/stubs/src\n`);
for (const c of unused) process.stderr.write(`jetbrains-stubs: the stub ${c} is used neither by plugin/ nor by another needed stub\n`);
if (missing.length || unused.length) process.exit(1);
process.stdout.write(`jetbrains-stubs: ${stubs.size} stub classes for the ${used.size} IntelliJ classes plugin/ uses\n`);
