// vscode-languageserver (and its node entry point), loaded with require rather than an ES import.
// Performance: an ES import of a CommonJS package makes Node scan its source for export names,
// following every re-export (vscode-languageserver re-exports -protocol, which re-exports
// vscode-jsonrpc): about 60 ms of the sidecar's start against a plain require
// (bench/PERFORMANCE.md: sidecar start). server.ts and errors.ts take the library from here;
// the library, its version and its behaviour are unchanged.
//
// Where a `require` exists (the .vsix's esbuild bundle defines one, and esbuild bundles these
// literal require calls), it is used; in Node's ES modules (dist/) one is made for this file.
import { createRequire } from 'node:module';

type Lsp = typeof import('vscode-languageserver');
type LspNode = typeof import('vscode-languageserver/node');

const bundled = typeof require === 'function';
export const lsp: Lsp = bundled ? require('vscode-languageserver') : createRequire(import.meta.url)('vscode-languageserver');
export const lspNode: LspNode = bundled ? require('vscode-languageserver/node') : createRequire(import.meta.url)('vscode-languageserver/node');
