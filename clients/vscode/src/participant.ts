// The @history chat participant in VS Code's Chat view: continues a saved session with the user's
// own model (vscode.lm). Resume loads the sidecar's planned context (three tiers, sized to the
// model's maxInputTokens) and shows the earlier turns; each new turn is sent to the model with
// that context and appended to the session once the reply is complete. New Chat starts a fresh
// session, made on its first turn. Without a model it says so in one line, offers the transcript,
// and never claims to have resumed. It holds the session's lock only while it writes: resume's
// lock (kept through a tier-3 summary) is given back once the chat is loaded, and each turn is
// appended with `release`, so the CLI or another window may write between turns.

import * as vscode from 'vscode';
import type { ModelAdapter } from './lm';
import type { ResumeResult } from './protocol';
import type { Sidecar } from './sidecar';
import { messageOf } from './chat';
import { S } from './strings';
import { transcriptUri } from './transcript';

export const PARTICIPANT_ID = 'levelcode.history';

/** A message of the planned context (protocol.md, ResumeResult.conversation). */
type Msg = { role: string; content: string | Record<string, unknown>[] };
interface Loaded {
  id: string;
  title: string;
  conversation: Msg[];
  note?: string;
  forkedFrom?: string;
}

/** A message's text: text parts as they are, tool calls and results as short lines. */
export function textOf(content: Msg['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((p) => {
      if (p.type === 'text') return String(p.text);
      if (p.type === 'tool_use') return `[tool call ${String(p.name)}: ${JSON.stringify(p.input)}]`;
      if (p.type === 'tool_result') return `[tool result: ${typeof p.content === 'string' ? p.content : JSON.stringify(p.content)}]`;
      return '';
    })
    .filter(Boolean)
    .join('\n');
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
    this.loaded = { id: r.id, title, conversation: r.conversation as Msg[], note: r.note, forkedFrom: r.forkedFrom };
    this.said = [];
    // Not fatal: a lock kept by mistake goes with the next seal or the sidecar's exit.
    await this.sidecar.request('session/release', { id: r.id }).catch(() => undefined);
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@history /${S.chat.resumedCommand}`, isPartialQuery: false });
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

  private async handle(req: vscode.ChatRequest, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    if (req.command === S.chat.resumedCommand) return this.showLoaded(stream);
    const model = await this.model.pick();
    if (!model) {
      this.noModel(stream);
      return {};
    }
    const messages = [
      ...(this.loaded?.conversation ?? []).map((m) =>
        m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(textOf(m.content)) : vscode.LanguageModelChatMessage.User(textOf(m.content)),
      ),
      ...this.said.map((m) => (m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(m.text) : vscode.LanguageModelChatMessage.User(m.text))),
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
      this.loaded = { id: n.id, title: req.prompt, conversation: [] };
    }
    const turn = [
      { kind: 'user' as const, content: req.prompt },
      { kind: 'assistant' as const, content: [{ type: 'text', text: reply }] },
    ];
    try {
      await this.sidecar.request('session/append', { id: this.loaded.id, events: turn, release: true });
    } catch (e) {
      // Another process writing at this moment (or the file gone): the reply stays on screen, unsaved.
      return { errorDetails: { message: S.chat.notSaved(messageOf(e)) } };
    }
    this.said.push({ role: 'user', text: req.prompt }, { role: 'assistant', text: reply });
    return { metadata: { session: this.loaded.id } };
  }

  private showLoaded(stream: vscode.ChatResponseStream): vscode.ChatResult {
    const l = this.loaded;
    if (!l) {
      stream.markdown(S.chat.nothingLoaded);
      return {};
    }
    stream.markdown(`**${S.chat.continuing(l.title)}**${l.forkedFrom ? ` ${S.chat.forked}` : ''}\n\n`);
    for (const m of l.conversation) {
      const who = m.role === 'assistant' ? S.chat.assistant : S.chat.user;
      stream.markdown(`**${who}:** ${textOf(m.content)}\n\n`);
    }
    if (l.note) stream.markdown(`_${l.note}_\n\n`);
    stream.button({ command: 'vscode.open', arguments: [transcriptUri(l)], title: S.chat.openTranscript });
    return { metadata: { session: l.id } };
  }

  private noModel(stream: vscode.ChatResponseStream): void {
    stream.markdown(S.chat.noModel);
    if (this.loaded) stream.button({ command: 'vscode.open', arguments: [transcriptUri(this.loaded)], title: S.chat.openTranscript });
  }

  dispose(): void {
    this.participant.dispose();
  }
}
