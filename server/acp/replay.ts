// A saved session given back over ACP, two ways:
// - `replayUpdates`: the session/update notifications session/load sends the editor. A session
//   the proxy recorded replays the notifications it relayed live, verbatim (only the session id
//   is the one the editor asked for), with the prompts as user_message_chunk; any other session
//   (imported from another tool, written by an editor) is made into updates from its neutral
//   conversation (format/conversation.ts): text, thinking, tool calls with their results.
// - `earlierConversation`: what a NEW agent session is told before the next prompt, so that it
//   continues where the chat left off: the resume planner's tiers (resume/resume.ts) against the
//   agent's window: the whole conversation, or its last briefing and what follows; a session too
//   large for either is summarised in pieces by the agent (`summaryPlanOf`, `summaryPrompt`,
//   `earlierFromSummary`: the planner's pieces, which never part a tool call from its result),
//   or, where that is refused or fails, keeps its newest turns that fit and says what it left out.
// Pure functions over plain data: no fs, no streams.

import { toConversation, type NeutralMessage, type NeutralPart } from '../format/conversation.js';
import type { SeqEvent } from '../format/events.js';
import { contextConversation, contextRange, summaryConversation } from '../resume/context.js';
import {
  type AppliedBriefing,
  applyBriefing,
  type CompactPlan,
  honestyLine,
  planResume,
  summaryRequest,
  TIER3_NOTE,
  tailEvents,
} from '../resume/resume.js';
import { estimateTokens } from '../resume/tokens.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});

/** A session/update notification for `sessionId`. */
export function updateOf(sessionId: string, update: Rec): Rec {
  return { jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } };
}

/** Whether the events were recorded by the ACP proxy (they carry the relayed messages). */
export function recordedOverAcp(events: readonly SeqEvent[]): boolean {
  return events.some(
    ({ event }) =>
      event.kind === 'user' && Array.isArray((event as Rec).raw) && rec(((event as Rec).raw as unknown[])[0]).method === 'session/prompt',
  );
}

/** The updates session/load replays to the editor, in order. */
export function replayUpdates(events: readonly SeqEvent[], sessionId: string): Rec[] {
  return recordedOverAcp(events) ? replayRecorded(events, sessionId) : replayConversation(events, sessionId);
}

function withSession(note: unknown, sessionId: string): Rec | null {
  const n = rec(note);
  if (n.method !== 'session/update') return null;
  return { ...n, params: { ...rec(n.params), sessionId } };
}

function replayRecorded(events: readonly SeqEvent[], sessionId: string): Rec[] {
  const out: Rec[] = [];
  for (const { event } of events) {
    const e = event as Rec;
    if (e.kind === 'user') {
      const blocks = Array.isArray(e.content) ? e.content : [{ type: 'text', text: String(e.content) }];
      for (const content of blocks) out.push(updateOf(sessionId, { sessionUpdate: 'user_message_chunk', content }));
      continue;
    }
    if (Array.isArray(e.raw)) {
      for (const m of e.raw) {
        const n = withSession(m, sessionId);
        if (n) out.push(n);
      }
      continue;
    }
    // The proxy's own markers and the results it made up for calls a turn left unfinished were
    // never sent to the editor; an editor's turn added to the session later is made from its
    // conversation.
    // A compact event (a summary a resume made) was never shown either.
    if (e.kind === 'event' || e.kind === 'compact' || e.acp !== undefined) continue;
    out.push(...replayConversation([{ seq: 0, event }], sessionId));
  }
  return out;
}

function replayConversation(events: readonly SeqEvent[], sessionId: string): Rec[] {
  const out: Rec[] = [];
  const conv = toConversation(events, { markerLine: honestyLine });
  for (const m of conv.messages) for (const p of m.parts) out.push(...updatesOfPart(m, p, sessionId));
  return out;
}

function updatesOfPart(m: NeutralMessage, p: NeutralPart, sessionId: string): Rec[] {
  const text = (t: string) => ({ type: 'text', text: t });
  switch (p.type) {
    case 'text':
      return [
        updateOf(sessionId, {
          sessionUpdate: m.role === 'assistant' ? 'agent_message_chunk' : 'user_message_chunk',
          content: text(p.text),
        }),
      ];
    case 'summary':
      return [updateOf(sessionId, { sessionUpdate: 'user_message_chunk', content: text(`[Summary of earlier turns]\n${p.text}`) })];
    case 'file':
      return [
        updateOf(sessionId, {
          sessionUpdate: 'user_message_chunk',
          content: { type: 'resource_link', uri: `file://${p.path}`, name: p.path },
        }),
      ];
    case 'image':
      return p.data
        ? [
            updateOf(sessionId, {
              sessionUpdate: m.role === 'assistant' ? 'agent_message_chunk' : 'user_message_chunk',
              content: { type: 'image', mimeType: p.mediaType, data: p.data },
            }),
          ]
        : [];
    case 'thinking':
      return p.text ? [updateOf(sessionId, { sessionUpdate: 'agent_thought_chunk', content: text(p.text) })] : [];
    case 'tool-call':
      return [
        updateOf(sessionId, {
          sessionUpdate: 'tool_call',
          toolCallId: p.id,
          title: p.name,
          kind: 'other',
          status: 'pending',
          rawInput: p.arguments,
        }),
      ];
    case 'tool-result':
      return [
        updateOf(sessionId, {
          sessionUpdate: 'tool_call_update',
          toolCallId: p.id,
          status: p.isError ? 'failed' : 'completed',
          content: p.content.map((c) =>
            c.type === 'text'
              ? { type: 'content', content: text(c.text) }
              : { type: 'content', content: { type: 'image', mimeType: c.mediaType, data: c.data ?? '' } },
          ),
        }),
      ];
  }
}

// ---- The earlier conversation, for a new agent session ------------------------------------------

export const EARLIER_HEADER =
  '[levelcode-sessions: this chat continues an earlier conversation, restored from History. It is below; continue from where it left off. The new message follows it.]';

export interface Earlier {
  /** The text block to put before the next prompt's blocks (null when there is nothing). */
  text: string | null;
  /** 1: the whole conversation; 2: the last briefing and what follows; 3: the newest turns that fit. */
  tier: 1 | 2 | 3;
  messages: number;
  /** Messages left out (tier 3 only). */
  leftOut: number;
  /** Tier 3 summarised: the summarise calls the summary took. */
  pieces?: number;
}

/** The fraction of the agent's window the earlier conversation may take. */
export const EARLIER_BUDGET_RATIO = 0.5;

function earlierText(lines: readonly string[], note: string): string {
  return `${EARLIER_HEADER}${note}\n\n<earlier-conversation>\n${lines.join('\n\n')}\n</earlier-conversation>`;
}

/** The conversation as a transcript a model reads: one block a message, tool calls and results named. */
export function transcriptOf(messages: readonly NeutralMessage[]): string[] {
  return messages.map((m) => {
    const who = m.role === 'assistant' ? 'Assistant' : m.role === 'tool' ? 'Tool' : 'User';
    const body = m.parts
      .map((p) => {
        switch (p.type) {
          case 'text':
            return p.text;
          case 'summary':
            return `(Summary of the turns before this point)\n${p.text}`;
          case 'thinking':
            return '';
          case 'tool-call':
            return `[tool call ${p.name} ${JSON.stringify(p.arguments)}]`;
          case 'tool-result':
            return `[tool result${p.isError ? ' (error)' : ''}] ${p.content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mediaType}]`)).join('\n')}`;
          case 'image':
            return `[image ${p.mediaType}]`;
          case 'file':
            return `[file ${p.path}]`;
        }
      })
      .filter((s) => s !== '')
      .join('\n');
    return `${who}: ${body}`;
  });
}

/**
 * What a new agent session is told of the earlier conversation, planned against `window`
 * tokens (a fraction of the agent's model window, `budgetRatio`).
 */
export function earlierConversation(events: readonly SeqEvent[], o: { window: number; budgetRatio?: number }): Earlier {
  const budgetRatio = o.budgetRatio ?? EARLIER_BUDGET_RATIO;
  const plan = planResume(events, { window: o.window, budgetRatio });
  let tier: 1 | 2 | 3 = plan.tier === 2 ? 2 : 1;
  const conv = contextConversation(events, contextRange(plan, events));
  let lines = transcriptOf(conv.messages);
  let leftOut = 0;
  const budget = Math.floor(o.window * budgetRatio);
  if (plan.tier === 3 || estimateTokens(lines.join('\n\n')) > budget) {
    tier = 3;
    // The newest messages that fit, from a user message on.
    let used = 0;
    let start = lines.length;
    for (let i = lines.length - 1; i >= 0; i--) {
      const cost = estimateTokens(lines[i]!) + 4;
      if (used + cost > budget) break;
      used += cost;
      start = i;
    }
    while (start < lines.length && !lines[start]!.startsWith('User: ')) start++;
    leftOut = start;
    lines = lines.slice(start);
  }
  if (lines.length === 0) return { text: null, tier, messages: 0, leftOut };
  const note = leftOut > 0 ? `\n[${leftOut} earlier messages are left out here to fit; the full transcript is in History.]` : '';
  return {
    text: earlierText(lines, note),
    tier,
    messages: lines.length,
    leftOut,
  };
}

// ---- Tier 3 summarised by the agent --------------------------------------------------------------

/**
 * The planner's tier-3 plan when the conversation fits the agent's window neither whole nor from
 * its last briefing (null otherwise): its pieces each fit the window, and a piece boundary never
 * parts a tool call from its result (resume.ts's cut points).
 */
export function summaryPlanOf(events: readonly SeqEvent[], o: { window: number; budgetRatio?: number }): CompactPlan | null {
  const plan = planResume(events, { window: o.window, budgetRatio: o.budgetRatio ?? EARLIER_BUDGET_RATIO });
  return plan.tier === 3 ? plan : null;
}

export const SUMMARY_HEADER =
  '[levelcode-sessions: a summary is needed of an earlier conversation, restored from History, so that a new chat can continue it. The conversation is below; do not continue it and use no tools: only answer with the summary.]';

export interface SummaryPrompt {
  /** The one text block the agent is prompted with. */
  text: string;
  /** Its estimate (characters / 4): at most the plan's summary.inputLimit. */
  tokens: number;
  piece: { index: number; count: number };
  coversThrough: number;
}

/**
 * The prompt for piece `index` of a tier-3 plan: the briefing so far (the previous piece's
 * answer) first, then the piece as a transcript, then the planner's instructions.
 */
export function summaryPrompt(plan: CompactPlan, index: number, briefingSoFar?: string): SummaryPrompt {
  const request = summaryRequest(plan, index, briefingSoFar);
  const conv = summaryConversation(plan, request, briefingSoFar);
  const text = `${SUMMARY_HEADER}\n\n<conversation>\n${transcriptOf(conv.messages).join('\n\n')}\n</conversation>\n\n${request.instructions}`;
  return { text, tokens: estimateTokens(text), piece: request.piece, coversThrough: request.coversThrough };
}

/**
 * The earlier conversation from the last piece's summary: the briefing (cut to fit, as the
 * planner does), then the verbatim tail; and the compact event to append for it.
 */
export function earlierFromSummary(plan: CompactPlan, briefing: string): { earlier: Earlier; compact: AppliedBriefing['compact'] } {
  const applied = applyBriefing(plan, briefing);
  const conv = contextConversation(tailEvents(plan), { briefing: applied.compact.briefing });
  const lines = transcriptOf(conv.messages);
  return {
    earlier: { text: earlierText(lines, `\n[${TIER3_NOTE}]`), tier: 3, messages: lines.length, leftOut: 0, pieces: plan.summary.calls },
    compact: applied.compact,
  };
}
