// Bundles the two libraries the sidecar and the CLI load before they can do their work, each into
// one CommonJS file under dist/vendor/, and writes each file's V8 code cache beside it:
// - vscode-languageserver (its /node entry, with vscode-languageserver-protocol and
//   vscode-jsonrpc behind them): dist/vendor/vscode-languageserver.cjs, which
//   server/rpc/lsp.ts loads in place of the package; the sidecar needs it before it can answer
//   `initialize`;
// - zod: dist/vendor/zod.cjs, which server/core/zod.ts loads in place of the package; the
//   sidecar needs it before its first request, and the CLI before any command that goes
//   through the store.
//
// Why: Node resolving, reading and compiling each library's files one by one (a few dozen for
// the first, a few hundred for zod) was 30-60 and 80-120 ms on the bench machine; one file is
// one read, and its code cache (server/core/code-cache.ts) saves compiling it and the functions
// its module code runs (bench/PERFORMANCE.md: sidecar start). The code is the installed
// version's, bundled as it is. The VS Code extension's own esbuild bundle already does this for
// the whole sidecar (clients/vscode/build.mjs).
//
// The caches are made by this Node, the one `npm ci` and `npm run build` run with, in a fresh
// process with no flags, as the sidecar runs; another Node's V8 refuses them, and the files are
// then compiled the ordinary way.
//
// Run by `npm run build` and `prepare` after tsc (it uses dist/core/code-cache.js). Depends on
// esbuild only.

import * as esbuild from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const vendor = join(repo, 'dist', 'vendor');

const bundles = [
  {
    file: 'vscode-languageserver.cjs',
    contents: "module.exports = { lsp: require('vscode-languageserver'), lspNode: require('vscode-languageserver/node') };",
  },
  { file: 'zod.cjs', contents: "module.exports = require('zod');" },
];

for (const { file, contents } of bundles) {
  const outfile = join(vendor, file);
  await esbuild.build({
    stdin: { contents, resolveDir: repo, sourcefile: `${file.replace(/\.cjs$/, '')}-entry.cjs`, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    legalComments: 'inline',
    logLevel: 'warning',
  });
  const made = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import { writeCodeCache } from ${JSON.stringify(pathToFileURL(join(repo, 'dist', 'core', 'code-cache.js')).href)}; writeCodeCache(${JSON.stringify(outfile)});`],
    { stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  if (made.status !== 0) {
    process.stderr.write(`bundle-vendor: could not write the code cache of ${outfile} (exit ${made.status})\n`);
    process.exit(1);
  }
}
