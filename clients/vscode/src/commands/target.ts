// What every command is given (CommandDeps) and how a command finds the chat it is about
// (target): the History row it was run on, a session id (the API and the tests pass one), or,
// run from the Command Palette, a chat the user picks from a QuickPick of the visible History.

import * as vscode from 'vscode';
import type { Chat } from '../chat';
import type { Settings } from '../config';
import { itemDescription, itemLabel } from '../history/labels';
import type { PendingDeletes } from '../history/pendingDeletes';
import type { HistoryNode, HistoryProvider } from '../historyView';
import type { SessionSummary } from '../protocol';
import type { Sidecar } from '../sidecar';
import { S } from '../strings';

export interface CommandDeps {
  sidecar: Sidecar;
  history: HistoryProvider;
  chat: Chat;
  deletes: PendingDeletes;
  settings: () => Settings;
  projects: () => string[];
}

/** What an item command is called with: a tree node, a summary, an id, or nothing (the palette). */
export type Target = HistoryNode | SessionSummary | string | undefined;

/** The chat a command is about: the tree item it was run on, an id, or one the user picks. */
export async function target(deps: CommandDeps, arg: Target, placeholder: string): Promise<SessionSummary | undefined> {
  if (arg && typeof arg === 'object' && 'kind' in arg) return arg.kind === 'session' ? arg.session : undefined;
  if (arg && typeof arg === 'object' && 'id' in arg) return arg;
  if (typeof arg === 'string') return deps.history.find(arg) ?? (await listAll(deps.history)).find((s) => s.id === arg);
  // From the palette: always ask (never act on a selection the user may not be looking at).
  return pickSession(deps.history, placeholder);
}

/** The History's sessions as the view shows them, reloaded from the sidecar first. */
export async function listAll(history: HistoryProvider): Promise<SessionSummary[]> {
  await history.reload();
  return history.visibleSessions();
}

async function pickSession(history: HistoryProvider, placeholder: string): Promise<SessionSummary | undefined> {
  const sessions = await listAll(history);
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage(S.pick.empty);
    return undefined;
  }
  const items = sessions.map((s) => ({ label: itemLabel(s), description: itemDescription(s), detail: s.preview, session: s }));
  const pick = await vscode.window.showQuickPick(items, { placeHolder: placeholder, matchOnDescription: true, matchOnDetail: true });
  return pick?.session;
}
