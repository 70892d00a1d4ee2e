// Every command the extension registers, in one table (the titles, menus and `when` clauses are
// in package.json), all under the category "LevelCode". Each group's work is in its own file:
//   resume.ts    New Chat, Resume, Resume Last Chat, Open Transcript and the row's preview
//   history.ts   Chat History (a QuickPick that searches titles and, through session/search, transcripts)
//   edit.ts      Rename…, Pin / Unpin, Archive (with Undo), Unarchive
//   delete.ts    Delete (to the OS trash with an Undo that restores, else deferred)
//   fork.ts      Fork from Turn…
//   retention.ts Apply Retention…
//   relink.ts    Relink Chats from Another Folder…
//   export.ts    Copy as Markdown, Export as Markdown…
//   continue.ts  Continue in <tool> on an imported row; Continue in an agent CLI (hand-off)
//   import.ts    Import Chats from Other AI Tools…
// target.ts says how an item command finds its chat: the row it was run on, an id, or (from the
// palette) one the user picks. F2 and Delete on the History view act on the selected row.

import * as vscode from 'vscode';
import { continueInTool, handoff } from './continue';
import { remove } from './delete';
import { archive, rename, setPinned, unarchive } from './edit';
import { copyMarkdown, exportMarkdown } from './export';
import { forkFromTurn } from './fork';
import { showHistory } from './history';
import { importChats } from './import';
import { relinkFolder } from './relink';
import { applyRetention } from './retention';
import { newChat, resume, resumeLast, transcript, transcriptPreview } from './resume';
import type { CommandDeps, Target } from './target';

export type { CommandDeps } from './target';

/** The part of the extension's package.json read here: its commands. */
export interface Manifest {
  contributes?: { commands?: { command: string }[] };
}

export function registerCommands(deps: CommandDeps, manifest: Manifest): vscode.Disposable[] {
  const { sidecar, history } = deps;
  const on = (fn: (deps: CommandDeps, arg: Target) => Promise<void>) => (arg: Target) => fn(deps, arg);
  /** Delete and F2 on the History view: the selected row (nothing selected: nothing to do). */
  const onSelected = (fn: (deps: CommandDeps, arg: Target) => Promise<void>) => async () => {
    const node = history.view?.selection[0];
    if (node?.kind === 'session') await fn(deps, node);
  };
  const r = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown);
  return [
    r('levelcodeSessions.newChat', () => newChat(deps)),
    r('levelcodeSessions.showHistory', () => showHistory(deps)),
    r('levelcodeSessions.resumeLast', () => resumeLast(deps)),
    r('levelcodeSessions.resume', on(resume)),
    r('levelcodeSessions.openTranscript', on(transcript)),
    r('levelcodeSessions.openTranscriptPreview', on(transcriptPreview)),
    r('levelcodeSessions.renameSelected', onSelected(rename)),
    r('levelcodeSessions.deleteSelected', onSelected(remove)),
    r('levelcodeSessions.rename', on(rename)),
    r('levelcodeSessions.delete', on(remove)),
    r('levelcodeSessions.pin', (arg: Target) => setPinned(deps, arg, true)),
    r('levelcodeSessions.unpin', (arg: Target) => setPinned(deps, arg, false)),
    r('levelcodeSessions.archive', on(archive)),
    r('levelcodeSessions.unarchive', on(unarchive)),
    r('levelcodeSessions.showArchived', () => history.setShowArchived(true)),
    r('levelcodeSessions.hideArchived', () => history.setShowArchived(false)),
    r('levelcodeSessions.forkFromTurn', on(forkFromTurn)),
    r('levelcodeSessions.applyRetention', () => applyRetention(deps)),
    r('levelcodeSessions.relinkFolder', () => relinkFolder(deps)),
    r('levelcodeSessions.copyMarkdown', on(copyMarkdown)),
    r('levelcodeSessions.exportMarkdown', on(exportMarkdown)),
    // One command per tool, so each imported row's menu can say "Continue in Claude Code": every
    // continueIn<Tool> the manifest lists (generated from the tool descriptors, continueIn.ts).
    ...(manifest.contributes?.commands ?? [])
      .filter((c) => c.command.startsWith('levelcodeSessions.continueIn'))
      .map((c) => r(c.command, on(continueInTool))),
    r('levelcodeSessions.handoff', on(handoff)),
    r('levelcodeSessions.importChats', () => importChats(deps)),
    r('levelcodeSessions.refresh', () => history.reload()),
    r('levelcodeSessions.showLog', () => sidecar.log.show(true)),
    r('levelcodeSessions.restartSidecar', () => sidecar.restart()),
  ];
}
