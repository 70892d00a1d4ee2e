// The History's lifecycle commands beyond Pin and Archive (issue 24), registered in commands.ts:
// Unarchive Chat; Delete straight to the OS trash with an Undo that restores (session/restore);
// Fork from Turn… (a QuickPick of the chat's turns, session/fork atTurn, then Resume of the new
// chat); Apply Retention… (a dry run shown as a checklist, then Archive or, explicitly and
// confirmed, Move to the Trash); Relink Chats from Another Folder… (a folder picked, a dry run's
// count confirmed, session/relink). The pure parts are in history/lifecycle.ts.

import * as vscode from 'vscode';
import { basename, dirname } from 'node:path';
import { messageOf, type Chat } from './chat';
import type { Settings } from './config';
import { itemLabel, localStamp } from './history/labels';
import { anyRetentionRule, retentionParams, retentionReason, userTurns } from './history/lifecycle';
import type { HistoryProvider } from './historyView';
import type { RetentionItem, RetentionResult, SessionSummary } from './protocol';
import type { Sidecar } from './sidecar';
import { S } from './strings';
import { printable } from './printable';

export interface LifecycleDeps {
  sidecar: Sidecar;
  history: HistoryProvider;
  chat: Chat;
  settings: () => Settings;
  projects: () => string[];
}

/** Events read per session/read request while listing a chat's turns. */
const READ_PAGE = 5000;

export function lifecycleCommands(deps: LifecycleDeps) {
  const { sidecar, history, chat } = deps;

  /** Unarchive: back in History, in its place. */
  async function unarchive(s: SessionSummary): Promise<void> {
    try {
      await sidecar.request('session/archive', { id: s.id, archived: false });
      await history.reload();
      vscode.window.setStatusBarMessage(S.lifecycle.unarchived(itemLabel(s)), 4000);
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
    }
  }

  /** An archived chat, picked from the palette (the main list does not hold them). */
  async function pickArchived(): Promise<SessionSummary | undefined> {
    const projects = deps.projects();
    const scopes = projects.length ? projects.map((project) => ({ project })) : [{ all: true as const }];
    const sessions: SessionSummary[] = [];
    for (const scope of scopes) sessions.push(...(await sidecar.request('session/list', { ...scope, archived: true, limit: 1000 })).sessions);
    if (!sessions.length) {
      void vscode.window.showInformationMessage(S.lifecycle.noArchived);
      return undefined;
    }
    const items = sessions.map((s) => ({ label: itemLabel(s), description: localStamp(s.updatedAt), detail: s.preview, session: s }));
    return (await vscode.window.showQuickPick(items, { placeHolder: S.pick.unarchivePlaceholder, matchOnDetail: true }))?.session;
  }

  /**
   * Delete where the sidecar can restore: the file goes to the OS trash at once, and Undo (for as
   * long as the notification is there) brings it back with session/restore.
   */
  async function trashNow(s: SessionSummary): Promise<void> {
    const title = itemLabel(s);
    try {
      await sidecar.request('session/delete', { id: s.id });
    } catch (e) {
      void vscode.window.showErrorMessage(S.delete.failed(title, messageOf(e)));
      return;
    }
    sidecar.log.info(`deleted ${s.id} (moved to the OS trash)`);
    history.refresh();
    const pick = await vscode.window.showInformationMessage(S.delete.trashed(title), S.delete.undo);
    if (pick !== S.delete.undo) return;
    try {
      await sidecar.request('session/restore', { id: s.id });
      await history.reload();
      vscode.window.setStatusBarMessage(S.delete.restored(title), 4000);
    } catch (e) {
      void vscode.window.showErrorMessage(S.delete.restoreFailed(title, messageOf(e)));
    }
  }

  /** Every event of a session, a page at a time. */
  async function readAll(id: string) {
    const out: { seq: number; event: { kind: string; content?: unknown } }[] = [];
    let from = 0;
    for (;;) {
      const r = await sidecar.request('session/read', { id, from, to: from + READ_PAGE - 1 });
      out.push(...r.events);
      const last = r.events[r.events.length - 1]?.seq;
      if (last === undefined || (r.totalEvents !== undefined && last >= r.totalEvents - 1)) return out;
      from = last + 1;
    }
  }

  /** Fork from Turn…: pick a turn, fork there, and resume the new chat as Resume does. */
  async function forkFromTurn(s: SessionSummary): Promise<void> {
    const title = itemLabel(s);
    if (!sidecar.has('fork.atTurn')) {
      void vscode.window.showInformationMessage(S.fork.unavailable);
      return;
    }
    let turns;
    try {
      turns = userTurns(await readAll(s.id));
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
      return;
    }
    if (!turns.length) {
      void vscode.window.showInformationMessage(S.fork.noTurns(title));
      return;
    }
    const turn = await pickTurn(title, turns);
    if (turn === undefined) return;
    let fork;
    try {
      fork = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: S.fork.progress(title) }, () =>
        sidecar.request('session/fork', { id: s.id, atTurn: turn, ...(s.movedFrom ? { project: s.project } : {}) }),
      );
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
      return;
    }
    sidecar.log.info(`forked ${s.id} at turn ${fork.turn}: ${fork.id}`);
    // Let go of the new chat first: Resume takes it as it takes any chat, and when nothing
    // resumes it (dismissed, no model) it is held by no one.
    await sidecar.request('session/release', { id: fork.id }).catch(() => undefined);
    await history.reload();
    vscode.window.setStatusBarMessage(S.fork.done(title, fork.turn), 4000);
    await chat.resumeInteractive({ id: fork.id, title });
  }

  async function pickTurn(title: string, turns: { turn: number; firstLine: string }[]): Promise<number | undefined> {
    type Item = vscode.QuickPickItem & { turn: number };
    const qp = vscode.window.createQuickPick<Item>();
    qp.title = S.fork.title(title);
    qp.placeholder = S.fork.placeholder;
    qp.matchOnDescription = true;
    qp.items = turns.map((t) => ({ label: t.firstLine, description: S.fork.turn(t.turn), turn: t.turn }));
    // The latest turn is where one most often forks from: active, so Enter takes it.
    const last = qp.items[qp.items.length - 1];
    if (last) qp.activeItems = [last];
    return new Promise((done) => {
      let picked: number | undefined;
      qp.onDidAccept(() => {
        picked = qp.selectedItems[0]?.turn ?? qp.activeItems[0]?.turn;
        qp.hide();
      });
      qp.onDidHide(() => {
        qp.dispose();
        done(picked);
      });
      qp.show();
    });
  }

  /** session/retention for each project of this window (or every project), merged. */
  async function retention(params: { dryRun: boolean }): Promise<RetentionResult> {
    const projects = deps.projects();
    const scopes = projects.length ? projects.map((project) => ({ project })) : [{}];
    const rules = retentionParams(deps.settings());
    let merged: RetentionResult | undefined;
    for (const scope of scopes) {
      const r = await sidecar.request('session/retention', { ...scope, ...rules, ...params });
      merged = merged ? { ...merged, done: [...merged.done, ...r.done], skipped: [...merged.skipped, ...r.skipped] } : r;
    }
    return merged!;
  }

  /**
   * Apply Retention…: a dry run first; nothing found, nothing done (a message says so). Else a
   * checklist of what would fall out, then Archive (the default) or Move to the Trash (confirmed
   * in a modal naming the count), applied to the chats left checked.
   */
  async function applyRetention(): Promise<void> {
    if (!sidecar.has('lifecycle')) return;
    if (!anyRetentionRule(deps.settings())) {
      void vscode.window.showInformationMessage(S.retention.nothingOff);
      return;
    }
    let plan: RetentionResult;
    try {
      plan = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: S.retention.progress }, () =>
        retention({ dryRun: true }),
      );
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
      return;
    }
    const skipped = plan.skipped.length ? ` ${S.retention.skippedNote(plan.skipped.length)}` : '';
    if (!plan.done.length) {
      void vscode.window.showInformationMessage(S.retention.nothing + skipped);
      return;
    }
    const chosen = await checklist(plan);
    if (!chosen?.length) return;
    const action = await vscode.window.showQuickPick(
      [
        { label: S.retention.archive(chosen.length), detail: S.retention.archiveDetail, trash: false },
        { label: S.retention.trash(chosen.length), detail: S.retention.trashDetail, trash: true },
      ],
      { title: S.retention.title, placeHolder: S.retention.actionPlaceholder(chosen.length) },
    );
    if (!action) return;
    if (action.trash) {
      const ok = await vscode.window.showWarningMessage(
        S.retention.confirmTrash(chosen.length),
        { modal: true, detail: S.retention.confirmTrashDetail },
        S.retention.trash(chosen.length),
      );
      if (ok !== S.retention.trash(chosen.length)) return;
    }
    await applyTo(chosen, action.trash);
  }

  async function checklist(plan: RetentionResult): Promise<RetentionItem[] | undefined> {
    type Item = vscode.QuickPickItem & { item: RetentionItem };
    const now = new Date();
    const rules = plan.settings;
    const qp = vscode.window.createQuickPick<Item>();
    // What falls out but is left alone (open in a window) is not on the list: the title says so.
    qp.title = plan.skipped.length ? `${S.retention.title}: ${S.retention.skippedNote(plan.skipped.length)}` : S.retention.title;
    qp.canSelectMany = true;
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.placeholder = S.retention.checklist(plan.done.length);
    qp.items = plan.done.map((item) => ({
      label: printable(item.title.replace(/\s+/g, ' ').trim()) || S.history.untitled,
      description: printable(basename(item.project)),
      detail: `${retentionReason(item, rules, now)}${S.history.separator}${S.history.tooltipUpdated(localStamp(item.lastActive))}`,
      item,
    }));
    qp.selectedItems = qp.items;
    return new Promise((done) => {
      let chosen: RetentionItem[] | undefined;
      qp.onDidAccept(() => {
        chosen = qp.selectedItems.map((i) => i.item);
        qp.hide();
      });
      qp.onDidHide(() => {
        qp.dispose();
        done(chosen);
      });
      qp.show();
    });
  }

  /** Archives (or trashes) exactly the chats checked, each on its own: a failure stops none of the others. */
  async function applyTo(items: RetentionItem[], trash: boolean): Promise<void> {
    const failures: string[] = [];
    for (const item of items) {
      try {
        if (trash) await sidecar.request('session/delete', { id: item.id });
        else await sidecar.request('session/archive', { id: item.id, archived: true });
        sidecar.log.info(`retention: ${trash ? 'trashed' : 'archived'} ${item.id} (${item.reason})`);
      } catch (e) {
        failures.push(`${item.title}: ${messageOf(e)}`);
      }
    }
    await history.reload();
    const n = items.length - failures.length;
    if (n) void vscode.window.showInformationMessage(trash ? S.retention.trashed(n) : S.retention.archived(n));
    if (failures.length) void vscode.window.showErrorMessage(S.retention.failed(failures.length, failures.join('; ')));
  }

  /**
   * Relink Chats from Another Folder…: the chats recorded under an old folder become this
   * folder's. A dry run says how many first; nothing moves without the user's yes.
   */
  async function relinkFolder(): Promise<void> {
    if (!sidecar.has('relink')) {
      void vscode.window.showInformationMessage(S.relink.unavailable);
      return;
    }
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!folders.length) {
      void vscode.window.showErrorMessage(S.errors.noFolder);
      return;
    }
    const target = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: S.relink.pickTarget });
    if (!target) return;
    const to = target.uri.fsPath;
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true,
      canSelectFiles: false,
      canSelectMany: false,
      openLabel: S.relink.openLabel,
      title: S.relink.dialogTitle,
      defaultUri: vscode.Uri.file(dirname(to)),
    });
    const from = picked?.[0]?.fsPath;
    if (!from) return;
    try {
      const dry = await sidecar.request('session/relink', { from, to, dryRun: true });
      const n = dry.sessions.length;
      if (!n) {
        void vscode.window.showInformationMessage(S.relink.none(dry.from));
        return;
      }
      const titles = dry.sessions.map((x) => `• ${x.title}`).slice(0, 10);
      const detail = [S.relink.confirmDetail, '', ...titles, ...(n > titles.length ? ['…'] : [])].join('\n');
      const ok = await vscode.window.showWarningMessage(S.relink.confirm(n, dry.from, dry.to), { modal: true, detail }, S.relink.apply(n));
      if (ok !== S.relink.apply(n)) return;
      const r = await sidecar.request('session/relink', { from, to });
      sidecar.log.info(`relinked ${r.sessions.length} chats from ${r.from} to ${r.to}`);
      await history.reload();
      void vscode.window.showInformationMessage(S.relink.done(r.sessions.length, r.from));
    } catch (e) {
      void vscode.window.showErrorMessage(messageOf(e));
    }
  }

  return { unarchive, pickArchived, trashNow, forkFromTurn, applyRetention, relinkFolder };
}
