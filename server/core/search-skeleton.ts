// The skeleton of a JSONL line, for search's fast path (search.ts): the line's JSON with every
// long string value cut out, so JSON.parse builds the event's shape (kinds, types, roles, keys)
// without copying or decoding its texts, which stay in the chunk, found by their offsets.
// Depends on scan.ts (which finds the strings, in WebAssembly) for its types, and utf8.ts.
//
// Performance: on the claude-scale corpus almost every byte is in a candidate line (the searched
// word is in most big tool inputs), so what a candidate line costs per byte is the search's
// cost. Decoding a line as UTF-8 (V8's slow path for non-ASCII text, ~300 MB/s) and a full
// JSON.parse were 4.3 s of 7 s; walking each line's strings and escapes in JavaScript was the
// next 1.6 s. Now scan.wat walks them sixteen bytes at a time, and only the small rest (the keys,
// the short values, the structure) is read as latin1 and parsed.
//
// Soundness: the skeleton is valid JSON exactly when the line is, so a bad line is never taken
// for a good one:
// - latin1 and UTF-8 views of a line have the same ASCII bytes at the same places (a UTF-8
//   decoder never swallows an ASCII byte, even after an invalid sequence), and JSON's structure
//   is all ASCII; a non-ASCII byte is valid JSON inside a string and invalid outside, in both;
// - a cut string's body is checked by scanLine as JSON.parse would (every escape valid, no
//   control character: a line with any byte below 0x20 is refused) and replaced by a valid body,
//   so the JSON lexer sees the same tokens.
// Anything unusual (a bad escape, a string without an end, a backslash outside a string) makes
// scanLine refuse the line: the caller then takes the slow path, the full decode and parse,
// which also reports the line's problem.

import type { CutString } from './scan.js';
import { isUtf8 } from 'node:buffer';

export interface Skeleton {
  /** The line's JSON with long string values replaced by `"\u0000<index>"`. */
  json: string;
  /** The cut strings (scanLine's), in order: the n-th is `"\u0000n"` in the JSON. */
  cuts: readonly CutString[];
}

/**
 * The skeleton of the line at buf[start, end), from the strings scan.ts's scanLine says to cut
 * (it checked every string as JSON.parse would, and found no control byte: see scan.wat). Cut
 * strings are values longer than KEEP_MAX bytes, or starting with `\u0000` (so that a kept
 * string never looks like a cut one); keys are always kept (a duplicate key must stay one key
 * for JSON.parse). Search reads the rest as latin1 (it decides by ASCII values only); `utf8`
 * gives kept strings their real text (the pieces between cuts end at quotes, never inside a
 * character).
 */
export function skeletonOf(buf: Buffer, start: number, end: number, cuts: readonly CutString[], encoding: 'latin1' | 'utf8' = 'latin1'): Skeleton {
  if (!cuts.length) return { json: buf.toString(encoding, start, end), cuts };
  const out: string[] = [];
  let copied = start; // buf[copied..] is not yet in out
  for (let i = 0; i < cuts.length; i++) {
    const c = cuts[i]!;
    out.push(buf.toString(encoding, copied, start + c.start), '\\u0000', String(i));
    copied = start + c.end;
  }
  out.push(buf.toString(encoding, copied, end));
  return { json: out.join(''), cuts };
}

const BACKSLASH = 92;

/**
 * What JSON.parse makes of the string whose body is buf[c.start, c.end) (scanLine checked that it
 * parses). `validUtf8`: the caller knows the bytes are UTF-8; else utf8.ts checks (and bytes
 * that are not decode as toString('utf8') decodes them). `json`, when given, is set to the
 * length of the string's JSON as the line has it (quotes and escapes included), in UTF-16 code
 * units: the soft cap's skim needs it, and has it here without another pass (skim.ts).
 */
export function cutText(buf: Buffer, c: CutString, validUtf8?: boolean, json?: { length: number }): string {
  return bodyText(buf, c.start, c.end, validUtf8, true, json);
}

/**
 * What JSON.parse makes of the string body bytes buf[a, b) (whole escapes only). `quoted`: the
 * bytes around them are the string's quotes, which JSON.parse then reads with it (no copy).
 */
function bodyText(buf: Buffer, a: number, b: number, validUtf8: boolean | undefined, quoted: boolean, json?: { length: number }): string {
  const body = buf.subarray(a, b);
  if (body.indexOf(BACKSLASH) === -1) {
    const text = body.toString('utf8');
    if (json) json.length = text.length + 2;
    return text;
  }
  const literal = quoted ? buf.subarray(a - 1, b + 1).toString('utf8') : `"${body.toString('utf8')}"`;
  if (json) json.length = literal.length;
  return JSON.parse(literal) as string;
}

/**
 * The cut string a skeleton's string value stands for, or undefined for a kept string: a cut
 * string parses to U+0000 and its index, and no kept string starts with U+0000 (scanLine cuts
 * those).
 */
export function cutOf(s: string, cuts: readonly CutString[]): CutString | undefined {
  return s.charCodeAt(0) === 0 ? cuts[+s.slice(1)] : undefined;
}

/**
 * The raw occurrences of a term in a line, searched lazily and remembered: `next(s)` is the
 * first at or after s (-1: none), from `find` (the same, unremembered). Cut strings are mostly
 * visited in line order, so the line is searched about once; for the term the anchor is, the
 * anchor search's hit seeds it.
 */
export class Occurrences {
  private from = 0;
  private found = -2; // the first occurrence at or after `from`; -2: not searched yet

  constructor(
    private readonly find: (from: number) => number,
    seed?: number,
  ) {
    if (seed !== undefined) this.found = seed;
  }

  next(s: number): number {
    if (this.found !== -2 && s >= this.from && (this.found === -1 || s <= this.found)) return this.found;
    this.from = s;
    this.found = this.find(s);
    return this.found;
  }
}

/**
 * Whether the decoded text of a cut string contains an ASCII term, given its raw occurrences in
 * the line (the line starts at line[base]; offsets are the line's). With no \u escape in the
 * body, no `\/` if the term has a '/', and a term without `"` or `\` (the caller checks), the
 * decoded text keeps the raw text's ASCII runs between escapes, so a decoded occurrence is a raw
 * one that does not start on an escape's letter (the `n` of `\n`): one not preceded by an odd
 * run of backslashes.
 */
export function occursInCut(line: Uint8Array, base: number, cut: CutString, at: Occurrences, termLength: number): boolean {
  return firstInCut(line, base, cut, at, termLength) >= 0;
}

/** occursInCut's first decoded occurrence: its raw offset (the line's), or -1. */
export function firstInCut(line: Uint8Array, base: number, cut: CutString, at: Occurrences, termLength: number): number {
  for (let p = at.next(cut.start); p >= 0 && p + termLength <= cut.end; p = at.next(p + 1)) {
    if (!escaped(line, base + cut.start, base + p)) return p;
  }
  return -1;
}

/** Whether buf[at] is an escape's letter: preceded by an odd run of backslashes (not before `from`). */
function escaped(buf: Uint8Array, from: number, at: number): boolean {
  let k = at - 1;
  while (k >= from && buf[k] === BACKSLASH) k--;
  return (at - 1 - k) % 2 === 1;
}

/**
 * The decoded text of a cut string's bytes around `at` (a raw offset where a character starts
 * outside any escape: a term's first decoded occurrence, firstInCut's), about `before` bytes
 * before it and `after` after, each end moved to a character's start outside an escape; null
 * when those bytes are not UTF-8. `first`: where `at` is in the text; `fromStart`, `toEnd`:
 * the window starts, ends, where the string does. For a body without \u escapes (the fast
 * path's cuts): each escape is two bytes, one character.
 */
export function cutWindow(buf: Buffer, c: CutString, at: number, before: number, after: number): { text: string; first: number; fromStart: boolean; toEnd: boolean } | null {
  const cont = (i: number) => (buf[i]! & 0xc0) === 0x80;
  let a = Math.max(c.start, at - before);
  while (a < at && (cont(a) || escaped(buf, c.start, a))) a++;
  let b = Math.min(c.end, at + after);
  while (b > at && b < c.end && (cont(b) || escaped(buf, c.start, b))) b--;
  if (!isUtf8(buf.subarray(a, b))) return null;
  const head = bodyText(buf, a, at, true, false);
  return { text: head + bodyText(buf, at, b, true, false), first: head.length, fromStart: a === c.start, toEnd: b === c.end };
}
