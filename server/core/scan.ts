// Search's byte scans (scan.wat, WebAssembly with SIMD) behind a small JavaScript face: a chunk
// of whole lines is read straight into the module's memory (data()), then found in, indexed and
// scanned there sixteen and sixty-four bytes at a time. Positions in and out are offsets in the
// chunk.
//
// Performance: on the claude-scale corpus almost every byte is in a line holding the searched
// word, so each byte is looked at by every pass: finding the word, finding the line ends, and
// finding the JSON strings of the line. In JavaScript these passes were most of a search
// (bench/PERFORMANCE.md: search).
//
// One scanner a search (search's helper thread has its own): a scanner's memory is that
// search's read buffer. The soft cap's skim (skim.ts) has one per load, and copies each long
// line into it. Depends on nothing but scan-wasm.ts.

import { SCAN_WASM } from './scan-wasm.js';

// The memory layout (scan.wat).
const NEEDLE = 0;
const MASK = 1024;
/**
 * The longest string value scanLine keeps in a skeleton (longer ones are cut; scan.wat holds the
 * same number). Every value search decides by is at most this long: the event time (24 bytes),
 * kinds, block types and roles; a cut value never equals one. Cutting more makes the skeleton
 * JSON.parse reads smaller: at 48 bytes ids and paths were kept, and a search took 6% longer.
 */
export const KEEP_MAX = 24;
/** The longest needle the module finds (a longer one is found by the caller). */
export const NEEDLE_MAX = 1024;
const CUTS = 16384;
const ESCAPES = 147456;
const LINES = 212992;
const LINES_MAX = 12288;
const DATA = 262144;
const SLACK = 128; // bytes after the data that scans may read (scan.wat)
const PAGE = 65536;

/** A string value scanLine says to cut: its body's [start, end), offsets in the line. */
export interface CutString {
  start: number;
  end: number;
  /** The body holds a \u escape. */
  unicodeEscape: boolean;
  /** The body holds a `\/` (JSON.stringify never writes one). */
  slashEscape: boolean;
}

export interface LineScan {
  /** The line's end (its '\n', or the end of the chunk). */
  end: number;
  /** null: the line needs the slow path (not well-formed JSON strings, or a control byte). */
  cuts: CutString[] | null;
  /**
   * The line may hold U+0130, U+017F or U+212A, whose case folding makes an ASCII word match
   * other bytes (false: it surely holds none).
   */
  caseTrap: boolean;
  /** The line holds a \u escape (known only when cuts is not null: false otherwise). */
  unicodeEscapes: boolean;
}

interface Exports {
  memory: WebAssembly.Memory;
  find(needle: number, n: number, from: number, to: number): number;
  indexLines(from: number, to: number, out: number, max: number): number;
  scanLine(start: number, to: number): number;
  escaped(from: number, to: number): number;
  lineEnd(): number;
  cuts(): number;
  escapes(): number;
  caseTrap(): number;
}

let module: WebAssembly.Module | undefined;

export class Scanner {
  private readonly x: Exports;
  private length = 0;
  private needle = 0;

  constructor() {
    module ??= new WebAssembly.Module(Buffer.from(SCAN_WASM, 'base64'));
    this.x = new WebAssembly.Instance(module).exports as unknown as Exports;
  }

  /**
   * The data area, `capacity` bytes of it, to read a chunk into (its bytes stay when it grows;
   * an earlier view of it is then stale). use() tells how much of it the chunk is.
   */
  data(capacity: number): Buffer {
    const need = DATA + capacity + SLACK;
    const have = this.x.memory.buffer.byteLength;
    if (need > have) this.x.memory.grow(Math.ceil((need - have) / PAGE));
    return Buffer.from(this.x.memory.buffer, DATA, capacity);
  }

  /** The chunk is the first `length` bytes of the data area. */
  use(length: number): void {
    this.length = length;
  }

  /**
   * Sets what find looks for: ASCII bytes, case-insensitive for letters unless `exact`. False
   * (and nothing set) when the needle is longer than NEEDLE_MAX or not ASCII.
   */
  setNeedle(needle: Uint8Array, exact: boolean): boolean {
    if (needle.length > NEEDLE_MAX || needle.some((b) => b > 0x7f)) return false;
    const bytes = new Uint8Array(this.x.memory.buffer);
    for (let i = 0; i < needle.length; i++) {
      const b = needle[i]!;
      const letter = !exact && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a));
      bytes[NEEDLE + i] = letter ? b | 0x20 : b;
      bytes[MASK + i] = letter ? 0x20 : 0;
    }
    this.needle = needle.length;
    return true;
  }

  /** The first place in [from, to) where the needle is whole before `to`, else -1. */
  find(from: number, to = this.length): number {
    const at = this.x.find(NEEDLE, this.needle, DATA + from, DATA + to);
    return at < 0 ? -1 : at - DATA;
  }

  /**
   * The starts of the lines from `from` on: `from`, then the place after each '\n' (the last
   * is the chunk's end when the chunk ends with one).
   */
  lineStarts(from: number): Int32Array {
    let starts = new Int32Array(1024);
    starts[0] = from;
    let n = 1;
    let at = DATA + from;
    const to = DATA + this.length;
    while (true) {
      const got = this.x.indexLines(at, to, LINES, LINES_MAX);
      if (n + got > starts.length) {
        const bigger = new Int32Array(Math.max(2 * starts.length, n + got));
        bigger.set(starts.subarray(0, n));
        starts = bigger;
      }
      const words = new Int32Array(this.x.memory.buffer, LINES, got);
      for (let i = 0; i < got; i++) starts[n++] = words[i]! - DATA;
      if (got < LINES_MAX) break;
      at = words[got - 1]!; // the next search starts at the last line found
    }
    return starts.subarray(0, n);
  }

  /**
   * The escapes in the body of a string scanLine found, chunk[start, end): how many bytes shorter
   * than the body its UTF-8 is, when it holds no \u escape (every other escape is two bytes for
   * one). The soft cap measures a tool output it elides this way, without decoding it (see
   * skim.ts).
   */
  escapes(start: number, end: number): number {
    return this.x.escaped(DATA + start, DATA + end);
  }

  /** The JSON strings of the line starting at `start` (see search-skeleton.ts). */
  scanLine(start: number): LineScan {
    const sure = this.x.scanLine(DATA + start, DATA + this.length) === 0;
    const end = this.x.lineEnd() - DATA;
    const caseTrap = this.x.caseTrap() !== 0;
    if (!sure) return { end, cuts: null, caseTrap, unicodeEscapes: false };
    const n = this.x.cuts();
    const cuts: CutString[] = new Array(n);
    const line = DATA + start;
    const spans = new Int32Array(this.x.memory.buffer, CUTS, n * 2);
    for (let i = 0; i < n; i++) cuts[i] = { start: spans[2 * i]! - line, end: spans[2 * i + 1]! - line, unicodeEscape: false, slashEscape: false };
    // The \u and \/ escapes (in line order, as the cuts are) marked on the cuts holding them.
    const m = this.x.escapes();
    const escapes = new Int32Array(this.x.memory.buffer, ESCAPES, m * 2);
    let unicodeEscapes = false;
    for (let j = 0; j < m && !unicodeEscapes; j++) unicodeEscapes = escapes[2 * j + 1] === 0x75;
    for (let j = 0, i = 0; j < m && i < n; j++) {
      const at = escapes[2 * j]! - line;
      while (i < n && cuts[i]!.end <= at) i++;
      if (i < n && cuts[i]!.start <= at) {
        if (escapes[2 * j + 1] === 0x75) cuts[i]!.unicodeEscape = true;
        else cuts[i]!.slashEscape = true;
      }
    }
    return { end, cuts, caseTrap, unicodeEscapes };
  }
}

