// The commands, all under the category "LevelCode" (package.json): New Chat, Chat History (a
// QuickPick searching titles, first messages and, through session/search, the transcripts),
// Resume Last Chat, and the item actions Resume, Open Transcript, Rename, Delete (to the OS trash
// with an Undo that restores where the sidecar can, else deferred: see pendingDeletes.ts), Pin,
// Archive, Unarchive, Fork from Turn…, Copy as Markdown, Export as Markdown, and on an imported
// row "Continue in <tool>" (continueIn.ts); on the view, Show / Hide Archived Chats, Apply
// Retention… and Relink Chats from Another Folder… (lifecycleCommands.ts), and Import Chats from
// Other AI Tools… (importChats.ts). An item action run from the palette asks which chat
// first; F2 and Delete on the History view act on the selected row.

import * as vscode from 'vscode';
import { codeOf, messageOf, type Chat } from './chat';
import type { Settings } from './config';
import { HANDOFF_TOOLS, findOnPath, isFolder } from './continueIn';
import { exportFileName, itemDescription, itemLabel } from './history/labels';
import type { PendingDeletes } from './history/pendingDeletes';
import type { HistoryNode, HistoryProvider } from './historyView';
import { importChats } from './importChats';
import { lifecycleCommands } from './lifecycleCommands';
import { ErrorCodes, type SessionSummary } from './protocol';
import type { Sidecar } from './sidecar';
import { S } from './strings';
import { openTranscript, openTranscriptPreview } from './transcript';

export interface CommandDeps {
  sidecar: Sidecar;
  history: HistoryProvider;
  chat: Chat;
  deletes: PendingDeletes;
  settings: () => Settings;
  projects: () => string[];
}

type Target = HistoryNode | SessionSummary | string | undefined;

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { sidecar, history, chat, deletes } = deps;
  const life = lifecycleCommands(deps);

  /** The chat a command is about: the tree item it was run on, an id, or one the user picks. */
  async function target(arg: Target, placeholder: string): Promise<SessionSummary | undefined> {
    if (arg && typeof arg === 'object' && 'kind' in arg) return arg.kind === 'session' ? arg.session : undefined;
    if (arg && typeof arg === 'object' && 'id' in arg) return arg;
    if (typeof arg === 'string') return history.find(arg) ?? (await listAll()).find((s) => s.id === arg);
    // From the palette: always ask (never act on a selection the user may not be looking at).
    return pickSession(placeholder);
  }

  async function listAll(): Promise<SessionSummary[]> {
    await history.reload();
    return history.visibleSessions();
  }

  async function pickSession(placeholder: string): Promise<SessionSummary | undefined> {
    const sessions = await listAll();
    if (sessions.length === 0) {
      void vscode.window.showInformationMessage(S.pick.empty);
      return undefined;
    }
    const items = sessions.map((s) => ({ label: itemLabel(s), description: itemDescription(s), detail: s.preview, session: s }));
    const pick = await vscode.window.showQuickPick(items, { placeHolder: placeholder, matchOnDescription: true, matchOnDetail: true });
    return pick?.session;
  }

  /**
   * Chat History: search as you type; transcript matches (session/search) join the title matches.
   * Enter resumes the chat; the item's button opens its transcript.
   */
  async function showHistory(): Promise<void> {
    type Item = vscode.QuickPickItem & { session: SessionSummary };
    const qp = vscode.window.createQuickPick<Item>();
    qp.placeholder = S.pick.placeholder;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.busy = true;
    const transcriptButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: S.pick.openTranscript };
    const base = (s: SessionSummary): Item => ({
      label: itemLabel(s),
      description: itemDescription(s),
      detail: s.preview,
      buttons: [transcriptButton],
      session: s,
    });
    let sessions: SessionSummary[] = [];
    let searchTimer: NodeJS.Timeout | undefined;
    let searchToken: vscode.CancellationTokenSource | undefined;
    const disposables: vscode.Disposable[] = [];
    const search = (query: string) => {
      searchToken?.cancel();
      if (searchTimer) clearTimeout(searchTimer);
      const q = query.trim();
      if (q.length < 3 || !sidecar.has('search')) {
        qp.items = sessions.map(base);
        return;
      }
      searchTimer = setTimeout(async () => {
        const cts = (searchToken = new vscode.CancellationTokenSource());
        qp.busy = true;
        try {
          const projects = deps.projects();
          const r = await sidecar.request('session/search', { query: q, ...(projects[0] ? { project: projects[0] } : { all: true }), limit: 200, perSession: 1 }, cts.token);
          if (cts.token.isCancellationRequested) return;
          const snippets = new Map<string, string>();
          for (const hit of r.hits) if (!snippets.has(hit.sessionId)) snippets.set(hit.sessionId, hit.snippet);
          qp.items = sessions.map((s) => {
            const snippet = snippets.get(s.id);
            return snippet === undefined ? base(s) : { ...base(s), detail: `${S.pick.fullTextMatch}: ${snippet}`, alwaysShow: true };
          });
        } catch (e) {
          if (codeOf(e) !== ErrorCodes.RequestCancelled) sidecar.log.warn(`search: ${messageOf(e)}`);
        } finally {
          if (searchToken === cts) qp.busy = false;
        }
      }, 250);
    };
    disposables.push(
      qp.onDidChangeValue(search),
      qp.onDidAccept(async () => {
        const pick = qp.selectedItems[0];
        qp.hide();
        if (pick) await chat.resumeInteractive({ id: pick.session.id, title: itemLabel(pick.session), source: pick.session.source });
      }),
      qp.onDidTriggerItemButton(async (e) => {
        qp.hide();
        await openTranscript(e.item.session, false);
      }),
      qp.onDidHide(() => {
        searchToken?.cancel();
        if (searchTimer) clearTimeout(searchTimer);
        for (const d of disposables) d.dispose();
        qp.dispose();
      }),
    );
    qp.show();
    try {
      sessions = await listAll();
      qp.items = sessions.map(base);
      if (sessions.length === 0) qp.placeholder = S.pick.empty;
    } finally {
      qp.busy = false;
    }
  }

  async function rename(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.renamePlaceholder);
    if (!s) return;
    const title = await vscode.window.showInputBox({
      prompt: S.rename.prompt,
      value: s.title,
      valueSelection: [0, s.title.length],
      validateInput: (v) => (v.trim().length === 0 ? S.rename.empty : v.trim().length > 500 ? S.rename.tooLong : undefined),
    });
    if (title === undefined || title.trim() === s.title) return;
    try {
      const r = await sidecar.request('session/rename', { id: s.id, title: title.trim() });
      history.refresh();
      vscode.window.setStatusBarMessage(S.rename.done(r.title), 4000);
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
    }
  }

  /** Pin or unpin: the sidecar appends the event; the History moves the row by itself. */
  async function setPinned(arg: Target, pinned: boolean): Promise<void> {
    const s = await target(arg, S.pick.pinPlaceholder);
    if (!s) return;
    try {
      await sidecar.request('session/pin', { id: s.id, pinned });
      history.refresh();
      vscode.window.setStatusBarMessage((pinned ? S.lifecycle.pinned : S.lifecycle.unpinned)(s.title), 4000);
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
    }
  }

  /** Archive: out of History at once, with an Undo (unarchive) while the notice shows. */
  async function archive(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.archivePlaceholder);
    if (!s) return;
    try {
      await sidecar.request('session/archive', { id: s.id, archived: true });
      history.refresh();
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
      return;
    }
    const undo = await vscode.window.showInformationMessage(S.lifecycle.archived(s.title), S.lifecycle.undo);
    if (undo !== S.lifecycle.undo) return;
    try {
      await sidecar.request('session/archive', { id: s.id, archived: false });
      history.refresh();
      vscode.window.setStatusBarMessage(S.lifecycle.unarchived(s.title), 4000);
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
    }
  }

  async function remove(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.deletePlaceholder);
    if (!s) return;
    // Where the sidecar can restore from the trash, the file goes there at once; else deferred.
    if (sidecar.has('restore')) return life.trashNow(s);
    const title = itemLabel(s);
    const outcome = deletes.schedule(s.id);
    history.redraw();
    void outcome.then((r) => {
      if (r === 'deleted') history.refresh();
    });
    const pick = await vscode.window.showInformationMessage(S.delete.done(title), S.delete.undo);
    if (pick !== S.delete.undo) return;
    const undone = deletes.undo(s.id);
    if (undone === 'undone') {
      history.redraw();
      vscode.window.setStatusBarMessage(S.delete.undone(title), 4000);
    } else if (undone === 'already-deleted') {
      void vscode.window.showWarningMessage(S.delete.tooLate(title));
    }
  }

  async function unarchive(arg: Target): Promise<void> {
    const s = arg === undefined ? await life.pickArchived() : await target(arg, S.pick.unarchivePlaceholder);
    if (s) await life.unarchive(s);
  }

  async function forkFromTurn(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.forkPlaceholder);
    if (s) await life.forkFromTurn(s);
  }

  async function copyMarkdown(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.copyPlaceholder);
    if (!s) return;
    try {
      const r = await sidecar.request('session/export', { id: s.id, format: 'markdown' });
      await vscode.env.clipboard.writeText(r.content);
      vscode.window.setStatusBarMessage(S.copy.done(itemLabel(s)), 4000);
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
    }
  }

  async function exportMarkdown(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.exportPlaceholder);
    if (!s) return;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const defaultUri = folder ? vscode.Uri.joinPath(folder, exportFileName(s)) : undefined;
    const uri = await vscode.window.showSaveDialog({ defaultUri, saveLabel: S.export.saveLabel, filters: { [S.export.filterName]: ['md'] } });
    if (!uri) return;
    try {
      const r = await sidecar.request('session/export', { id: s.id, format: 'markdown' });
      await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(r.content));
      const pick = await vscode.window.showInformationMessage(S.export.done(uri.fsPath), S.export.open);
      if (pick === S.export.open) await vscode.window.showTextDocument(uri);
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
    }
  }

  async function transcript(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.transcriptPlaceholder);
    if (s) await openTranscript(s);
  }

  /** A click on a row: the transcript rendered. */
  async function transcriptPreview(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.transcriptPlaceholder);
    if (s) await openTranscriptPreview(s);
  }

  /** Delete and F2 on the History view: the selected row (nothing selected: nothing to do). */
  const onSelected = (fn: (arg: Target) => Promise<void>) => async () => {
    const node = history.view?.selection[0];
    if (node?.kind === 'session') await fn(node);
  };

  async function resume(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.resumePlaceholder);
    if (s) await chat.resumeInteractive({ id: s.id, title: itemLabel(s), source: s.source });
  }

  async function resumeLast(): Promise<void> {
    const sessions = await listAll();
    const last = sessions.find((s) => s.id !== chat.current) ?? sessions[0];
    if (!last) {
      void vscode.window.showInformationMessage(S.resume.nothingToResume);
      return;
    }
    await chat.resumeInteractive({ id: last.id, title: itemLabel(last), source: last.source });
  }

  /** Continue in <tool>: the tool's own resume command in a terminal in its project folder. */
  async function continueInTool(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.resumePlaceholder);
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
    sidecar.log.info(`continue in ${tool}: ${exe} ${args.join(' ')} (in ${c.cwd})`);
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
  async function handoff(arg: Target): Promise<void> {
    const s = await target(arg, S.pick.resumePlaceholder);
    if (!s) return;
    const found: { tool: (typeof HANDOFF_TOOLS)[number]; exe: string }[] = [];
    for (const tool of HANDOFF_TOOLS) {
      const exe = await findOnPath(tool.bin);
      if (exe) found.push({ tool, exe });
    }
    if (found.length === 0) {
      void vscode.window.showInformationMessage(S.handoff.none);
      return;
    }
    const pick =
      found.length === 1
        ? found[0]
        : (await vscode.window.showQuickPick(
            found.map((f) => ({ label: f.tool.label, f })),
            { title: S.handoff.pickTitle(itemLabel(s)) },
          ))?.f;
    if (!pick) return;
    const label = pick.tool.label;
    try {
      const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: S.handoff.progress(label) }, () =>
        sidecar.request('session/handoff', { id: s.id, to: pick.tool.to }),
      );
      if (r.note) void vscode.window.showInformationMessage(S.handoff.note(label, r.note));
      sidecar.log.info(`hand-off to ${label}: ${r.path}; ${r.command}`);
      // The tool itself is the terminal's process, argv as given, no shell.
      vscode.window.createTerminal({ name: S.continueIn.terminalName(label, itemLabel(s)), cwd: r.cwd, shellPath: pick.exe, shellArgs: r.argv.slice(1) }).show();
    } catch (e) {
      void vscode.window.showErrorMessage(S.handoff.failed(label, messageOf(e)));
    }
  }

  async function newChat(): Promise<void> {
    try {
      await chat.startNewChat();
      history.refresh();
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
    }
  }

  const r = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn as (...args: unknown[]) => unknown);
  return [
    r('levelcodeSessions.newChat', newChat),
    r('levelcodeSessions.showHistory', showHistory),
    r('levelcodeSessions.resumeLast', resumeLast),
    r('levelcodeSessions.resume', resume),
    r('levelcodeSessions.openTranscript', transcript),
    r('levelcodeSessions.openTranscriptPreview', transcriptPreview),
    r('levelcodeSessions.renameSelected', onSelected(rename)),
    r('levelcodeSessions.deleteSelected', onSelected(remove)),
    r('levelcodeSessions.rename', rename),
    r('levelcodeSessions.delete', remove),
    r('levelcodeSessions.pin', (arg: Target) => setPinned(arg, true)),
    r('levelcodeSessions.unpin', (arg: Target) => setPinned(arg, false)),
    r('levelcodeSessions.archive', archive),
    r('levelcodeSessions.unarchive', unarchive),
    r('levelcodeSessions.showArchived', () => history.setShowArchived(true)),
    r('levelcodeSessions.hideArchived', () => history.setShowArchived(false)),
    r('levelcodeSessions.forkFromTurn', forkFromTurn),
    r('levelcodeSessions.applyRetention', life.applyRetention),
    r('levelcodeSessions.relinkFolder', life.relinkFolder),
    r('levelcodeSessions.copyMarkdown', copyMarkdown),
    r('levelcodeSessions.exportMarkdown', exportMarkdown),
    // One command per tool, so each row's menu can say "Continue in Claude Code" (continueIn.ts).
    r('levelcodeSessions.continueInClaudeCode', continueInTool),
    r('levelcodeSessions.continueInCodex', continueInTool),
    r('levelcodeSessions.continueInGemini', continueInTool),
    r('levelcodeSessions.continueInQwen', continueInTool),
    r('levelcodeSessions.continueInCopilotCli', continueInTool),
    r('levelcodeSessions.continueInCursorAgent', continueInTool),
    r('levelcodeSessions.continueInOpencode', continueInTool),
    r('levelcodeSessions.continueInPi', continueInTool),
    r('levelcodeSessions.continueInContinue', continueInTool),
    r('levelcodeSessions.handoff', handoff),
    r('levelcodeSessions.importChats', () => importChats(deps)),
    r('levelcodeSessions.refresh', () => history.reload()),
    r('levelcodeSessions.showLog', () => sidecar.log.show(true)),
    r('levelcodeSessions.restartSidecar', () => sidecar.restart()),
  ];
}
