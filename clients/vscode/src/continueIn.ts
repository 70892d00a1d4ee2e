// "Continue in Claude Code" (Codex, Gemini CLI, …): an imported session whose tool resumes by id
// carries `continueIn: {argv, cwd}` in session/list (the sidecar builds it: `claude --resume ID`,
// `codex resume ID`, `gemini --resume ID`); the History row offers it beside Resume and runs argv
// in an integrated terminal in cwd, never through a shell. Menu titles are static in a manifest,
// so each tool has a command of its own, shown on rows whose contextValue names that tool.
// Pure: no `vscode` import (the unit tests and the manifest test use it).

import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';

/** The source tools the sidecar gives a continueIn for, and the command each row action runs. */
export const CONTINUE_COMMANDS: Readonly<Record<string, string>> = {
  'claude-code': 'levelcodeSessions.continueInClaudeCode',
  codex: 'levelcodeSessions.continueInCodex',
  gemini: 'levelcodeSessions.continueInGemini',
  qwen: 'levelcodeSessions.continueInQwen',
  'copilot-cli': 'levelcodeSessions.continueInCopilotCli',
  'cursor-agent': 'levelcodeSessions.continueInCursorAgent',
  opencode: 'levelcodeSessions.continueInOpencode',
  pi: 'levelcodeSessions.continueInPi',
  continue: 'levelcodeSessions.continueInContinue',
};

export interface Continuable {
  source?: { tool: string };
  continueIn?: { argv: string[]; cwd: string };
}

/** A row's contextValue: "levelcodeSession", plus " continue:<tool>" where it can continue there. */
export function rowContext(base: string, s: Continuable): string {
  const tool = s.source?.tool;
  return tool && s.continueIn && CONTINUE_COMMANDS[tool] ? `${base} continue:${tool}` : base;
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

/** The agent CLIs a session can be handed off to (session/handoff): sidecar name, label, command. */
export const HANDOFF_TOOLS = [
  { to: 'claude-code', label: 'Claude Code', bin: 'claude' },
  { to: 'codex', label: 'Codex', bin: 'codex' },
] as const;

/** The first agent CLI a chat can be handed off to that is on PATH (Claude Code, then Codex). */
export async function installedHandoffTool(): Promise<(typeof HANDOFF_TOOLS)[number] | undefined> {
  for (const tool of HANDOFF_TOOLS) if (await findOnPath(tool.bin)) return tool;
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
