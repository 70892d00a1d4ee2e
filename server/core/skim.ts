// The soft cap without decoding what it drops. A session larger than the cap is loaded with its
// oldest tool outputs swapped for a marker (elide.ts); in the 134 MB benchmark session that is
// every tool output it has, 112 MB, which the ordinary path decodes as UTF-8 and parses with
// JSON.parse only to drop. While the cap is still eliding, a long line is read here instead, the way search
// reads one: scan.wat's scanLine finds its long strings (and checks them as JSON.parse would),
// JSON.parse reads the rest as a skeleton (search-skeleton.ts), and only the strings the event
// keeps are decoded. An elided string payload is measured from its raw bytes: its length less
// one byte per escape, counted in WebAssembly.
//
// The result is exactly the ordinary path's event, text and key order alike
// (test/store/skim.test.ts compares the two on generated sessions). Each message the cap left
// whole also gets its JSON, made from the line's bytes (knownJsonOf). A line this path cannot read
// whole (not UTF-8, a string scanLine refuses, not an agent event, a `t` it cut, ...) is left to
// the ordinary path, which also reports its problem.
// Depends on scan.ts, search-skeleton.ts (which decodes cut strings through utf8.ts), elide.ts,
// lines.ts and tokens.ts; no fs.

import { isUtf8 } from 'node:buffer';
import { payloadBytes, payloadHolders, type StreamElider } from './elide.js';
import type { SeqEvent, SessionEvent } from './events.js';
import { tooDeep } from './plain.js';
import { Scanner, type CutString } from './scan.js';
import { cutText, skeletonOf } from './search-skeleton.js';
import { kindOfHead } from './lines.js';
import { knownJson } from './tokens.js';

/** Shorter lines take the ordinary path: there is little to skip in them. */
const MIN_LINE = 2048;

export class Skimmer {
  private readonly scanner = new Scanner();

  /** `accept`: the structural check of an event (reader.ts isSessionEvent). */
  constructor(
    private readonly elider: StreamElider,
    private readonly accept: (v: Record<string, unknown>) => boolean,
  ) {}

  /**
   * The event of a whole line (without its '\n') with the soft cap applied, as the elider takes
   * it; undefined when the ordinary path must read the line (nothing has been taken then).
   */
  take(seq: number, line: Buffer): SeqEvent | undefined {
    if (!this.elider.active || line.length < MIN_LINE) return undefined;
    // Only agent turns hold tool results: a line whose head says another kind is not scanned
    // (a head written otherwise is, and decided after the parse).
    const kind = kindOfHead(line, 0);
    if ((kind !== null && kind !== 'agent') || !isUtf8(line)) return undefined;
    const sc = this.scanner;
    const buf = sc.data(line.length);
    buf.set(line);
    sc.use(line.length);
    const scan = sc.scanLine(0);
    const cuts = scan.cuts;
    if (!cuts?.length || scan.end !== line.length) return undefined;
    let v: unknown;
    try {
      v = JSON.parse(skeletonOf(buf, 0, line.length, cuts, 'utf8').json);
    } catch {
      return undefined;
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    const o = v as Record<string, unknown>;
    if (o.kind !== 'agent' || !Array.isArray(o.messages) || tooDeep(o)) return undefined;

    // The messages' JSON with each cut string as its placeholder, while the placeholders are
    // still there: what knownJsonOf makes a message's JSON from.
    const messages0 = o.messages as unknown[];
    const skeletons = messages0.map((m) => (m !== null && typeof m === 'object' ? JSON.stringify(m) : undefined));
    // Every cut string gets its text except the string payloads, which the elider measures
    // first (a cut string is "\u0000<its index>"; no kept string starts with U+0000).
    const lengths: number[] = []; // of each decoded cut's JSON as the line has it
    const json = { length: 0 };
    const text = (s: string): string => {
      const i = +s.slice(1);
      const t = cutText(buf, cuts[i]!, true, json);
      lengths[i] = json.length;
      return t;
    };
    const holders = new Set<object>(payloadHolders(messages0));
    fill(o, holders, text);
    if (!this.accept(o)) return undefined;
    const measure = (p: unknown): number => {
      if (typeof p !== 'string' || p.charCodeAt(0) !== 0) return payloadBytes(p);
      const c = cuts[+p.slice(1)]!;
      return c.unicodeEscape ? payloadBytes(cutText(buf, c, true)) : c.end - c.start - sc.escapes(c.start, c.end);
    };
    const se = this.elider.take({ seq, event: o as SessionEvent }, measure);
    const messages = (se.event as { messages: unknown[] }).messages;
    // The payloads the elider kept (short ones, or all once the excess is saved) get their text.
    for (const h of payloadHolders(messages)) {
      const r = h as Record<string, unknown>;
      if (typeof r.content === 'string' && r.content.charCodeAt(0) === 0) r.content = text(r.content);
    }
    // A message the elider left as it was has its JSON made from the line's bytes.
    for (let i = 0; i < messages.length; i++) {
      const skeleton = skeletons[i];
      if (skeleton !== undefined && messages[i] === messages0[i]) knownJsonOf(messages[i] as object, skeleton, buf, cuts, lengths);
    }
    return se;
  }
}

/** A cut string in a message's skeleton JSON: a value (after `:`, `,` or `[`), not a key. */
const PLACEHOLDER = /(?<=[:,[])"\\u0000(\d+)"(?=[,\]}])/g;

/**
 * Records the JSON of a message of a skimmed line (tokens.ts knownJson): JSON.stringify's text
 * of it, in UTF-8, made from the line's own bytes. A whole-session resume answers with these
 * messages, and serializing them (23 MB of tool calls in the 134 MB benchmark session) was a
 * fifth of its time, twice over: once to estimate its tokens, once to write the answer as UTF-8.
 *
 * `skeleton` is JSON.stringify of the message as parsed from the line's skeleton, before any cut
 * string got its text: the same text, with `"\u0000<n>"` for the n-th cut string. A placeholder
 * is found only where a value starts (inside a string a quote is always escaped, and a key is
 * followed by a colon). It is replaced by the cut's own bytes, quotes included, when those are
 * the very bytes JSON.stringify writes for its text: a body with no \u and no \/ escape. Such
 * a body holds only characters stringify writes as they are (scanLine refused any control byte,
 * and UTF-8 has no lone surrogate) and escapes stringify writes the same way (\" \\ \b \f \n
 * \r \t). Another cut is written by JSON.stringify of its text. `lengths[n]`: the n-th cut's
 * JSON length as the line has it (cutText's). test/store/skim.test.ts compares the bytes and
 * the length with JSON.stringify's on generated sessions.
 */
function knownJsonOf(m: object, skeleton: string, buf: Buffer, cuts: readonly CutString[], lengths: readonly number[]): void {
  const parts: (string | CutString)[] = [];
  let length = 0;
  let bytes = 0;
  let from = 0;
  for (const hit of skeleton.matchAll(PLACEHOLDER)) {
    const n = +hit[1]!;
    const c = cuts[n]!;
    if (c.unicodeEscape || c.slashEscape) continue; // stays in the text, and is replaced below
    if (lengths[n] === undefined) return; // (never: every cut of a message kept whole has its text)
    parts.push(skeleton.slice(from, hit.index), c);
    from = hit.index + hit[0].length;
    length += lengths[n];
    bytes += c.end - c.start + 2;
  }
  if (parts.length === 0) return;
  parts.push(skeleton.slice(from));
  for (let i = 0; i < parts.length; i += 2) {
    let p = parts[i] as string;
    if (p.includes('"\\u0000')) p = parts[i] = p.replace(PLACEHOLDER, (_, n: string) => JSON.stringify(cutText(buf, cuts[+n]!, true)));
    length += p.length;
    bytes += Buffer.byteLength(p, 'utf8');
  }
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const p of parts) {
    if (typeof p === 'string') at += out.write(p, at, 'utf8');
    else {
      out.set(buf.subarray(p.start - 1, p.end + 1), at);
      at += p.end - p.start + 2;
    }
  }
  knownJson(m, out, length);
}

/**
 * Replaces each cut string in `v` by its text, except a string `content` of a payload holder.
 * (A `__proto__` key is JSON.parse's own data property: assigning it sets that property.) The
 * recursion is bounded: the caller checked tooDeep.
 */
function fill(v: object, holders: Set<object>, text: (s: string) => string): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string') {
        if (x.charCodeAt(0) === 0) v[i] = text(x);
      } else if (x && typeof x === 'object') fill(x, holders, text);
    }
    return;
  }
  const o = v as Record<string, unknown>;
  const holder = holders.has(o);
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (typeof x === 'string') {
      if (x.charCodeAt(0) !== 0 || (holder && k === 'content')) continue;
      o[k] = text(x);
    } else if (x && typeof x === 'object') fill(x, holders, text);
  }
}
