// Going on in another tool's terminal: "Continue in <tool>" on an imported row runs that tool's
// own resume command (the argv the sidecar names, continueIn.ts) in a terminal in its project
// folder; "Continue in an agent CLI…" hands any chat off (session/handoff) to one of the agent
// CLIs the sidecar names (Claude Code, Codex), whichever is on PATH, and runs its resume. The tool is the terminal's process, argv as
// given, no shell in between.

import * as vscode from 'vscode';
import { messageOf } from '../errors';
import { findOnPath, type HandoffTool, handoffTools, installLine, isFolder } from '../continueIn';
import { itemLabel } from '../history/labels';
import { S } from '../strings';
import { type CommandDeps, type Target, target } from './target';

type Found = { tool: HandoffTool; exe: string };

/** Continue in <tool>: the tool's own resume command in a terminal in its project folder. */
export async function continueInTool(deps: CommandDeps, arg: Target): Promise<void> {
  const s = await target(deps, arg, S.pick.resumePlaceholder);
  if (!s) return;
  const c = s.continueIn;
  const [cmd, ...args] = c?.argv ?? [];
  if (!c || !cmd) {
    void vscode.window.showInformationMessage(S.continueIn.notAvailable(itemLabel(s)));
    return;
  }
  const tool = s.sourceLabel ?? cmd;
  if (!(await isFolder(c.cwd))) {
    void vscode.window.showErrorMessage(S.continueIn.folderGone(tool, c.cwd));
    return;
  }
  const exe = await findOnPath(cmd);
  if (!exe) {
    void vscode.window.showErrorMessage(S.continueIn.notOnPath(tool, cmd));
    return;
  }
  // shellPath/shellArgs: the tool itself is the terminal's process, argv as given, no shell.
  deps.sidecar.log.info(`continue in ${tool}: ${exe} ${args.join(' ')} (in ${c.cwd})`);
  try {
    const name = S.continueIn.terminalName(tool, itemLabel(s));
    vscode.window.createTerminal({ name, cwd: c.cwd, shellPath: exe, shellArgs: args }).show();
  } catch (e) {
    void vscode.window.showErrorMessage(S.continueIn.failed(tool, messageOf(e)));
  }
}

/**
 * Continue in an agent CLI: any session handed off (session/handoff) to Claude Code or Codex,
 * whichever is on PATH (asked when both are), and that tool's resume run in a terminal.
 */
export async function handoff(deps: CommandDeps, arg: Target): Promise<void> {
  const { sidecar } = deps;
  const s = await target(deps, arg, S.pick.resumePlaceholder);
  if (!s) return;
  const pick = await pickHandoffTool(handoffTools(sidecar.tools), itemLabel(s));
  if (!pick) return;
  const label = pick.tool.label;
  try {
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: S.handoff.progress(label) }, () =>
      sidecar.request('session/handoff', { id: s.id, to: pick.tool.to }),
    );
    if (r.note) void vscode.window.showInformationMessage(S.handoff.note(label, r.note));
    sidecar.log.info(`hand-off to ${label}: ${r.path}; ${r.command}`);
    // The tool itself is the terminal's process, argv as given, no shell.
    const name = S.continueIn.terminalName(label, itemLabel(s));
    vscode.window.createTerminal({ name, cwd: r.cwd, shellPath: pick.exe, shellArgs: r.argv.slice(1) }).show();
  } catch (e) {
    void vscode.window.showErrorMessage(S.handoff.failed(label, messageOf(e)));
  }
}

/** The hand-off tools on PATH: none (the user told so), the one there, or the one picked. */
async function pickHandoffTool(tools: HandoffTool[], title: string): Promise<Found | undefined> {
  const found: Found[] = [];
  for (const tool of tools) {
    const exe = await findOnPath(tool.bin);
    if (exe) found.push({ tool, exe });
  }
  if (found.length === 0) {
    void vscode.window.showInformationMessage(S.handoff.none(installLine(tools)));
    return undefined;
  }
  if (found.length === 1) return found[0];
  const items = found.map((f) => ({ label: f.tool.label, f }));
  return (await vscode.window.showQuickPick(items, { title: S.handoff.pickTitle(title) }))?.f;
}
