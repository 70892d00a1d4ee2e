// Copy as Markdown (to the clipboard) and Export as Markdown… (a Save dialog, then an offer to
// open the file). The Markdown is the sidecar's (session/export); the file is written through
// vscode.workspace.fs, so a save to a remote or virtual folder works as any editor save does.

import * as vscode from 'vscode';
import { messageOf } from '../errors';
import { exportFileName, itemLabel } from '../history/labels';
import { S } from '../strings';
import { type CommandDeps, type Target, target } from './target';

export async function copyMarkdown(deps: CommandDeps, arg: Target): Promise<void> {
  const s = await target(deps, arg, S.pick.copyPlaceholder);
  if (!s) return;
  try {
    const r = await deps.sidecar.request('session/export', { id: s.id, format: 'markdown' });
    await vscode.env.clipboard.writeText(r.content);
    vscode.window.setStatusBarMessage(S.copy.done(itemLabel(s)), 4000);
  } catch (e) {
    void vscode.window.showErrorMessage(messageOf(e));
  }
}

export async function exportMarkdown(deps: CommandDeps, arg: Target): Promise<void> {
  const s = await target(deps, arg, S.pick.exportPlaceholder);
  if (!s) return;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const defaultUri = folder ? vscode.Uri.joinPath(folder, exportFileName(s)) : undefined;
  const uri = await vscode.window.showSaveDialog({ defaultUri, saveLabel: S.export.saveLabel, filters: { [S.export.filterName]: ['md'] } });
  if (!uri) return;
  try {
    const r = await deps.sidecar.request('session/export', { id: s.id, format: 'markdown' });
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(r.content));
    const pick = await vscode.window.showInformationMessage(S.export.done(uri.fsPath), S.export.open);
    if (pick === S.export.open) await vscode.window.showTextDocument(uri);
  } catch (e) {
    void vscode.window.showErrorMessage(messageOf(e));
  }
}
