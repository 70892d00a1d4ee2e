// vscode-languageserver (and its node entry point), loaded with require rather than an ES import.
// Performance: an ES import of a CommonJS package makes Node scan its source for export names,
// following every re-export (vscode-languageserver re-exports -protocol, which re-exports
// vscode-jsonrpc): about 60 ms of the sidecar's start against a plain require
// (bench/PERFORMANCE.md: sidecar start). server.ts, handlers.ts and errors.ts take the library
// from here; the library, its version and its behaviour are unchanged.
//
// Three ways in, the same code:
// - in an esbuild bundle (the .vsix), which defines `require` and bundles these literal calls;
// - from dist/vendor/vscode-languageserver.cjs, the installed library bundled into one file by
//   tools/bundle-lsp.mjs at build time: one file to read and compile instead of a few dozen to
//   resolve one by one (30-60 ms of the start);
// - from the package itself, when dist/ was built by tsc alone.
import { createRequire } from 'node:module';

type Lsp = typeof import('vscode-languageserver');
type LspNode = typeof import('vscode-languageserver/node');

function load(): { lsp: Lsp; lspNode: LspNode } {
  if (typeof require === 'function') return { lsp: require('vscode-languageserver'), lspNode: require('vscode-languageserver/node') };
  const req = createRequire(import.meta.url);
  try {
    return req('../vendor/vscode-languageserver.cjs') as { lsp: Lsp; lspNode: LspNode };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
  }
  return { lsp: req('vscode-languageserver'), lspNode: req('vscode-languageserver/node') };
}

export const { lsp, lspNode } = load();
