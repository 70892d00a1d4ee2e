// Fork from Turn…: a QuickPick of the chat's user turns (read a page at a time with
// session/read; history/lifecycle.ts finds the turns), session/fork at the turn picked, then
// Resume of the new chat as any Resume goes.

import * as vscode from 'vscode';
import { messageOf } from '../errors';
import { itemLabel } from '../history/labels';
import { type Turn, userTurns } from '../history/lifecycle';
import type { SessionSummary } from '../protocol';
import { S } from '../strings';
import { type CommandDeps, type Target, target } from './target';

/** Events read per session/read request while listing a chat's turns. */
const READ_PAGE = 5000;

/** Fork from Turn…: pick a turn, fork there, and resume the new chat as Resume does. */
export async function forkFromTurn(deps: CommandDeps, arg: Target): Promise<void> {
  const { sidecar, history, chat } = deps;
  const s = await target(deps, arg, S.pick.forkPlaceholder);
  if (!s) return;
  const title = itemLabel(s);
  if (!(await sidecar.supports('fork.atTurn'))) {
    void vscode.window.showInformationMessage(S.fork.unavailable);
    return;
  }
  const turns = await turnsOf(deps, s);
  if (!turns) return;
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

/** The chat's user turns; undefined (the user told why) when it cannot be read or has none. */
async function turnsOf(deps: CommandDeps, s: SessionSummary): Promise<Turn[] | undefined> {
  let turns: Turn[];
  try {
    turns = userTurns(await readAll(deps, s.id));
  } catch (e) {
    void vscode.window.showErrorMessage(messageOf(e));
    return undefined;
  }
  if (!turns.length) {
    void vscode.window.showInformationMessage(S.fork.noTurns(itemLabel(s)));
    return undefined;
  }
  return turns;
}

/** Every event of a session, a page at a time. */
async function readAll({ sidecar }: CommandDeps, id: string) {
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

function pickTurn(title: string, turns: Turn[]): Promise<number | undefined> {
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
