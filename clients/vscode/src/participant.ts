// The @history chat participant in VS Code's Chat view: continues a saved session with the user's
// own model (vscode.lm). Resume loads the sidecar's planned context (three tiers, sized to the
// model's maxInputTokens) and shows the earlier turns; each new turn is sent to the model with
// that context and appended to the session once the reply is complete. New Chat starts a fresh
// session, made on its first turn. Without a model it says so in one line, offers the transcript,
// and never claims to have resumed. It holds the session's lock only while it writes: resume's
// lock (kept through a tier-3 summary) is given back once the chat is loaded, and each turn is
// appended with `release`, so the CLI or another window may write between turns. One writer per
// chat across windows: each append carries `expectedSeq` (the seq the chat's next event had when
// this window last wrote or loaded it); when another window continued the chat meanwhile, the
// sidecar refuses the turn (SessionConflict, or SessionLocked while that window holds it), the
// turn stays on screen unsaved, and the user is told and offered a copy: a fork at the last turn
// this window saw, with the refused turn appended, in which this window goes on.

import * as vscode from 'vscode';
import type { ModelAdapter } from './lm';
import type { ResumeResult } from './protocol';
import type { Sidecar } from './sidecar';
import { installedHandoffTool } from './continueIn';
import { codeOf, messageOf } from './errors';
import { ErrorCodes } from './protocol';
import { printable } from './printable';
import { S } from './strings';
import { transcriptUri } from './transcript';
import { contentText } from './prompt';

export const PARTICIPANT_ID = 'levelcode.history';

/**
 * A message of the resumed context in the `vscode-lm` target (protocol.md "Resume targets"):
 * parts {type:"text", value}, {type:"toolCall", callId, name, input}, {type:"toolResult", callId,
 * content:[{type:"text", value}]}, every call answered in the next user message.
 */
type Part =
  | { type: 'text'; value: string }
  | { type: 'toolCall'; callId: string; name: string; input: object }
  | { type: 'toolResult'; callId: string; content: { type: 'text'; value: string }[] };
type Msg = { role: 'user' | 'assistant'; content: Part[] };
interface Loaded {
  id: string;
  title: string;
  messages: Msg[];
  note?: string;
  forkedFrom?: string;
  /** The seq the chat's next event gets, as this window last saw it: sent as `expectedSeq`. */
  nextSeq?: number;
}

type TurnEvents = ({ kind: 'user'; content: string } | { kind: 'assistant'; content: { type: string; text: string }[] })[];

/**
 * When an append was refused because another window continued the chat (SessionConflict, or
 * SessionLocked for an append with expectedSeq), the turns this window saw (`data.turn`, where
 * its copy is forked; absent from an older sidecar); otherwise undefined.
 */
export function continuedElsewhere(e: unknown): { turn?: number } | undefined {
  const code = codeOf(e);
  if (code !== ErrorCodes.SessionConflict && code !== ErrorCodes.SessionLocked) return undefined;
  const turn = (e as { data?: { turn?: unknown } }).data?.turn;
  return typeof turn === 'number' ? { turn } : {};
}

/**
 * The tool-part classes of vscode.lm (VS Code 1.95 and later). The extension still runs on 1.91
 * (package.json engines), so they are looked up, not assumed: where they are missing, a call and
 * its result go as text lines.
 */
interface ToolParts {
  LanguageModelTextPart: new (value: string) => unknown;
  LanguageModelToolCallPart: new (callId: string, name: string, input: object) => unknown;
  LanguageModelToolResultPart: new (callId: string, content: unknown[]) => unknown;
}
function toolParts(): ToolParts | undefined {
  const v = vscode as unknown as Partial<ToolParts>;
  return v.LanguageModelTextPart && v.LanguageModelToolCallPart && v.LanguageModelToolResultPart ? (v as ToolParts) : undefined;
}

/** The vscode.lm message of a resumed one: its tool calls and results as the API's own parts. */
export function lmMessage(m: Msg): vscode.LanguageModelChatMessage {
  const tp = toolParts();
  const make = m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant : vscode.LanguageModelChatMessage.User;
  if (!tp) return make(m.content.map((p) => (p.type === 'text' ? p.value : readable({ role: m.role, content: [p] }))).join('\n\n'));
  const parts = m.content.map((p) => {
    if (p.type === 'toolCall') return new tp.LanguageModelToolCallPart(p.callId, p.name, p.input);
    if (p.type === 'toolResult')
      return new tp.LanguageModelToolResultPart(
        p.callId,
        p.content.map((c) => new tp.LanguageModelTextPart(c.value)),
      );
    return new tp.LanguageModelTextPart(p.value);
  });
  // 1.95 and later take a list of parts where 1.91's types say a string.
  return make(parts as unknown as string);
}

/** A resumed message for people: its text, each tool call as the tool and its input, each result shortened. */
export function readable(m: Msg): string {
  return m.content
    .map((p) => {
      if (p.type === 'text') return p.value;
      if (p.type === 'toolCall') return `\`${p.name}\` ${'`'}${JSON.stringify(p.input).slice(0, 200)}${'`'}`;
      const out = p.content.map((c) => c.value).join('\n');
      return `> ${(out.length > 300 ? `${out.slice(0, 300)}…` : out).replace(/\n/g, '\n> ')}`;
    })
    .filter(Boolean)
    .join('\n\n');
}

/** Messages of a result asked without a target (the API's callers): text only, as the pair holds it. */
function fromPair(conversation: unknown[]): Msg[] {
  return (conversation as { role: string; content: unknown }[]).map((m) => ({
    role: m.role === 'assistant' ? 'assistant' : 'user',
    content: [{ type: 'text', value: contentText(m.content) }],
  }));
}

export class HistoryParticipant implements vscode.Disposable {
  private loaded: Loaded | undefined;
  /** Turns said in the Chat view since the load, in the model's terms. */
  private said: { role: 'user' | 'assistant'; text: string }[] = [];
  private readonly participant: vscode.ChatParticipant;

  constructor(
    private readonly sidecar: Sidecar,
    private readonly model: ModelAdapter,
    private readonly project: () => string,
  ) {
    this.participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (req, _ctx, stream, token) => this.handle(req, stream, token));
    this.participant.iconPath = new vscode.ThemeIcon('history');
  }

  /** Loads a resumed session (or its fork), gives its lock back, and opens the Chat view on it. */
  async show(r: ResumeResult, title: string): Promise<void> {
    const messages = r.messages ? (r.messages as Msg[]) : fromPair(r.conversation);
    this.loaded = { id: r.id, title, messages, note: r.note, forkedFrom: r.forkedFrom };
    this.said = [];
    // The seq to expect, read while this window still holds the chat (resume took it), so no
    // other window's turn can slip in between. Without it the first turn goes unchecked.
    const read = await this.sidecar.request('session/read', { id: r.id, tail: 0 }).catch(() => undefined);
    this.loaded.nextSeq = read?.totalEvents;
    // Not fatal: a lock kept by mistake goes with the next seal or the sidecar's exit.
    await this.sidecar.request('session/release', { id: r.id }).catch(() => undefined);
    await vscode.commands.executeCommand('workbench.action.chat.open', {
      query: `@history /${S.chat.resumedCommand}`,
      isPartialQuery: false,
    });
  }

  /** New Chat: the next turn starts a fresh session. */
  async fresh(): Promise<void> {
    this.loaded = undefined;
    this.said = [];
    await vscode.commands.executeCommand('workbench.action.chat.newChat').then(undefined, () => undefined);
  }

  get currentId(): string | undefined {
    return this.loaded?.id;
  }

  private async handle(
    req: vscode.ChatRequest,
    stream: vscode.ChatResponseStream,
    token: vscode.CancellationToken,
  ): Promise<vscode.ChatResult> {
    if (req.command === S.chat.resumedCommand) return this.showLoaded(stream);
    const model = await this.model.pick();
    if (!model) {
      await this.noModel(stream);
      return {};
    }
    const messages = [
      ...(this.loaded?.messages ?? []).map(lmMessage),
      ...this.said.map((m) =>
        m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(m.text) : vscode.LanguageModelChatMessage.User(m.text),
      ),
      vscode.LanguageModelChatMessage.User(req.prompt),
    ];
    let reply = '';
    const response = await model.sendRequest(messages, { justification: S.chat.justification }, token);
    for await (const chunk of response.text) {
      reply += chunk;
      stream.markdown(chunk);
    }
    if (token.isCancellationRequested) return {};
    if (!this.loaded) {
      const n = await this.sidecar.request('session/new', { project: this.project(), model: model.id });
      this.loaded = { id: n.id, title: req.prompt, messages: [], nextSeq: 0 };
    }
    const turn: TurnEvents = [
      { kind: 'user', content: req.prompt },
      { kind: 'assistant', content: [{ type: 'text', text: reply }] },
    ];
    const loaded = this.loaded;
    try {
      const r = await this.sidecar.request('session/append', {
        id: loaded.id,
        events: turn,
        release: true,
        ...(loaded.nextSeq !== undefined ? { expectedSeq: loaded.nextSeq } : {}),
      });
      loaded.nextSeq = r.lastSeq + 1;
    } catch (e) {
      const elsewhere = continuedElsewhere(e);
      if (elsewhere) {
        void this.offerCopy(loaded, elsewhere.turn, turn, req.prompt, reply);
        return { errorDetails: { message: S.chat.elsewhereShort } };
      }
      // The file gone, the disk full: the reply stays on screen, unsaved.
      return { errorDetails: { message: S.chat.notSaved(messageOf(e)) } };
    }
    this.said.push({ role: 'user', text: req.prompt }, { role: 'assistant', text: reply });
    return { metadata: { session: loaded.id } };
  }

  /**
   * Tells the user another window continued the chat, and on "Open a Copy" forks it at the last
   * turn this window saw (a new chat when it saw none), appends the refused turn there and goes
   * on in the copy: the next prompt continues it, with the same context plus this turn.
   */
  private async offerCopy(loaded: Loaded, turn: number | undefined, events: TurnEvents, prompt: string, reply: string): Promise<void> {
    const pick = await vscode.window.showWarningMessage(S.chat.elsewhere(printable(loaded.title)), S.resume.openCopy);
    if (pick !== S.resume.openCopy) return;
    try {
      const copy =
        turn === 0
          ? await this.sidecar.request('session/new', { project: this.project() })
          : await this.sidecar.request('session/fork', { id: loaded.id, ...(turn !== undefined ? { atTurn: turn } : {}) });
      const r = await this.sidecar.request('session/append', { id: copy.id, events, release: true });
      // The window may have moved on meanwhile (New Chat, another resume): the copy still holds the turn.
      if (this.loaded === loaded) {
        this.loaded = { ...loaded, id: copy.id, forkedFrom: loaded.id, nextSeq: r.lastSeq + 1 };
        this.said.push({ role: 'user', text: prompt }, { role: 'assistant', text: reply });
      }
      this.sidecar.log.info(`${loaded.id} continued in another window: this window goes on in ${copy.id} (turn ${turn ?? 'all'})`);
      void vscode.window.showInformationMessage(S.chat.inCopy(printable(loaded.title)));
    } catch (e) {
      void vscode.window.showErrorMessage(S.chat.notSaved(messageOf(e)));
    }
  }

  private showLoaded(stream: vscode.ChatResponseStream): vscode.ChatResult {
    const l = this.loaded;
    if (!l) {
      stream.markdown(S.chat.nothingLoaded);
      return {};
    }
    stream.markdown(`**${S.chat.continuing(l.title)}**${l.forkedFrom ? ` ${S.chat.forked}` : ''}\n\n`);
    for (const m of l.messages) {
      const text = readable(m);
      if (!text) continue;
      const who = m.role === 'assistant' ? S.chat.assistant : S.chat.user;
      stream.markdown(`**${who}:** ${text}\n\n`);
    }
    if (l.note) stream.markdown(`_${l.note}_\n\n`);
    stream.button({ command: 'vscode.open', arguments: [transcriptUri(l)], title: S.chat.openTranscript });
    return { metadata: { session: l.id } };
  }

  /** How to get a model, the transcript, and the hand-off to an agent CLI when one is installed. */
  private async noModel(stream: vscode.ChatResponseStream): Promise<void> {
    const cli = this.loaded ? await installedHandoffTool() : undefined;
    stream.markdown(cli ? `${S.chat.noModel} ${S.chat.orCli(cli.label)}` : S.chat.noModel);
    if (this.loaded) stream.button({ command: 'vscode.open', arguments: [transcriptUri(this.loaded)], title: S.chat.openTranscript });
    stream.button({ command: 'workbench.extensions.search', arguments: ['@category:"AI" @sort:installs'], title: S.chat.getModel });
    if (cli && this.loaded)
      stream.button({ command: 'levelcodeSessions.handoff', arguments: [this.loaded.id], title: S.chat.continueInCli(cli.label) });
  }

  dispose(): void {
    this.participant.dispose();
  }
}
