// "Continue in Claude Code" (Codex, Gemini CLI, …): an imported session whose tool resumes by id
// carries `continueIn: {argv, cwd}` in session/list (the sidecar builds it: `claude --resume ID`,
// `codex resume ID`, `gemini --resume ID`); the History row offers it beside Resume and runs argv
// in an integrated terminal in cwd, never through a shell. Menu titles are static in a manifest,
// so each tool has a command of its own, shown on rows whose contextValue names that tool: the
// build generates those entries from the tool descriptors (tools/vscode-manifest.mjs), and
// commands/index.ts registers every one the manifest lists. The agent CLIs a chat can be handed
// off to are the sidecar's (its capability's `tools`); the extension keeps no list of tools.
// Pure: no `vscode` import (the unit tests and the manifest test use it).

import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import type { HandoffParams, ToolInfo } from './protocol';

export interface Continuable {
  source?: { tool: string };
  continueIn?: { argv: string[]; cwd: string };
}

/**
 * A row's contextValue: "levelcodeSession", plus " continue:<tool>" where the sidecar gave a
 * continueIn; the manifest's Continue in <tool> entries match on it.
 */
export function rowContext(base: string, s: Continuable): string {
  const tool = s.source?.tool;
  return tool && s.continueIn ? `${base} continue:${tool}` : base;
}

/** The full path of `cmd` as the terminal would find it on PATH, or undefined when it is not there. */
export async function findOnPath(
  cmd: string,
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): Promise<string | undefined> {
  const exts = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  const dirs = isAbsolute(cmd) ? [''] : (env.PATH ?? env.Path ?? '').split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    for (const ext of exts) {
      const p = dir ? join(dir, cmd + ext) : cmd + ext;
      try {
        await access(p, platform === 'win32' ? constants.F_OK : constants.X_OK);
        if ((await stat(p)).isFile()) return p;
      } catch {
        /* not here: the next folder */
      }
    }
  }
  return undefined;
}

/** An agent CLI a session can be handed off to (session/handoff): sidecar name, label, command, install line. */
export interface HandoffTool {
  to: HandoffParams['to'];
  label: string;
  bin: string;
  install: string;
}

/** The agent CLIs of the sidecar's capability (`tools` with `handoff`), in its order. */
export function handoffTools(tools: readonly ToolInfo[] | undefined): HandoffTool[] {
  return (tools ?? []).flatMap((t) =>
    t.handoff ? [{ to: t.id as HandoffParams['to'], label: t.label, bin: t.handoff.bin, install: t.handoff.install }] : [],
  );
}

let known: readonly ToolInfo[] = [];

/** The running sidecar's tools: sidecar.ts sets them each time it is ready. */
export function setKnownTools(tools: readonly ToolInfo[] | undefined): void {
  known = tools ?? [];
}

/** The hand-off tools of the running sidecar (none before it is ready). */
export function knownHandoffTools(): HandoffTool[] {
  return handoffTools(known);
}

/** What to install when none is on PATH: "Claude Code (npm install -g …) or Codex (npm install -g …)". */
export function installLine(tools: readonly HandoffTool[]): string {
  const each = tools.map((t) => `${t.label} (${t.install})`);
  return each.length < 2 ? each.join('') : `${each.slice(0, -1).join(', ')} or ${each[each.length - 1]}`;
}

/** The first agent CLI a chat can be handed off to that is on PATH (Claude Code, then Codex). */
export async function installedHandoffTool(tools: readonly HandoffTool[] = knownHandoffTools()): Promise<HandoffTool | undefined> {
  for (const tool of tools) if (await findOnPath(tool.bin)) return tool;
  return undefined;
}

/** Whether the folder to run in is there (the tool's project folder may have moved). */
export async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
