// The extension's entry point: wires the sidecar (sidecar.ts), the History view (historyView.ts),
// the transcript documents (transcript.ts), the commands (commands/, one file a group) and the
// chat state (chat.ts), and returns the public API (api.d.ts) as the extension's exports.
// Everything that can be tested without VS Code lives in history/, prompt.ts and strings.ts.

import * as vscode from 'vscode';
import type { LevelCodeSessionsApi } from '../api';
import { Chat } from './chat';
import { registerCommands } from './commands';
import { affectsRestart, readSettings, SECTION } from './config';
import { PendingDeletes } from './history/pendingDeletes';
import { ResumeHandlers } from './resumeHandlers';
import { HistoryProvider, VIEW_ID } from './historyView';
import { ModelAdapter } from './lm';
import { HistoryParticipant } from './participant';
import { Sidecar } from './sidecar';
import { S } from './strings';
import { SCHEME, TranscriptProvider } from './transcript';

/** Context keys the menus' `when` clauses read, each true when the sidecar has that feature. */
const FEATURE_CONTEXT = [
  ['levelcodeSessions.lifecycle', 'lifecycle'],
  ['levelcodeSessions.relink', 'relink'],
  ['levelcodeSessions.forkAtTurn', 'fork.atTurn'],
  ['levelcodeSessions.import', 'import'],
] as const;

let deactivateHooks: (() => Promise<void>)[] = [];

/** The workspace's project folders (local paths; also right under code-server, where this runs on the server). */
function projects(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

export async function activate(context: vscode.ExtensionContext): Promise<LevelCodeSessionsApi> {
  const log = vscode.window.createOutputChannel(S.sidecar.outputName, { log: true });
  context.subscriptions.push(log);
  let settings = readSettings();
  const model = new ModelAdapter(() => settings.modelFamily, log);
  const sidecar = new Sidecar(context, log, () => settings, {
    summarize: (p, token) => model.summarize(p, token),
    title: (p, token) => model.title(p, token),
  });

  const deletes = new PendingDeletes(
    async (id) => {
      await sidecar.request('session/delete', { id });
      log.info(`deleted ${id} (moved to the OS trash)`);
    },
    settings.undoSeconds * 1000,
    undefined,
    (id, e) => {
      log.error(`delete ${id}: ${(e as Error).message}`);
      void vscode.window.showErrorMessage(S.delete.failed(history.find(id)?.title ?? id, (e as Error).message));
      history.redraw();
    },
  );
  const history = new HistoryProvider(sidecar, projects, () => deletes.hidden());
  const view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: history, showCollapseAll: true });
  const transcripts = new TranscriptProvider(sidecar);
  const resumeHandlers = new ResumeHandlers(context.extension.id);
  const chat = new Chat(context, sidecar, model, () => settings, projects, resumeHandlers);
  if ((vscode as { chat?: typeof vscode.chat }).chat?.createChatParticipant) {
    chat.participant = new HistoryParticipant(sidecar, model, () => chat.defaultProject());
    context.subscriptions.push(chat.participant);
  }

  context.subscriptions.push(
    view,
    history,
    history.attach(view),
    transcripts,
    chat,
    resumeHandlers,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, transcripts),
    sidecar.onDidChangeSession((c) => {
      log.debug(`didChange ${c.change} ${c.id}`);
      history.refresh();
      // `listed`: only the session's place in History is news (a cold listing completed).
      if (c.change !== 'deleted' && c.change !== 'listed') transcripts.changed(c.id);
    }),
    sidecar.onDidBecomeReady(() => {
      // The menus offer what this sidecar can do (an older one, or the user's own build, may not).
      for (const [key, feature] of FEATURE_CONTEXT) void vscode.commands.executeCommand('setContext', key, sidecar.has(feature));
      history.refresh();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => history.refresh()),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration(SECTION)) return;
      settings = readSettings();
      if (affectsRestart(e)) {
        log.info('settings changed; restarting the sidecar');
        await sidecar.restart().catch(() => undefined);
        history.refresh();
      }
    }),
    ...registerCommands({ sidecar, history, chat, deletes, settings: () => settings, projects }, context.extension.packageJSON),
  );
  void vscode.commands.executeCommand('setContext', 'levelcodeSessions.hasCurrentChat', chat.current !== undefined);

  deactivateHooks = [() => deletes.flush(), () => sidecar.dispose()];

  // Start now so the History is ready when first shown; a failure is reported by the sidecar.
  void sidecar.start().catch((e) => log.error(`sidecar: ${(e as Error).message}`));

  return publicApi(sidecar, chat);
}

/** The public API (api.d.ts), returned as the extension's exports. */
function publicApi(sidecar: Sidecar, chat: Chat): LevelCodeSessionsApi {
  // One writer per chat across windows: each API append after the first to a session carries
  // the seq it expects (api.d.ts append; chat.apiNextSeq, forgotten when the chat is resumed), so
  // a chat another window continued meanwhile is refused.
  const nextSeq = chat.apiNextSeq;
  return {
    apiVersion: 1,
    newSession: async (opts) => {
      const r = await chat.newSession(opts);
      nextSeq.set(r.id, 0);
      return r;
    },
    append: async (id, events) => {
      const expected = nextSeq.get(id);
      const r = await sidecar.request('session/append', { id, events, ...(expected !== undefined ? { expectedSeq: expected } : {}) });
      nextSeq.set(id, r.lastSeq + 1);
      return r;
    },
    list: async (opts = {}) => {
      const scope = opts.project
        ? { project: opts.project }
        : opts.all || projects().length === 0
          ? { all: true }
          : { project: projects()[0] };
      const out = [];
      let cursor: string | undefined;
      do {
        const page = await sidecar.request('session/list', { ...scope, limit: 1000, ...(cursor ? { cursor } : {}) });
        out.push(...page.sessions);
        cursor = page.nextCursor;
      } while (cursor);
      return out;
    },
    resume: (id, opts) => chat.resumeQuiet(id, opts),
    seal: (id) => chat.seal(id),
    exportMarkdown: async (id) => (await sidecar.request('session/export', { id, format: 'markdown' })).content,
    get currentSessionId() {
      return chat.current;
    },
    onDidResume: chat.onDidResume,
    onDidStartNewChat: chat.onDidStartNewChat,
    onDidChangeSessions: sidecar.onDidChangeSession,
  };
}

export async function deactivate(): Promise<void> {
  const hooks = deactivateHooks;
  deactivateHooks = [];
  for (const h of hooks) await h().catch(() => undefined);
}
