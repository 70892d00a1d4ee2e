// The soft cap without decoding what it drops. Kept for the guardrail "tier-1 resume of the
// bench's largest session, against reading it + JSON.parse of each line" (bench/PERFORMANCE.md):
// that session's tool outputs are most of its bytes and the cap drops them, and decoding and
// parsing them only to drop them missed the guardrail.
//
// A long agent line, while the cap is still eliding, is read here: every `"content":"…"` string
// of 1 KB or more is cut out of the raw bytes and a placeholder put in its place (outside a
// string a quote is never escaped, so the pattern only ever matches a key and its string value;
// a string's end is its first quote after an even run of backslashes). The rest is parsed and
// checked as the ordinary path checks a line; the elider measures a cut payload by its raw
// length (format/soft-cap.ts payloadBytes counts a payload as the JSON the line holds); every
// cut it keeps is then decoded from its own bytes. The event is the ordinary path's, key order
// included (test/store/skim.test.ts compares the two).
//
// One difference, on purpose: the bytes of a payload the cap drops are never looked at, so a bad
// escape or a raw control character inside one (which JSON.stringify never writes) does not
// make the line a problem, as it does on the ordinary path. Any other doubt (not UTF-8, a line
// holding the placeholder tag, a kept cut that does not parse) leaves the line to the ordinary
// path, with the elider as it was.
// Depends on lines.ts and format/soft-cap.ts; no fs.

import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { SeqEvent, SessionEvent } from '../format/events.js';
import { kindOfHead } from './lines.js';
import { payloadBytes, type StreamElider } from '../format/soft-cap.js';

/** Shorter lines take the ordinary path: there is too little in them to skip. */
const MIN_LINE = 16 * 1024;
/** Shorter strings stay in the parsed part. */
const MIN_CUT = 1024;
const CONTENT = Buffer.from('"content":"');
/** A placeholder is this tag (NUL and random hex, new each process) and the cut's index. */
const TAG = `\u0000${randomBytes(8).toString('hex')}:`;
/** The tag as a line holds it, inside a JSON string. */
const TAG_JSON = JSON.stringify(TAG).slice(1, -1);
const TAG_BYTES = Buffer.from(TAG_JSON);

/** A cut string: `from` its opening quote, `to` just past its closing one. */
interface Cut {
  from: number;
  to: number;
}

/**
 * The line's event with the soft cap applied, as `elider.take` makes it from the ordinary parse;
 * undefined when the ordinary path must read the line (the elider is then as it was).
 * `check` is the ordinary path's check of a parsed line (reader.ts checkEvent).
 */
export function skimLine(
  seq: number,
  line: Buffer,
  elider: StreamElider,
  check: (v: unknown) => SessionEvent | undefined,
): SeqEvent | undefined {
  if (!elider.active || line.length < MIN_LINE || kindOfHead(line, 0) !== 'agent') return undefined;
  const cuts = cutsOf(line);
  if (cuts.length === 0 || line.includes(TAG_BYTES) || !isUtf8(line)) return undefined;
  const pieces: Buffer[] = [];
  let at = 0;
  cuts.forEach((c, i) => {
    pieces.push(line.subarray(at, c.from), Buffer.from(`"${TAG_JSON}${i}"`));
    at = c.to;
  });
  pieces.push(line.subarray(at));
  let event: SessionEvent | undefined;
  try {
    event = check(JSON.parse(Buffer.concat(pieces).toString('utf8')));
  } catch {
    return undefined;
  }
  if (!event) return undefined;
  const text = (i: number): string => JSON.parse(line.toString('utf8', cuts[i]!.from, cuts[i]!.to)) as string;
  const before = elider.mark();
  try {
    const measure = (payload: unknown): number => {
      const i = cutOf(payload);
      if (i >= 0) return cuts[i]!.to - cuts[i]!.from - 2;
      return payloadBytes(restore(payload, text));
    };
    const se = elider.take({ seq, event }, measure);
    return { seq, event: restore(se.event, text) };
  } catch {
    elider.reset(before);
    return undefined;
  }
}

/** The `"content":"…"` strings of MIN_CUT bytes or more, in order; none when a string is unterminated. */
function cutsOf(line: Buffer): Cut[] {
  const cuts: Cut[] = [];
  let pos = 0;
  for (;;) {
    const k = line.indexOf(CONTENT, pos);
    if (k < 0) return cuts;
    const open = k + CONTENT.length - 1;
    const close = closingQuote(line, open);
    if (close < 0) return [];
    if (close - open > MIN_CUT) cuts.push({ from: open, to: close + 1 });
    pos = close + 1;
  }
}

/** The quote that ends the string opened at `open`: the first one after an even run of backslashes. */
function closingQuote(b: Buffer, open: number): number {
  let pos = open + 1;
  for (;;) {
    const q = b.indexOf(34, pos);
    if (q < 0) return -1;
    let k = q - 1;
    while (b[k] === 92) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    pos = q + 1;
  }
}

/** The index of the cut a placeholder stands for, else -1. */
function cutOf(v: unknown): number {
  return typeof v === 'string' && v.startsWith(TAG) ? Number(v.slice(TAG.length)) : -1;
}

/** `v` with every placeholder in it replaced by its cut's text (objects and arrays in place). */
function restore<T>(v: T, text: (i: number) => string): T {
  const i = cutOf(v);
  if (i >= 0) return text(i) as T;
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (x === null || (typeof x !== 'object' && typeof x !== 'string')) continue;
    const y = restore(x, text);
    // An own "__proto__" key (JSON.parse makes one) is set as a property, not the prototype.
    if (y !== x) Object.defineProperty(o, k, { value: y, writable: true, enumerable: true, configurable: true });
  }
  return v;
}
