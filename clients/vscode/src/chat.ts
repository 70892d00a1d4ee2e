// The current chat and what happens to it: New Chat (seal the old session, once ever say
// "Previous chat saved to History."), Resume (who continues the session, tier, note, consent for a
// costly summary, read-only when another window owns it), and the extension API (api.d.ts) that
// chat extensions use to forward turns. The commands and the API share these functions, so both
// behave the same.

import * as vscode from 'vscode';
import type * as Api from '../api';
import type { Settings } from './config';
import { installedHandoffTool } from './continueIn';
import { codeOf, messageOf } from './errors';
import type { ModelAdapter } from './lm';
import { ErrorCodes, type ResumeResult, type SealResult, type SessionSummary } from './protocol';
import type { Sidecar } from './sidecar';
import type { HistoryParticipant } from './participant';
import type { ResumeHandler, ResumeHandlers } from './resumeHandlers';
import { S } from './strings';
import { openTranscript } from './transcript';

const CURRENT_KEY = 'levelcodeSessions.currentSession';
const TOAST_KEY = 'levelcodeSessions.newChatToastShown';

export class Chat implements vscode.Disposable {
  /** The @history participant, when this editor has a Chat view (vscode.chat). */
  participant: HistoryParticipant | undefined;
  private readonly newChat = new vscode.EventEmitter<Api.NewChatEvent>();
  /**
   * The seq the next API append to a session expects (the previous API append's lastSeq + 1):
   * one writer per chat across windows. A resume forgets it, as a resume may write (a compact event).
   */
  readonly apiNextSeq = new Map<string, number>();
  readonly onDidStartNewChat = this.newChat.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly sidecar: Sidecar,
    private readonly model: ModelAdapter,
    private readonly settings: () => Settings,
    private readonly projects: () => string[],
    /** The chat extensions listening for Resume (the API's onDidResume). */
    private readonly handlers: ResumeHandlers,
  ) {}

  readonly onDidResume: vscode.Event<Api.ResumedEvent> = (l, t, d) => this.handlers.event(l, t, d);

  get current(): string | undefined {
    return this.context.workspaceState.get<string>(CURRENT_KEY);
  }

  private async setCurrent(id: string | undefined): Promise<void> {
    await this.context.workspaceState.update(CURRENT_KEY, id);
    await vscode.commands.executeCommand('setContext', 'levelcodeSessions.hasCurrentChat', id !== undefined);
  }

  defaultProject(): string {
    const p = this.projects()[0];
    if (!p) throw new Error(S.errors.noFolder);
    return p;
  }

  async newSession(opts: Api.NewSessionOptions = {}): Promise<{ id: string; project: string; createdAt: string }> {
    const r = await this.sidecar.request('session/new', {
      project: opts.project ?? this.defaultProject(),
      ...(opts.model ? { model: opts.model } : {}),
    });
    await this.setCurrent(r.id);
    return r;
  }

  async seal(id: string): Promise<SealResult> {
    const r = await this.sidecar.request('session/seal', { id });
    if (this.current === id) await this.setCurrent(undefined);
    return r;
  }

  /**
   * New Chat: the current session is sealed (titled if it had no title, marked sealed, let go),
   * the chat extensions are told to clear, and the first time ever the user is told where the old
   * chat went.
   */
  async startNewChat(): Promise<Api.NewChatEvent> {
    const id = this.current;
    let sealed: SealResult | undefined;
    if (id) {
      try {
        sealed = await this.seal(id);
      } catch (e) {
        if (codeOf(e) !== ErrorCodes.UnknownSession) throw e;
        await this.setCurrent(undefined); // deleted meanwhile: nothing to seal
      }
    }
    const event: Api.NewChatEvent = sealed ? { sealed } : {};
    this.newChat.fire(event);
    if (this.participant) await this.participant.fresh();
    if (sealed && sealed.titleSource !== 'none' && !this.context.globalState.get<boolean>(TOAST_KEY)) {
      await this.context.globalState.update(TOAST_KEY, true);
      void vscode.window.showInformationMessage(S.newChat.savedOnce, S.newChat.openHistory).then((pick) => {
        if (pick === S.newChat.openHistory) void vscode.commands.executeCommand('levelcodeSessions.history.focus');
      });
    }
    return event;
  }

  /** The API's resume: no dialogs; the caller handles needsConfirmation and readOnly. */
  async resumeQuiet(id: string, opts: Api.ResumeOptions & { target?: 'vscode-lm' } = {}): Promise<ResumeResult> {
    this.apiNextSeq.delete(id);
    const s = this.settings();
    const contextWindow = opts.contextWindow ?? (await this.model.contextWindow()) ?? s.contextWindow;
    // Each summary request fits the model that makes it (the head goes in pieces).
    const summaryWindow = await this.model.summaryWindow();
    const r = await this.sidecar.request(
      'session/resume',
      {
        id,
        contextWindow,
        ...(summaryWindow ? { summaryWindow } : {}),
        budgetRatio: opts.budgetRatio ?? s.budgetRatio,
        ...(opts.copy ? { copy: true } : {}),
        ...(opts.confirm ? { confirm: true } : {}),
        ...(opts.target ? { target: opts.target } : {}),
      },
      opts.token,
    );
    if (!r.needsConfirmation && !r.readOnly) await this.setCurrent(r.id);
    return r;
  }

  /**
   * Who continues a session: @history (when this editor has it and a model) or a chat extension
   * listening for Resume. With both, the user picks, every time (nothing is remembered, so a
   * Resume never lands somewhere the user did not see chosen); with one, no question. Answers
   * `null` when the user dismissed the question, undefined when nothing can continue it.
   */
  private async continuer(title: string): Promise<Continuer | null | undefined> {
    const choices: Continuer[] = [];
    if (this.participant && (await this.model.pick())) choices.push({ kind: 'participant' });
    for (const h of this.handlers.handlers()) choices.push({ kind: 'extension', handler: h });
    if (choices.length <= 1) return choices[0];
    const items = choices.map((c) =>
      c.kind === 'participant'
        ? { label: `$(comment-discussion) ${S.chooser.participant}`, detail: S.chooser.participantDetail, c }
        : { label: `$(extensions) ${c.handler.name}`, detail: S.chooser.extensionDetail, c },
    );
    const pick = await vscode.window.showQuickPick(items, { title: S.chooser.title(title), placeHolder: S.chooser.placeholder });
    return pick ? pick.c : null;
  }

  /**
   * Resume from the History: asks who continues it (see continuer), shows progress, asks consent
   * for a costly summary ("Resume from summary" / "Start fresh instead"), offers a copy when
   * another window owns the chat, then tells the one chosen and the user (tier and the planner's
   * note).
   */
  async resumeInteractive(
    session: Pick<SessionSummary, 'id' | 'title'> & { source?: unknown },
    opts: { copy?: boolean; by?: Continuer } = {},
  ): Promise<ResumeResult | undefined> {
    const by = opts.by ?? (await this.continuer(session.title));
    if (by === null) return undefined; // dismissed: nothing resumed, no lock taken
    // Without a model (and no chat extension listening) nothing can continue the chat: say so,
    // offer the transcript, take no lock.
    if (!by && this.participant) {
      await noModelNotice(session);
      return undefined;
    }
    // A session imported from another tool is continued as a fork: our copy stays as it wrote it.
    if (session.source && by) opts = { ...opts, copy: true };
    const run = (confirm: boolean) =>
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: S.resume.progress(session.title), cancellable: true },
        // @history sends the context to vscode.lm: ask for it in that shape (tool calls as parts).
        (_p, token) =>
          this.resumeQuiet(session.id, {
            copy: opts.copy,
            confirm,
            token,
            ...(by?.kind === 'participant' ? { target: 'vscode-lm' as const } : {}),
          }),
      );
    let r: ResumeResult;
    try {
      r = await run(false);
      if (r.needsConfirmation) {
        const pick = await vscode.window.showWarningMessage(
          S.resume.consent(r.needsConfirmation.inputTokens, r.needsConfirmation.calls),
          { modal: true },
          S.resume.fromSummary,
          S.resume.startFresh,
        );
        if (pick === S.resume.startFresh) {
          await this.startNewChat();
          return undefined;
        }
        if (pick !== S.resume.fromSummary) return undefined;
        r = await run(true);
      }
    } catch (e) {
      if (codeOf(e) === ErrorCodes.RequestCancelled) return undefined;
      if (codeOf(e) === ErrorCodes.CallbackFailed || codeOf(e) === ErrorCodes.FeatureUnavailable) {
        const why = messageOf(e);
        const hint = codeOf(e) === ErrorCodes.FeatureUnavailable || why.includes(S.lm.noModel) ? ` ${S.resume.noModel}` : '';
        const pick = await vscode.window.showErrorMessage(`${S.resume.failed(why)}${hint}`, S.resume.startFresh);
        if (pick === S.resume.startFresh) await this.startNewChat();
        return undefined;
      }
      void vscode.window.showErrorMessage(S.resume.failed(messageOf(e)));
      return undefined;
    }
    // Only the one chosen is told: two chats appending the same turns to one session would fork it.
    if (by?.kind !== 'participant') this.handlers.fire({ result: r, title: session.title }, by?.handler.id);
    if (r.readOnly && !opts.copy) {
      const pick = await vscode.window.showWarningMessage(S.resume.readOnly(session.title), S.resume.openCopy);
      if (pick === S.resume.openCopy) return this.resumeInteractive(session, { copy: true, by });
      return r;
    }
    void vscode.window.showInformationMessage(S.resume.resumed(session.title, r.tier, r.note));
    if (by?.kind === 'participant' && this.participant) await this.participant.show(r, session.title);
    return r;
  }

  dispose(): void {
    this.newChat.dispose();
  }
}

/** Who continues a resumed session. */
export type Continuer = { kind: 'participant' } | { kind: 'extension'; handler: ResumeHandler };

/**
 * No language model: says how to get one (any extension that provides a vscode.lm model,
 * Copilot Chat among them), offers the transcript, and the hand-off to an agent CLI when one is
 * installed (levelcodeSessions.handoff).
 */
export async function noModelNotice(session: Pick<SessionSummary, 'id' | 'title'>): Promise<void> {
  const cli = await installedHandoffTool();
  const text = cli ? `${S.chat.noModel} ${S.chat.orCli(cli.label)}` : S.chat.noModel;
  const cliButton = cli ? S.chat.continueInCli(cli.label) : undefined;
  const pick = await vscode.window.showInformationMessage(text, S.chat.openTranscript, S.chat.getModel, ...(cliButton ? [cliButton] : []));
  if (pick === S.chat.openTranscript) await openTranscript(session);
  if (pick === S.chat.getModel) await vscode.commands.executeCommand('workbench.extensions.search', '@category:"AI" @sort:installs');
  if (pick && pick === cliButton) await vscode.commands.executeCommand('levelcodeSessions.handoff', session.id);
}
