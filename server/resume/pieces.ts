// Tier 3 in pieces: a head larger than the summariser's window is summarised in
// several calls, each of which fits that window. This file holds the two plain computations the
// planner (resume.ts) needs for that: packing whole turns into pieces, and shortening one turn
// that is larger than a piece on its own (its oldest tool outputs elided first, then its longest
// messages cut), so that the request still fits and says what was left out.
// Pure functions over plain data: no fs, no JSON-RPC, no clock. Stored values are never changed
// (a shortened message is a copy).

import { countWith, type TokenCounter } from './tokens.js';
import { partOf } from '../format/content.js';

/** A turn of the head: items [from, to) whose messages cost `tokens` for the summariser. */
export interface TurnSpan {
  from: number;
  to: number;
  tokens: number;
}

/** A piece: the turns [from, to) of the head; `oversized` when one turn alone exceeds the room. */
export interface PieceSpan {
  from: number;
  to: number;
  /** Tokens of the piece's own messages as stored (before any shortening). */
  tokens: number;
  oversized: boolean;
}

/**
 * Packs turns, in order, into as few pieces as fit: a piece takes whole turns while their tokens
 * stay within its room (`firstRoom` for the first piece, `room` after, where the briefing so far
 * takes its place). A turn larger than the room gets a piece of its own, marked oversized (the
 * caller shortens it). Every turn lands in exactly one piece, in order.
 */
export function packPieces(turns: readonly TurnSpan[], firstRoom: number, room: number): PieceSpan[] {
  const out: PieceSpan[] = [];
  let cur: PieceSpan | null = null;
  const roomOf = () => (out.length === 0 ? firstRoom : room);
  for (const t of turns) {
    if (cur !== null && cur.tokens + t.tokens <= roomOf()) {
      cur.to = t.to;
      cur.tokens += t.tokens;
      continue;
    }
    if (cur !== null) out.push(cur);
    cur = { from: t.from, to: t.to, tokens: t.tokens, oversized: false };
    if (t.tokens > roomOf()) {
      cur.oversized = true;
      out.push(cur);
      cur = null;
    }
  }
  if (cur !== null) out.push(cur);
  return out;
}

export function summaryElisionMarker(chars: number): string {
  return `[tool output elided for the summariser: ${chars} characters; the full output is in the session file]`;
}

/** The result of shortening a turn's messages to fit the room. */
export interface Shortened {
  messages: unknown[];
  tokens: number;
  /** Tool outputs replaced by a marker, oldest first. */
  toolOutputs: number;
  /** Messages whose text was cut after every tool output was elided. */
  cutMessages: number;
}

type Rec = Record<string, unknown>;

/**
 * Where a message holds tool output (content.ts reads it): the message itself (block -1: a
 * role:"tool" message or a Responses output item) or its tool_result and function_call_output
 * blocks, each with the key that holds the payload.
 */
function outputSites(m: unknown): { block: number; key: string }[] {
  const own = partOf(m);
  if (own !== null && (own.type === 'tool' || own.type === 'function_call_output'))
    return own.output === undefined ? [] : [{ block: -1, key: own.outputKey! }];
  const content = m && typeof m === 'object' ? (m as Rec).content : undefined;
  if (!Array.isArray(content)) return [];
  const out: { block: number; key: string }[] = [];
  content.forEach((b, i) => {
    const p = partOf(b);
    if (p !== null && (p.type === 'tool_result' || p.type === 'function_call_output') && p.output !== undefined)
      out.push({ block: i, key: p.outputKey! });
  });
  return out;
}

function withOutputElided(m: unknown, site: { block: number; key: string }): unknown {
  const msg = { ...(m as Rec) };
  const measure = (v: unknown) => (typeof v === 'string' ? v.length : (JSON.stringify(v) ?? '').length);
  if (site.block === -1) {
    msg[site.key] = summaryElisionMarker(measure(msg[site.key]));
    return msg;
  }
  const content = (msg.content as unknown[]).slice();
  const block = { ...(content[site.block] as Rec) };
  block[site.key] = summaryElisionMarker(measure(block[site.key]));
  content[site.block] = block;
  msg.content = content;
  return msg;
}

/** A message cut to the longest start of its JSON text that fits `keepTokens`, saying so. */
function cutMessage(m: unknown, keepTokens: number, counter: TokenCounter): unknown {
  const role = m && typeof m === 'object' && typeof (m as Rec).role === 'string' ? ((m as Rec).role as string) : 'user';
  const text = JSON.stringify(m) ?? '';
  const make = (keep: number) => ({
    role,
    content: `${text.slice(0, keep)}… [message cut for the summariser: ${keep} of ${text.length} characters kept]`,
  });
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countWith(counter, make(mid)) <= keepTokens) lo = mid;
    else hi = mid - 1;
  }
  return make(lo);
}

/**
 * Shortens `messages` until their tokens fit `room`: tool outputs are replaced by a marker,
 * oldest first, as the soft cap does; if that is not enough, the longest message is cut to what
 * still fits, again and again. Throws RangeError when even that cannot make them fit (a room
 * smaller than the markers of the turn's messages).
 */
export function shortenToFit(messages: readonly unknown[], room: number, counter: TokenCounter): Shortened {
  const out = messages.slice();
  const costs = out.map((m) => countWith(counter, m));
  let total = costs.reduce((s, c) => s + c, 0);
  let toolOutputs = 0;
  for (let i = 0; i < out.length && total > room; i++) {
    for (const site of outputSites(out[i])) {
      if (total <= room) break;
      const next = withOutputElided(out[i], site);
      const cost = countWith(counter, next);
      if (cost >= costs[i]!) continue;
      total += cost - costs[i]!;
      costs[i] = cost;
      out[i] = next;
      toolOutputs++;
    }
  }
  let cutMessages = 0;
  const cut = new Set<number>();
  while (total > room) {
    let j = -1;
    for (let i = 0; i < out.length; i++) if (!cut.has(i) && (j < 0 || costs[i]! > costs[j]!)) j = i;
    if (j < 0)
      throw new RangeError(
        `the summariser's window cannot hold one turn of this session even shortened (${total} tokens for a room of ${room})`,
      );
    const next = cutMessage(out[j], Math.max(0, costs[j]! - (total - room)), counter);
    const cost = countWith(counter, next);
    cut.add(j);
    if (cost >= costs[j]!) continue;
    total += cost - costs[j]!;
    costs[j] = cost;
    out[j] = next;
    cutMessages++;
  }
  return { messages: out, tokens: total, toolOutputs, cutMessages };
}
