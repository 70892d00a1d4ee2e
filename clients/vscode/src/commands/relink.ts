// Relink Chats from Another Folder… (the History view's title bar menu and the palette, with a
// folder open): the chats recorded under an old folder (a project moved or renamed on disk)
// become this folder's. A dry run of session/relink says how many first; nothing moves without
// the user's yes in a modal that names them.

import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { messageOf } from '../errors';
import { S } from '../strings';
import type { CommandDeps } from './target';

/** Titles named in the confirmation before "…". */
const TITLES_SHOWN = 10;

export async function relinkFolder({ sidecar, history }: CommandDeps): Promise<void> {
  if (!(await sidecar.supports('relink'))) {
    void vscode.window.showInformationMessage(S.relink.unavailable);
    return;
  }
  const folders = await pickFolders();
  if (!folders) return;
  const { from, to } = folders;
  try {
    const dry = await sidecar.request('session/relink', { from, to, dryRun: true });
    const n = dry.sessions.length;
    if (!n) {
      void vscode.window.showInformationMessage(S.relink.none(dry.from));
      return;
    }
    const titles = dry.sessions.map((x) => `• ${x.title}`).slice(0, TITLES_SHOWN);
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

/** This window's folder (asked when there are several) and the old folder, picked in a dialog. */
async function pickFolders(): Promise<{ from: string; to: string } | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (!folders.length) {
    void vscode.window.showErrorMessage(S.errors.noFolder);
    return undefined;
  }
  const target = folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick({ placeHolder: S.relink.pickTarget });
  if (!target) return undefined;
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
  return from ? { from, to } : undefined;
}
