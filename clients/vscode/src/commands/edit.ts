// Changing a chat's place in the History: Rename…, Pin / Unpin, Archive (with an Undo while the
// notice shows) and Unarchive (from the palette, a pick among the archived chats, which the main
// list does not hold). Each is one sidecar request; the History redraws from its answer.

import * as vscode from 'vscode';
import { messageOf } from '../errors';
import { itemLabel, localStamp } from '../history/labels';
import type { SessionSummary } from '../protocol';
import { S } from '../strings';
import { type CommandDeps, type Target, target } from './target';

/** The longest title the sidecar takes (session/rename). */
const TITLE_MAX = 500;

export async function rename(deps: CommandDeps, arg: Target): Promise<void> {
  const s = await target(deps, arg, S.pick.renamePlaceholder);
  if (!s) return;
  const title = await vscode.window.showInputBox({
    prompt: S.rename.prompt,
    value: s.title,
    valueSelection: [0, s.title.length],
    validateInput: (v) => (v.trim().length === 0 ? S.rename.empty : v.trim().length > TITLE_MAX ? S.rename.tooLong : undefined),
  });
  if (title === undefined || title.trim() === s.title) return;
  try {
    const r = await deps.sidecar.request('session/rename', { id: s.id, title: title.trim() });
    deps.history.refresh();
    vscode.window.setStatusBarMessage(S.rename.done(r.title), 4000);
  } catch (e) {
    void vscode.window.showErrorMessage(messageOf(e));
  }
}

/** Pin or unpin: the sidecar appends the event; the History moves the row by itself. */
export async function setPinned(deps: CommandDeps, arg: Target, pinned: boolean): Promise<void> {
  const s = await target(deps, arg, S.pick.pinPlaceholder);
  if (!s) return;
  try {
    await deps.sidecar.request('session/pin', { id: s.id, pinned });
    deps.history.refresh();
    vscode.window.setStatusBarMessage((pinned ? S.lifecycle.pinned : S.lifecycle.unpinned)(s.title), 4000);
  } catch (e) {
    void vscode.window.showErrorMessage(messageOf(e));
  }
}

/** Archive: out of History at once, with an Undo (unarchive) while the notice shows. */
export async function archive(deps: CommandDeps, arg: Target): Promise<void> {
  const { sidecar, history } = deps;
  const s = await target(deps, arg, S.pick.archivePlaceholder);
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

/** Unarchive: back in History, in its place. */
export async function unarchive(deps: CommandDeps, arg: Target): Promise<void> {
  const s = arg === undefined ? await pickArchived(deps) : await target(deps, arg, S.pick.unarchivePlaceholder);
  if (!s) return;
  try {
    await deps.sidecar.request('session/archive', { id: s.id, archived: false });
    await deps.history.reload();
    vscode.window.setStatusBarMessage(S.lifecycle.unarchived(itemLabel(s)), 4000);
  } catch (e) {
    void vscode.window.showErrorMessage(messageOf(e));
  }
}

/** An archived chat, picked from the palette (the main list does not hold them). */
async function pickArchived({ sidecar, projects }: CommandDeps): Promise<SessionSummary | undefined> {
  const folders = projects();
  const scopes = folders.length ? folders.map((project) => ({ project })) : [{ all: true as const }];
  const sessions: SessionSummary[] = [];
  for (const scope of scopes) sessions.push(...(await sidecar.request('session/list', { ...scope, archived: true, limit: 1000 })).sessions);
  if (!sessions.length) {
    void vscode.window.showInformationMessage(S.lifecycle.noArchived);
    return undefined;
  }
  const items = sessions.map((s) => ({ label: itemLabel(s), description: localStamp(s.updatedAt), detail: s.preview, session: s }));
  return (await vscode.window.showQuickPick(items, { placeHolder: S.pick.unarchivePlaceholder, matchOnDetail: true }))?.session;
}
