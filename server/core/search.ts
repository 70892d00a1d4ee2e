// Full-text search over session files: the core of `session/search` and the CLI's `search`.
// The JSONL files are the truth. A query of plain words over a store root is answered from the
// project folders' search indexes, brought up to date with the files first (searchIndexed, at
// the end of this file; search-index.ts). Any other query scans: each file is read in chunks of
// whole lines, candidate lines are found with a fast byte search (the anchor), and the match is
// verified on the decoded text (so a word inside a JSON key, an id or an escape never counts).
// Both give the same answer. Tolerant: a bad line or an unreadable file becomes a problem, never
// an exception; only an abort throws.
// Depends on node:fs, plain.ts, scan.ts, search-skeleton.ts, search-index.ts, utf8.ts and
// helper.ts; no JSON-RPC, no store internals (a store root is just `<root>/<slug>/<id>.jsonl`).
//
// Two paths decide a candidate line of the scan, with the same answer:
// - the fast path (fastLine, for queries of printable ASCII): the line's strings found and
//   checked by scan.wat, its JSON skeleton (long strings cut out, see search-skeleton.ts)
//   parsed for the event's shape, and each term looked for in the raw bytes of the texts it may
//   be in. No decoding, no copy of the texts. A matching event is kept as a PendingHit (time, session, seq, where its line is);
//   only the hits of the answer (the newest `limit`) are read again and made whole by the slow
//   path. On claude-scale nearly every byte is in a candidate line (the bench's word is in most
//   big tool inputs: 1.0 GB of 1.1 GB), so this is where the time went: UTF-8 decoding and
//   JSON.parse of every candidate line were 4.3 s of 7 s.
// - the slow path (hitOfLine): decode, JSON.parse, every part's text. For lines the fast path is
//   unsure of (not JSON, a \u escape or a case-folding trap where it looks, a tool input string
//   holding JSON, non-ASCII queries, ...), and to make the answer's hits.
// The passes over every byte (the anchor, the line ends, each candidate line's strings) run in
// WebAssembly (scan.ts); on claude-scale one thread's time is now about a fifth reading, a
// quarter those passes and a quarter JSON.parse of the skeletons (bench/PERFORMANCE.md).
//
// Query language: plain words match case-insensitively (inside longer words too); "quoted
// phrases" match exactly (case-sensitive). A session matches when it holds every term, each in
// any of its events (searchSessions); the engine below finds the events holding all of a
// query's terms, which for one term is the same thing.

import { readdir } from 'node:fs/promises';
import { accessSync, closeSync, constants as fsConstants, fstatSync, lstatSync, openSync, readSync, statSync } from 'node:fs';
import { helperData, serveHelper, startHelper, type Helper } from './helper.js';
import { join, sep } from 'node:path';
import { CorruptIndexError, FolderIndex, INDEXABLE_WORD, searchIndexPath, TAIL_BYTES, UNSURE as UNSURE_EVENT, type Fragment, type IndexedFile } from './search-index.js';
import { ensureCacheFolder } from './cache-dir.js';
import { NotRegularError, oneLine, openRegularSync, plantedKind, replaceFileSync, textOf } from './plain.js';
import { cutOf, cutText, cutWindow, firstInCut, Occurrences, occursInCut, skeletonOf, type Skeleton } from './search-skeleton.js';
import { NEEDLE_MAX, Scanner, type CutString, type LineScan } from './scan.js';
import { decodeUtf8 } from './utf8.js';

export type SearchWhere = 'user' | 'assistant' | 'agent' | 'tool-input' | 'tool-output' | 'compact' | 'title';

export interface SearchOptions {
  /** Only sessions whose meta line's `project` equals this absolute path exactly. */
  project?: string;
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
   * A helper thread searching half of the files: by default when the files hold 64 MB or more;
   * true forces it, false never; 'only' leaves this thread only what the helper does not
   * search (tests of the helper).
   */
  helper?: boolean | 'only';
  /** Filled with how many files the helper thread searched (tests, diagnostics). */
  stats?: { helperFiles: number };
  /**
   * false: every candidate line takes the slow path, the full decode and parse (tests: the fast
   * path must give the same answer).
   */
  fast?: boolean;
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
  const r = terms.length < 2 ? await searchEvents(listed, root, query, opts) : await searchEveryTerm(listed, root, terms, opts);
  r.problems.unshift(...listProblems);
  return oneTitleHit(r);
}

/**
 * A query of several terms: each term searched alone (from the folders' indexes where it can
 * be, else over the files that held the terms before it), the sessions holding them all kept,
 * and the newest `limit` of their matching events made whole.
 */
async function searchEveryTerm(listed: string[], root: boolean, terms: string[], opts: SearchOptions): Promise<SearchResult> {
  const fast = opts.fast ?? true;
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
    perTerm.push({ found: got, q: compile(parseQuery(term), fast)! });
    if (files.size === 0) break;
  }
  if (files!.size === 0) return { hits: [], total: 0, files: searched, problems: [...problems.values()] };
  // The events holding every term first, found as one query (their snippets show the part
  // holding the most terms), then those holding some, each made with its own term.
  const query = terms.join(' ');
  const every = compile(parseQuery(query), fast)!;
  const indexed = root && indexWords(query, opts) !== null;
  const whole: Ranked[] = [];
  await searchEvents(indexed ? listed : listed.filter((f) => files!.has(f)), indexed, query, { ...opts, limit: Infinity, onProgress: undefined }, whole);
  for (const [got, q] of [[whole, every], ...perTerm.map((t) => [t.found, t.q])] as [Ranked[], Compiled][])
    for (const g of got) {
      const key = `${g.hit.file}\0${g.seq}`;
      if (files!.has(g.hit.file) && !found.has(key)) found.set(key, { r: g, q });
    }
  const fo: FileOpts = { project: opts.project, since: -Infinity, until: Infinity, snippetChars: opts.snippetChars ?? 160, signal: opts.signal, fast };
  const hits: SearchHit[] = [];
  const unread: SearchProblem[] = [];
  for (const { r, q } of [...found.values()].sort((a, b) => byRank(a.r, b.r)).slice(0, limit)) {
    const hit = 'offset' in r.hit ? materialize(r.hit, q, fo, unread) : r.hit;
    if (hit) hits.push(hit);
  }
  opts.signal?.throwIfAborted();
  return { hits, total: found.size, files: searched, problems: [...problems.values(), ...unread] };
}

/** A session's title hits with the same text: the newest only (a title set again, unchanged). */
function oneTitleHit(r: SearchResult): SearchResult {
  const seen = new Set<string>();
  const hits = r.hits.filter((h) => {
    if (h.where !== 'title') return true;
    const key = `${h.file}\0${h.snippet}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { ...r, hits, total: r.total - (r.hits.length - hits.length) };
}

/**
 * The events that hold every term of `query`, in `listed` (`root`: all of a store root's files,
 * which lets a query of plain words be answered from the folders' indexes). `collect`: the
 * matches, ranked, are put there unmade and the answer holds no hits (searchEveryTerm).
 */
async function searchEvents(listed: string[], root: boolean, query: string, opts: SearchOptions, collect?: Ranked[]): Promise<SearchResult> {
  const fast = opts.fast ?? true;
  const q = compile(parseQuery(query), fast);
  const limit = Math.max(0, opts.limit ?? 100);
  const since = opts.since ? Date.parse(opts.since) : -Infinity;
  const until = opts.until ? Date.parse(opts.until) : Infinity;
  const problems: SearchProblem[] = [];
  let hits: Found[] = [];
  let total = 0;
  let searched = 0;
  let done = 0;
  if (!q) return { hits: [], total, files: listed.length, problems };
  const fo: FileOpts = { project: opts.project, since, until, snippetChars: opts.snippetChars ?? 160, signal: opts.signal, fast };
  const words = root ? indexWords(query, opts) : null;
  if (words) return searchIndexed(listed, q, words, fo, limit, opts, collect);
  const sizes = new Map(listed.map((f) => [f, sizeOf(f)]));
  const files = listed.sort((a, b) => sizes.get(b)! - sizes.get(a)!);
  const bytes = [...sizes.values()].reduce((a, b) => a + b, 0);

  const keep = (h: Found): void => {
    total++;
    hits.push(h);
    if (hits.length >= Math.max(2 * limit, 1000)) hits = rank(hits).slice(0, limit);
  };

  // The files are shared out through one counter, between this thread's reader and, for a
  // large store, a helper thread (searchHelper) that takes files from the same counter.
  const settled = new Uint8Array(files.length);
  const settle = (i: number, r: FileResult): void => {
    if (settled[i]) return;
    settled[i] = 1;
    if (r.searched) searched++;
    for (const h of r.hits) keep(h);
    problems.push(...r.problems);
    done++;
    opts.onProgress?.(done, files.length);
  };
  const fromHelper = (i: number, r: FileResult): void => {
    if (!settled[i] && opts.stats) opts.stats.helperFiles++;
    settle(i, r);
  };
  const sc = scannerFor(q);
  const helper =
    opts.helper === false || (opts.helper === undefined && bytes < HELPER_MIN_BYTES) ? undefined : await startSearchHelper(files, query, fo, fromHelper);
  const next = helper?.next ?? new Int32Array(1);
  // One reader on this thread: reads are synchronous (see lineChunks), so more would only take
  // turns.
  const reader = async (): Promise<void> => {
    if (helper && opts.helper === 'only') return;
    for (let i = Atomics.add(next, 0, 1); i < files.length; i = Atomics.add(next, 0, 1)) {
      opts.signal?.throwIfAborted();
      settle(i, await searchOne(files[i]!, q, fo, sc));
    }
  };
  try {
    await reader();
    if (helper) {
      // The helper's answers; a helper that died leaves the files it had taken: searched here.
      await helper.finished(() => done >= files.length, opts.signal);
      for (let i = 0; i < files.length; i++) if (!settled[i]) settle(i, await searchOne(files[i]!, q, fo, sc));
    }
  } finally {
    helper?.stop();
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
 * A matching event found by the fast path: what ranking needs, and where its line is. Only the
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
  // A long line is read straight into the scanner's memory (hitOfSkeleton reads it there).
  const long = p.length >= SKIM_MIN && q.fast;
  const sc = long ? (answerScanner ??= new Scanner()) : undefined;
  const line = sc ? readInto(p.file, p.offset, sc.data(p.length)) : readAt(p.file, p.offset, p.length);
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
  const fast = sc ? hitOfSkeleton(sc, line, p, q, o) : UNSURE;
  const hit = fast !== UNSURE ? fast : hitOfLine(decodeUtf8(line), p.seq, p, p.file, q, o);
  if (!hit || hit === NOT_JSON) return null;
  hit.title = p.title;
  return hit;
}

/** The scanner that reads an answer's long lines (hitOfSkeleton). */
let answerScanner: Scanner | undefined;

/**
 * hitOfLine's answer for a long line, read the fast path's way: its strings found and checked
 * by scan.wat, its skeleton parsed, each term looked for in the raw bytes of the texts it may be
 * in, and only the part the hit is in decoded (the answer's 50 lines are 5 MB on claude-scale,
 * and the part holding the word is half of that). UNSURE where the fast path would be unsure:
 * the caller then decodes the whole line.
 */
function hitOfSkeleton(sc: Scanner, buf: Buffer, p: PendingHit, q: Compiled, o: FileOpts): SearchHit | null | typeof UNSURE {
  sc.use(buf.length); // buf: the first bytes of sc.data()
  const scan = sc.scanLine(0);
  if (scan.end !== buf.length) return UNSURE;
  const r = readSkeleton(buf, 0, buf.length, scan, q, o, 'utf8');
  if (r === null || r === UNSURE) return r;
  // matchParts, on the raw bytes: the first part holding the most terms. The anchor's
  // occurrences found by the scanner (the line is in its memory), not in a string of the line.
  if (q.anchorScanned) sc.setNeedle(q.anchor.bytes, q.anchor.exact);
  const holds = leafFinder(buf, 0, r, q, q.anchorScanned ? { sc, end: buf.length, at: -1 } : undefined);
  const found = new Set<number>();
  let best: { part: Part; count: number } | null = null;
  for (const part of r.parts) {
    if (best?.count === q.terms.length) break; // no later part can hold more
    let count = 0;
    for (let i = 0; i < q.terms.length; i++) {
      for (const leaf of part.leaves) {
        const h = holds(leaf, i);
        if (h === UNSURE) return UNSURE;
        if (h) {
          found.add(i);
          count++;
          break;
        }
      }
    }
    if (count && (!best || count > best.count)) best = { part, count };
  }
  if (!best || found.size !== q.terms.length) return null;
  const whole = (): TextPart => ({
    where: best.part.where,
    text: best.part.leaves
      .map((leaf) => {
        const cut = cutOf(leaf, r.sk.cuts);
        return cut ? cutText(buf, cut) : leaf;
      })
      .join('\n'),
  });
  const hit = windowSnippet(buf, best.part, r, q, o.snippetChars, sc) ?? snippetOf(whole(), q.terms, o.snippetChars);
  return { sessionId: p.sessionId, project: p.project, title: '', seq: p.seq, kind: r.ev.kind as string, where: hit.where, t: r.t, snippet: hit.snippet, ranges: hit.ranges, file: p.file };
}

interface FileResult {
  hits: Found[];
  searched: boolean;
  problems: SearchProblem[];
}

/** One file searched; a file that cannot be read is a problem, never an exception. */
async function searchOne(file: string, q: Compiled, fo: FileOpts, sc: Scanner): Promise<FileResult> {
  const problems: SearchProblem[] = [];
  try {
    const r = await searchFile(file, q, fo, sc, problems);
    return { hits: r.hits, searched: r.searched, problems };
  } catch (e) {
    fo.signal?.throwIfAborted();
    problems.push({ file, message: `cannot read: ${(e as Error).message}` });
    return { hits: [], searched: false, problems };
  }
}

// ---- The helper thread ------------------------------------------------------------------------
//
// Search reads and scans every byte of the store on one thread (bench/PERFORMANCE.md: search);
// the machine's second core takes half of the files (helper.ts: this module run in a worker,
// taking files from the counter this thread takes them from). It only searches files;
// ranking, the top hits built in full, progress and problems stay here. It costs ~40-60 ms to
// start (an isolate, then this module and zod behind events.ts), so it starts only for a large
// store, and never where this code is not search.js (a bundle that inlines it).

/** Bytes of session files below which the helper does not pay for its start. */
const HELPER_MIN_BYTES = 64 << 20;

async function startSearchHelper(
  files: string[],
  query: string,
  fo: FileOpts,
  settle: (i: number, r: FileResult) => void,
): Promise<Helper | undefined> {
  if (files.length < 2) return undefined;
  const { signal: _signal, ...plain } = fo;
  return startHelper<FileResult>(import.meta.url, 'search.js', 'searchHelper', { files, query, fo: plain }, settle);
}

/** A file's size (0 when it cannot be stat'ed: searchOne reports it). */
function sizeOf(file: string): number {
  try {
    return Number(lstatSync(file).size);
  } catch {
    return 0;
  }
}

/** The helper thread's work (see startSearchHelper): files from the shared counter until none is left. */
export async function searchHelper(): Promise<void> {
  const { files, query, fo } = await helperData<{ files: string[]; query: string; fo: FileOpts }>();
  const q = compile(parseQuery(query), fo.fast)!;
  const sc = scannerFor(q);
  await serveHelper(files.length, (i) => searchOne(files[i]!, q, fo, sc));
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
  /**
   * The fast path's view of the terms, when every term is printable ASCII (else null; null too
   * when SearchOptions.fast is false).
   */
  fast: FastTerm[] | null;
  /** The scanner finds the anchor (ASCII, not too long); else Buffer.indexOf or a regex. */
  anchorScanned: boolean;
  /** Some term matches case-insensitively (case traps matter). */
  caseless: boolean;
}

/** A term as the fast path searches it in a line's latin1 view. */
interface FastTerm {
  /** Finds the term's raw occurrences (global; case-insensitive for words). */
  raw: RegExp;
  length: number;
  /** Holds a '/', which a `\/` escape can make (see occursInCut). */
  slash: boolean;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function compile(pq: ParsedQuery, fastPath: boolean): Compiled | null {
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
  // The fast path takes printable ASCII terms without `"` or `\`: escapes in the texts would
  // make most of their occurrences unsure (the slow path then pays for both).
  const fast = fastPath && terms.every((t) => /^[\x20-\x7e]+$/.test(t.text) && !/["\\]/.test(t.text))
    ? terms.map((t) => ({ raw: new RegExp(escapeRe(t.text), t.exact ? 'g' : 'gi'), length: t.text.length, slash: t.text.includes('/') }))
    : null;
  const anchorTerm = terms.findIndex((t) => t.text === best!.piece && t.exact === best!.exact);
  const anchorScanned = ascii && anchor.bytes.length <= NEEDLE_MAX;
  return { terms, anchor, anchorTerm, others, fast, anchorScanned, caseless: terms.some((t) => !t.exact) };
}

interface FileOpts {
  project?: string;
  since: number;
  until: number;
  snippetChars: number;
  signal?: AbortSignal;
  /** SearchOptions.fast. */
  fast: boolean;
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
 * The file in chunks of whole lines, read into the scanner's data area (so each chunk is where
 * the scans look: see scan.ts). Performance: streaming keeps memory at a few MB a file where
 * reading each file whole peaked at 651 MB with the 134 MB session (bench/PERFORMANCE.md).
 * Reads are synchronous: on claude-scale the promise API's open, stat, read and close were a
 * quarter of the search, and a chunk is a few milliseconds (searchFile lets the event loop run
 * between chunks). Nothing keeps a reference into a chunk once it is searched (hits hold
 * strings): the line a read cuts is moved to the front for the next read.
 */
function* lineChunks(fd: number, size: number, sc: Scanner, signal?: AbortSignal, start = 0): Generator<Chunk> {
  let buf = sc.data(CHUNK_BYTES);
  let held = 0; // buf[0, held): the start of a line the last read cut
  let pos = start;
  let base = start;
  while (pos < size) {
    signal?.throwIfAborted();
    if (held === buf.length) buf = sc.data(buf.length * 2); // a line longer than the area
    const bytesRead = readSync(fd, buf, held, Math.min(buf.length - held, size - pos), pos);
    if (bytesRead === 0) break;
    pos += bytesRead;
    const filled = held + bytesRead;
    const cut = pos >= size ? filled : buf.lastIndexOf(NL, filled - 1) + 1;
    held = filled;
    if (cut === 0) continue;
    sc.use(cut);
    yield { buf: buf.subarray(0, cut), base };
    base += cut;
    held = filled - cut;
    buf.copy(buf, 0, cut, filled);
  }
  if (held) {
    sc.use(held);
    yield { buf: buf.subarray(0, held), base };
  }
}

/** One turn of the event loop: other requests, timers and an abort get their say. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const TITLE_HEAD = Buffer.from('{"kind":"title"');
const USER_HEAD = Buffer.from('{"kind":"user"');

/** A search's scanner, holding its anchor. */
function scannerFor(q: Compiled): Scanner {
  const sc = new Scanner();
  if (q.anchorScanned) sc.setNeedle(q.anchor.bytes, q.anchor.exact);
  return sc;
}

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

  /** A chunk's lines (see Scanner.lineStarts). */
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
  sc: Scanner,
  problems: SearchProblem[],
): Promise<{ hits: Found[]; searched: boolean }> {
  const { fd, st } = openRegularSync(file); // a symlink or FIFO under a session's name: a problem, never read
  try {
    const size = Number(st.size);
    const hits: Found[] = [];
    let meta: { id: string; project: string; title: unknown } | null = null;
    let titles: TitleTracker | undefined;
    let lineNo = 1; // the line number of the current chunk's first line
    for (const chunk of lineChunks(fd, size, sc, o.signal)) {
      let from = 0;
      if (!meta) {
        meta = parseMeta(chunk.buf);
        if (!meta) {
          problems.push({ file, line: 1, message: 'no readable meta line: file skipped' });
          return { hits: [], searched: false };
        }
        if (o.project !== undefined && meta.project !== o.project) return { hits: [], searched: false };
        titles = new TitleTracker(meta.title);
        from = chunk.buf.indexOf(NL) + 1;
        lineNo = 2;
      }
      const starts = sc.lineStarts(from);
      titles!.see(chunk.buf, starts);
      lineNo = searchChunk(sc, starts, chunk, from, lineNo, chunk.base + chunk.buf.length === size, meta, file, q, o, hits, problems);
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
 * The hit of one event line (decoded), or null when it does not match, or NOT_JSON. The slow
 * path: every line the fast path is unsure of, and every hit of the answer, goes through here.
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

/** The fast path is unsure of a line: the slow path decides. */
const UNSURE = Symbol('unsure');

/**
 * The fast path's decision for one candidate line, buf[start, scan.end) (see
 * search-skeleton.ts): the event's time when it matches, null when it does not, UNSURE when the
 * slow path must decide (a line that may not be JSON, a \u escape or a case trap where a term is
 * looked for, a string tool input that may hold JSON, ...). Exactly what hitOfLine decides,
 * without decoding the line: the skeleton gives the event's shape (readSkeleton), and each term
 * is looked for in the leaves of its parts (leafFinder).
 */
function fastLine(
  buf: Buffer,
  start: number,
  scan: LineScan,
  anchorAt: number,
  sc: Scanner,
  q: Compiled,
  o: FileOpts,
): string | null | typeof UNSURE {
  const r = readSkeleton(buf, start, scan.end, scan, q, o, 'latin1');
  if (r === null || r === UNSURE) return r;
  const holds = leafFinder(buf, start, r, q, { sc, end: scan.end, at: anchorAt });
  // Every term in some leaf (a term holds no '\n', so none spans two joined leaves).
  for (let i = 0; i < q.terms.length; i++) {
    let found = false;
    for (const p of r.parts) {
      for (const leaf of p.leaves) {
        const h = holds(leaf, i);
        if (h === UNSURE) return UNSURE;
        if ((found = h)) break;
      }
      if (found) break;
    }
    if (!found) return null;
  }
  return r.t;
}

/** An event as its line's skeleton shows it (readSkeleton). */
interface SkeletonEvent {
  ev: Record<string, unknown>;
  sk: Skeleton;
  t: string;
  parts: Part[];
  /** The line as latin1 (made once, when a term's raw occurrences are looked for). */
  line: () => string;
}

/**
 * The fast path's reading of the line buf[start, end): the other terms' pre-check as hitOfLine
 * makes it (a line failing it is no problem, even when it is not JSON; ASCII needles match a
 * latin1 view as they match the decoded text), then the skeleton parsed for the event's kind,
 * time and parts. null: hitOfLine would say no; UNSURE: the slow path must decide (a case trap,
 * a line scanLine refused, a cut or non-ASCII time, a tool input that may be JSON). `encoding`
 * is the skeleton's (utf8 gives kept strings their text).
 */
function readSkeleton(
  buf: Buffer,
  start: number,
  end: number,
  scan: LineScan,
  q: Compiled,
  o: FileOpts,
  encoding: 'latin1' | 'utf8',
): SkeletonEvent | null | typeof UNSURE {
  let text: string | null = null;
  const line = (): string => (text ??= buf.toString('latin1', start, end));
  // The characters whose case makes an ASCII term match where the bytes do not: U+0130 (İ
  // lowercases to "i̇"), U+212A (Kelvin sign: lowercases to 'k', and /k/iu matches it), U+017F
  // (long s: /s/iu matches it). A line holding one takes the slow path.
  if (q.caseless && scan.caseTrap) return UNSURE;
  for (const t of q.others) if (!t.re.test(line())) return null;
  if (!scan.cuts) return UNSURE;
  const head = skeletonHead(buf, start, end, scan.cuts, encoding);
  if (head === null || head === UNSURE) return head;
  if (o.since !== -Infinity || o.until !== Infinity) {
    const time = Date.parse(head.t);
    if (Number.isNaN(time) || time < o.since || time > o.until) return null;
  }
  const parts = skeletonParts(buf, start, head);
  return parts === UNSURE ? UNSURE : { ...head, parts, line };
}

/**
 * A line's skeleton parsed, for the query-free part of readSkeleton and for indexing: the event
 * and its time. null: JSON, but no event; UNSURE: the skeleton cannot tell (not JSON as cut, a
 * cut or non-ASCII time: the decoded text decides, for Date.parse and ranking).
 */
function skeletonHead(buf: Buffer, start: number, end: number, cuts: readonly CutString[], encoding: 'latin1' | 'utf8'): { ev: Record<string, unknown>; sk: Skeleton; t: string } | null | typeof UNSURE {
  const sk = skeletonOf(buf, start, end, cuts, encoding);
  let ev: Record<string, unknown>;
  try {
    ev = JSON.parse(sk.json) as Record<string, unknown>;
  } catch {
    return UNSURE;
  }
  if (!ev || typeof ev !== 'object' || typeof ev.kind !== 'string') return null;
  let t = '';
  if (typeof ev.t === 'string') {
    if (cutOf(ev.t, sk.cuts) || /[^\x00-\x7f]/.test(ev.t)) return UNSURE;
    t = ev.t;
  }
  return { ev, sk, t };
}

/** The searchable parts of a skeleton's event (partLeavesOf); UNSURE where a tool input may be JSON. */
function skeletonParts(buf: Buffer, start: number, head: { ev: Record<string, unknown>; sk: Skeleton }): Part[] | typeof UNSURE {
  try {
    return partLeavesOf(head.ev, cutInputParser(buf, start, head.sk.cuts));
  } catch (e) {
    if (e === UNSURE) return UNSURE;
    throw e;
  }
}

/**
 * Whether term i (of a fast query) is in a leaf of a skeleton's part: by the term's own regex in
 * a kept leaf, by its raw occurrences in a cut one (the anchor's found by the scanner, whose
 * needle it is, when `anchor` is given); UNSURE where an escape could hide or fake one.
 */
function leafFinder(
  buf: Buffer,
  start: number,
  r: SkeletonEvent,
  q: Compiled,
  anchor?: { sc: Scanner; end: number; at: number },
): (leaf: string, i: number) => boolean | typeof UNSURE {
  const occurrences: (Occurrences | undefined)[] = [];
  return (leaf, i) => {
    const cut = cutOf(leaf, r.sk.cuts);
    if (!cut) {
      const re = q.terms[i]!.re;
      re.lastIndex = 0;
      return re.test(leaf);
    }
    const ft = q.fast![i]!;
    if (cut.unicodeEscape || (cut.slashEscape && ft.slash)) return UNSURE;
    const at = (occurrences[i] ??=
      anchor && i === q.anchorTerm && q.anchorScanned
        ? new Occurrences((s) => {
            const p = anchor.sc.find(start + s, anchor.end);
            return p < 0 ? -1 : p - start;
          }, anchor.at >= 0 ? anchor.at - start : undefined)
        : new Occurrences((s) => {
            ft.raw.lastIndex = s;
            return ft.raw.exec(r.line())?.index ?? -1;
          }));
    return occursInCut(buf, start, cut, at, ft.length);
  };
}

/**
 * The InputParser for a skeleton's event (line at buf[start]): a kept string tool input parsed
 * as JSON, a cut one left a string. Throws UNSURE where the skeleton cannot tell: a kept input
 * that is a JSON object (its leaves would be the inner JSON's strings, which cutOf cannot tell
 * from a skeleton's; rare: OpenAI's arguments), or a cut one that may be one.
 */
function cutInputParser(buf: Buffer, start: number, cuts: Skeleton['cuts']): InputParser {
  return (s) => {
    const cut = cutOf(s, cuts);
    if (!cut) {
      const v = parseInput(s);
      if (v && typeof v === 'object') throw UNSURE;
      return v;
    }
    // A cut string is JSON text with an object inside only if it starts, after JSON
    // whitespace, with '{' or '[' (or a \u escape that might be one).
    let i = start + cut.start;
    for (; i < start + cut.end; i++) {
      const c = buf[i]!;
      if (c === 32) continue;
      if (c === 92) {
        const e = buf[i + 1];
        if (e === 110 || e === 116 || e === 114) {
          i++;
          continue;
        }
        if (e === 117) throw UNSURE;
      }
      if (c === 123 || c === 91) throw UNSURE;
      break;
    }
    return undefined;
  };
}

/**
 * Searches one chunk of whole lines from `from` (the chunk is in `sc`, and `starts` are its line
 * starts from `from` on); `firstLine` is the line number of the line starting at `from`. Returns
 * the line number of the line after the chunk.
 */
function searchChunk(
  sc: Scanner,
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
  const handleLine = (i: number, at = -1): number => {
    const start = starts[i]!;
    const ln = firstLine + i;
    const seq = ln - 2;
    let end: number;
    if (q.fast) {
      const scan = sc.scanLine(start);
      end = scan.end;
      const r = fastLine(buf, start, scan, at, sc, q, o);
      if (r === null) return end;
      if (r !== UNSURE) {
        hits.push({ sessionId: meta.id, project: meta.project, title: '', seq, t: r, file, offset: chunk.base + start, length: end - start });
        return end;
      }
    } else end = endOfLine(buf, starts, i);
    const hit = hitOfLine(buf.toString('utf8', start, end), seq, id, file, q, o);
    if (hit === NOT_JSON) {
      problems.push({ file, line: ln, message: atEof && end === buf.length ? 'torn last line: skipped' : 'not JSON: skipped' });
    } else if (hit) hits.push(hit);
    return end;
  };

  if (!q.anchorScanned && !q.anchor.exact) {
    // Case-insensitive non-ASCII anchor: decode the chunk (whole lines, so no character is
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
    const find = (at: number): number => (q.anchorScanned ? sc.find(at) : buf.indexOf(q.anchor.bytes, at));
    let pos = from;
    while (pos < buf.length) {
      const at = find(pos);
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
// blocks). The fast path looks at the leaves themselves (a skeleton's string may stand for a cut
// string), which is why `parseInput` is a parameter: JSON.parse for decoded strings.

interface Part {
  where: SearchWhere;
  leaves: string[];
}

/** Parses a string tool input that may be JSON; undefined when it is not. */
type InputParser = (s: string) => unknown;

const parseInput: InputParser = (s) => {
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

function inputLeaves(input: unknown, parse: InputParser): string[] {
  if (typeof input === 'string') {
    const parsed = parse(input);
    if (parsed && typeof parsed === 'object') return inputLeaves(parsed, parse);
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

function blocksInto(content: unknown, textWhere: SearchWhere, parts: Part[], parse: InputParser, depth = 0): void {
  if (depth > 10) return;
  if (typeof content === 'string') {
    parts.push({ where: textWhere, leaves: [content] });
    return;
  }
  if (Array.isArray(content)) {
    for (const b of content) blocksInto(b, textWhere, parts, parse, depth + 1);
    return;
  }
  if (!content || typeof content !== 'object') return;
  const o = content as Record<string, unknown>;
  if ('role' in o) return messageInto(o, textWhere, parts, parse, depth + 1);
  switch (o.type) {
    case 'tool_use':
    case 'server_tool_use':
      parts.push({ where: 'tool-input', leaves: inputLeaves(o.input, parse) });
      return;
    case 'function_call':
      parts.push({ where: 'tool-input', leaves: inputLeaves(o.arguments, parse) });
      return;
    case 'tool_result':
    case 'web_search_tool_result':
      parts.push({ where: 'tool-output', leaves: outputLeaves(o.content) });
      return;
    case 'function_call_output':
      parts.push({ where: 'tool-output', leaves: outputLeaves(o.output) });
      return;
    case 'thinking':
      if (typeof o.thinking === 'string') parts.push({ where: textWhere, leaves: [o.thinking] });
      return;
  }
  if (typeof o.text === 'string') parts.push({ where: textWhere, leaves: [o.text] });
}

function messageInto(m: Record<string, unknown>, textWhere: SearchWhere, parts: Part[], parse: InputParser, depth: number): void {
  if (m.role === 'tool') {
    parts.push({ where: 'tool-output', leaves: outputLeaves(m.content) });
    return;
  }
  blocksInto(m.content, textWhere, parts, parse, depth);
  if (Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls) {
      const cc = (c ?? {}) as Record<string, unknown>;
      const fn = (cc.function ?? {}) as Record<string, unknown>;
      parts.push({ where: 'tool-input', leaves: inputLeaves(fn.arguments ?? cc.arguments, parse) });
    }
  }
}

/** The event's parts, as leaves (unfiltered: a part may be empty). */
function partLeavesOf(ev: Record<string, unknown>, parse: InputParser): Part[] {
  const parts: Part[] = [];
  switch (ev.kind) {
    case 'user':
      blocksInto(ev.content, 'user', parts, parse);
      break;
    case 'assistant':
      blocksInto(ev.content, 'assistant', parts, parse);
      break;
    case 'agent':
      if (Array.isArray(ev.messages)) for (const m of ev.messages) blocksInto(m, 'agent', parts, parse);
      break;
    case 'compact':
      if (typeof ev.briefing === 'string') parts.push({ where: 'compact', leaves: [ev.briefing] });
      break;
    case 'title':
      if (typeof ev.title === 'string') parts.push({ where: 'title', leaves: [ev.title] });
      break;
  }
  return parts;
}

interface TextPart {
  where: SearchWhere;
  text: string;
}

/** The event's searchable texts (a part's leaves joined with '\n'), empty ones left out. */
function partsOf(ev: Record<string, unknown>): TextPart[] {
  return partLeavesOf(ev, parseInput)
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
function snippetCut(text: string, a: number, b: number, width: number, fromStart = true, toEnd = true): { start: number; end: number; pre: string; snippet: string } | null {
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

/**
 * snippetOf's answer for a part that is one cut string and a query of one word (the scanner's
 * anchor), from the decoded text around the word's first occurrence only: a hit in a long agent
 * turn no longer decodes the whole turn. The snippet starts width/3 characters before the first
 * match and spans `width`; the window holds more than that on both sides (at most three bytes a
 * UTF-16 unit here), and the matches in it are the text's from the first on. Null where that
 * does not hold (several terms or leaves, bytes that are not UTF-8, a window too short): the
 * caller decodes the whole part.
 */
function windowSnippet(buf: Buffer, part: Part, r: SkeletonEvent, q: Compiled, width: number, sc: Scanner): { where: SearchWhere; snippet: string; ranges: [number, number][] } | null {
  if (q.terms.length !== 1 || part.leaves.length !== 1 || !q.anchorScanned || q.anchorTerm !== 0) return null;
  const cut = cutOf(part.leaves[0]!, r.sk.cuts);
  if (!cut || cut.unicodeEscape) return null;
  const ft = q.fast![0]!;
  if (cut.slashEscape && ft.slash) return null;
  const at = firstInCut(buf, 0, cut, new Occurrences((s) => sc.find(s, cut.end)), ft.length);
  if (at < 0) return null;
  const lead = Math.floor(width / 3);
  const w = cutWindow(buf, cut, at, 3 * (lead + 8), 3 * (width + ft.length + 8));
  if (!w) return null;
  const { text, first } = w;
  const re = q.terms[0]!.re;
  re.lastIndex = 0;
  const m0 = re.exec(text);
  if (!m0 || m0.index !== first) return null; // the window's first match is the word's first
  // snippetOf's cut of the whole text, made on the window (the same places).
  const c = snippetCut(text, first, first + m0[0].length, width, w.fromStart, w.toEnd);
  if (!c) return null;
  const ranges: [number, number][] = [];
  re.lastIndex = first;
  for (let m = re.exec(text); m && m.index + m[0].length <= c.end; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    if (m.index >= c.start) ranges.push([m.index - c.start + c.pre.length, m.index + m[0].length - c.start + c.pre.length]);
  }
  return { where: part.where, snippet: c.snippet, ranges };
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

/** The query's words, lowercase, when the index can answer it; else null. */
function indexWords(query: string, opts: SearchOptions): string[] | null {
  if (opts.index === false || opts.fast === false) return null;
  const pq = parseQuery(query);
  if (pq.phrases.length || !pq.words.length || !pq.words.every((w) => INDEXABLE_WORD.test(w))) return null;
  return [...new Set(pq.words.map((w) => w.toLowerCase()))];
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

/** A file to (re)index from its entry's end: read by either thread. */
interface Item {
  folder: number;
  file: string;
  size: number;
  /** The entry as it was before: where to go on from (plain data: the helper gets a copy). */
  from: IndexedFile;
}

/** Bytes to index below which the helper does not pay for its start. */
const INDEX_HELPER_MIN_BYTES = 64 << 20;

/**
 * The indexed search. A folder whose index turns out not to check out where the search uses it
 * (CorruptIndexError) is searched again from the start with that index distrusted: answered as
 * if it had none, and rebuilt.
 */
async function searchIndexed(files: string[], q: Compiled, words: string[], fo: FileOpts, limit: number, opts: SearchOptions, collect?: Ranked[]): Promise<SearchResult> {
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
  const hasAnchor = (b: Buffer): boolean => b.toString('latin1').toLowerCase().includes(anchor);
  let sc: Scanner | undefined; // made when a file is read

  // A folder's answer, from its index (called in 1 for a folder with nothing to read or
  // write, else in 2 once its files are in).
  const answerFolder = (folder: Folder): void => {
    const ix = folder.ix!;
    let fiOf: Map<IndexedFile, number> | undefined; // made when a compaction renumbered the files
    const ok = new Uint8Array(ix.files.length);
    const titles = new Map<number, string>();
    for (const f of folder.files) {
      const { entry: e, file, size } = f;
      const fi = ix.files[f.fi] === e ? f.fi : (fiOf ??= new Map(ix.files.map((x, i) => [x, i]))).get(e)!;
      if (!e.meta) {
        problems.push({ file, line: 1, message: 'no readable meta line: file skipped' });
        progress();
        continue;
      }
      if (fo.project !== undefined && e.meta.project !== fo.project) {
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
      if (tail && tail.length) {
        ix.details();
        const tracker = TitleTracker.from(e.title);
        tracker.see(tail, Int32Array.of(0));
        titles.set(fi, tracker.get());
        if (hasAnchor(tail)) {
          const hit = hitOfLine(tail.toString('utf8'), e.lines - 1, id, file, q, fo);
          if (hit === NOT_JSON) problems.push({ file, line: e.lines + 1, message: 'torn last line: skipped' });
          else if (hit) {
            hit.title = tracker.get();
            total++;
            found.offer({ time: Date.parse(hit.t), sessionId: hit.sessionId, seq: hit.seq, hit });
          }
        }
      }
      progress();
    }
    // A file's title and path, made for the matches that are offered only (most are not).
    const titleOf = (fi: number): string => titles.get(fi) ?? ix.files[fi]!.shown;
    const pathOf = (fi: number): string => folder.dir + sep + ix.files[fi]!.name;
    const matched = ix.matching(words);
    for (let k = 0; k < matched.length; k++) {
      const ev = matched[k]!;
      const fi = ix.file[ev]!;
      if (!ok[fi]) continue;
      const time = ix.time[ev]!;
      if (fo.since !== -Infinity || fo.until !== Infinity) {
        if (Number.isNaN(time) || time < fo.since || time > fo.until) continue;
      }
      const meta = ix.files[fi]!.meta!;
      const seq = ix.seq[ev]!;
      if (ix.flags[ev]! & UNSURE_EVENT) {
        // The word may be there only through an escape or a folding trap: decided as the scan decides.
        const file = pathOf(fi);
        const line = readAt(file, ix.offset[ev]!, ix.length[ev]!);
        if (!line || !hasAnchor(line)) continue;
        const hit = hitOfLine(line.toString('utf8'), seq, { sessionId: meta.id, project: meta.project }, file, q, fo);
        if (!hit || hit === NOT_JSON) continue;
        hit.title = titleOf(fi);
        total++;
        found.offer({ time, sessionId: meta.id, seq, hit });
        continue;
      }
      total++;
      if (time < found.floor) continue; // most: older than every hit kept
      if (found.wants(time, meta.id, seq)) {
        const hit = { sessionId: meta.id, project: meta.project, title: titleOf(fi), seq, t: '', file: pathOf(fi), offset: ix.offset[ev]!, length: ix.length[ev]! };
        found.offer({ time, sessionId: meta.id, seq, hit });
      }
    }
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
  const entries: IndexedFile[] = []; // items[i]'s entry in its folder's index (this thread's)
  try {
    for (const [dir, list] of [...byDir].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      opts.signal?.throwIfAborted();
      const path = searchIndexPath(dir);
      const ix = (!distrusted.has(path) && FolderIndex.open(path)) || new FolderIndex();
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
          e = { name, ino: '', size: -1, mtimeNs: '', covered: 0, lines: 0, tail: '', meta: null, title: { title: null, firstUser: null, meta: null }, shown: '', bad: [] };
          ix.files.push(e);
        }
        work.push({ item: { folder: at, file, size: id.size, from: { ...e, bad: [] } }, entry: e });
        Object.assign(e, id);
        folder.changed = true;
        folder.files.push({ entry: e, file, size: id.size, fi: fi !== undefined && ix.files[fi] === e ? fi : ix.files.length - 1 });
      }
      // Files gone since they were indexed.
      for (const fi of live.values()) {
        ix.files[fi]!.dead = true;
        folder.changed = true;
      }
      work.sort((a, b) => b.item.size - b.item.from.covered - (a.item.size - a.item.from.covered));
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

  // 2. What must be read, read by this thread and, when it is a lot, a helper thread taking
  // items from the same counter (its fragments are merged here). A folder is answered and let
  // go as soon as its items are in, so that about one folder is held at a time.
  const fragments = new Map<number, Fragment>();
  const helperIds = new Map<number, number[]>(); // per folder: the helper's word ids to the folder's
  const settled = new Uint8Array(items.length);
  const toIndex = items.reduce((n, it) => n + it.size - it.from.covered, 0);
  const helper =
    opts.helper === false || (opts.helper === undefined && toIndex < INDEX_HELPER_MIN_BYTES) || items.length < 2
      ? undefined
      : await startHelper<Fragment>(import.meta.url, 'search.js', 'indexHelper', { items }, (i, r) => fragments.set(i, r));
  const next = helper?.next ?? new Int32Array(1);
  let answered = 0;
  const answerReady = async (): Promise<void> => {
    for (; answered < folders.length; answered++) {
      const folder = folders[answered]!;
      if (!folder.ix) continue; // answered in 1
      for (let i = folder.first; i < folder.end; i++) if (!settled[i] && !fragments.has(i)) return;
      const ix = folder.ix!;
      for (let i = folder.first; i < folder.end; i++) {
        const frag = fragments.get(i);
        if (!settled[i] && frag) {
          const e = entries[i]!;
          const fi = ix.files.indexOf(e);
          let ids = helperIds.get(answered);
          if (!ids) helperIds.set(answered, (ids = []));
          ix.merge(fi, frag, ids);
          settled[i] = 1;
          if (opts.stats) opts.stats.helperFiles++;
        }
        fragments.delete(i);
      }
      if (folder.changed) {
        ix.compact();
        await writeIndex(searchIndexPath(folder.dir), ix);
      }
      answerFolder(folder);
      ix.close();
      folder.ix = null; // let it go
      helperIds.delete(answered);
    }
  };

  /** Item i read on this thread; a file that cannot be read is a problem, as in the scan. */
  const readItem = async (i: number): Promise<void> => {
    const it = items[i]!;
    const folder = folders[it.folder]!;
    const ix = folder.ix!;
    const e = entries[i]!;
    try {
      ix.edit();
      await indexFile(ix, ix.files.indexOf(e), it.file, it.size, (sc ??= new Scanner()), opts.signal);
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
    // 'only' leaves every item to the helper (tests of the helper).
    for (let i = helper && opts.helper === 'only' ? items.length : Atomics.add(next, 0, 1); i < items.length; i = Atomics.add(next, 0, 1)) {
      opts.signal?.throwIfAborted();
      await readItem(i);
      await answerReady();
    }
    if (helper) {
      await helper.finished(() => items.every((_, i) => settled[i] || fragments.has(i)), opts.signal);
      // A helper that died leaves the items it had taken: read here.
      for (let i = 0; i < items.length; i++) if (!settled[i] && !fragments.has(i)) await readItem(i);
    }
    await answerReady();
  } finally {
    helper?.stop();
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
      if (!distrusted.has(path) && !problems.some((x) => x.file === h.file)) throw new CorruptIndexError(path, `names line ${h.seq + 2} of ${h.file}, which does not match`);
      total--;
    }
  }
  opts.signal?.throwIfAborted();
  return { hits: top, total, files: searched, problems };
}

/**
 * The helper thread's work for an indexed search (see searchIndexed): each item it takes read
 * into an index of the item's folder kept here (so its words are learnt once a folder), and
 * posted back as a fragment that the caller merges (FolderIndex.fragment).
 */
export async function indexHelper(): Promise<void> {
  const { items } = await helperData<{ items: Item[] }>();
  const sc = new Scanner();
  let kept: { folder: number; ix: FolderIndex } | null = null;
  await serveHelper(items.length, async (i) => {
    const it = items[i]!;
    if (kept?.folder !== it.folder) kept = { folder: it.folder, ix: new FolderIndex() };
    const ix = kept.ix;
    const from = ix.startLog();
    const fi = ix.files.push({ ...it.from, size: it.size, bad: [] }) - 1;
    await indexFile(ix, fi, it.file, it.size, sc);
    return ix.fragment(fi, from);
  });
}

/** Whether an index entry is of the file as stat'ed now: inode, size and mtime (nanoseconds). */
function sameFile(e: IndexedFile, id: { size: number; ino: string; mtimeNs: string }): boolean {
  return e.size === id.size && e.ino === id.ino && e.mtimeNs === id.mtimeNs;
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
async function indexFile(ix: FolderIndex, fi: number, file: string, size: number, sc: Scanner, signal?: AbortSignal): Promise<void> {
  const e = ix.files[fi]!;
  ix.edit();
  const { fd } = openRegularSync(file);
  try {
    let titles = TitleTracker.from(e.title);
    for (const chunk of lineChunks(fd, size, sc, signal, e.covered)) {
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
      const starts = sc.lineStarts(from);
      // Whole lines: all but the last start (the chunk's end after a '\n', or a torn line's start).
      const whole = starts.length - 1;
      for (let i = 0; i < whole; i++) {
        const start = starts[i]!;
        const end = starts[i + 1]! - 1;
        const ln = e.lines + 1 + i;
        if (end - start >= SKIM_MIN && indexSkeleton(ix, fi, buf, start, end, chunk.base, ln, sc)) continue;
        const raw = buf.toString('utf8', start, end);
        let ev: Record<string, unknown>;
        try {
          ev = JSON.parse(raw) as Record<string, unknown>;
        } catch {
          e.bad.push(ln, chunk.base + start, end - start);
          continue;
        }
        if (!ev || typeof ev !== 'object' || typeof ev.kind !== 'string') continue;
        const parts = partLeavesOf(ev, parseInput);
        if (!parts.length) continue;
        const unsure = buf.subarray(start, end).indexOf(BACKSLASH_U) >= 0 ? UNSURE_EVENT : 0;
        ix.event(fi, ln - 2, chunk.base + start, end - start, Date.parse(typeof ev.t === 'string' ? ev.t : ''), unsure);
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

/** Lines this long or longer are indexed from their skeleton (indexSkeleton). */
const SKIM_MIN = 2048;

/**
 * Indexes a long line the way the fast path reads it: scan.wat finds and checks its strings,
 * JSON.parse reads the skeleton, and each cut text is tokenized from its raw bytes (words.wat),
 * never decoded. False, with nothing added, where the skeleton cannot tell (a line scanLine
 * refuses, a folding trap, a \u escape in a cut string, a cut time, a tool input that may be
 * JSON): the caller reads the line whole.
 */
function indexSkeleton(ix: FolderIndex, fi: number, buf: Buffer, start: number, end: number, base: number, ln: number, sc: Scanner): boolean {
  const scan = sc.scanLine(start);
  if (!scan.cuts || scan.caseTrap || scan.end !== end || scan.cuts.some((c) => c.unicodeEscape)) return false;
  const head = skeletonHead(buf, start, end, scan.cuts, 'utf8');
  if (head === null) return true; // valid JSON, no event: nothing to index
  if (head === UNSURE) return false;
  const parts = skeletonParts(buf, start, head);
  if (parts === UNSURE) return false;
  if (!parts.length) return true;
  ix.event(fi, ln - 2, base + start, end - start, Date.parse(head.t), scan.unicodeEscapes ? UNSURE_EVENT : 0);
  for (const p of parts) {
    for (const leaf of p.leaves) {
      const cut = cutOf(leaf, head.sk.cuts);
      if (cut) ix.body(buf, start + cut.start, start + cut.end);
      else ix.text(leaf);
    }
  }
  ix.endEvent();
  return true;
}

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
