// The build: tsc, then a stamp (dist/.build-stamp) that says what it was built from.
// `node tools/build.mjs` always builds (`npm run build`, and `prepare`, which `npm ci` runs);
// `node tools/build.mjs --if-stale` builds only when dist/ is not what a build of this checkout
// would make (`npm test` and the other scripts that need dist/), so that `npm ci && npm test`
// builds once. `--check` builds nothing and exits 1 when dist/ is stale.
//
// dist/ is current when the stamp names the same sources: every file under server/, tsconfig,
// package.json, the lock file and this script, by content (a checkout or a touch that changes
// no byte rebuilds nothing). Depends on node: only; runs tsc as a child process.

import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(repo, 'dist');
const stampFile = join(dist, '.build-stamp');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : [join(dir, d.name)]))
    .sort();
}

/** What a build of this checkout is made from, as one digest. */
function sources() {
  const h = createHash('sha256');
  const inputs = [
    ...files(join(repo, 'server')),
    ...['tsconfig.json', 'package.json', 'package-lock.json', 'tools/build.mjs'].map((f) => join(repo, f)),
  ];
  for (const f of inputs) h.update(f.slice(repo.length)).update('\0').update(readFileSync(f)).update('\0');
  return { sources: h.digest('hex') };
}

function current(want) {
  try {
    const have = JSON.parse(readFileSync(stampFile, 'utf8'));
    return have.sources === want.sources;
  } catch {
    return false;
  }
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const want = sources();
if (process.argv.includes('--check')) {
  const ok = current(want);
  console.log(ok ? 'dist/ is current' : 'dist/ is stale: run npm run build');
  process.exit(ok ? 0 : 1);
} else if (process.argv.includes('--if-stale') && current(want)) {
  console.log('dist/ is current (built from these sources); not rebuilt');
} else {
  run(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
  writeFileSync(stampFile, JSON.stringify(want) + '\n');
}
