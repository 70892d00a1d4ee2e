// The importers this build knows, by the name the CLI and `source.tool` use. Adding a tool is
// one module of server/import and one line here.

import type { Importer } from './types.js';
import { claudeCode } from './claude-code.js';
import { codex } from './codex.js';
import { gemini } from './gemini.js';
import { vscodeChat } from './vscode-chat.js';

export const IMPORTERS: readonly Importer[] = [claudeCode, codex, gemini, vscodeChat];

export function importerOf(tool: string): Importer | undefined {
  return IMPORTERS.find((i) => i.tool === tool);
}

/** The default data folders of every importer (or the one named), that exist or not. */
export function defaultJobs(importers: readonly Importer[], env: NodeJS.ProcessEnv, home: string): { importer: Importer; roots: string[] }[] {
  return importers.map((importer) => ({ importer, roots: importer.defaultRoots(env, home) }));
}
