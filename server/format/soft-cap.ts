// The soft cap. A session file larger than the cap (default 20 MB) is loaded with its oldest
// agent tool-result payloads replaced by a one-line marker until the estimate fits, oldest
// first, so the same file always loads the same way. The file itself is never touched: the
// full outputs stay on disk, in the transcript and in exports of the raw JSON.
// Pure: no fs, no JSON-RPC. Applied by the store as it loads (store/store.ts, store/reader.ts)
// and by resume to a conversation it sends.

import type { SeqEvent } from './events.js';
import { partOf } from './content.js';

export function elisionMarker(bytes: number): string {
  return `[tool output elided on load: ${bytes} bytes; the full output is in the session file]`;
}

interface Site {
  seq: number;
  msg: number;
  block: number; // -1: the message's own content (OpenAI role:"tool")
  bytes: number;
}

/**
 * A payload's size as the soft cap counts it: the UTF-8 bytes of its JSON as a session line
 * holds it (escapes included; a string's without its quotes), which skim.ts reads off the line
 * without decoding it.
 */
export function payloadBytes(v: unknown): number {
  try {
    const json = JSON.stringify(v);
    return json === undefined ? 0 : Buffer.byteLength(json) - (typeof v === 'string' ? 2 : 0);
  } catch {
    return 0;
  }
}

/** How many bytes a payload is (payloadBytes, unless the caller knows better: skim.ts). */
export type Measure = (payload: unknown) => number;

/**
 * Tool-result payloads of an agent message list, in order (content.ts reads them): a role:"tool"
 * message's content and a message's tool_result blocks. Responses outputs are not elided.
 */
function sitesOf(seq: number, messages: unknown[], measure: Measure | false = payloadBytes): Site[] {
  const out: Site[] = [];
  messages.forEach((m, mi) => {
    const own = partOf(m);
    if (own?.type === 'tool') {
      if (own.output !== undefined) out.push({ seq, msg: mi, block: -1, bytes: measure ? measure(own.output) : 0 });
      return;
    }
    const content = m && typeof m === 'object' ? (m as Record<string, unknown>).content : undefined;
    if (!Array.isArray(content)) return;
    content.forEach((b, bi) => {
      const p = partOf(b);
      if (p?.type === 'tool_result' && p.output !== undefined)
        out.push({ seq, msg: mi, block: bi, bytes: measure ? measure(p.output) : 0 });
    });
  });
  return out;
}

/** The objects holding the messages' tool-result payloads (under `content`), in order. */
export function payloadHolders(messages: unknown[]): object[] {
  return sitesOf(0, messages, false).map((s) =>
    s.block === -1 ? (messages[s.msg] as object) : ((messages[s.msg] as { content: object[] }).content[s.block] as object),
  );
}

/**
 * The messages with every tool-result payload removed (the key itself, not a marker): the
 * least any elision can leave of them, since the soft cap only ever swaps a payload for a
 * shorter marker. Untouched messages are the same objects. The resume planner counts these to
 * bound a transcript's tokens from below without knowing which payloads a load would elide.
 */
export function withoutToolPayloads(messages: unknown[]): unknown[] {
  const sites = sitesOf(0, messages, false);
  if (sites.length === 0) return messages;
  const out = messages.slice();
  for (const s of sites) {
    const msg = { ...(out[s.msg] as Record<string, unknown>) };
    if (s.block === -1) delete msg.content;
    else {
      const content = (msg.content as unknown[]).slice();
      const { content: _payload, ...rest } = content[s.block] as Record<string, unknown>;
      content[s.block] = rest;
      msg.content = content;
    }
    out[s.msg] = msg;
  }
  return out;
}

/**
 * Returns events whose oldest tool results are elided until `size` minus the bytes saved is at
 * most `cap`. Untouched events are the same objects; changed ones are shallow copies. The same
 * choice as StreamElider (it is StreamElider over a list already read).
 */
export function elideToCap(events: SeqEvent[], size: number, cap: number): { events: SeqEvent[]; elided: number } {
  if (size <= cap) return { events, elided: 0 };
  const elider = new StreamElider(size, cap);
  const out = events.map((se) => elider.take(se));
  return elider.elided === 0 ? { events, elided: 0 } : { events: out, elided: elider.elided };
}

/**
 * The soft cap, applied event by event in seq order (as lines are parsed, so the text of what is
 * elided is never held all at once): the oldest tool results are elided until `size` minus the
 * bytes saved is at most `cap`. Elided events are shallow copies.
 */
export class StreamElider {
  private excess: number;
  elided = 0;

  constructor(size: number, cap: number) {
    this.excess = size - cap;
  }

  /** The elider's state, for reset (skim.ts: a line it gives up on after take). */
  mark(): { excess: number; elided: number } {
    return { excess: this.excess, elided: this.elided };
  }

  reset(m: { excess: number; elided: number }): void {
    this.excess = m.excess;
    this.elided = m.elided;
  }

  /** Whether a tool result may still be elided (the excess is not yet saved). */
  get active(): boolean {
    return this.excess > 0;
  }

  /** `measure`: the payloads' sizes, when the caller has them without their text (skim.ts). */
  take(se: SeqEvent, measure: Measure = payloadBytes): SeqEvent {
    if (this.excess <= 0 || se.event.kind !== 'agent' || !Array.isArray(se.event.messages)) return se;
    const chosen: Site[] = [];
    for (const s of sitesOf(se.seq, se.event.messages, measure)) {
      if (this.excess <= 0) break;
      const marker = Buffer.byteLength(elisionMarker(s.bytes));
      if (s.bytes <= marker) continue;
      this.excess -= s.bytes - marker;
      this.elided++;
      chosen.push(s);
    }
    if (chosen.length === 0) return se;
    const messages = se.event.messages.slice();
    for (const s of chosen) {
      const msg = { ...(messages[s.msg] as Record<string, unknown>) };
      if (s.block === -1) msg.content = elisionMarker(s.bytes);
      else {
        const content = (msg.content as unknown[]).slice();
        content[s.block] = { ...(content[s.block] as Record<string, unknown>), content: elisionMarker(s.bytes) };
        msg.content = content;
      }
      messages[s.msg] = msg;
    }
    return { seq: se.seq, event: { ...se.event, messages } };
  }
}
