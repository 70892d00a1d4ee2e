// A resumed context in a target's shape: the events a plan keeps (all of them in tier 1; those
// after the briefing's coversThrough in tiers 2 and 3, the briefing first) made a neutral
// conversation and rendered for the target (targets.ts). The summariser of tier 3 gets its
// pieces the same way, so that it reads what the resumed model would read.
// Pure functions over plain data: no fs, no JSON-RPC.

import { toConversation, type Conversation, type NeutralMessage } from '../format/conversation.js';
import type { CompactEvent, SeqEvent } from '../format/events.js';
import { honestyLine, pieceEvents, type CompactPlan, type ResumePlan, type SummaryRequest } from './resume.js';
import { summaryElisionMarker } from './pieces.js';
import { render, type Rendered, type Target } from './targets.js';

/**
 * Which events a plan's context keeps: in tier 2 those after the briefing's coversThrough, with
 * the briefing of the plan's compact event (looked up in `events`) first; else all of them.
 * Tier 3's context is made from the plan's tail (tailEvents) and the new briefing instead.
 */
export function contextRange(plan: ResumePlan, events: readonly SeqEvent[]): { after?: number; briefing?: string | null } {
  if (plan.tier !== 2) return {};
  const compact = events.find((e) => e.seq === plan.compactSeq)?.event as CompactEvent | undefined;
  return { after: plan.coversThrough, briefing: compact?.briefing };
}

/**
 * The conversation of the events after `after` (a briefing's coversThrough), with `briefing`
 * first. With a briefing, compact events in the range are left out: the briefing stands for them.
 */
export function contextConversation(events: readonly SeqEvent[], o: { after?: number; briefing?: string | null } = {}): Conversation {
  const after = o.after ?? -1;
  const briefing = o.briefing ?? undefined;
  const kept = events.filter((e) => e.seq > after && (briefing === undefined || e.event.kind !== 'compact'));
  return toConversation(kept, { markerLine: honestyLine, briefing });
}

/** The messages of a resumed context for `target`. */
export function contextMessages(
  events: readonly SeqEvent[],
  target: Target,
  o: { after?: number; briefing?: string | null } = {},
): Rendered {
  return render(contextConversation(events, o), target);
}

/**
 * The messages of summarise call `index` in `target`'s shape: the briefing so far first, then
 * the piece's events. When the stored piece had to be shortened to fit the summariser's window
 * (request.shortened), the same is done here: the oldest tool results' content is replaced by
 * the elision marker, then the longest texts are cut, until the piece is no larger than the
 * stored request's messages.
 */
export function summaryMessages(plan: CompactPlan, request: SummaryRequest, target: Target, briefingSoFar?: string): Rendered {
  return render(summaryConversation(plan, request, briefingSoFar), target);
}

/** The neutral conversation of summarise call `request` (summaryMessages before rendering). */
export function summaryConversation(plan: CompactPlan, request: SummaryRequest, briefingSoFar?: string): Conversation {
  const { events, briefing } = pieceEvents(plan, request.piece.index, briefingSoFar);
  const conv = toConversation(events, { markerLine: honestyLine, ...(briefing !== null ? { briefing } : {}) });
  if (request.shortened) shorten(conv.messages, request.shortened.toolOutputs, JSON.stringify(request.messages).length);
  return conv;
}

function shorten(messages: NeutralMessage[], toolOutputs: number, maxChars: number): void {
  let left = toolOutputs;
  for (const m of messages)
    for (const p of m.parts)
      if (p.type === 'tool-result' && left > 0) {
        const chars = JSON.stringify(p.content).length;
        p.content = [{ type: 'text', text: summaryElisionMarker(chars) }];
        left--;
      }
  for (let guard = 0; guard < 10_000 && JSON.stringify(messages).length > maxChars; guard++) {
    let longest: { text: string } | null = null;
    for (const m of messages)
      for (const p of m.parts)
        if ((p.type === 'text' || p.type === 'summary') && (longest === null || p.text.length > longest.text.length)) longest = p;
    if (longest === null || longest.text.length < 200) return;
    const keep = Math.floor(longest.text.length / 2);
    longest.text = `${longest.text.slice(0, keep)}… [cut for the summariser: ${keep} characters kept]`;
  }
}
