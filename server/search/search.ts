// Full-text search over session files: the core of `session/search` and the CLI's `search`.
// The JSONL files are the truth. A query with an indexable word (letters and digits, in a
// quoted phrase too) over a store root takes its candidates from the project folders' search
// indexes, brought up to date with the files first (searchIndexed, at the end of this file;
// search-index.ts). Any other query scans every file. Either way a candidate is checked by one
// plain path (hitOfLine): the line decoded, JSON.parse, the event's texts (eventTexts), matched;
// but for a phrase's candidate that the index marked CLEAN, which its bytes decide (rawHolds).
// Tolerant: a bad line or an unreadable file becomes a problem, never an exception; only an
// abort throws.
// Depends on node:fs, plain.ts and search-index.ts; no JSON-RPC, no store internals (a store
// root is just `<root>/<slug>/<id>.jsonl`).
//
// Query language: plain words match case-insensitively (inside longer words too); "quoted
// phrases" match exactly (case-sensitive). A session matches when it holds every term, each in
// any of its events (searchSessions); the engine below finds the events holding all of a
// query's terms, which for one term is the same thing.

import { readdir } from 'node:fs/promises';
import { accessSync, closeSync, constants as fsConstants, lstatSync, readSync } from 'node:fs';
import { join, sep } from 'node:path';
import {
  CorruptIndexError,
  FolderIndex,
  INDEXABLE_WORD,
  pairable,
  searchIndexPath,
  TAIL_BYTES,
  TITLE as TITLE_EVENT,
  unindexedFile,
  CLEAN as CLEAN_EVENT,
  UNSURE as UNSURE_EVENT,
  type IndexedFile,
} from './search-index.js';
import { ensureCacheFolder } from '../store/cache-dir.js';
import { NotRegularError, openRegularSync, plantedKind, replaceFileSync } from '../store/files.js';
import { contentOf, walk } from '../format/content.js';
import { oneLine, textOf } from '../format/text.js';

export type SearchWhere = 'user' | 'assistant' | 'agent' | 'tool-input' | 'tool-output' | 'compact' | 'title';

export interface SearchOptions {
  /** Only sessions whose meta line's `project` equals this absolute path exactly. */
  project?: string;
  /**
   * Only these session files, instead of `project`: a project's History (its own sessions and
   * those of a folder moved or relinked into it, listing/history.ts projectSessionFiles).
   */
  sessions?: ReadonlySet<string>;
  /** Only events at or after this ISO time. */
  since?: string;
  /** Only events at or before this ISO time. */
  until?: string;
  /** Most hits returned (default 100). */
  limit?: number;
  /** Cancels the search: it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called after each file with the number of files done and the total. */
  onProgress?: (done: number, total: number) => void;
  /** Length of a snippet in characters, about (default 160). */
  snippetChars?: number;
  /**
   * false: never use or keep the folders' search indexes (search-index.ts). By default a query
   * of plain words of ASCII letters and digits over a store root is answered from them, kept
   * up to date first.
   */
  index?: boolean;
}

export interface SearchHit {
  sessionId: string;
  project: string;
  /** The session's title: the latest title event, else its first user line. */
  title: string;
  /** The event's seq (0 = the line after the meta line). */
  seq: number;
  /** The event's kind. */
  kind: string;
  /** Which text of the event matched. */
  where: SearchWhere;
  /** The event's time. */
  t: string;
  /** A one-line excerpt of the matched text. */
  snippet: string;
  /** [start, end) ranges of the matched terms in `snippet`, in UTF-16 code units. */
  ranges: [number, number][];
  /** The session file. */
  file: string;
}

export interface SearchProblem {
  file: string;
  /** 1-based line number in the file, when known. */
  line?: number;
  message: string;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Number of matching events found (hits holds at most `limit` of them). */
  total: number;
  /** Files searched (after the project filter). */
  files: number;
  problems: SearchProblem[];
}

export interface ParsedQuery {
  /** Case-insensitive words. */
  words: string[];
  /** Exact, case-sensitive phrases. */
  phrases: string[];
}

/** Splits a query into words and "quoted phrases"; an unbalanced quote runs to the end. */
export function parseQuery(query: string): ParsedQuery {
  const words: string[] = [];
  const phrases: string[] = [];
  const re = /"([^"]*)"?|(\S+)/g;
  for (const m of query.matchAll(re)) {
    if (m[1] !== undefined) {
      if (m[1].trim()) phrases.push(m[1]);
    } else if (m[2]) {
      const w = m[2].replace(/"/g, '');
      if (w) words.push(w);
    }
  }
  return { words: [...new Set(words)], phrases: [...new Set(phrases)] };
}

/**
 * The `.jsonl` files of a store root (`<root>/<slug>/<id>.jsonl`). Missing root: none. A root or
 * project folder that cannot be read goes into `problems` (it is never "nothing there").
 */
export async function listSessionFiles(root: string, problems: SearchProblem[] = []): Promise<string[]> {
  const files: string[] = [];
  let dirs;
  try {
    dirs = await readdir(root, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') problems.push({ file: root, message: `cannot read the store (${code ?? (e as Error).message})` });
    return files;
  }
  // The folders read at once (one round trip through the thread pool, not one per folder).
  const lists = await Promise.all(
    dirs
      .filter((d) => d.isDirectory())
      .map((d) => {
        const dir = join(root, d.name);
        return readdir(dir).then(
          (names) => ({ dir, names }),
          (e: NodeJS.ErrnoException) => {
            if (e.code !== 'ENOENT') problems.push({ file: dir, message: `cannot read folder (${e.code ?? e.message})` });
            return null;
          },
        );
      }),
  );
  // A name in a folder read from disk has no separator: the path is join's, without its cost.
  for (const l of lists) if (l) for (const n of l.names) if (n.endsWith('.jsonl')) files.push(l.dir + sep + n);
  return files.sort();
}

/**
 * Searches session files: `source` is a store root (a folder of project folders) or a list of
 * session files. Hits are ranked newest first (event time, then session id, then seq).
 *
 * A session matches when it holds every term of the query, each in any of its events (as a
 * search box finds documents: `redis refund` finds the chat that talked of both, in two
 * messages); its hits are the events that hold a term. A session's repeated identical title is
 * one hit (its newest).
 */
export async function searchSessions(source: string | readonly string[], query: string, opts: SearchOptions = {}): Promise<SearchResult> {
  opts.signal?.throwIfAborted();
  const listProblems: SearchProblem[] = [];
  const root = typeof source === 'string';
  const listed = root ? await listSessionFiles(source, listProblems) : [...source];
  const pq = parseQuery(query);
  const terms = [...pq.phrases.map((p) => `"${p}"`), ...new Set(pq.words.map((w) => w.toLowerCase()))];
  // Progress never goes back: the first build's files count, then the search's own.
  let shown = 0;
  const onProgress = opts.onProgress && ((done: number, total: number) => done > shown && opts.onProgress!((shown = done), total));
  if (root && indexWords(query, opts)) {
    const { buildFirstIndexes } = await import('./first-build.js');
    await buildFirstIndexes(listed, query, (files, progress) => buildIndexes(files, query, progress), {
      onProgress: onProgress && ((done) => onProgress(done, listed.length)),
      signal: opts.signal,
      pairs: pq.phrases.some(pairable),
    });
  }
  const o = { ...opts, onProgress };
  const r = terms.length < 2 ? await searchEvents(listed, root, query, o) : await searchEveryTerm(listed, root, terms, o);
  r.problems.unshift(...listProblems);
  return r;
}

/**
 * Brings the search indexes of the folders `files` are in up to date and writes them, the
 * answer thrown away: a store's first search builds half of them so on a second thread
 * (first-build.ts, build-worker.ts). `onProgress` gets the files done.
 */
export async function buildIndexes(files: string[], query: string, onProgress?: (done: number) => void): Promise<void> {
  const words = indexWords(query, {});
  const q = compile(parseQuery(query));
  if (!words || !q) return;
  const fo: FileOpts = { since: -Infinity, until: Infinity, snippetChars: 0 };
  await searchIndexed(files, q, words, fo, 0, { onProgress });
}

/**
 * A query of several terms: each term searched alone (from the folders' indexes where it can
 * be, else over the files that held the terms before it), the sessions holding them all kept,
 * and the newest `limit` of their matching events made whole.
 */
async function searchEveryTerm(listed: string[], root: boolean, terms: string[], opts: SearchOptions): Promise<SearchResult> {
  const limit = Math.max(0, opts.limit ?? 100);
  let files: Set<string> | undefined;
  let searched = 0;
  const problems = new Map<string, SearchProblem>();
  const found = new Map<string, { r: Ranked; q: Compiled }>();
  const perTerm: { found: Ranked[]; q: Compiled }[] = [];
  for (const term of terms) {
    const indexed = root && indexWords(term, opts) !== null;
    const over = indexed || !files ? listed : listed.filter((f) => files!.has(f));
    const got: Ranked[] = [];
    // Progress is the first pass's: it reads every file (and builds the indexes), the others less.
    const r = await searchEvents(over, indexed, term, { ...opts, limit: Infinity, onProgress: files ? undefined : opts.onProgress }, got);
    if (!files) searched = r.files;
    // Each pass's problems in the files it had to search (the index answers for all of them):
    // the same problems whichever way a term is searched.
    for (const p of r.problems) if (!files || files.has(p.file)) problems.set(`${p.file}\0${p.line}\0${p.message}`, p);
    const holding = new Set(got.map((g) => g.hit.file));
    files = new Set(files ? [...files].filter((f) => holding.has(f)) : holding);
    perTerm.push({ found: got, q: compile(parseQuery(term))! });
    if (files.size === 0) break;
  }
  if (files!.size === 0) return { hits: [], total: 0, files: searched, problems: [...problems.values()] };
  // The events holding every term first, found as one query (their snippets show the part
  // holding the most terms), then those holding some, each made with its own term.
  const query = terms.join(' ');
  const every = compile(parseQuery(query))!;
  const indexed = root && indexWords(query, opts) !== null;
  const whole: Ranked[] = [];
  await searchEvents(
    indexed ? listed : listed.filter((f) => files!.has(f)),
    indexed,
    query,
    { ...opts, limit: Infinity, onProgress: undefined },
    whole,
  );
  for (const [got, q] of [[whole, every], ...perTerm.map((t) => [t.found, t.q])] as [Ranked[], Compiled][])
    for (const g of got) {
      const key = `${g.hit.file}\0${g.seq}`;
      if (files!.has(g.hit.file) && !found.has(key)) found.set(key, { r: g, q });
    }
  const fo: FileOpts = {
    project: opts.project,
    sessions: opts.sessions,
    since: -Infinity,
    until: Infinity,
    snippetChars: opts.snippetChars ?? 160,
    signal: opts.signal,
  };
  const hits: SearchHit[] = [];
  const unread: SearchProblem[] = [];
  for (const { r, q } of [...found.values()].sort((a, b) => byRank(a.r, b.r)).slice(0, limit)) {
    const hit = 'offset' in r.hit ? materialize(r.hit, q, fo, unread) : r.hit;
    if (hit) hits.push(hit);
  }
  opts.signal?.throwIfAborted();
  return { hits, total: found.size, files: searched, problems: [...problems.values(), ...unread] };
}

/**
 * One session's title hits with the same text: the newest only (a title set again, unchanged,
 * is one hit). Decided per file, before any limit, so `total` is the same whatever the limit.
 */
class TitleHits<T> {
  private readonly newest = new Map<string, { seq: number; item: T }>();

  /** Whether `hit` is a title hit (`item` kept here until flush) rather than one to count now. */
  hold(fileKey: number, hit: Found, item: T): boolean {
    if (!('where' in hit) || hit.where !== 'title') return false;
    const key = `${fileKey}\0${hit.snippet}`;
    const had = this.newest.get(key);
    if (!had || had.seq < hit.seq) this.newest.set(key, { seq: hit.seq, item });
    return true;
  }

  /** The items kept, each given to `each`; then none. */
  flush(each: (item: T) => void): void {
    for (const { item } of this.newest.values()) each(item);
    this.newest.clear();
  }
}

/**
 * The events that hold every term of `query`, in `listed` (`root`: all of a store root's files,
 * which lets a query of plain words be answered from the folders' indexes). `collect`: the
 * matches, ranked, are put there unmade and the answer holds no hits (searchEveryTerm).
 */
async function searchEvents(
  listed: string[],
  root: boolean,
  query: string,
  opts: SearchOptions,
  collect?: Ranked[],
): Promise<SearchResult> {
  const q = compile(parseQuery(query));
  const limit = Math.max(0, opts.limit ?? 100);
  const since = opts.since ? Date.parse(opts.since) : -Infinity;
  const until = opts.until ? Date.parse(opts.until) : Infinity;
  const problems: SearchProblem[] = [];
  let hits: Found[] = [];
  let total = 0;
  let searched = 0;
  let done = 0;
  if (!q) return { hits: [], total, files: listed.length, problems };
  const fo: FileOpts = {
    project: opts.project,
    sessions: opts.sessions,
    since,
    until,
    snippetChars: opts.snippetChars ?? 160,
    signal: opts.signal,
  };
  const words = root ? indexWords(query, opts) : null;
  if (words) return searchIndexed(listed, q, words, fo, limit, opts, collect);
  const sizes = new Map(listed.map((f) => [f, sizeOf(f)]));
  const files = listed.sort((a, b) => sizes.get(b)! - sizes.get(a)!);

  const keep = (h: Found): void => {
    total++;
    hits.push(h);
    if (hits.length >= Math.max(2 * limit, 1000)) hits = rank(hits).slice(0, limit);
  };

  const settle = (r: FileResult): void => {
    if (r.searched) searched++;
    for (const h of r.hits) keep(h);
    problems.push(...r.problems);
    done++;
    opts.onProgress?.(done, files.length);
  };
  for (const file of files) {
    opts.signal?.throwIfAborted();
    settle(await searchOne(file, q, fo));
  }
  opts.signal?.throwIfAborted();
  if (collect) {
    for (const h of hits) collect.push({ time: Date.parse(h.t), sessionId: h.sessionId, seq: h.seq, hit: h });
    return { hits: [], total, files: searched, problems };
  }
  const top: SearchHit[] = [];
  for (const h of rank(hits).slice(0, limit)) {
    const hit = 'offset' in h ? materialize(h, q, fo, problems) : h;
    if (hit) top.push(hit);
  }
  opts.signal?.throwIfAborted();
  return { hits: top, total, files: searched, problems };
}

/**
 * A candidate event found through the index: what ranking needs, and where its line is. Only the
 * hits that make the answer are read again and made whole (kind, where, snippet, ranges), by the
 * same code as a slow-path hit: on claude-scale 27,326 events match and 50 are shown.
 */
interface PendingHit {
  sessionId: string;
  project: string;
  title: string;
  seq: number;
  t: string;
  file: string;
  /** The line's bytes in the file. */
  offset: number;
  length: number;
}

type Found = SearchHit | PendingHit;

/**
 * The whole hit of a pending one (its line read again, synchronously: a hundred of these were
 * mostly waits on the thread pool); null if the file changed since.
 */
function materialize(p: PendingHit, q: Compiled, o: FileOpts, problems: SearchProblem[]): SearchHit | null {
  const line = readAt(p.file, p.offset, p.length);
  if (!line) {
    // An index can know a file its reader may no longer open (its mode changed): said, not dropped.
    try {
      accessSync(p.file, fsConstants.R_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && !problems.some((x) => x.file === p.file)) problems.push({ file: p.file, message: `cannot read (${code})` });
    }
    return null;
  }
  const hit = hitOfLine(line.toString('utf8'), p.seq, p, p.file, q, o);
  if (!hit || hit === NOT_JSON) return null;
  hit.title = p.title;
  return hit;
}

interface FileResult {
  hits: Found[];
  searched: boolean;
  problems: SearchProblem[];
}

/** One file searched; a file that cannot be read is a problem, never an exception. */
async function searchOne(file: string, q: Compiled, fo: FileOpts): Promise<FileResult> {
  const problems: SearchProblem[] = [];
  try {
    const r = await searchFile(file, q, fo, problems);
    const titles = new TitleHits<Found>();
    const hits = r.hits.filter((h) => !titles.hold(0, h, h));
    titles.flush((h) => hits.push(h));
    return { hits, searched: r.searched, problems };
  } catch (e) {
    fo.signal?.throwIfAborted();
    problems.push({ file, message: `cannot read: ${(e as Error).message}` });
    return { hits: [], searched: false, problems };
  }
}

/** A file's size (0 when it cannot be stat'ed: searchOne reports it). */
function sizeOf(file: string): number {
  try {
    return Number(lstatSync(file).size);
  } catch {
    return 0;
  }
}

/** Hits in ranking order (byRank), each time parsed once. */
function rank<H extends { t: string; sessionId: string; seq: number }>(hits: H[]): H[] {
  return hits
    .map((h) => ({ time: Date.parse(h.t), sessionId: h.sessionId, seq: h.seq, h }))
    .sort(byRank)
    .map((k) => k.h);
}

// ---------------------------------------------------------------------------------------------

interface Term {
  text: string;
  exact: boolean;
  /** Finds the term in decoded text (global). */
  re: RegExp;
}

interface Compiled {
  terms: Term[];
  /** The term whose bytes find candidate lines. */
  anchor: { bytes: Buffer; exact: boolean; re?: RegExp };
  /** The index of the term the anchor is, whole (-1: the anchor is a piece of a term). */
  anchorTerm: number;
  /** Cheap pre-checks on a candidate line's raw text (lowercased for words). */
  others: { lower: string; exact: boolean; re: RegExp }[];
  /** Some term matches case-insensitively (case traps matter). */
  caseless: boolean;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(pq: ParsedQuery): Compiled | null {
  const terms: Term[] = [
    ...pq.phrases.map((p) => ({ text: p, exact: true, re: new RegExp(escapeRe(p), 'gu') })),
    ...pq.words.map((w) => ({ text: w, exact: false, re: new RegExp(escapeRe(w), 'giu') })),
  ];
  if (!terms.length) return null;
  // The anchor: a piece of a term that appears verbatim in the JSON bytes (no character JSON
  // would escape), the longest; exact phrases first (a plain byte search), then ASCII words.
  let best: { piece: string; exact: boolean; score: number } | null = null;
  for (const t of terms) {
    for (const piece of t.text.split(/["\\\u0000-\u001f\u2028\u2029]+/)) {
      if (!piece) continue;
      const ascii = /^[\x20-\x7e]*$/.test(piece);
      const score = piece.length + (t.exact ? 1000 : 0) + (ascii ? 100 : 0);
      if (!best || score > best.score) best = { piece, exact: t.exact, score };
    }
  }
  if (!best) best = { piece: terms[0]!.text, exact: terms[0]!.exact, score: 0 };
  const ascii = /^[\x20-\x7e]*$/.test(best.piece);
  const anchor = best.exact
    ? { bytes: Buffer.from(best.piece, 'utf8'), exact: true }
    : ascii
      ? { bytes: Buffer.from(best.piece.toLowerCase(), 'latin1'), exact: false, re: new RegExp(escapeRe(best.piece), 'gi') }
      : { bytes: Buffer.from(best.piece, 'utf8'), exact: false, re: new RegExp(escapeRe(best.piece), 'giu') };
  const others = terms
    // The term the anchor is (whole) needs no pre-check: the anchor search found it.
    .filter((t) => !(t.text === best!.piece && t.exact === best!.exact))
    .filter((t) => /^[\x20-\x7e]*$/.test(t.text) && !/["\\]/.test(t.text))
    .map((t) => ({ lower: t.exact ? t.text : t.text.toLowerCase(), exact: t.exact, re: new RegExp(escapeRe(t.text), t.exact ? '' : 'i') }));
  const anchorTerm = terms.findIndex((t) => t.text === best!.piece && t.exact === best!.exact);
  return { terms, anchor, anchorTerm, others, caseless: terms.some((t) => !t.exact) };
}

/** Whether a session file (recorded under `project`) is one the search covers. */
const inScope = (o: FileOpts, file: string, project: string): boolean =>
  o.sessions ? o.sessions.has(file) : o.project === undefined || project === o.project;

interface FileOpts {
  project?: string;
  sessions?: ReadonlySet<string>;
  since: number;
  until: number;
  snippetChars: number;
  signal?: AbortSignal;
}

const NL = 10;

/** Bytes read at a time; a chunk always ends at a line end, so it grows for a longer line. */
const CHUNK_BYTES = 4 << 20;

function parseMeta(buf: Buffer): { id: string; project: string; title: unknown } | null {
  const nl = buf.indexOf(NL);
  if (nl < 0) return null;
  try {
    const m = JSON.parse(buf.toString('utf8', 0, nl)) as Record<string, unknown>;
    if (m?.kind !== 'meta' || typeof m.id !== 'string' || typeof m.project !== 'string') return null;
    return { id: m.id, project: m.project, title: m.title };
  } catch {
    return null;
  }
}

interface Chunk {
  /** Whole lines (the last may be a torn line without '\n', at the end of the file). */
  buf: Buffer;
  /** File offset of buf[0]. */
  base: number;
}

/**
 * The file in chunks of whole lines. Streaming keeps memory at a few MB a file (a file read
 * whole peaked at 651 MB with the 134 MB session). Reads are synchronous (a chunk is a few
 * milliseconds; the callers let the event loop run between chunks). Nothing keeps a reference
 * into a chunk once it is searched: the line a read cuts is moved to the front for the next read.
 */
function* lineChunks(fd: number, size: number, signal?: AbortSignal, start = 0): Generator<Chunk> {
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let held = 0; // buf[0, held): the start of a line the last read cut
  let pos = start;
  let base = start;
  while (pos < size) {
    signal?.throwIfAborted();
    if (held === buf.length) {
      // a line longer than the buffer
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, held);
      buf = bigger;
    }
    const bytesRead = readSync(fd, buf, held, Math.min(buf.length - held, size - pos), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const filled = held + bytesRead;
    const cut = pos >= size ? filled : buf.lastIndexOf(NL, filled - 1) + 1;
    held = filled;
    if (cut === 0) continue;
    yield { buf: buf.subarray(0, cut), base };
    base += cut;
    held = filled - cut;
    buf.copy(buf, 0, cut, filled);
  }
  if (held) yield { buf: buf.subarray(0, held), base };
}

/**
 * The starts of a chunk's lines from `from` on: `from`, then the place after each '\n' (the
 * last is the chunk's end when the chunk ends with one).
 */
function lineStarts(buf: Buffer, from: number): Int32Array {
  const starts: number[] = [from];
  for (let at = buf.indexOf(NL, from); at >= 0; at = buf.indexOf(NL, at + 1)) starts.push(at + 1);
  return Int32Array.from(starts);
}

/** One turn of the event loop: other requests, timers and an abort get their say. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const TITLE_HEAD = Buffer.from('{"kind":"title"');
const USER_HEAD = Buffer.from('{"kind":"user"');

/** Whether the line at buf[start] begins with `head` (a line shorter than it, torn at the end of the file, does not). */
const startsWith = (buf: Buffer, start: number, head: Buffer): boolean =>
  start + head.length <= buf.length && buf[start + 9] === head[9] && buf.compare(head, 0, head.length, start, start + head.length) === 0;

/** The end of line i of a chunk (its '\n', or the chunk's end), from the chunk's line starts. */
const endOfLine = (buf: Buffer, starts: Int32Array, i: number): number => (i + 1 < starts.length ? starts[i + 1]! - 1 : buf.length);

/**
 * A session's title, gathered while its chunks go by: the latest title event, else the meta
 * line's title, else the first user line (what titleOf found in a whole file before).
 */
class TitleTracker {
  private title: string | null = null;
  private firstUser: string | null = null;

  constructor(private readonly metaTitle: unknown) {}

  /** What the tracker knows, as plain data (kept in the search index). */
  state(): IndexedFile['title'] {
    return { title: this.title, firstUser: this.firstUser, meta: this.metaTitle };
  }

  static from(s: IndexedFile['title']): TitleTracker {
    const t = new TitleTracker(s.meta);
    t.title = s.title;
    t.firstUser = s.firstUser;
    return t;
  }

  /** A chunk's lines (see lineStarts). */
  see(buf: Buffer, starts: Int32Array): void {
    for (let i = starts.length - 1; i >= 0; i--) {
      const at = starts[i]!;
      if (!startsWith(buf, at, TITLE_HEAD)) continue;
      try {
        const e = JSON.parse(buf.toString('utf8', at, endOfLine(buf, starts, i))) as { title?: unknown };
        if (typeof e.title === 'string' && e.title) {
          this.title = e.title;
          break;
        }
      } catch {
        /* torn: look further back */
      }
    }
    if (this.firstUser !== null) return;
    for (let i = 0; i < starts.length; i++) {
      const at = starts[i]!;
      if (!startsWith(buf, at, USER_HEAD)) continue;
      try {
        const e = JSON.parse(buf.toString('utf8', at, endOfLine(buf, starts, i))) as { content?: unknown };
        const line = oneLine(textOf(e.content), 80);
        if (line) {
          this.firstUser = line;
          return;
        }
      } catch {
        /* skip */
      }
    }
  }

  get(): string {
    if (this.title) return this.title;
    if (typeof this.metaTitle === 'string' && this.metaTitle) return this.metaTitle;
    return this.firstUser ?? 'Untitled session';
  }
}

async function searchFile(
  file: string,
  q: Compiled,
  o: FileOpts,
  problems: SearchProblem[],
): Promise<{ hits: Found[]; searched: boolean }> {
  const { fd, st } = openRegularSync(file); // a symlink or FIFO under a session's name: a problem, never read
  try {
    const size = Number(st.size);
    const hits: Found[] = [];
    let meta: { id: string; project: string; title: unknown } | null = null;
    let titles: TitleTracker | undefined;
    let lineNo = 1; // the line number of the current chunk's first line
    for (const chunk of lineChunks(fd, size, o.signal)) {
      let from = 0;
      if (!meta) {
        meta = parseMeta(chunk.buf);
        if (!meta) {
          problems.push({ file, line: 1, message: 'no readable meta line: file skipped' });
          return { hits: [], searched: false };
        }
        if (!inScope(o, file, meta.project)) return { hits: [], searched: false };
        titles = new TitleTracker(meta.title);
        from = chunk.buf.indexOf(NL) + 1;
        lineNo = 2;
      }
      const starts = lineStarts(chunk.buf, from);
      titles!.see(chunk.buf, starts);
      lineNo = searchChunk(starts, chunk, from, lineNo, chunk.base + chunk.buf.length === size, meta, file, q, o, hits, problems);
      // Reads are synchronous (see lineChunks): let the event loop run between chunks.
      await turn();
    }
    if (!meta) {
      problems.push({ file, line: 1, message: 'no readable meta line: file skipped' });
      return { hits: [], searched: false };
    }
    if (hits.length) {
      const title = titles!.get();
      for (const h of hits) h.title = title;
    }
    return { hits, searched: true };
  } finally {
    closeSync(fd);
  }
}

const NOT_JSON = Symbol('not JSON');

/**
 * The hit of one event line (decoded), or null when it does not match, or NOT_JSON. Every
 * candidate, from the scan or from the index, is decided here.
 */
function hitOfLine(
  raw: string,
  seq: number,
  meta: { sessionId: string; project: string },
  file: string,
  q: Compiled,
  o: FileOpts,
): SearchHit | null | typeof NOT_JSON {
  // Cheap pre-check of the other terms on the raw text (the anchor's own term is known to be
  // there: lowercasing a whole candidate line for it was a tenth of a search).
  if (q.others.length) {
    const lowerRaw = q.others.some((t) => !t.exact) ? raw.toLowerCase() : raw;
    for (const t of q.others) if (!(t.exact ? raw : lowerRaw).includes(t.lower)) return null;
  }
  let ev: Record<string, unknown>;
  try {
    ev = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return NOT_JSON;
  }
  if (!ev || typeof ev !== 'object' || typeof ev.kind !== 'string') return null;
  const t = typeof ev.t === 'string' ? ev.t : '';
  const time = Date.parse(t);
  if (o.since !== -Infinity || o.until !== Infinity) {
    if (Number.isNaN(time) || time < o.since || time > o.until) return null;
  }
  const parts = partsOf(ev);
  const hit = matchParts(parts, q.terms, o.snippetChars);
  if (!hit) return null;
  return {
    sessionId: meta.sessionId,
    project: meta.project,
    title: '',
    seq,
    kind: ev.kind,
    where: hit.where,
    t,
    snippet: hit.snippet,
    ranges: hit.ranges,
    file,
  };
}

/**
 * Searches one chunk of whole lines from `from` (`starts` are its line starts from `from` on); `firstLine` is the line number of the line starting at `from`. Returns
 * the line number of the line after the chunk.
 */
function searchChunk(
  starts: Int32Array,
  chunk: Chunk,
  from: number,
  firstLine: number,
  atEof: boolean,
  meta: { id: string; project: string },
  file: string,
  q: Compiled,
  o: FileOpts,
  hits: Found[],
  problems: SearchProblem[],
): number {
  const buf = chunk.buf;
  const id = { sessionId: meta.id, project: meta.project };

  // The line holding a place: a cursor over `starts` (places are asked in order).
  let k = 0;
  const lineAt = (pos: number): number => {
    while (k + 1 < starts.length && starts[k + 1]! <= pos) k++;
    return k;
  };

  /** Line `i` of the chunk, the anchor found at `at` (-1: not known). Returns the line's end. */
  const handleLine = (i: number, _at = -1): number => {
    const start = starts[i]!;
    const ln = firstLine + i;
    const seq = ln - 2;
    const end = endOfLine(buf, starts, i);
    const hit = hitOfLine(buf.toString('utf8', start, end), seq, id, file, q, o);
    if (hit === NOT_JSON) {
      problems.push({ file, line: ln, message: atEof && end === buf.length ? 'torn last line: skipped' : 'not JSON: skipped' });
    } else if (hit) hits.push(hit);
    return end;
  };

  if (!q.anchor.exact) {
    // Case-insensitive anchor: decode the chunk (whole lines, so no character is
    // cut), search the text, map back line by line.
    const hayU = buf.toString('utf8');
    const re = q.anchor.re!;
    re.lastIndex = 0;
    let lastLineStart = -1;
    let bytePos = 0;
    let charPos = 0;
    for (let m = re.exec(hayU); m; m = re.exec(hayU)) {
      const ls = hayU.lastIndexOf('\n', m.index) + 1;
      let le = hayU.indexOf('\n', m.index);
      if (le < 0) le = hayU.length;
      if (ls !== lastLineStart) {
        bytePos += Buffer.byteLength(hayU.slice(charPos, ls), 'utf8');
        charPos = ls;
        if (bytePos >= from) handleLine(lineAt(bytePos));
        lastLineStart = ls;
      }
      re.lastIndex = le + 1;
    }
  } else {
    let pos = from;
    while (pos < buf.length) {
      const at = buf.indexOf(q.anchor.bytes, pos);
      if (at < 0) break;
      pos = handleLine(lineAt(at), at) + 1;
    }
  }
  // The line after the chunk: one line a '\n' (the last may be the torn end of the file).
  return firstLine + starts.length - 1;
}

// ---------------------------------------------------------------------------------------------
// The searchable texts of an event, each marked with where it comes from. A part is a list of
// string leaves: its text is the leaves joined with '\n' (a tool input's values, a tool output's
// blocks); the index tokenizes the leaves one by one. eventTexts is the one entry point.

export interface EventText {
  where: SearchWhere;
  leaves: string[];
}

/** Parses a string tool input that may be JSON; undefined when it is not. */
const parseInput = (s: string): unknown => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
};

function stringLeaves(v: unknown, out: string[], depth = 0): void {
  if (depth > 20) return;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out, depth + 1);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringLeaves(x, out, depth + 1);
}

function inputLeaves(input: unknown): string[] {
  if (typeof input === 'string') {
    const parsed = parseInput(input);
    if (parsed && typeof parsed === 'object') return inputLeaves(parsed);
    return [input];
  }
  const out: string[] = [];
  stringLeaves(input, out);
  return out;
}

function outputLeaves(output: unknown): string[] {
  if (typeof output === 'string') return [output];
  const out: string[] = [];
  if (Array.isArray(output)) {
    for (const b of output) {
      if (typeof b === 'string') out.push(b);
      else if (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string') out.push((b as { text: string }).text);
    }
  } else stringLeaves(output, out);
  return out;
}

/**
 * The event's searchable texts, each a list of leaves with where it is (a part may be empty):
 * provider content read by the one walker every reader uses (format/content.ts), its text and
 * thinking under the event's kind, tool inputs and outputs as leaves of their own.
 */
export function eventTexts(ev: Record<string, unknown>): EventText[] {
  const out: EventText[] = [];
  if (ev.kind === 'compact' || ev.kind === 'title') {
    const text = ev.kind === 'compact' ? ev.briefing : ev.title;
    if (typeof text === 'string') out.push({ where: ev.kind, leaves: [text] });
    return out;
  }
  const c = contentOf(ev as { kind: string });
  if (!c) return out;
  const textWhere = ev.kind as SearchWhere; // user, assistant or agent: contentOf said so
  walk(
    c.value,
    (p) => {
      if (p.kind === 'tool_use') out.push({ where: 'tool-input', leaves: inputLeaves(p.input) });
      else if (p.kind === 'tool_result') out.push({ where: 'tool-output', leaves: outputLeaves(p.output) });
      else if (p.text !== undefined && p.kind !== 'image') out.push({ where: textWhere, leaves: [p.text] });
    },
    c.role,
  );
  return out;
}

interface TextPart {
  where: SearchWhere;
  text: string;
}

/** The event's searchable texts (a part's leaves joined with '\n'), empty ones left out. */
function partsOf(ev: Record<string, unknown>): TextPart[] {
  return eventTexts(ev)
    .map((p) => ({ where: p.where, text: p.leaves.length === 1 ? p.leaves[0]! : p.leaves.join('\n') }))
    .filter((p) => p.text);
}

/** Every term in some part; the hit is in the first part holding the most terms. */
function matchParts(
  parts: TextPart[],
  terms: Term[],
  snippetChars: number,
): { where: SearchWhere; snippet: string; ranges: [number, number][] } | null {
  const found = new Set<number>();
  let best: { part: TextPart; count: number } | null = null;
  for (const part of parts) {
    let count = 0;
    terms.forEach((t, i) => {
      t.re.lastIndex = 0;
      if (t.re.test(part.text)) {
        found.add(i);
        count++;
      }
    });
    if (count && (!best || count > best.count)) best = { part, count };
  }
  if (!best || found.size !== terms.length) return null;
  return snippetOf(best.part, terms, snippetChars);
}

function snippetOf(part: TextPart, terms: Term[], width: number): { where: SearchWhere; snippet: string; ranges: [number, number][] } {
  const text = part.text;
  const all: [number, number][] = [];
  for (const t of terms) {
    t.re.lastIndex = 0;
    for (let m = t.re.exec(text); m; m = t.re.exec(text)) {
      all.push([m.index, m.index + m[0].length]);
      if (m[0].length === 0) t.re.lastIndex++;
      if (all.length > 1000) break;
    }
  }
  all.sort((a, b) => a[0] - b[0]);
  const first = all[0] ?? [0, 0];
  const { start, end, pre, snippet } = snippetCut(text, first[0], first[1], width)!;
  const ranges: [number, number][] = [];
  for (const [a, b] of all) {
    if (a >= start && b <= end) ranges.push([a - start + pre.length, b - start + pre.length]);
  }
  return { where: part.where, snippet, ranges };
}

/**
 * Where a snippet `width` long cuts `text` around its first match [a, b): from width/3
 * characters before the match, to at least the match's end, never inside a surrogate pair, with
 * '…' where text is left out. `text` is the whole text, or (windowSnippet) a window of it that
 * starts, ends, where the text does only when `fromStart`, `toEnd` say so; null when the window
 * is too short for the cut.
 */
function snippetCut(
  text: string,
  a: number,
  b: number,
  width: number,
  fromStart = true,
  toEnd = true,
): { start: number; end: number; pre: string; snippet: string } | null {
  let start = a - Math.floor(width / 3);
  if (fromStart) start = Math.max(0, start);
  else if (start < 1) return null;
  let end = Math.max(start + width, b);
  if (toEnd) end = Math.min(text.length, end);
  else if (end >= text.length) return null;
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start]!)) start--;
  if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end]!)) end++;
  const pre = !fromStart || start > 0 ? '…' : '';
  const post = !toEnd || end < text.length ? '…' : '';
  return { start, end, pre, snippet: pre + text.slice(start, end).replace(/[\r\n\t\f\v]/g, ' ') + post };
}

// ---- The indexed search -----------------------------------------------------------------------
//
// A query of plain words (ASCII letters and digits) over a store root is answered from each
// project folder's search index (search-index.ts) instead of reading every byte: the index
// names the events holding each word, and only the answer's hits, the events it is unsure of,
// the lines that are not JSON and a torn last line are read. Before it answers, the index is
// brought up to date file by file: a file whose inode, size and mtime are the ones indexed is
// trusted; one that grew, with the bytes before the indexed end unchanged, has only its new
// lines read (sessions are append-only); any other is indexed again, and a file gone is
// dropped. The answer is the scan's, exactly (test/search-index.test.ts).

/**
 * The words the index looks up for a query, lowercase; null when the index cannot pick its
 * candidates (a word that is not letters and digits, a phrase without one). A phrase's words
 * are its runs of ASCII letters and digits: each is inside a word of any text holding the
 * phrase, so the events holding them all are the phrase's candidates (checked by hitOfLine).
 */
function indexWords(query: string, opts: SearchOptions): string[] | null {
  if (opts.index === false) return null;
  const pq = parseQuery(query);
  if (!pq.words.every((w) => INDEXABLE_WORD.test(w))) return null;
  const inPhrases = pq.phrases.map((p) => p.match(/[A-Za-z0-9]+/g) ?? []);
  if (inPhrases.some((w) => w.length === 0)) return null;
  const words = [...pq.words, ...inPhrases.flat()];
  return words.length ? [...new Set(words.map((w) => w.toLowerCase()))] : null;
}

/** A match of the indexed search, with what ranking needs. */
interface Ranked {
  time: number;
  sessionId: string;
  seq: number;
  hit: Found;
}

const newest = (x: number): number => (Number.isNaN(x) ? -Infinity : x);

/** Ranking order: newest first, then the session id, then seq, both descending (< 0: a first). */
function order(ta: number, sa: string, qa: number, tb: number, sb: string, qb: number): number {
  if (ta !== tb) return newest(tb) - newest(ta);
  if (sa !== sb) return sa < sb ? 1 : -1;
  return qb - qa;
}

function byRank(a: { time: number; sessionId: string; seq: number }, b: { time: number; sessionId: string; seq: number }): number {
  return order(a.time, a.sessionId, a.seq, b.time, b.sessionId, b.seq);
}

/**
 * The best `limit` matches seen (a heap whose root ranks last): a match that would not make the
 * answer costs a comparison, and no object (27,326 matches for 100 hits on claude-scale).
 */
class Top {
  private readonly heap: Ranked[] = [];
  /**
   * A match whose time is older than this would not make the answer (-Infinity until the heap
   * is full): one comparison, where wants() is a call. A NaN time is never below it.
   */
  floor = -Infinity;

  constructor(private readonly limit: number) {
    if (limit === 0) this.floor = Infinity;
  }

  /** Whether a match with this rank would make the answer as it stands. */
  wants(time: number, sessionId: string, seq: number): boolean {
    if (this.heap.length < this.limit) return true;
    if (this.limit === 0) return false;
    const w = this.heap[0]!;
    return order(time, sessionId, seq, w.time, w.sessionId, w.seq) < 0;
  }

  offer(r: Ranked): void {
    const h = this.heap;
    if (h.length < this.limit) {
      h.push(r);
      for (let i = h.length - 1; i > 0; ) {
        const up = (i - 1) >> 1;
        if (byRank(h[i]!, h[up]!) <= 0) break;
        [h[i], h[up]] = [h[up]!, h[i]!];
        i = up;
      }
      if (h.length === this.limit) this.floor = newest(h[0]!.time);
      return;
    }
    if (!this.limit || byRank(r, h[0]!) >= 0) return;
    h[0] = r;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const rr = l + 1;
      let worst = i;
      if (l < h.length && byRank(h[l]!, h[worst]!) > 0) worst = l;
      if (rr < h.length && byRank(h[rr]!, h[worst]!) > 0) worst = rr;
      if (worst === i) break;
      [h[i], h[worst]] = [h[worst]!, h[i]!];
      i = worst;
    }
    this.floor = newest(h[0]!.time);
  }

  /** The matches kept, in ranking order. */
  sorted(): Ranked[] {
    return [...this.heap].sort(byRank);
  }
}

/** A project folder of an indexed search: its index, and its files as the search found them. */
interface Folder {
  dir: string;
  ix: FolderIndex | null;
  changed: boolean;
  /** Its files as found, each with its entry and where the entry was in `ix.files` (before a compaction). */
  files: { entry: IndexedFile; file: string; size: number; fi: number }[];
  /** Its work items: items[first, end). */
  first: number;
  end: number;
}

/** What deciding a folder's candidates needs (searchIndexedOnce answerEvent). */
interface CandidateOf {
  ix: FolderIndex;
  /** Per file of ix: in the search's scope. */
  ok: Uint8Array;
  titleOf: (fi: number) => string;
  pathOf: (fi: number) => string;
  titleHits: TitleHits<Ranked>;
  count: (r: Ranked) => void;
}

/** A file to (re)index from its entry's end. */
interface Item {
  folder: number;
  file: string;
  size: number;
  /** Bytes of it indexed already (the work is the rest). */
  covered: number;
}

/**
 * The indexed search. A folder whose index turns out not to check out where the search uses it
 * (CorruptIndexError) is searched again from the start with that index distrusted: answered as
 * if it had none, and rebuilt.
 */
async function searchIndexed(
  files: string[],
  q: Compiled,
  words: string[],
  fo: FileOpts,
  limit: number,
  opts: SearchOptions,
  collect?: Ranked[],
): Promise<SearchResult> {
  const distrusted = new Set<string>();
  const reported = { done: 0 }; // progress never goes back on a second attempt
  for (;;) {
    try {
      return await searchIndexedOnce(files, q, words, fo, limit, opts, distrusted, reported, collect);
    } catch (err) {
      if (!(err instanceof CorruptIndexError) || distrusted.has(err.path)) throw err;
      distrusted.add(err.path);
    }
  }
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the indexed search in its order (bring each folder's index up to date, look up, check candidates, rank); split it next
async function searchIndexedOnce(
  files: string[],
  q: Compiled,
  words: string[],
  fo: FileOpts,
  limit: number,
  opts: SearchOptions,
  distrusted: ReadonlySet<string>,
  reported: { done: number },
  collect?: Ranked[],
): Promise<SearchResult> {
  const problems: SearchProblem[] = [];
  const found = new Top(limit);
  let total = 0;
  let searched = 0;
  let done = 0;
  const progress = (): void => {
    if (++done > reported.done) opts.onProgress?.((reported.done = done), files.length);
  };
  const anchor = q.anchor.bytes.toString('latin1');
  const hasAnchor = (b: Buffer): boolean =>
    q.anchor.exact ? b.includes(q.anchor.bytes) : b.toString('latin1').toLowerCase().includes(anchor);
  // The index holds words: an event holding a phrase's words is only a candidate, read and checked.
  const verify = q.terms.some((t) => t.exact);
  // The phrases' bytes when every phrase can be decided on a CLEAN line's raw bytes (rawCheckable).
  const phrases = q.terms.filter((t) => t.exact).map((t) => t.text);
  const raw = verify && phrases.every(rawCheckable) ? phrases.map((p) => Buffer.from(p)) : null;

  // A phrase's candidates, of those holding its words, are those whose pair filter may hold
  // its words next to each other (pair-filter.ts): the others cannot hold it.
  const paired = phrases.some(pairable);
  const adjacent = (ix: FolderIndex, events: Int32Array): Int32Array => {
    const groups = phrases.flatMap((p) => ix.phrasePairs(p) ?? []);
    return groups.length ? ix.withPairs(events, groups) : events;
  };

  /** One candidate of the index decided: counted and offered, or not. */
  const answerEvent = (at: CandidateOf, ev: number, lines: LineReader): void => {
    const { ix, ok, titleOf, pathOf, titleHits, count } = at;
    const fi = ix.file[ev]!;
    if (!ok[fi]) return;
    const time = ix.time[ev]!;
    if (fo.since !== -Infinity || fo.until !== Infinity) {
      if (Number.isNaN(time) || time < fo.since || time > fo.until) return;
    }
    const meta = ix.files[fi]!.meta!;
    const seq = ix.seq[ev]!;
    const flags = ix.flags[ev]!;
    if (raw && (flags & (UNSURE_EVENT | TITLE_EVENT | CLEAN_EVENT)) === CLEAN_EVENT) {
      // A phrase's candidate whose line says it without a parse (rawHolds): then counted as
      // an indexed word is, and made whole only if it makes the answer.
      if (!lines.holds(fi, pathOf(fi), ix.offset[ev]!, ix.length[ev]!, raw)) return;
    } else if (verify || flags & (UNSURE_EVENT | TITLE_EVENT)) {
      // A phrase's candidate, a word there perhaps only through an escape, or a title (one hit
      // for a title set again unchanged): decided as the scan decides.
      const file = pathOf(fi);
      const line = lines.read(fi, file, ix.offset[ev]!, ix.length[ev]!);
      if (!line || !hasAnchor(line)) return;
      const hit = hitOfLine(line.toString('utf8'), seq, { sessionId: meta.id, project: meta.project }, file, q, fo);
      if (!hit || hit === NOT_JSON) return;
      hit.title = titleOf(fi);
      const r = { time, sessionId: meta.id, seq, hit };
      if (!titleHits.hold(fi, r.hit, r)) count(r);
      return;
    }
    total++;
    if (time < found.floor) return; // most: older than every hit kept
    if (found.wants(time, meta.id, seq)) {
      const hit = {
        sessionId: meta.id,
        project: meta.project,
        title: titleOf(fi),
        seq,
        t: '',
        file: pathOf(fi),
        offset: ix.offset[ev]!,
        length: ix.length[ev]!,
      };
      found.offer({ time, sessionId: meta.id, seq, hit });
    }
  };

  // A folder's answer, from its index (called in 1 for a folder with nothing to read or
  // write, else in 2 once its files are in).
  const answerFolder = (folder: Folder): void => {
    const ix = folder.ix!;
    let fiOf: Map<IndexedFile, number> | undefined; // made when a compaction renumbered the files
    const ok = new Uint8Array(ix.files.length);
    const titles = new Map<number, string>();
    const titleHits = new TitleHits<Ranked>();
    const count = (r: Ranked): void => {
      total++;
      found.offer(r);
    };
    for (const f of folder.files) {
      const { entry: e, file, size } = f;
      const fi = ix.files[f.fi] === e ? f.fi : (fiOf ??= new Map(ix.files.map((x, i) => [x, i]))).get(e)!;
      if (!e.meta) {
        problems.push({ file, line: 1, message: 'no readable meta line: file skipped' });
        progress();
        continue;
      }
      if (!inScope(fo, file, e.meta.project)) {
        progress();
        continue;
      }
      ok[fi] = 1;
      searched++;
      if (!e.bad.length && size <= e.covered) {
        progress(); // the common case: nothing of the file to read
        continue;
      }
      const id = { sessionId: e.meta.id, project: e.meta.project };
      for (let b = 0; b < e.bad.length; b += 3) {
        // Reported when the scan would look at it: the anchor in it, and the other words too.
        const line = readAt(file, e.bad[b + 1]!, e.bad[b + 2]!);
        if (line && hasAnchor(line) && hitOfLine(line.toString('utf8'), e.bad[b]! - 2, id, file, q, fo) === NOT_JSON) {
          problems.push({ file, line: e.bad[b]!, message: 'not JSON: skipped' });
        }
      }
      // A torn last line, read as the scan reads it.
      const tail = size > e.covered ? readAt(file, e.covered, size - e.covered) : null;
      if (tail?.length) {
        ix.details();
        const tracker = TitleTracker.from(e.title);
        tracker.see(tail, Int32Array.of(0));
        titles.set(fi, tracker.get());
        if (hasAnchor(tail)) {
          const hit = hitOfLine(tail.toString('utf8'), e.lines - 1, id, file, q, fo);
          if (hit === NOT_JSON) problems.push({ file, line: e.lines + 1, message: 'torn last line: skipped' });
          else if (hit) {
            hit.title = tracker.get();
            const r = { time: Date.parse(hit.t), sessionId: hit.sessionId, seq: hit.seq, hit };
            if (!titleHits.hold(fi, r.hit, r)) count(r);
          }
        }
      }
      progress();
    }
    // A file's title and path, made for the matches that are offered only (most are not).
    const titleOf = (fi: number): string => titles.get(fi) ?? ix.files[fi]!.shown;
    const pathOf = (fi: number): string => folder.dir + sep + ix.files[fi]!.name;
    const matched = adjacent(ix, ix.matching(words));
    const lines = new LineReader();
    try {
      const at = { ix, ok, titleOf, pathOf, titleHits, count };
      for (let k = 0; k < matched.length; k++) answerEvent(at, matched[k]!, lines);
    } finally {
      lines.close();
    }
    titleHits.flush(count);
  };

  // 1. Each folder's index checked against its files: what is trusted, what must be read.
  const byDir = new Map<string, string[]>();
  for (const f of files) {
    const d = f.slice(0, f.lastIndexOf(sep)); // dirname: the files are listSessionFiles' (folder + sep + name)
    const list = byDir.get(d);
    if (list) list.push(f);
    else byDir.set(d, [f]);
  }
  const folders: Folder[] = [];
  const items: Item[] = [];
  const entries: IndexedFile[] = []; // items[i]'s entry in its folder's index
  try {
    for (const [dir, list] of [...byDir].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      opts.signal?.throwIfAborted();
      const path = searchIndexPath(dir);
      let ix = (!distrusted.has(path) && FolderIndex.open(path)) || new FolderIndex(paired);
      if (paired && !ix.paired) {
        // A phrase's search over an index without a pair filter: built again, with one.
        ix.close();
        ix = new FolderIndex(true);
      }
      const folder: Folder = { dir, ix, changed: false, files: [], first: items.length, end: items.length };
      const at = folders.push(folder) - 1; // pushed now: closed below if this throws
      const live = new Map<string, number>();
      ix.files.forEach((f, i) => {
        if (!f.dead) live.set(f.name, i);
      });
      const work: { item: Item; entry: IndexedFile }[] = [];
      for (const file of list) {
        const name = file.slice(file.lastIndexOf(sep) + 1);
        const fi = live.get(name);
        live.delete(name);
        let st;
        try {
          st = lstatSync(file, { bigint: true });
          if (!st.isFile()) throw new NotRegularError(file, plantedKind(file) ?? 'not a regular file');
        } catch (err) {
          problems.push({ file, message: `cannot read: ${(err as Error).message}` });
          progress();
          continue;
        }
        const id = { size: Number(st.size), ino: String(st.ino), mtimeNs: String(st.mtimeNs) };
        let e = fi === undefined ? undefined : ix.files[fi]!;
        if (e && sameFile(e, id)) {
          folder.files.push({ entry: e, file, size: id.size, fi: fi! }); // the common case: trusted
          continue;
        }
        // Changed: gone on from where it was indexed when it only grew, else indexed again.
        if (e) {
          ix.details(); // its tail and title, to go on from
          if (e.ino !== id.ino || id.size < e.covered || !e.meta || !onlyGrew(file, e)) {
            e.dead = true;
            e = undefined;
          }
        }
        if (!e) {
          ix.edit();
          e = unindexedFile(name);
          ix.files.push(e);
        }
        work.push({ item: { folder: at, file, size: id.size, covered: e.covered }, entry: e });
        Object.assign(e, id);
        folder.changed = true;
        folder.files.push({ entry: e, file, size: id.size, fi: fi !== undefined && ix.files[fi] === e ? fi : ix.files.length - 1 });
      }
      // Files gone since they were indexed.
      for (const fi of live.values()) {
        ix.files[fi]!.dead = true;
        folder.changed = true;
      }
      work.sort((a, b) => b.item.size - b.item.covered - (a.item.size - a.item.covered));
      for (const w of work) {
        items.push(w.item);
        entries.push(w.entry);
      }
      folder.end = items.length;
      if (!work.length && !folder.changed) {
        // Nothing to read or write: answered and let go now. Held until every folder was
        // planned, the 48 heads of claude-scale outlived the young generation, and their
        // promotion cost a full collection in every search.
        answerFolder(folder);
        ix.close();
        folder.ix = null;
      }
    }
  } catch (err) {
    for (const f of folders) f.ix?.close();
    throw err;
  }

  // 2. What must be read, read. A folder is answered and let go as soon as its
  // items are in, so that about one folder is held at a time.
  const settled = new Uint8Array(items.length);
  let answered = 0;
  const answerReady = async (): Promise<void> => {
    for (; answered < folders.length; answered++) {
      const folder = folders[answered]!;
      if (!folder.ix) continue; // answered in 1
      for (let i = folder.first; i < folder.end; i++) if (!settled[i]) return;
      const ix = folder.ix!;
      if (folder.changed) {
        ix.compact();
        await writeIndex(searchIndexPath(folder.dir), ix);
      }
      answerFolder(folder);
      ix.close();
      folder.ix = null; // let it go
    }
  };

  /** Item i read; a file that cannot be read is a problem, as in the scan. */
  const readItem = async (i: number): Promise<void> => {
    const it = items[i]!;
    const folder = folders[it.folder]!;
    const ix = folder.ix!;
    const e = entries[i]!;
    try {
      ix.edit();
      await indexFile(ix, ix.files.indexOf(e), it.file, it.size, opts.signal);
    } catch (err) {
      opts.signal?.throwIfAborted();
      if (err instanceof CorruptIndexError) throw err;
      // Gone or unreadable since it was stat'ed: left out, and read again by the next search.
      e.dead = true;
      folder.files = folder.files.filter((f) => f.entry !== e);
      problems.push({ file: it.file, message: `cannot read: ${(err as Error).message}` });
      progress();
    }
    settled[i] = 1;
  };

  try {
    await answerReady();
    for (let i = 0; i < items.length; i++) {
      opts.signal?.throwIfAborted();
      await readItem(i);
      await answerReady();
    }
    await answerReady();
  } finally {
    for (const f of folders) f.ix?.close();
  }
  opts.signal?.throwIfAborted();
  if (collect) {
    collect.push(...found.sorted());
    return { hits: [], total, files: searched, problems };
  }
  // No cache decides the truth: a hit is reported only once its line, read from its session
  // file, matches. An index that names a line that does not (or a session under another file's
  // name) disagrees with the files: it is distrusted, and the search runs again without it,
  // which rebuilds and rewrites it (searchIndexed). A second disagreement is a file changing
  // under the search: its hit is left out.
  const top: SearchHit[] = [];
  for (const { hit: h } of found.sorted()) {
    if (!('offset' in h)) {
      top.push(h);
      continue;
    }
    const named = h.file.slice(h.file.lastIndexOf(sep) + 1) === `${h.sessionId}.jsonl`;
    const hit = named ? materialize(h, q, fo, problems) : null;
    if (hit) top.push(hit);
    else {
      const path = searchIndexPath(h.file.slice(0, h.file.lastIndexOf(sep)));
      if (!distrusted.has(path) && !problems.some((x) => x.file === h.file))
        throw new CorruptIndexError(path, `names line ${h.seq + 2} of ${h.file}, which does not match`);
      total--;
    }
  }
  opts.signal?.throwIfAborted();
  return { hits: top, total, files: searched, problems };
}

/** Whether an index entry is of the file as stat'ed now: inode, size and mtime (nanoseconds). */
function sameFile(e: IndexedFile, id: { size: number; ino: string; mtimeNs: string }): boolean {
  return e.size === id.size && e.ino === id.ino && e.mtimeNs === id.mtimeNs;
}

/**
 * Candidate lines read from their files, each file opened once while its events follow each
 * other (they mostly do: a file's events take ordinals in order), into one buffer reused.
 */
class LineReader {
  private fi = -1;
  private fd: number | null = null;
  private buf = Buffer.allocUnsafe(1 << 16);

  /** `length` bytes of `file` (its index fi) at `offset`; null when they cannot be read. Valid until the next read. */
  read(fi: number, file: string, offset: number, length: number): Buffer | null {
    return this.open(fi, file) ? this.readInto(0, length, offset) : null;
  }

  /**
   * Whether the line holds every phrase (rawHolds). One phrase is looked for a chunk at a time:
   * most lines holding it say so before their end (in the bench corpus, at 46% of their bytes).
   */
  holds(fi: number, file: string, offset: number, length: number, phrases: Buffer[]): boolean {
    const p = phrases[0]!;
    if (phrases.length > 1 || length <= 2 * HOLDS_CHUNK) return this.holdsWhole(fi, file, offset, length, phrases);
    if (!this.open(fi, file)) return false;
    const keep = p.length - 1 + 64; // bytes of the chunk before kept: a place cut by a read, and backslashes before it
    for (let done = 0, kept = 0; done < length; ) {
      const chunk = this.readInto(kept, Math.min(HOLDS_CHUNK, length - done), offset + done);
      if (!chunk) return false;
      const got = chunk.length - kept;
      if (got <= 0) return false;
      const r = rawPlace(chunk, p, done === 0);
      if (r === HELD) return true;
      if (r === UNSURE_PLACE) return this.holdsWhole(fi, file, offset, length, phrases); // backslashes before the chunk
      done += got;
      kept = Math.min(keep, chunk.length);
      chunk.copy(this.buf, 0, chunk.length - kept);
    }
    return false;
  }

  private holdsWhole(fi: number, file: string, offset: number, length: number, phrases: Buffer[]): boolean {
    const line = this.read(fi, file, offset, length);
    return !!line && phrases.every((x) => rawHolds(line, x));
  }

  private open(fi: number, file: string): boolean {
    if (fi !== this.fi) {
      this.close();
      this.fi = fi;
      try {
        this.fd = openRegularSync(file).fd;
      } catch {
        return false;
      }
    }
    return this.fd !== null;
  }

  /** `length` bytes at `offset` into the buffer from `at` (the bytes before kept): buf[0, at + read); null when they cannot be read. */
  private readInto(at: number, length: number, offset: number): Buffer | null {
    if (at + length > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(at + length, 2 * this.buf.length));
      this.buf.copy(bigger, 0, 0, at);
      this.buf = bigger;
    }
    try {
      return this.buf.subarray(0, at + readSync(this.fd!, this.buf, at, length, offset));
    } catch {
      return null;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.fi = -1;
  }
}

/**
 * Whether a phrase (rawCheckable, as UTF-8 bytes) is in a CLEAN line's texts, decided on the
 * line's bytes: it is when its bytes occur at a place not preceded by an odd run of backslashes
 * (there the first byte would be an escape's letter, as the `n` of `\n`: a later place may do).
 *
 * Why that is exact. The phrase holds no quote, so a place of its bytes lies inside one string
 * of the line, or wholly outside strings; outside is only JSON's structure (whitespace, `{}[]:,`,
 * numbers, true, false, null), and the phrase holds a character none of them has. Inside a
 * string, the bytes are the phrase's own characters: it holds no backslash, so no escape lies
 * within it, and none before it but one whose backslashes are in an even run (then its first
 * byte is no escape's letter); a line without `\u` writes every character of it raw, as any JSON
 * writer does (it holds no quote, backslash, control character, U+2028, U+2029 or lone
 * surrogate, nor '/', which a writer may write `\/`). So the decoded string holds the phrase,
 * and since it holds a space, it is a key (a CLEAN line has none with a space) or a string that
 * is one of the event's searchable leaves. The other way, a leaf holding the phrase is such a
 * string of the line, its bytes written raw: they are found. The phrase holds no '\n', so it
 * never spans the '\n' that joins two leaves of one part.
 */
function rawHolds(line: Buffer, phrase: Buffer): boolean {
  return rawPlace(line, phrase, true) === HELD;
}

/** Bytes of a long line read at a time while a phrase is looked for (LineReader.holds). */
const HOLDS_CHUNK = 32 << 10;
const HELD = 1;
const UNSURE_PLACE = -1;

/**
 * HELD when `bytes` have the phrase at a place rawHolds takes, 0 when not, UNSURE_PLACE when a
 * place's backslashes run back to the start of `bytes` and it is not the line's (`fromLineStart`).
 */
function rawPlace(bytes: Buffer, phrase: Buffer, fromLineStart: boolean): number {
  for (let at = bytes.indexOf(phrase); at >= 0; at = bytes.indexOf(phrase, at + 1)) {
    let k = at;
    while (k > 0 && bytes[k - 1] === BACKSLASH) k--;
    if (k === 0 && !fromLineStart) return UNSURE_PLACE;
    if (((at - k) & 1) === 0) return HELD;
  }
  return 0;
}

const BACKSLASH = 0x5c;
/** What JSON's structure is made of outside its strings: whitespace, punctuation, numbers, true, false, null. */
const STRUCTURE_ONLY = /^[ \t\n\r{}[\]:,0-9+\-.eEtrufalsn]*$/;
/** A character JSON writers may escape, or must: the phrase is then decided by a parse. */
const ESCAPABLE = /["\\/\u0000-\u001f\u007f\u2028\u2029]|\p{Cs}/u;

/** Whether an exact phrase can be decided on a CLEAN line's raw bytes (rawHolds says why). */
export function rawCheckable(phrase: string): boolean {
  return phrase.includes(' ') && !STRUCTURE_ONLY.test(phrase) && !ESCAPABLE.test(phrase);
}

/** `length` bytes of `file` at `offset`; null when they cannot be read. */
function readAt(file: string, offset: number, length: number): Buffer | null {
  return readInto(file, offset, Buffer.allocUnsafe(length));
}

/** `into.length` bytes of `file` at `offset`, read into `into` (the part read); null when they cannot be read. */
function readInto(file: string, offset: number, into: Buffer): Buffer | null {
  let fd: number | undefined;
  try {
    fd = openRegularSync(file).fd;
    return into.subarray(0, readSync(fd, into, 0, into.length, offset));
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Whether the bytes before the indexed end are still the ones indexed (the file only grew). */
function onlyGrew(file: string, e: IndexedFile): boolean {
  const want = Buffer.from(e.tail, 'base64');
  const got = readAt(file, e.covered - want.length, want.length);
  return !!got && got.equals(want);
}

/** The whole lines of `file` from the entry's indexed end to `size` added to the index. */
async function indexFile(ix: FolderIndex, fi: number, file: string, size: number, signal?: AbortSignal): Promise<void> {
  const e = ix.files[fi]!;
  ix.edit();
  const { fd } = openRegularSync(file);
  try {
    let titles = TitleTracker.from(e.title);
    for (const chunk of lineChunks(fd, size, signal, e.covered)) {
      const buf = chunk.buf;
      let from = 0;
      if (chunk.base === 0) {
        const meta = parseMeta(buf);
        if (!meta) {
          e.meta = null;
          return;
        }
        e.meta = { id: meta.id, project: meta.project };
        titles = new TitleTracker(meta.title);
        from = buf.indexOf(NL) + 1;
        e.lines = 1;
        e.covered = from;
      }
      const starts = lineStarts(buf, from);
      const traps = hasFoldTrap(buf);
      // Whole lines: all but the last start (the chunk's end after a '\n', or a torn line's start).
      const whole = starts.length - 1;
      for (let i = 0; i < whole; i++) {
        const start = starts[i]!;
        const end = starts[i + 1]! - 1;
        const ln = e.lines + 1 + i;
        // Read as latin1 (each byte a character): a byte of a UTF-8 sequence is never an ASCII
        // letter or digit, so the words are the same, and decoding and parsing take half the
        // time. A line with a character that folds into a word is decoded as UTF-8.
        const raw = traps && hasFoldTrap(buf.subarray(start, end)) ? buf.toString('utf8', start, end) : buf.toString('latin1', start, end);
        let ev: Record<string, unknown>;
        try {
          ev = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          e.bad.push(ln, chunk.base + start, end - start);
          continue;
        }
        if (!ev || typeof ev !== 'object' || typeof ev.kind !== 'string') continue;
        const parts = eventTexts(ev);
        if (!parts.length) continue;
        const escaped = buf.subarray(start, end).indexOf(BACKSLASH_U) >= 0;
        const clean = !escaped && isClean(raw, ev, parts) ? CLEAN_EVENT : 0;
        const flags = (escaped ? UNSURE_EVENT : clean) | (ev.kind === 'title' ? TITLE_EVENT : 0);
        ix.event(fi, ln - 2, chunk.base + start, end - start, Date.parse(typeof ev.t === 'string' ? ev.t : ''), flags);
        for (const p of parts) for (const leaf of p.leaves) ix.text(leaf);
        ix.endEvent();
      }
      titles.see(buf.subarray(0, starts[whole]!), starts.subarray(0, whole));
      e.lines += whole;
      e.covered = chunk.base + starts[whole]!;
      await turn();
    }
    e.title = titles.state();
    e.shown = titles.get();
    // The bytes before the indexed end (onlyGrew checks them next time), from the file still open.
    const tail = Buffer.alloc(Math.min(TAIL_BYTES, e.covered));
    e.tail = tail.subarray(0, tail.length && readSync(fd, tail, 0, tail.length, e.covered - tail.length)).toString('base64');
  } finally {
    closeSync(fd);
  }
}

const BACKSLASH_U = Buffer.from('\\u');

/**
 * Whether an event is CLEAN (search-index.ts): the strings of its line holding a space (U+0020)
 * are its searchable leaves holding one, the same strings as many times (a leaf made of several
 * strings, or of a string tool input parsed as JSON, is none of them: then it is not CLEAN); no
 * key holds one; and no key is given twice (JSON.parse keeps the last value only: a string of
 * the line would be in no leaf). `raw` is the line decoded, without a `\u` escape: its quotes
 * that no backslash escapes are then two a string, and a key given twice makes them more.
 * Compared as sorted lists, not sets: hashing every text was a tenth of building the index.
 */
function isClean(raw: string, ev: unknown, parts: EventText[]): boolean {
  const seen = { strings: 0, spaced: [] as string[] };
  if (!spacedStrings(ev, seen, 0)) return false;
  const leaves: string[] = [];
  for (const p of parts) for (const l of p.leaves) if (l.includes(' ')) leaves.push(l);
  if (leaves.length !== seen.spaced.length) return false;
  leaves.sort(byText);
  seen.spaced.sort(byText);
  for (let i = 0; i < leaves.length; i++) if (leaves[i] !== seen.spaced[i]) return false;
  return unescapedQuotes(raw) === 2 * seen.strings;
}

const byText = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * Counts the strings of a parsed value (keys too) into `seen.strings`, and lists those holding a
 * space; false for a key holding a space, or nesting too deep to walk.
 */
function spacedStrings(v: unknown, seen: { strings: number; spaced: string[] }, depth: number): boolean {
  if (typeof v === 'string') {
    seen.strings++;
    if (v.includes(' ')) seen.spaced.push(v);
    return true;
  }
  if (!v || typeof v !== 'object') return true;
  if (depth > 64) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (!spacedStrings(x, seen, depth + 1)) return false;
    return true;
  }
  for (const k of Object.keys(v)) {
    if (k.includes(' ')) return false;
    seen.strings++;
    if (!spacedStrings((v as Record<string, unknown>)[k], seen, depth + 1)) return false;
  }
  return true;
}

/** The '"' of a JSON text that no backslash escapes (after an even run of them). */
function unescapedQuotes(s: string): number {
  let n = 0;
  for (let at = s.indexOf('"'); at >= 0; at = s.indexOf('"', at + 1)) {
    let k = at;
    while (k > 0 && s.charCodeAt(k - 1) === BACKSLASH) k--;
    if (((at - k) & 1) === 0) n++;
  }
  return n;
}
/** The UTF-8 of the two characters beyond ASCII that fold into a word (search-index.ts fold). */
const KELVIN_UTF8 = Buffer.from('\u212a');
const LONG_S_UTF8 = Buffer.from('\u017f');
/** Whether `b` holds a character beyond ASCII that folds into a word: K (Kelvin) or ſ. */
const hasFoldTrap = (b: Buffer): boolean => b.includes(KELVIN_UTF8) || b.includes(LONG_S_UTF8);

/** Writes a folder's index; a store that cannot take it is searched without one next time too. */
async function writeIndex(path: string, ix: FolderIndex): Promise<void> {
  const bytes = ix.serialize(); // outside the catch: an index that does not check out is searched again without it
  try {
    ensureCacheFolder(path);
    replaceFileSync(path, bytes, { mode: 0o600, fsync: false }); // never through a name planted as a symlink
  } catch {
    /* a cache: the answer does not depend on it */
  }
}
