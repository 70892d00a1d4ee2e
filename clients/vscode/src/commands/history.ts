// Chat History (the Command Palette and the History view's title bar): a QuickPick over the
// History that searches titles and first messages as one types and, from three characters on,
// the transcripts too (session/search; a transcript match shows its snippet). Enter resumes the
// chat; the row's button opens its transcript.

import * as vscode from 'vscode';
import { codeOf, messageOf } from '../errors';
import { itemDescription, itemLabel } from '../history/labels';
import { ErrorCodes, type SessionSummary } from '../protocol';
import { S } from '../strings';
import { openTranscript } from '../transcript';
import { type CommandDeps, listAll } from './target';

type Item = vscode.QuickPickItem & { session: SessionSummary };
type Row = (s: SessionSummary) => Item;

/** Milliseconds of no typing before the transcripts are searched. */
const SEARCH_DELAY = 250;

export async function showHistory(deps: CommandDeps): Promise<void> {
  const qp = vscode.window.createQuickPick<Item>();
  qp.placeholder = S.pick.placeholder;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.busy = true;
  const button: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: S.pick.openTranscript };
  const row: Row = (s) => ({ label: itemLabel(s), description: itemDescription(s), detail: s.preview, buttons: [button], session: s });
  let sessions: SessionSummary[] = [];
  const search = transcriptSearch(deps, qp, row, () => sessions);
  const disposables: vscode.Disposable[] = [
    qp.onDidChangeValue(search.run),
    qp.onDidAccept(async () => {
      const pick = qp.selectedItems[0];
      qp.hide();
      if (pick) await deps.chat.resumeInteractive({ id: pick.session.id, title: itemLabel(pick.session), source: pick.session.source });
    }),
    qp.onDidTriggerItemButton(async (e) => {
      qp.hide();
      await openTranscript(e.item.session, false);
    }),
    qp.onDidHide(() => {
      search.cancel();
      for (const d of disposables) d.dispose();
      qp.dispose();
    }),
  ];
  qp.show();
  try {
    sessions = await listAll(deps.history);
    qp.items = sessions.map(row);
    if (sessions.length === 0) qp.placeholder = S.pick.empty;
  } finally {
    qp.busy = false;
  }
}

/**
 * The transcript search behind the QuickPick: each keystroke cancels the search before it; a
 * query under three characters (or a sidecar without search) shows the plain list.
 */
function transcriptSearch(deps: CommandDeps, qp: vscode.QuickPick<Item>, row: Row, sessions: () => SessionSummary[]) {
  let timer: NodeJS.Timeout | undefined;
  let token: vscode.CancellationTokenSource | undefined;
  const cancel = () => {
    token?.cancel();
    if (timer) clearTimeout(timer);
  };
  const run = (query: string) => {
    cancel();
    const q = query.trim();
    if (q.length < 3 || !deps.sidecar.has('search')) {
      qp.items = sessions().map(row);
      return;
    }
    timer = setTimeout(async () => {
      const cts = (token = new vscode.CancellationTokenSource());
      qp.busy = true;
      try {
        const snippets = await snippetsFor(deps, q, cts.token);
        if (cts.token.isCancellationRequested) return;
        qp.items = sessions().map((s) => {
          const snippet = snippets.get(s.id);
          return snippet === undefined ? row(s) : { ...row(s), detail: `${S.pick.fullTextMatch}: ${snippet}`, alwaysShow: true };
        });
      } catch (e) {
        if (codeOf(e) !== ErrorCodes.RequestCancelled) deps.sidecar.log.warn(`search: ${messageOf(e)}`);
      } finally {
        if (token === cts) qp.busy = false;
      }
    }, SEARCH_DELAY);
  };
  return { run, cancel };
}

/** session/search in this window's first project (else every project): each session's first snippet. */
async function snippetsFor(deps: CommandDeps, query: string, token: vscode.CancellationToken): Promise<Map<string, string>> {
  const projects = deps.projects();
  const scope = projects[0] ? { project: projects[0] } : { all: true as const };
  const r = await deps.sidecar.request('session/search', { query, ...scope, limit: 200, perSession: 1 }, token);
  const snippets = new Map<string, string>();
  for (const hit of r.hits) if (!snippets.has(hit.sessionId)) snippets.set(hit.sessionId, hit.snippet);
  return snippets;
}
