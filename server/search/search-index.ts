// The search index of one project folder: search.idx, a cache beside index.json (cache-dir.ts)
// that search.ts keeps and trusts only as far as it can check (every file's identity; see
// search.ts `searchIndexed`). Plain data and plain functions: no file reads but the index's own,
// no knowledge of events beyond "an event has texts".
//
// What it holds. Every event line of the folder's sessions that has a word in its searchable
// texts (search.ts decides which texts: the same leaves the slow path matches) gets an ordinal,
// and per ordinal: its file, seq, line offset and length, and its time. A token is a maximal run
// of characters that fold to [a-z0-9] under the regex's case folding (/iu: ASCII letters, the
// Kelvin sign K to k, the long s ſ to s); every other character separates. A query word made
// of [A-Za-z0-9] only occurs case-insensitively in a text exactly when its lowercase form is a
// substring of one of the text's tokens, so a word's events are the union of the postings of
// every token holding it, found by one search of the vocabulary's text.
//
// An event whose line might hold that word only through a `\u` escape or a folding trap is
// marked unsure: the scan path finds candidate lines by their raw bytes, so for those the
// answer is decided again from the line (search.ts), and both paths always answer alike.
//
// The file (little-endian; protocol.md "search.idx"): magic, format, the header's length, the
// header's CRC-32 and the header (JSON: files, counts, sums), then the files' details (JSON: the
// tails and title states that extending a file needs, read only then: see details()); then the
// event columns (time f64, offset f64, length u32, seq u32, file u32, flags u8), the end of each
// token's postings (u32), where each token starts in the vocabulary (u32), each token's
// postings' CRC-32 (u32), the vocabulary (tokens joined by '\n', ASCII), and the postings: each
// token's ordinals ascending, as varint deltas. Anything that does not check out on open (its
// sums included) is no index at all: it is rebuilt (an index of another format too); a token's
// postings are checked against their sum when read, and the values a search uses where it uses
// them (CorruptIndexError). The sums are what make random damage harmless: without them, a
// flipped byte gave hits of sessions that do not exist and hits left out (issue 30).
//
// Why it is laid out so: a search opens a folder's head only (files, columns, vocabulary: one
// or two reads) and reads the postings of its words from the open file; the word starts are
// stored so that opening needs no pass over the vocabulary's text. Building, words are looked
// up in a hash table of the vocabulary and new (word, event) pairs are logged in one typed
// array, grouped by a counting sort only when the index is written (millions of pairs as one
// array per word were mostly garbage-collector time).

import { closeSync, fstatSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { openRegularSync } from '../store/files.js';
import { projectCache } from '../store/cache-dir.js';
import {
  columnBytes,
  columnOf,
  FNV_OFFSET,
  FNV_PRIME,
  joinHash,
  PairFilter,
  PARTS,
  pad8,
  pairHash,
  partBytes,
  withPairs,
} from './pair-filter.js';

/**
 * An index that did not check out where it was used (a word start, a postings end or an event's
 * file out of place): search.ts then answers its folder as if it had none, and rebuilds it.
 */
export class CorruptIndexError extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(`${path}: ${what}`);
    this.name = 'CorruptIndexError';
  }
}

/** The index's file name in a project folder. */
export const SEARCH_INDEX_FILE = 'search.idx';
/** Where the search index of the project folder `dir` lives: the user's cache folder. */
export const searchIndexPath = (dir: string): string => projectCache(dir, SEARCH_INDEX_FILE);

const MAGIC = 0x4953434c; // the bytes "LCSI" (LevelCode Search Index), read little-endian
const FORMAT = 6;
/** The format of an index with a pair filter (FolderIndex.paired). */
const FORMAT_PAIRS = 7;
/** The magic, the format, the header's length and the CRC-32 of the header's bytes. */
const PREFIX = 16;

/** Event flag: the event's line may match only through an escape or a folding trap. */
export const UNSURE = 1;
/** Event flag: a title event (read again when it matches: a title set again unchanged is one hit). */
export const TITLE = 2;
/**
 * Event flag: every string of the line that holds a space is one of its searchable texts, so a
 * phrase's raw bytes in the line are the phrase in a text (search.ts `isClean`, `rawHolds`).
 */
export const CLEAN = 4;

/** What the index knows of one session file. */
export interface IndexedFile {
  /** The file's name in the folder. */
  name: string;
  /** Identity when it was indexed: inode, size and mtime in nanoseconds (strings: bigints). */
  ino: string;
  size: number;
  mtimeNs: string;
  /** Bytes indexed: whole lines, [0, covered). A torn last line after it is read at search time. */
  covered: number;
  /** Lines in [0, covered), the meta line included. */
  lines: number;
  /** The bytes just before `covered` (base64, up to TAIL_BYTES): checked before the file is extended. */
  tail: string;
  /** The meta line's id and project; null: no readable meta line (nothing else indexed). */
  meta: { id: string; project: string } | null;
  /** The title so far (search.ts TitleTracker's state). */
  title: { title: string | null; firstUser: string | null; meta: unknown };
  /** The title a hit in it shows, from `title` (kept by search.ts beside it, so that answering needs only the header). */
  shown: string;
  /** Lines in [0, covered) that are not JSON, flattened: [line number, offset, length, ...]. */
  bad: number[];
  /** Replaced or gone: its events are skipped until the index is compacted. */
  dead?: boolean;
}

/** The entry of a file not indexed yet, named `name`: nothing covered, nothing known. */
export function unindexedFile(name: string): IndexedFile {
  const title = { title: null, firstUser: null, meta: null };
  return { name, ino: '', size: -1, mtimeNs: '', covered: 0, lines: 0, tail: '', meta: null, title, shown: '', bad: [] };
}

/** Bytes before `covered` kept to check that a grown file only grew. */
export const TAIL_BYTES = 48;

/** A file's entry in the header: all but its tail and title (see Header.details). */
type HeadFile = Omit<IndexedFile, 'tail' | 'title'>;

interface Header {
  files: HeadFile[];
  /** Bytes of the JSON after the header: each file's [tail, title], read when first needed. */
  details: number;
  events: number;
  tokens: number;
  vocab: number;
  postings: number;
  /**
   * CRC-32s (zlib) of the details and of the block read at open (columns, postings ends, word
   * starts, postings sums, vocabulary). Each token's postings have their own, in that block,
   * checked when they are read: no byte a search uses goes unchecked, so a damaged index is no
   * index (rebuilt) instead of an answer with hits missing or made up.
   */
  sums: { details: number; block: number };
  /** The pair filter (pair-filter.ts) after the postings, in FORMAT_PAIRS: the bytes each part uses; the CRC-32s of its column and of each part. */
  filter: { used: number; sums: number[] } | null;
}

/** [A-Za-z0-9] folded to lowercase; 0 separates. Beyond ASCII only 'K' (k) and 'ſ' (s) fold into it. */
const FOLD = new Uint8Array(128);
for (let c = 48; c <= 57; c++) FOLD[c] = c;
for (let c = 97; c <= 122; c++) FOLD[c] = c;
for (let c = 65; c <= 90; c++) FOLD[c] = c + 32;
const KELVIN = 0x212a;
const LONG_S = 0x17f;
/** A character's code folded into a word ([a-z0-9]), or 0: it separates words. */
const fold = (c: number): number => (c < 128 ? FOLD[c]! : c === KELVIN ? 107 : c === LONG_S ? 115 : 0);

/** A query word the index can answer: ASCII letters and digits only. */
export const INDEXABLE_WORD = /^[A-Za-z0-9]+$/;

/** The hash of a folded token in this side's table (words.wat hashes its own way). */
const fnv = (t: string): number => {
  let h = FNV_OFFSET;
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), FNV_PRIME);
  return h;
};

export class FolderIndex {
  files: IndexedFile[] = [];
  /** Events: ordinals [0, n). */
  n = 0;
  // Empty until the first event (grow()): an opened index replaces them with its file's.
  time = new Float64Array(0);
  offset = new Float64Array(0);
  length = new Uint32Array(0);
  seq = new Uint32Array(0);
  file = new Uint32Array(0);
  flags = new Uint8Array(0);
  /** The vocabulary, in the order tokens were first seen (cut from the file's text when asked for). */
  get tokens(): string[] {
    if (this.vocab) return this.vocab;
    const t = this.vocabStarts?.length ?? 0;
    const out = new Array<string>(t);
    for (let i = 0; i < t; i++) out[i] = this.tokenText(i);
    return (this.vocab = out);
  }
  set tokens(t: string[]) {
    this.vocab = t;
  }
  private vocab: string[] | null = [];

  // Postings, read or compacted: the encoded bytes (in memory, or in the open file) and each
  // token's end in them.
  private enc: Uint8Array = new Uint8Array(0);
  private encEnd: Uint32Array = new Uint32Array(0);
  private fd: number | null = null;
  /** Each token's postings' CRC-32, while they are read from the file (null once in memory). */
  private psums: Uint32Array | null = null;
  private postingsAt = 0;
  private postingsBytes = 0;
  // While editing (see edit()): the token table, and the (word, event) pairs posted since the
  // postings above, in event order, as (id, ordinal) after each other.
  private editing = false;
  private pairs = new Int32Array(0);
  private npairs = 0;
  private slots = new Int32Array(0);
  private hashes = new Int32Array(0);
  private last = new Int32Array(0);
  // The vocabulary as one text, for the query's substring search (built on demand).
  private vocabText: string | null = null;
  private vocabStarts: Uint32Array | null = null;
  // The event being added (see event()), and the hashes of its pairs of adjacent tokens.
  private cur = -1;
  private curTokens = 0;
  private curPairs = new Int32Array(1024);
  private ncur = 0;
  // The pair filter in memory (built, or read whole to be edited); else, opened, where it is in
  // the file, the bits each part uses and each part's sum.
  private filter: PairFilter | null = null;
  /**
   * Whether it has a pair filter (a phrase's search builds one, search.ts: a store's first
   * search, of a word, does not pay for it; an index gone on from keeps having one or not).
   */
  paired = false;

  constructor(paired = false) {
    this.paired = paired;
    if (paired) this.filter = new PairFilter();
  }

  private filterAt = 0;
  private filterUsed = 0;
  private filterSums: number[] = [];
  private filterColumn: Uint32Array | null = null;
  /** Where it was opened from ('' for a new one), for CorruptIndexError. */
  private path = '';
  /** Opened, and its word starts, postings ends and event files not all checked yet (see open()). */
  private unchecked = false;
  /** Opened, and its files' tails and titles not read yet: where they are in the file (see details()). */
  private detailsAt = 0;
  private detailsBytes = -1;
  private detailsSum = 0;

  // ---- Building ---------------------------------------------------------------------------

  /** Makes the index editable: the token table built (postings stay as they are). */
  edit(): void {
    if (this.editing) return;
    this.whole();
    this.editing = true;
    this.vocab = this.tokens; // split now: the text is dropped as words are added
    this.vocabText = null;
    this.vocabStarts = null;
    let cap = 1024;
    while (cap < this.tokens.length * 2) cap *= 2;
    this.slots = new Int32Array(cap);
    this.hashes = new Int32Array(Math.max(1024, this.tokens.length));
    this.last = new Int32Array(Math.max(1024, this.tokens.length)).fill(-1);
    for (let id = 0; id < this.tokens.length; id++) {
      const h = fnv(this.tokens[id]!);
      this.hashes[id] = h;
      this.place(id, h);
    }
  }

  /** Starts an event; its texts follow (text()), then endEvent(). */
  event(file: number, seq: number, offset: number, length: number, time: number, flags: number): void {
    if (this.n === this.time.length) this.grow();
    this.setEvent(this.n, file, seq, offset, length, time, flags);
    this.cur = this.n;
    this.curTokens = 0;
    this.ncur = 0;
  }

  /** Event e's columns (the one place they are written). */
  private setEvent(e: number, file: number, seq: number, offset: number, length: number, time: number, flags: number): void {
    this.time[e] = time;
    this.offset[e] = offset;
    this.length[e] = length;
    this.seq[e] = seq;
    this.file[e] = file;
    this.flags[e] = flags;
  }

  /** Adds the words of one searchable text of the current event. */
  text(s: string): void {
    const n = s.length;
    let i = 0;
    let prevEnd = -1; // the end of the token before, and its hash: a pair with the next
    let prevH = 0;
    while (i < n) {
      let c = s.charCodeAt(i);
      let f = fold(c);
      if (f === 0) {
        i++;
        continue;
      }
      const a = i;
      let h = FNV_OFFSET;
      for (;;) {
        if (c >= 128) this.flags[this.cur] = this.flags[this.cur]! | UNSURE;
        h = Math.imul(h ^ f, FNV_PRIME);
        if (++i === n) break;
        c = s.charCodeAt(i);
        f = fold(c);
        if (f === 0) break;
      }
      this.token(s, a, i, h);
      if (prevEnd >= 0 && this.paired) this.adjacent(pairHash(prevH, joinHash(s, prevEnd - 1, a), h));
      prevEnd = i;
      prevH = h;
    }
  }

  private adjacent(x: number): void {
    if (this.ncur === this.curPairs.length) {
      const more = new Int32Array(2 * this.curPairs.length);
      more.set(this.curPairs);
      this.curPairs = more;
    }
    this.curPairs[this.ncur++] = x;
  }

  /** Ends the current event: one with no token takes no ordinal. */
  endEvent(): void {
    if (this.cur < 0) return;
    if (this.curTokens > 0) {
      this.filter?.add(this.curPairs, this.ncur);
      this.n++;
    }
    this.cur = -1;
    this.ncur = 0;
  }

  private token(s: string, a: number, b: number, h: number): void {
    const mask = this.slots.length - 1;
    const len = b - a;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const slot = this.slots[p]!;
      if (slot === 0) break;
      const id = slot - 1;
      if (this.hashes[id] !== h) continue;
      const t = this.tokens[id]!;
      if (t.length !== len) continue;
      let same = true;
      for (let k = 0; k < len; k++) {
        const c = s.charCodeAt(a + k);
        if (fold(c) !== t.charCodeAt(k)) {
          same = false;
          break;
        }
      }
      if (!same) continue;
      this.post(id);
      return;
    }
    // A new token.
    let t = '';
    for (let k = a; k < b; k++) {
      const c = s.charCodeAt(k);
      t += String.fromCharCode(fold(c));
    }
    this.newToken(t, h);
    this.post(this.tokens.length - 1);
  }

  /** A word the index had not seen, given the next id. */
  private newToken(t: string, h: number): void {
    const id = this.tokens.length;
    this.tokens.push(t);
    this.vocabText = null;
    this.vocabStarts = null;
    if (id >= this.hashes.length) {
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
      const last = new Int32Array(this.last.length * 2).fill(-1);
      last.set(this.last);
      this.last = last;
    }
    this.hashes[id] = h;
    if (this.tokens.length * 2 > this.slots.length) this.rehash();
    else this.place(id, h);
  }

  private post(id: number): void {
    this.curTokens++;
    if (this.last[id] === this.cur) return;
    this.last[id] = this.cur;
    this.pair(id, this.cur);
  }

  private pair(id: number, ordinal: number): void {
    if (2 * this.npairs === this.pairs.length) {
      const more = new Int32Array(Math.max(1 << 16, 2 * this.pairs.length));
      more.set(this.pairs);
      this.pairs = more;
    }
    this.pairs[2 * this.npairs] = id;
    this.pairs[2 * this.npairs + 1] = ordinal;
    this.npairs++;
  }

  private place(id: number, h: number): void {
    const mask = this.slots.length - 1;
    let p = h & mask;
    while (this.slots[p] !== 0) p = (p + 1) & mask;
    this.slots[p] = id + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let id = 0; id < this.tokens.length; id++) this.place(id, this.hashes[id]!);
  }

  private grow(): void {
    const cap = Math.max(1024, this.time.length * 2);
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    const u32 = (a: Uint32Array) => {
      const b = new Uint32Array(cap);
      b.set(a);
      return b;
    };
    this.time = f64(this.time);
    this.offset = f64(this.offset);
    this.length = u32(this.length);
    this.seq = u32(this.seq);
    this.file = u32(this.file);
    const flags = new Uint8Array(cap);
    flags.set(this.flags);
    this.flags = flags;
  }

  /** Events of dead files. */
  deadEvents(): number {
    let dead = 0;
    const isDead = this.files.map((f) => !!f.dead);
    for (let e = 0; e < this.n; e++) if (isDead[this.file[e]!]) dead++;
    return dead;
  }

  /**
   * Drops dead files and their events when they are a quarter of the index or more (ordinals
   * renumbered, empty tokens dropped). Editable only.
   */
  compact(force = false): void {
    const dead = this.deadEvents();
    const deadFiles = this.files.some((f) => f.dead);
    if (!deadFiles || (!force && dead * 4 < this.n)) return;
    this.edit();
    const fileMap = new Int32Array(this.files.length).fill(-1);
    const files: IndexedFile[] = [];
    this.files.forEach((f, i) => {
      if (!f.dead) {
        fileMap[i] = files.length;
        files.push(f);
      }
    });
    const evMap = new Int32Array(this.n).fill(-1);
    let m = 0;
    for (let e = 0; e < this.n; e++) {
      const fm = fileMap[this.file[e]!]!;
      if (fm < 0) continue;
      evMap[e] = m;
      this.setEvent(m++, fm, this.seq[e]!, this.offset[e]!, this.length[e]!, this.time[e]!, this.flags[e]!);
    }
    this.filter?.compact(evMap);
    const tokens: string[] = [];
    const lists: number[][] = [];
    this.tokens.forEach((t, id) => {
      const kept = this.postings(id)
        .map((e) => evMap[e]!)
        .filter((e) => e >= 0);
      if (kept.length) {
        tokens.push(t);
        lists.push(kept);
      }
    });
    this.files = files;
    this.n = m;
    this.tokens = tokens;
    const { bytes, ends } = encodeAll(lists);
    this.enc = bytes;
    this.encEnd = ends;
    this.npairs = 0;
    this.newPairs = null;
    this.editing = false;
    this.edit();
  }

  // ---- Querying ---------------------------------------------------------------------------

  /** Ordinals of the token's postings, ascending: the ones read or compacted, then the pairs since. */
  postings(id: number): number[] {
    const out: number[] = [];
    if (id < this.encEnd.length) {
      const a = id === 0 ? 0 : this.encEnd[id - 1]!;
      const b = this.encEnd[id]!;
      if (a > b || b > (this.fd === null ? this.enc.length : this.postingsBytes)) throw this.corrupt('postings out of range');
      const enc = this.encoded(a, b);
      if (this.fd !== null && this.psums && crc32(enc) !== this.psums[id]) throw this.corrupt('postings do not match their sum');
      let p = 0;
      const end = enc.length;
      let v = 0;
      while (p < end) {
        let x = 0;
        let shift = 0;
        let b: number;
        do {
          b = enc[p++]!;
          x += (b & 0x7f) * 2 ** shift;
          shift += 7;
        } while (b & 0x80);
        v += x;
        if (v >= this.n) throw this.corrupt('postings name an event it does not have');
        out.push(v);
      }
    }
    if (this.npairs) {
      const { starts, ords } = this.grouped();
      for (let k = starts[id]!; k < starts[id + 1]!; k++) out.push(ords[k]!);
    }
    return out;
  }

  private newPairs: { npairs: number; starts: Int32Array; ords: Int32Array } | null = null;

  /** The pairs since the postings, grouped by word (a counting sort: each word's ordinals stay in order). */
  private grouped(): { starts: Int32Array; ords: Int32Array } {
    if (this.newPairs?.npairs === this.npairs && this.newPairs.starts.length === this.tokens.length + 1) return this.newPairs;
    const t = this.tokens.length;
    const starts = new Int32Array(t + 1);
    const pairs = this.pairs;
    for (let k = 0; k < this.npairs; k++) starts[pairs[2 * k]! + 1]!++;
    for (let id = 0; id < t; id++) starts[id + 1]! += starts[id]!;
    const fill = starts.slice(0, t);
    const ords = new Int32Array(this.npairs);
    for (let k = 0; k < this.npairs; k++) ords[fill[pairs[2 * k]!]!++] = pairs[2 * k + 1]!;
    this.newPairs = { npairs: this.npairs, starts, ords };
    return this.newPairs;
  }

  /** The tokens holding `word` (lowercase [a-z0-9]), by one search of the vocabulary's text. */
  tokensHolding(word: string): number[] {
    this.vocabText ??= this.tokens.join('\n');
    this.vocabStarts ??= startsOf(this.vocabText);
    const text = this.vocabText;
    const starts = this.vocabStarts!;
    const ids: number[] = [];
    for (let at = text.indexOf(word); at >= 0; ) {
      // The token holding position `at`: the last start at or before it.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      // The word found lies between two '\n' (no word holds one): they are the token's bounds.
      const next = lo + 1 < starts.length ? starts[lo + 1]! : text.length + 1;
      if (
        starts[lo]! > at ||
        text.lastIndexOf('\n', at) !== starts[lo]! - 1 ||
        text.indexOf('\n', at) !== (next > text.length ? -1 : next - 1)
      ) {
        throw this.corrupt('vocabulary does not match');
      }
      ids.push(lo);
      at = text.indexOf(word, next);
    }
    return ids;
  }

  /** Token id's text (folded): from the vocabulary, or cut from the file's text. */
  private tokenText(id: number): string {
    if (this.vocab) return this.vocab[id]!;
    const starts = this.vocabStarts!;
    const text = this.vocabText ?? '';
    return text.slice(starts[id]!, id + 1 < starts.length ? starts[id + 1]! - 1 : text.length);
  }

  /** The tokens of the vocabulary that end (`end`) or start with `run` (folded). */
  private tokensAt(run: string, end: boolean): string[] {
    return this.tokensHolding(run)
      .map((id) => this.tokenText(id))
      .filter((t) => (end ? t.endsWith(run) : t.startsWith(run)));
  }

  /**
   * The pairs (pair-filter.ts) an event's texts have when one holds `phrase`, in groups: each
   * group one pair of the phrase, as the hashes it may have. The phrase's runs of characters
   * that fold into a token give a pair for each two next to each other: an inner run is a whole
   * token, the first the end of one when the phrase starts with it, the last the start of one
   * when it ends with it (their tokens: the vocabulary's so ending, so starting). A pair of over
   * 64 hashes is left out; null when no pair is left, or when the phrase has a '\n' (it may then
   * lie across two leaves of a part, joined by one).
   */
  phrasePairs(phrase: string): number[][] | null {
    if (!pairable(phrase)) return null;
    const runs = runsOf(phrase);
    const groups: number[][] = [];
    for (let j = 0; j + 1 < runs.length; j++) {
      const [a0, a1] = runs[j]!;
      const [b0, b1] = runs[j + 1]!;
      const left = foldedRun(phrase, a0, a1);
      const right = foldedRun(phrase, b0, b1);
      const lefts = j === 0 && a0 === 0 ? this.tokensAt(left, true) : [left];
      const rights = j + 2 === runs.length && b1 === phrase.length ? this.tokensAt(right, false) : [right];
      if (lefts.length * rights.length > 64) continue;
      const join = joinHash(phrase, a1 - 1, b0);
      groups.push(lefts.flatMap((l) => rights.map((r) => pairHash(fnv(l), join, fnv(r)))));
    }
    return groups.length ? groups : null;
  }

  /**
   * Of `events` (ascending), those whose pair filter (pair-filter.ts) may hold every group of
   * `groups` (phrasePairs). It reads the parts of the groups' hashes only, each checked.
   */
  withPairs(events: Int32Array, groups: number[][]): Int32Array {
    if (!this.paired) return events;
    try {
      if (this.filter) {
        const f = this.filter;
        return withPairs(events, groups, f.sizesAndPart(0).sizes, (p) => f.sizesAndPart(p).bits);
      }
      return withPairs(events, groups, this.sizesRead(), (p) => this.partRead(p));
    } catch (err) {
      if (err instanceof RangeError) throw this.corrupt(err.message);
      throw err;
    }
  }

  /** The filter's column (each event's slice), read from the file once and checked. */
  private sizesRead(): Uint32Array {
    if (this.filterColumn) return this.filterColumn;
    const col = columnOf(this.readChecked(this.filterAt, columnBytes(this.n), this.filterSums[0]!), this.n);
    let sum = 0;
    for (let e = 0; e < this.n; e++) sum += col[e]!;
    if (sum !== this.filterUsed) throw this.corrupt('pair filter does not add up');
    return (this.filterColumn = col);
  }

  /** Part p of the filter, read from the file and checked. */
  private partRead(p: number): Uint8Array {
    const at = this.filterAt + columnBytes(this.n) + p * partBytes(this.filterUsed);
    return this.readChecked(at, partBytes(this.filterUsed), this.filterSums[p + 1]!);
  }

  /** `length` bytes of the open file at `at`, which must match `sum`. */
  private readChecked(at: number, length: number, sum: number): Uint8Array {
    const buf = new Uint8Array(length);
    if (this.fd === null || readSync(this.fd, buf, 0, length, at) !== length) throw this.corrupt('pair filter unreadable');
    if (crc32(buf) !== sum) throw this.corrupt('pair filter does not match its sum');
    return buf;
  }

  /** The filter in memory, checked (before the index is edited or written again). */
  private loadFilter(): void {
    if (this.filter || !this.paired) return;
    const parts = Array.from({ length: PARTS }, (_, p) => this.partRead(p));
    this.filter = PairFilter.fromStored(this.n, this.filterUsed, this.sizesRead(), parts);
  }

  /**
   * The events holding every word (each lowercase [a-z0-9]) in some text, ascending. Dead
   * files' events included: the caller skips them.
   */
  matching(words: readonly string[]): Int32Array {
    // From the postings only (no pass over every event: this runs cold, once a folder, in
    // every search's process): each word's events are the union of its tokens' postings, and
    // the answer their intersection.
    let out: Int32Array | null = null;
    for (const w of words) {
      const lists = this.tokensHolding(w).map((id) => this.postings(id));
      let size = 0;
      for (const l of lists) size += l.length;
      const all = new Int32Array(size);
      let at = 0;
      for (const l of lists) for (let j = 0; j < l.length; j++) all[at++] = l[j]!;
      const events = unique(all.sort());
      out = out ? intersect(out, events) : events;
    }
    out ??= new Int32Array(0);
    if (this.unchecked) {
      const files = this.files.length;
      for (let k = 0; k < out.length; k++) if (this.file[out[k]!]! >= files) throw this.corrupt('event of no file');
    }
    return out;
  }

  // ---- The file ---------------------------------------------------------------------------

  /** Every word's postings encoded, each word's end in them and each word's sum. */
  private encodedPostings(): { bytes: Uint8Array; ends: Uint32Array; psums: Uint32Array } {
    // Each word's postings as read (their bytes as they are), then the new pairs' ordinals.
    const { starts, ords } = this.grouped();
    const oldWords = this.encEnd.length;
    const buf = new Uint8Array(this.enc.length + 5 * this.npairs);
    const ends = new Uint32Array(this.tokens.length);
    const psums = new Uint32Array(this.tokens.length);
    let p = 0;
    for (let id = 0; id < this.tokens.length; id++) {
      const from = p;
      let last = 0;
      if (id < oldWords) {
        const a = id === 0 ? 0 : this.encEnd[id - 1]!;
        const b = this.encEnd[id]!;
        buf.set(this.enc.subarray(a, b), p);
        p += b - a;
        for (let q = a; q < b; ) {
          let x = 0;
          let shift = 0;
          let c: number;
          do {
            c = this.enc[q++]!;
            x += (c & 0x7f) * 2 ** shift;
            shift += 7;
          } while (c & 0x80);
          last += x;
        }
      }
      for (let k = starts[id]!; k < starts[id + 1]!; k++) {
        let x = ords[k]! - last;
        last = ords[k]!;
        while (x >= 0x80) {
          buf[p++] = (x & 0x7f) | 0x80;
          x >>>= 7;
        }
        buf[p++] = x;
      }
      ends[id] = p;
      psums[id] = crc32(buf.subarray(from, p));
    }
    return { bytes: buf.subarray(0, p), ends, psums };
  }

  /** The index as the bytes of its file. */
  serialize(): Buffer {
    this.whole(); // an index dropping a file only, not edited, has its postings in its file still
    const { bytes, ends, psums } = this.encodedPostings();
    const vocab = Buffer.from(this.tokens.join('\n'), 'latin1');
    const wordStarts = new Uint32Array(this.tokens.length);
    for (let id = 1; id < wordStarts.length; id++) wordStarts[id] = wordStarts[id - 1]! + this.tokens[id - 1]!.length + 1;
    const details = Buffer.from(JSON.stringify(this.files.map((f) => [f.tail, f.title])), 'utf8');
    const files = this.files.map(({ tail: _t, title: _u, ...f }): HeadFile => f);
    const n = this.n;
    const colBytes = n * (8 + 8 + 4 + 4 + 4) + pad8(n);
    // The block read at open, made first: its sum goes in the header.
    const block = Buffer.alloc(colBytes + 12 * ends.length + vocab.length);
    let at = 0;
    const put = (a: ArrayBufferView, len: number) => {
      block.set(new Uint8Array(a.buffer, a.byteOffset, len), at);
      at += len;
    };
    put(this.time, n * 8);
    put(this.offset, n * 8);
    put(this.length, n * 4);
    put(this.seq, n * 4);
    put(this.file, n * 4);
    put(this.flags, n);
    at = colBytes;
    put(ends, ends.length * 4);
    put(wordStarts, wordStarts.length * 4);
    put(psums, psums.length * 4);
    vocab.copy(block, at);
    const header: Header = {
      files,
      details: details.length,
      events: this.n,
      tokens: this.tokens.length,
      vocab: vocab.length,
      postings: bytes.length,
      sums: { details: crc32(details), block: crc32(block) },
      filter: null,
    };
    const f = this.filter;
    const parts = f ? [f.column(), ...Array.from({ length: PARTS }, (_, p) => f.part(p))] : [];
    header.filter = f ? { used: f.used, sums: parts.map((b) => crc32(b)) } : null;
    const head = Buffer.from(JSON.stringify(header), 'utf8');
    const headEnd = pad8(PREFIX + head.length + details.length);
    const filterAt = pad8(headEnd + block.length + bytes.length);
    const out = Buffer.alloc(filterAt + parts.reduce((sum, b) => sum + b.length, 0));
    out.writeUInt32LE(MAGIC, 0);
    out.writeUInt32LE(f ? FORMAT_PAIRS : FORMAT, 4);
    out.writeUInt32LE(head.length, 8);
    out.writeUInt32LE(crc32(head), 12);
    head.copy(out, PREFIX);
    details.copy(out, PREFIX + head.length);
    block.copy(out, headEnd);
    out.set(bytes, headEnd + block.length);
    parts.reduce((to, b) => {
      out.set(b, to);
      return to + b.length;
    }, filterAt);
    return out;
  }

  /**
   * The index in `path`, its postings left in the file until asked for (a search reads the few
   * its words need; edit() reads them all); null when there is none or it does not check out.
   * The file stays open until close(), so that a newer index renamed over it changes nothing.
   */
  static open(path: string): FolderIndex | null {
    let fd: number;
    try {
      fd = openRegularSync(path).fd; // a symlink or a FIFO planted as search.idx is no index
    } catch {
      return null;
    }
    try {
      const ix = FolderIndex.read(fd);
      ix.fd = fd;
      ix.path = path;
      return ix;
    } catch {
      closeSync(fd);
      return null;
    }
  }

  private static read(fd: number): FolderIndex {
    const size = fstatSync(fd).size;
    // The start of the file in one read, most often the whole header.
    const first = Buffer.allocUnsafe(Math.min(size, 1 << 16));
    if (size < PREFIX || readSync(fd, first, 0, first.length, 0) !== first.length) throw new Error('short');
    const format = first.readUInt32LE(4);
    if (first.readUInt32LE(0) !== MAGIC || (format !== FORMAT && format !== FORMAT_PAIRS))
      throw new Error('not a search index of this format');
    const headLen = first.readUInt32LE(8);
    if (PREFIX + headLen > size) throw new Error('short');
    let head = first.subarray(PREFIX, PREFIX + headLen);
    if (head.length < headLen) {
      head = Buffer.allocUnsafe(headLen);
      if (readSync(fd, head, 0, headLen, PREFIX) !== headLen) throw new Error('short');
    }
    if (crc32(head) !== first.readUInt32LE(12)) throw new Error('header sum does not match');
    const h = JSON.parse(head.toString('utf8')) as Header;
    const ok = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
    if (!h || !Array.isArray(h.files) || !ok(h.details) || !ok(h.events) || !ok(h.tokens) || !ok(h.vocab) || !ok(h.postings))
      throw new Error('bad header');
    if (!h.sums || !ok(h.sums.details) || !ok(h.sums.block)) throw new Error('bad header');
    const f = h.filter;
    if (format === FORMAT_PAIRS && (!f || !ok(f.used) || !Array.isArray(f.sums) || f.sums.length !== PARTS + 1 || !f.sums.every(ok)))
      throw new Error('bad header');
    if (format === FORMAT && f !== null) throw new Error('bad header');
    for (const f of h.files) if (!validHeadFile(f)) throw new Error('bad file entry');
    const n = h.events;
    const t = h.tokens;
    const headEnd = pad8(PREFIX + headLen + h.details);
    const colBytes = n * 28 + pad8(n);
    const filterAt = pad8(headEnd + colBytes + 12 * t + h.vocab + h.postings);
    if (filterAt + (f ? columnBytes(n) + PARTS * partBytes(f.used) : 0) !== size) throw new Error('sizes do not add up');
    // The columns, the ends, the word starts, the postings sums and the vocabulary in one read,
    // into memory of their own (aligned), and checked whole.
    const rest = colBytes + 12 * t + h.vocab;
    const ab = new ArrayBuffer(rest);
    if (readSync(fd, new Uint8Array(ab), 0, rest, headEnd) !== rest) throw new Error('short');
    if (crc32(new Uint8Array(ab)) !== h.sums.block) throw new Error('block sum does not match');
    const ix = new FolderIndex();
    ix.files = h.files as IndexedFile[]; // their tails and titles come with details()
    ix.detailsSum = h.sums.details;
    ix.detailsAt = PREFIX + headLen;
    ix.detailsBytes = h.details;
    ix.n = n;
    ix.time = new Float64Array(ab, 0, n);
    ix.offset = new Float64Array(ab, 8 * n, n);
    ix.length = new Uint32Array(ab, 16 * n, n);
    ix.seq = new Uint32Array(ab, 20 * n, n);
    ix.file = new Uint32Array(ab, 24 * n, n);
    ix.flags = new Uint8Array(ab, 28 * n, n);
    ix.encEnd = new Uint32Array(ab, colBytes, t);
    ix.vocabStarts = new Uint32Array(ab, colBytes + 4 * t, t);
    ix.psums = new Uint32Array(ab, colBytes + 8 * t, t);
    ix.vocab = null; // cut when asked for: a search needs the text only
    ix.vocabText = Buffer.from(ab, colBytes + 12 * t, h.vocab).toString('latin1');
    ix.postingsAt = headEnd + rest;
    ix.postingsBytes = h.postings;
    ix.paired = !!f; // its parts read when needed (partRead)
    ix.filter = null;
    ix.filterAt = filterAt;
    ix.filterUsed = f?.used ?? 0;
    ix.filterSums = f?.sums ?? [];
    // The word starts, the postings ends and the events' files are checked where they are used
    // (tokensHolding, postings, matching), and whole before the index is edited or written
    // (whole()): a pass over each, in every search's process, was a tenth of a search on
    // claude-scale.
    ix.unchecked = true;
    return ix;
  }

  /**
   * Reads the files' tails and titles of an opened index into its entries, once: a search that
   * trusts every file of a folder (none grew, none has a torn last line) never needs them; a
   * hit shows `shown`. They were half the header, and parsing it a tenth of a search.
   */
  details(): void {
    if (this.detailsBytes < 0) return;
    const buf = Buffer.allocUnsafe(this.detailsBytes);
    if (this.fd === null || readSync(this.fd, buf, 0, buf.length, this.detailsAt) !== buf.length)
      throw this.corrupt('file details unreadable');
    if (crc32(buf) !== this.detailsSum) throw this.corrupt('file details do not match their sum');
    let d: unknown;
    try {
      d = JSON.parse(buf.toString('utf8'));
    } catch {
      throw this.corrupt('file details are not JSON');
    }
    if (!Array.isArray(d) || d.length !== this.files.length || !d.every(validDetails)) throw this.corrupt('file details do not match');
    this.files.forEach((f, i) => {
      [f.tail, f.title] = d[i] as [string, IndexedFile['title']];
    });
    this.detailsBytes = -1;
  }

  /** All of an opened index in memory, checked, its file closed: before it is edited or written. */
  private whole(): void {
    if (this.unchecked) this.checkWhole();
    this.details();
    this.loadFilter();
    this.loadPostings();
  }

  /** The index as opened checks out whole (before it is edited, and written again). */
  private checkWhole(): void {
    const t = this.encEnd.length;
    const starts = this.vocabStarts!;
    const text = this.vocabText!;
    if (t > 0 && starts[0] !== 0) throw this.corrupt('vocabulary does not match');
    for (let i = 1; i < t; i++) {
      const at = starts[i]!;
      if (at <= starts[i - 1]! || at > text.length || text.charCodeAt(at - 1) !== 10) throw this.corrupt('vocabulary does not match');
    }
    for (let i = 0, prev = 0; i < t; i++) {
      const e = this.encEnd[i]!;
      if (e < prev || e > this.postingsBytes) throw this.corrupt('postings out of range');
      prev = e;
    }
    const files = this.files.length;
    for (let e = 0; e < this.n; e++) if (this.file[e]! >= files) throw this.corrupt('event of no file');
    this.unchecked = false;
  }

  private corrupt(what: string): CorruptIndexError {
    return new CorruptIndexError(this.path, what);
  }

  /** Closes the index's file (its postings are read first when it is being edited). */
  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  /** The postings' bytes [a, b): from memory, or from the file. */
  private encoded(a: number, b: number): Uint8Array {
    if (this.fd === null) return this.enc.subarray(a, b);
    const buf = Buffer.allocUnsafe(b - a); // every byte read, or it throws
    if (readSync(this.fd, buf, 0, b - a, this.postingsAt + a) !== b - a) throw new Error('the search index is shorter than it says');
    return buf;
  }

  /** All the postings in memory, the file closed (an index about to change). */
  private loadPostings(): void {
    if (this.fd === null) return;
    this.enc = this.encoded(0, this.postingsBytes);
    // Checked before they are written again: a damaged list must not outlive its index.
    if (this.psums)
      for (let id = 0; id < this.encEnd.length; id++)
        if (crc32(this.enc.subarray(id === 0 ? 0 : this.encEnd[id - 1]!, this.encEnd[id]!)) !== this.psums[id])
          throw this.corrupt('postings do not match their sum');
    this.psums = null;
    this.close();
  }
}

/** The runs of characters of a phrase that fold into tokens, [start, end) each. */
function runsOf(phrase: string): [number, number][] {
  const runs: [number, number][] = [];
  for (let i = 0; i < phrase.length; ) {
    const a = i;
    while (i < phrase.length && fold(phrase.charCodeAt(i)) !== 0) i++;
    if (i > a) runs.push([a, i]);
    else i++;
  }
  return runs;
}

/** Whether the index at `path` has a pair filter, from its format alone (false: none, or no index). */
export function hasPairs(path: string): boolean {
  try {
    const { fd } = openRegularSync(path);
    try {
      const b = Buffer.alloc(8);
      return readSync(fd, b, 0, 8, 0) === 8 && b.readUInt32LE(0) === MAGIC && b.readUInt32LE(4) === FORMAT_PAIRS;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** Whether the pair filter can narrow a phrase's candidates (FolderIndex.phrasePairs): two runs or more, no '\n'. */
export const pairable = (phrase: string): boolean => !phrase.includes('\n') && runsOf(phrase).length >= 2;

/** The characters [a, b) of s, each folded (fold): a run of a phrase as a token. */
function foldedRun(s: string, a: number, b: number): string {
  let t = '';
  for (let i = a; i < b; i++) t += String.fromCharCode(fold(s.charCodeAt(i)));
  return t;
}

/** A sorted array without its repeats (in place: a view of its start). */
function unique(a: Int32Array): Int32Array {
  let m = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[i - 1]) a[m++] = a[i]!;
  return a.subarray(0, m);
}

/** The values in both of two sorted arrays without repeats. */
function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let m = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out[m++] = a[i]!;
      i++;
      j++;
    }
  }
  return out.subarray(0, m);
}

/** Where each word starts in a vocabulary's text (words joined by '\n'; none in ''). */
function startsOf(text: string): Uint32Array {
  if (!text) return new Uint32Array(0);
  let n = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
  const starts = new Uint32Array(n);
  for (let i = 1, at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts[i++] = at + 1;
  return starts;
}

function validHeadFile(f: unknown): f is HeadFile {
  if (!f || typeof f !== 'object') return false;
  const x = f as Record<string, unknown>;
  const num = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  const meta = x.meta as Record<string, unknown> | null;
  return (
    typeof x.name === 'string' &&
    typeof x.ino === 'string' &&
    typeof x.mtimeNs === 'string' &&
    typeof x.shown === 'string' &&
    num(x.size) &&
    num(x.covered) &&
    num(x.lines) &&
    (meta === null || (typeof meta === 'object' && typeof meta.id === 'string' && typeof meta.project === 'string')) &&
    Array.isArray(x.bad) &&
    x.bad.length % 3 === 0 &&
    x.bad.every(num)
  );
}

/** A file's [tail, title] (see Header.details). */
function validDetails(d: unknown): boolean {
  if (!Array.isArray(d) || d.length !== 2 || typeof d[0] !== 'string') return false;
  const title = d[1] as Record<string, unknown> | null;
  return (
    !!title &&
    typeof title === 'object' &&
    (title.title === null || typeof title.title === 'string') &&
    (title.firstUser === null || typeof title.firstUser === 'string')
  );
}

/** Every token's ordinals as varint deltas, one after the other, and where each token's end. */
function encodeAll(lists: number[][]): { bytes: Uint8Array; ends: Uint32Array } {
  let size = 0;
  for (const l of lists) size += l.length * 5;
  const bytes = new Uint8Array(size);
  const ends = new Uint32Array(lists.length);
  let p = 0;
  lists.forEach((l, id) => {
    let prev = 0;
    for (const v of l) {
      let x = v - prev;
      prev = v;
      while (x >= 0x80) {
        bytes[p++] = (x & 0x7f) | 0x80;
        x >>>= 7;
      }
      bytes[p++] = x;
    }
    ends[id] = p;
  });
  return { bytes: bytes.subarray(0, p), ends };
}
