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
// (test/store/skim.test.ts compares the two on generated sessions). A line this path cannot read
// whole (not UTF-8, a string scanLine refuses, not an agent event, a `t` it cut, ...) is left to
// the ordinary path, which also reports its problem.
// Depends on scan.ts, search-skeleton.ts (which decodes cut strings through utf8.ts), elide.ts and
// lines.ts; no fs.

import { isUtf8 } from 'node:buffer';
import { payloadBytes, payloadHolders, type StreamElider } from './elide.js';
import { tooDeep, type SeqEvent, type SessionEvent } from './events.js';
import { Scanner } from './scan.js';
import { cutText, skeletonOf } from './search-skeleton.js';
import { kindOfHead } from './lines.js';

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

    // Every cut string gets its text except the string payloads, which the elider measures
    // first (a cut string is "\u0000<its index>"; no kept string starts with U+0000).
    const text = (s: string): string => cutText(buf, cuts[+s.slice(1)]!, true);
    const holders = new Set<object>(payloadHolders(o.messages));
    fill(o, holders, text);
    if (!this.accept(o)) return undefined;
    const measure = (p: unknown): number => {
      if (typeof p !== 'string' || p.charCodeAt(0) !== 0) return payloadBytes(p);
      const c = cuts[+p.slice(1)]!;
      return c.unicodeEscape ? payloadBytes(cutText(buf, c, true)) : c.end - c.start - sc.escapes(c.start, c.end);
    };
    const se = this.elider.take({ seq, event: o as SessionEvent }, measure);
    // The payloads the elider kept (short ones, or all once the excess is saved) get their text.
    for (const h of payloadHolders((se.event as { messages: unknown[] }).messages)) {
      const r = h as Record<string, unknown>;
      if (typeof r.content === 'string' && r.content.charCodeAt(0) === 0) r.content = text(r.content);
    }
    return se;
  }
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
