// Delete (the row's menu, the palette, and the Delete key on the History view). Where the
// sidecar can restore from the OS trash (the `restore` feature), the file goes to the trash at
// once and Undo brings it back (session/restore); with an older sidecar the delete is deferred
// for the undo seconds instead (history/pendingDeletes.ts) and Undo simply cancels it.

import * as vscode from 'vscode';
import { messageOf } from '../errors';
import { itemLabel } from '../history/labels';
import type { SessionSummary } from '../protocol';
import { S } from '../strings';
import { type CommandDeps, type Target, target } from './target';

export async function remove(deps: CommandDeps, arg: Target): Promise<void> {
  const s = await target(deps, arg, S.pick.deletePlaceholder);
  if (!s) return;
  // Where the sidecar can restore from the trash, the file goes there at once; else deferred.
  if (await deps.sidecar.supports('restore')) return trashNow(deps, s);
  return deferDelete(deps, s);
}

/**
 * Delete where the sidecar can restore: the file goes to the OS trash at once, and Undo (for as
 * long as the notification is there) brings it back with session/restore.
 */
async function trashNow({ sidecar, history }: CommandDeps, s: SessionSummary): Promise<void> {
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

/** Delete with an older sidecar: the row hides now, the file goes when the undo time is up. */
async function deferDelete({ history, deletes }: CommandDeps, s: SessionSummary): Promise<void> {
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
