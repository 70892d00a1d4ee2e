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
// Run by `npm run build` and `prepare` after tsc. Depends on esbuild only.

import * as esbuild from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
