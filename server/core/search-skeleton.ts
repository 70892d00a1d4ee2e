// The skeleton of a JSONL line, for search's fast path (search.ts): the line's JSON with every
// long string value cut out, so JSON.parse builds the event's shape (kinds, types, roles, keys)
// without copying or decoding its texts, which stay in the line, found by their offsets.
// Depends on nothing.
//
// Performance: on the claude-scale corpus almost every byte is in a candidate line (the searched
// word is in most big tool inputs), so what a candidate line costs per byte is the search's
// cost. Decoding a line as UTF-8 (V8's slow path for non-ASCII text, ~300 MB/s) and a full
// JSON.parse were 4.3 s of 7 s. Here a line is read as latin1 (one byte, one char: offsets stay
// byte offsets, and the view is a cheap slice of the chunk's string), string ends are found with
// native indexOf, and only the small rest is parsed.
//
// Soundness: the skeleton is valid JSON exactly when the line is, so a bad line is never taken
// for a good one:
// - latin1 and UTF-8 views of a line have the same ASCII bytes at the same places (a UTF-8
//   decoder never swallows an ASCII byte, even after an invalid sequence), and JSON's structure
//   is all ASCII; a non-ASCII byte is valid JSON inside a string and invalid outside, in both;
// - a cut string's body is checked here as JSON.parse would (every escape valid, no control
//   character: a line with any byte below 0x20 is refused, see hasControlByte) and replaced by
//   a valid body, so the JSON lexer sees the same tokens.
// Anything unusual (a bad escape, a string without an end) returns null: the caller then takes
// the slow path, the full decode and parse, which also reports the line's problem.

/** The body a cut string gets: `\u0000` and its index; no kept string starts with U+0000. */
export const CUT_MARK = '\u0000';

/** A string value cut out of the skeleton: its body's [start, end) in the line. */
export interface CutString {
  start: number;
  end: number;
  /** The body holds a backslash (an escape), ... */
  escaped: boolean;
  /** ... a \u escape in particular, ... */
  unicodeEscape: boolean;
  /** ... or a `\/` (JSON.stringify never writes one). */
  slashEscape: boolean;
}

export interface Skeleton {
  /** The line's JSON with long string values replaced by `"\u0000<index>"`. */
  json: string;
  cuts: CutString[];
}

/** String values longer than this (in bytes) are cut; shorter ones are kept, and parsed. */
const KEEP_MAX = 48;

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const SPACE = 32;
const LOWER_U = 117;
const SLASH = 47;

/** Valid characters after a backslash in JSON, except 'u' (which needs four hex digits). */
const SIMPLE_ESCAPE = new Uint8Array(128);
for (const c of '"\\/bfnrt') SIMPLE_ESCAPE[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(128);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/**
 * The skeleton of `line` (a latin1 view of one line, without its '\n'), or null when a string
 * in it is not valid JSON string syntax (or has no end). Assumes no control bytes (checked
 * first by hasControlByte).
 */
export function skeletonOf(line: string): Skeleton | null {
  const cuts: CutString[] = [];
  const out: string[] = [];
  let copied = 0; // line[copied..] is not yet in out
  let nextBackslash = line.indexOf('\\'); // the next backslash at or after where we are (-1: none)
  let open = line.indexOf('"');
  while (open >= 0) {
    const start = open + 1;
    // Find the closing quote: the first quote not taken by an escape. Escapes are checked
    // on the way (each backslash once over the whole line: nextBackslash only moves forward).
    let close = line.indexOf('"', start);
    let escaped = false;
    let unicodeEscape = false;
    let slashEscape = false;
    if (nextBackslash >= 0 && nextBackslash < start) nextBackslash = line.indexOf('\\', start);
    while (close >= 0 && nextBackslash >= 0 && nextBackslash < close) {
      escaped = true;
      const c = line.charCodeAt(nextBackslash + 1);
      let after: number;
      if (c === LOWER_U) {
        unicodeEscape = true;
        for (let k = 2; k < 6; k++) {
          const h = line.charCodeAt(nextBackslash + k);
          if (!(h < 128 && HEX[h])) return null;
        }
        after = nextBackslash + 6;
      } else if (c < 128 && SIMPLE_ESCAPE[c]) {
        if (c === SLASH) slashEscape = true;
        after = nextBackslash + 2;
      }
      else return null;
      if (close < after) close = line.indexOf('"', after);
      nextBackslash = line.indexOf('\\', after);
    }
    if (close < 0) return null; // no end: not JSON (the slow path says so)
    let next = close + 1;
    while (line.charCodeAt(next) === SPACE) next++;
    const isKey = line.charCodeAt(next) === COLON;
    // Keys are always kept (a duplicate key must stay one key for JSON.parse); a value is cut
    // when long, or when it starts with U+0000 (so a kept string never looks like a cut one).
    if (!isKey && (close - start > KEEP_MAX || line.startsWith('\\u0000', start))) {
      out.push(line.slice(copied, start), '\\u0000', String(cuts.length));
      cuts.push({ start, end: close, escaped, unicodeEscape, slashEscape });
      copied = close;
    }
    open = line.indexOf('"', close + 1);
  }
  if (!cuts.length) return { json: line, cuts };
  out.push(line.slice(copied));
  return { json: out.join(''), cuts };
}

/** The cut string a skeleton's string value stands for, or undefined for a kept string. */
export function cutOf(s: string, cuts: readonly CutString[]): CutString | undefined {
  return s.charCodeAt(0) === 0 ? cuts[+s.slice(1)] : undefined;
}

/**
 * Whether buf[start, end) holds a byte below 0x20 (JSON allows none inside a string; '\t' and
 * '\r' between tokens are valid, but rare enough to leave to the slow path). Four bytes at a
 * time: (w - 0x20202020) & ~w & 0x80808080 is non-zero exactly when some byte of w is below 0x20
 * (the "has less than" bit trick: a borrow only ever follows a byte that was already below).
 */
export function hasControlByte(buf: Uint8Array, start: number, end: number): boolean {
  let i = start;
  const off = buf.byteOffset;
  while (i < end && (off + i) & 3) if (buf[i++]! < SPACE) return true;
  const n = (end - i) >> 2;
  if (n > 0) {
    const words = new Uint32Array(buf.buffer, off + i, n);
    for (let k = 0; k < n; k++) {
      const w = words[k]!;
      if ((w - 0x20202020) & ~w & 0x80808080) return true;
    }
    i += n << 2;
  }
  while (i < end) if (buf[i++]! < SPACE) return true;
  return false;
}

/**
 * The raw occurrences of a term in a line, searched lazily and remembered: `next(s)` is the
 * first at or after s (-1: none). Cut strings are mostly visited in line order, so the line is
 * searched about once; for the term the anchor is, the anchor search's hit seeds it.
 */
export class Occurrences {
  private from = 0;
  private found = -2; // the first occurrence at or after `from`; -2: not searched yet

  constructor(
    private readonly re: RegExp,
    private readonly line: string,
    seed?: number,
  ) {
    if (seed !== undefined) this.found = seed;
  }

  next(s: number): number {
    if (this.found !== -2 && s >= this.from && (this.found === -1 || s <= this.found)) return this.found;
    this.re.lastIndex = s;
    this.from = s;
    this.found = this.re.exec(this.line)?.index ?? -1;
    return this.found;
  }
}

/**
 * Whether the decoded text of a cut string contains an ASCII term, given its raw occurrences in
 * the line. Without escapes the decoded text has the raw text's ASCII runs, so a raw occurrence
 * inside the body is one. With escapes (and no \u escape, no `\/` if the term has a '/', and a
 * term without `"` or `\`: the caller checks) a decoded occurrence is a raw one that does not start on an escape's letter
 * (the `n` of `\n`): one not preceded by an odd run of backslashes.
 */
export function occursInCut(line: string, cut: CutString, at: Occurrences, termLength: number): boolean {
  for (let p = at.next(cut.start); p >= 0 && p + termLength <= cut.end; p = at.next(p + 1)) {
    if (!cut.escaped) return true;
    let k = p - 1;
    while (k >= cut.start && line.charCodeAt(k) === BACKSLASH) k--;
    if ((p - 1 - k) % 2 === 0) return true;
  }
  return false;
}
