// Answers the sidecar's callbacks with the editor's language model (vscode.lm): session/summarize
// (the resume briefing, tier 3) and session/title. The model family is the user's setting
// (levelcodeSessions.modelFamily); without any model, both callbacks fail, and the sidecar then
// uses its fallback title, or reports that a summary is needed.

import * as vscode from 'vscode';
import type { SummarizeParams, SummarizeResult, TitleParams, TitleResult } from './protocol';
import { cleanTitle, summarizePrompt, titlePrompt } from './prompt';
import { S } from './strings';

export class ModelAdapter {
  constructor(
    private readonly family: () => string,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The chosen model, or undefined when the editor has none (or no vscode.lm at all). */
  async pick(): Promise<vscode.LanguageModelChat | undefined> {
    const lm = (vscode as { lm?: typeof vscode.lm }).lm;
    if (!lm?.selectChatModels) return undefined;
    const family = this.family();
    try {
      const models = await lm.selectChatModels(family ? { family } : {});
      if (models.length === 0 && family) this.log.warn(`no language model of family "${family}"`);
      return models[0];
    } catch (e) {
      this.log.warn(`vscode.lm.selectChatModels failed: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** The model's context window, when a model is there to say. */
  async contextWindow(): Promise<number | undefined> {
    const m = await this.pick();
    return m && m.maxInputTokens > 0 ? m.maxInputTokens : undefined;
  }

  /**
   * The window the summaries are made in: the input limit of the model that answers
   * session/summarize. The sidecar cuts a long head into pieces that each fit it.
   */
  async summaryWindow(): Promise<number | undefined> {
    return this.contextWindow();
  }

  /** One piece of a resume's head (the sidecar sends one request per piece, in order). */
  async summarize(p: SummarizeParams, token: vscode.CancellationToken): Promise<SummarizeResult> {
    const briefing = await this.ask(summarizePrompt(p.instructions, p.messages), S.lm.summarizeJustification, token);
    if (!briefing) throw new Error(S.lm.emptyAnswer);
    const part = p.piece && p.piece.count > 1 ? ` (part ${p.piece.index + 1} of ${p.piece.count})` : '';
    this.log.info(`summarize ${p.id}${part}: ${p.messages.length} messages, ~${p.inputTokens ?? '?'} tokens -> ${briefing.length} chars`);
    return { briefing };
  }

  async title(p: TitleParams, token: vscode.CancellationToken): Promise<TitleResult> {
    const title = cleanTitle(await this.ask(titlePrompt(p.instructions, p.messages), S.lm.titleJustification, token));
    if (!title) throw new Error(S.lm.emptyAnswer);
    this.log.info(`title ${p.id}: "${title}"`);
    return { title };
  }

  private async ask(prompt: string, justification: string, token: vscode.CancellationToken): Promise<string> {
    const model = await this.pick();
    if (!model) throw new Error(S.lm.noModel);
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User(prompt)], { justification }, token);
    let out = '';
    for await (const chunk of response.text) out += chunk;
    return out.trim();
  }
}
