// Apply Retention… (the History view's title bar menu and the palette): a dry run of
// session/retention with the user's retention settings, shown as a checklist of what would fall
// out; then Archive (the default) or, explicitly and confirmed, Move to the Trash, applied to
// the chats left checked. The pure parts (the settings, the reasons) are in history/lifecycle.ts.

import { basename } from 'node:path';
import * as vscode from 'vscode';
import { messageOf } from '../errors';
import { localStamp } from '../history/labels';
import { anyRetentionRule, retentionParams, retentionReason } from '../history/lifecycle';
import { printable } from '../printable';
import type { RetentionItem, RetentionResult } from '../protocol';
import { S } from '../strings';
import type { CommandDeps } from './target';

/**
 * Apply Retention…: a dry run first; nothing found, nothing done (a message says so). Else a
 * checklist of what would fall out, then Archive (the default) or Move to the Trash (confirmed
 * in a modal naming the count), applied to the chats left checked.
 */
export async function applyRetention(deps: CommandDeps): Promise<void> {
  if (!(await deps.sidecar.supports('lifecycle'))) return;
  if (!anyRetentionRule(deps.settings())) {
    void vscode.window.showInformationMessage(S.retention.nothingOff);
    return;
  }
  let plan: RetentionResult;
  try {
    plan = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: S.retention.progress }, () =>
      retention(deps, { dryRun: true }),
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
  const trash = await chooseAction(chosen.length);
  if (trash !== undefined) await applyTo(deps, chosen, trash);
}

/** session/retention for each project of this window (or every project), merged. */
async function retention(deps: CommandDeps, params: { dryRun: boolean }): Promise<RetentionResult> {
  const projects = deps.projects();
  const scopes = projects.length ? projects.map((project) => ({ project })) : [{}];
  const rules = retentionParams(deps.settings());
  let merged: RetentionResult | undefined;
  for (const scope of scopes) {
    const r = await deps.sidecar.request('session/retention', { ...scope, ...rules, ...params });
    merged = merged ? { ...merged, done: [...merged.done, ...r.done], skipped: [...merged.skipped, ...r.skipped] } : r;
  }
  return merged!;
}

function checklist(plan: RetentionResult): Promise<RetentionItem[] | undefined> {
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

/** Archive or Move to the Trash (the latter confirmed in a modal): true to trash, undefined if dismissed. */
async function chooseAction(n: number): Promise<boolean | undefined> {
  const action = await vscode.window.showQuickPick(
    [
      { label: S.retention.archive(n), detail: S.retention.archiveDetail, trash: false },
      { label: S.retention.trash(n), detail: S.retention.trashDetail, trash: true },
    ],
    { title: S.retention.title, placeHolder: S.retention.actionPlaceholder(n) },
  );
  if (!action) return undefined;
  if (!action.trash) return false;
  const ok = await vscode.window.showWarningMessage(
    S.retention.confirmTrash(n),
    { modal: true, detail: S.retention.confirmTrashDetail },
    S.retention.trash(n),
  );
  return ok === S.retention.trash(n) ? true : undefined;
}

/** Archives (or trashes) exactly the chats checked, each on its own: a failure stops none of the others. */
async function applyTo({ sidecar, history }: CommandDeps, items: RetentionItem[], trash: boolean): Promise<void> {
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
