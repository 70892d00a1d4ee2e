// Generates the VS Code extension's "Continue in <tool>" entries from the tool descriptors
// (server/import/tools.ts, read from the build in dist/import/tools.js): a manifest cannot
// compute a menu title, so each tool that resumes by id has a command of its own. For each one
// it writes into clients/vscode/package.json the command (`levelcodeSessions.continueIn<Name>`),
// two `view/item/context` entries (inline and in the row's menu, on rows whose contextValue says
// `continue:<id>`) and a `commandPalette` entry that hides it there, and into package.nls.json
// its title ("Continue in Claude Code"). Every other key is left as it is; the generated entries
// take the place of the old ones. clients/vscode/build.mjs runs it before bundling.
//
// Usage: node tools/vscode-manifest.mjs [--check] [--dir CLIENT_DIR] [--tools TOOLS_JS]
//   --check   write nothing; exit 1 naming the file that differs from what it would write
// Depends on node: only, and on dist/ (node tools/build.mjs).

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const PREFIX = 'levelcodeSessions.continueIn';

/** The manifest entries of the tools that resume by id, in the descriptors' order. */
export function entriesOf(tools) {
  const continuable = tools.filter((t) => t.resume && t.vscodeCommand);
  const missing = tools.filter((t) => t.resume && !t.vscodeCommand).map((t) => t.id);
  if (missing.length) throw new Error(`tools with a resume command need a vscodeCommand: ${missing.join(', ')}`);
  const command = (t) => `${PREFIX}${t.vscodeCommand}`;
  const when = (t) => `view == levelcodeSessions.history && viewItem =~ /\\bcontinue:${t.id}$/`;
  return {
    commands: continuable.map((t) => ({
      command: command(t),
      title: `%command.continueIn${t.vscodeCommand}%`,
      category: '%category%',
      icon: '$(terminal)',
    })),
    items: continuable.flatMap((t) => [
      { command: command(t), when: when(t), group: 'inline@3' },
      { command: command(t), when: when(t), group: '1_open@3' },
    ]),
    palette: continuable.map((t) => ({ command: command(t), when: 'levelcodeSessions.never' })),
    nls: Object.fromEntries(continuable.map((t) => [`command.continueIn${t.vscodeCommand}`, `Continue in ${t.label}`])),
  };
}

/** `list` with its continue-in entries replaced by `fresh`, where the first of them was (else at the end). */
function replaceIn(list, fresh) {
  const ours = (e) => typeof e.command === 'string' && e.command.startsWith(PREFIX);
  const at = list.findIndex(ours);
  const rest = list.filter((e) => !ours(e));
  const before = at < 0 ? rest.length : list.slice(0, at).filter((e) => !ours(e)).length;
  return [...rest.slice(0, before), ...fresh, ...rest.slice(before)];
}

/** The manifest with the generated entries. */
export function generateManifest(manifest, e) {
  const out = structuredClone(manifest);
  const c = out.contributes;
  c.commands = replaceIn(c.commands ?? [], e.commands);
  c.menus ??= {};
  c.menus['view/item/context'] = replaceIn(c.menus['view/item/context'] ?? [], e.items);
  c.menus.commandPalette = replaceIn(c.menus.commandPalette ?? [], e.palette);
  return out;
}

/** The nls file with the generated titles, where the first old one was (else at the end). */
export function generateNls(nls, e) {
  const ours = (k) => k.startsWith('command.continueIn');
  const out = {};
  let placed = false;
  for (const [k, v] of Object.entries(nls)) {
    if (!ours(k)) out[k] = v;
    else if (!placed) {
      Object.assign(out, e.nls);
      placed = true;
    }
  }
  if (!placed) Object.assign(out, e.nls);
  return out;
}

const text = (o) => `${JSON.stringify(o, null, 2)}\n`;

/**
 * Writes (or with `check`, compares) the client's package.json and package.nls.json against the
 * entries of `tools` (the descriptors' TOOLS). Answers the files that differed.
 */
export function syncManifest({ dir, tools, check = false, log = (l) => process.stdout.write(`${l}\n`) }) {
  const e = entriesOf(tools);
  const files = [
    [join(dir, 'package.json'), (o) => generateManifest(o, e)],
    [join(dir, 'package.nls.json'), (o) => generateNls(o, e)],
  ];
  const differ = [];
  for (const [file, gen] of files) {
    const have = readFileSync(file, 'utf8');
    const want = text(gen(JSON.parse(have)));
    if (want === have) continue;
    differ.push(file);
    if (check)
      log(`vscode-manifest: ${file} differs from the tool descriptors (server/import/tools.ts); run node tools/vscode-manifest.mjs`);
    else {
      writeFileSync(file, want);
      log(`vscode-manifest: wrote ${file}`);
    }
  }
  return differ;
}

async function main() {
  const { values } = parseArgs({
    options: { check: { type: 'boolean' }, dir: { type: 'string' }, tools: { type: 'string' } },
  });
  const dir = resolve(values.dir ?? join(repo, 'clients', 'vscode'));
  const toolsJs = resolve(values.tools ?? join(repo, 'dist', 'import', 'tools.js'));
  let TOOLS;
  try {
    ({ TOOLS } = await import(pathToFileURL(toolsJs).href));
  } catch (e) {
    process.stderr.write(`vscode-manifest: cannot load ${toolsJs} (${e.message}); run node tools/build.mjs first\n`);
    return 2;
  }
  const check = !!values.check;
  const differ = syncManifest({ dir, tools: TOOLS, check, log: (l) => (check ? process.stderr : process.stdout).write(`${l}\n`) });
  return check && differ.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main();
