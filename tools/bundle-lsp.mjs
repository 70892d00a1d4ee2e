// Bundles vscode-languageserver (and its /node entry, with vscode-languageserver-protocol and
// vscode-jsonrpc behind them) into one CommonJS file, dist/vendor/vscode-languageserver.cjs,
// which server/rpc/lsp.ts loads in place of the package when it is there.
//
// Why: the sidecar requires the library before it can answer `initialize`, and Node resolving,
// reading and compiling its few dozen files one by one was 30-60 ms of a ~200 ms start on the
// bench machine (bench/PERFORMANCE.md: sidecar start). One file is the same code, the same
// version (the one installed, bundled as it is), loaded in one read. The VS Code extension's
// own esbuild bundle already does this for the whole sidecar (clients/vscode/build.mjs).
//
// It then writes the bundle's V8 code cache beside it (dist/vendor/vscode-languageserver.cjs.v8cache,
// server/rpc/code-cache.ts): made by this Node, which is the one `npm ci` and `npm run build`
// run with; another Node's V8 refuses it, and the bundle is then compiled the ordinary way.
//
// Run by `npm run build` and `prepare` after tsc (it uses dist/rpc/code-cache.js). Depends on
// esbuild only.

import * as esbuild from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(repo, 'dist', 'vendor', 'vscode-languageserver.cjs');

await esbuild.build({
  stdin: {
    contents: "module.exports = { lsp: require('vscode-languageserver'), lspNode: require('vscode-languageserver/node') };",
    resolveDir: repo,
    sourcefile: 'vscode-languageserver-entry.cjs',
    loader: 'js',
  },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile,
  legalComments: 'inline',
  logLevel: 'warning',
});

// In a fresh Node with no flags, as the sidecar runs: V8 refuses a cache made under other flags.
const made = spawnSync(
  process.execPath,
  ['--input-type=module', '-e', `import { writeCodeCache } from ${JSON.stringify(pathToFileURL(join(repo, 'dist', 'rpc', 'code-cache.js')).href)}; writeCodeCache(${JSON.stringify(outfile)});`],
  { stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '' } },
);
if (made.status !== 0) {
  process.stderr.write(`bundle-lsp: could not write the code cache of ${outfile} (exit ${made.status})\n`);
  process.exit(1);
}
