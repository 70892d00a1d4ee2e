// vscode-languageserver (and its /node entry) through require rather than an ES import. Kept for
// the guardrail "sidecar start to `initialize` answered" (bench/PERFORMANCE.md): an ES import
// of this CommonJS library makes Node scan its source for export names along its re-export
// chain (-protocol, vscode-jsonrpc), which alone put the start past that bound on Node 20.
// server.ts and errors.ts, which the sidecar loads before it answers `initialize`, take it here.
import { createRequire } from 'node:module';

const req = createRequire(import.meta.url);
export const lsp = req('vscode-languageserver') as typeof import('vscode-languageserver');
export const lspNode = req('vscode-languageserver/node') as typeof import('vscode-languageserver/node');
