// vscode-languageserver (and its node entry point), loaded with require rather than an ES import.
// Performance: an ES import of a CommonJS package makes Node scan its source for export names,
// following every re-export (vscode-languageserver re-exports -protocol, which re-exports
// vscode-jsonrpc): about 60 ms of the sidecar's start against a plain require
// (bench/PERFORMANCE.md: sidecar start). server.ts, handlers.ts and errors.ts take the library
// from here; the library, its version and its behaviour are unchanged.
//
// Three ways in, the same code:
// - in the VS Code extension's esbuild bundle (the .vsix), which bundles these literal calls
//   (code-cache.ts: librariesBundled);
// - from dist/vendor/vscode-languageserver.cjs, the installed library bundled into one file by
//   tools/bundle.mjs at build time: one file to read and compile instead of a few dozen to
//   resolve one by one (30-60 ms of the start), with the V8 code cache that script writes
//   beside it (code-cache.ts: half of what is left);
// - from the package itself, when dist/ was built by tsc alone.
import { createRequire } from 'node:module';
import { librariesBundled, requireVendored, type LoadedFrom } from '../core/code-cache.js';

type Lsp = typeof import('vscode-languageserver');
type LspNode = typeof import('vscode-languageserver/node');
type Loaded = { lsp: Lsp; lspNode: LspNode };

function load(): Loaded & { via: LoadedFrom } {
  if (librariesBundled) return { lsp: require('vscode-languageserver'), lspNode: require('vscode-languageserver/node'), via: 'esbuild' };
  // With the V8 code cache the build wrote beside it (code-cache.ts): about half the load.
  const { exports, via } = requireVendored<Loaded>(new URL('../vendor/vscode-languageserver.cjs', import.meta.url), () => {
    const req = createRequire(import.meta.url);
    return { lsp: req('vscode-languageserver'), lspNode: req('vscode-languageserver/node') };
  });
  return { ...exports, via };
}

export const { lsp, lspNode, via: lspSource } = load();
