// Ranked full-text search over session files: the core of `session/search`, the CLI's `search`
// and MCP's search_sessions and recall. The query language is query.ts's; the cache is
// cache.ts's SQLite FTS5 database. A session matches when it holds every term (each in any of
// its events, within the event filters) and no excluded one; sessions are ranked a session at a
// time (`rank`, as protocol.md's "Search queries" says), and only the page's sessions have their
// events looked up, to show their best (`bestRows`).
//
// No cache decides the truth: every hit shown is read back from its file at its offset and
// checked to hold a term; one that does not is dropped and its file indexed again by the next
// search (unless it holds a phrase's words apart: the events' table has no positions). Until the
// cache's first build is done a search scans the files (`scan`) with the same matching and
// ranking, so the first search is never a wall. Tolerant: an unreadable file or folder is a
// problem; only an abort or a query that does not read (QueryError) throws.
// Depends on node:fs, store/ and this folder; no JSON-RPC.

import { closeSync, readSync, rmSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join, sep } from 'node:path';
import { openRegularSync, projectFolderNames } from '../store/files.js';
import {
  DOC_SPAN,
  FILE_SPAN,
  MAX_TEXT,
  PROSE,
  SearchCache,
  arrays,
  cacheFile,
  cannotRead,
  parseEvent,
  rowOf,
  rowidRange,
} from './cache.js';
import type { FileRow, SyncOptions } from './cache.js';
import { find, ftsTerm, parseQuery, projectMatches, type Query, type Term } from './query.js';
import { ROLES, eventTexts, fold, isAscii, roleOf, tokens, type EventText, type Role, type SearchWhere } from './texts.js';

export type { SearchWhere } from './texts.js';
export { parseQuery } from './query.js';

export interface SearchOptions {
  /** Only these session files (a project's History, listing/history.ts projectSessionFiles). */
  sessions?: ReadonlySet<string>;
  /** Only events at or after / at or before this ISO time (as since:/until: in the query). */
  since?: string;
  until?: string;
  /** Only sessions imported from this tool (as tool: in the query; levelcode: our own). */
  tool?: string;
  /** Left out: the session whose id, or whose source tool's own id, this is (an agent's own session). */
  exclude?: string;
  /** Sessions a page (default 20); where the previous page ended (its `cursor`), or sessions to skip. */
  limit?: number;
  cursor?: string;
  offset?: number;
  /** Hits shown a session (default 3). */
  perSession?: number;
  signal?: AbortSignal;
  /** A first build's progress: files done, files in all. */
  onProgress?: (done: number, total: number) => void;
  /** The cache (the sidecar keeps one open); by default one is opened, built when new, and closed. null: scan. */
  cache?: SearchCache | null;
  /** With `cache`: it is known current for every file (the sidecar's watcher); none is stat'ed. */
  fresh?: boolean;
}

export interface SearchHit {
  sessionId: string;
  project: string;
  /** The session's title: its latest title event, else its first user line. */
  title: string;
  /** The event's seq (0 = the line after the meta line); `cite` is `<sessionId>#<seq>`. */
  seq: number;
  cite: string;
  kind: string;
  where: SearchWhere;
  t: string;
  /** A one-line excerpt of the matched text, about 160 characters long; `ranges`: [start, end) of the terms in it (UTF-16). */
  snippet: string;
  ranges: [number, number][];
  file: string;
}

export interface SessionMatch {
  sessionId: string;
  project: string;
  title: string;
  /** The tool the session was imported from (levelcode: our own); its newest event's time. */
  tool: string;
  t: string;
  score: number;
  file: string;
  /** Its best events, best first. */
  hits: SearchHit[];
}

export interface SearchProblem {
  file: string;
  line?: number;
  message: string;
}

export interface SearchResult {
  /** One page of the matching sessions, best first; `hits`: theirs, session by session. */
  sessions: SessionMatch[];
  hits: SearchHit[];
  /** Matching sessions in all (not only this page); session files searched. */
  total: number;
  files: number;
  /** The next page's cursor; absent on the last page. */
  cursor?: string;
  /** false: answered by scanning the files (the cache was being built). */
  ranked: boolean;
  problems: SearchProblem[];
}

/** A query that does not read (a bad filter, no word to look for): the caller's mistake. */
export class QueryError extends Error {}

const WEIGHT: Record<Role, number> = { title: 3, user: 1.5, assistant: 1, compact: 1, tool: 0.5 };
const RECENCY = 0.3;
const HALF_LIFE_DAYS = 30;

/** The `.jsonl` files of some folders; one that cannot be read is a problem (missing: none). */
async function jsonlIn(dirs: string[], problems: SearchProblem[]): Promise<string[]> {
  const list = (dir: string) => readdir(dir).then((names) => names.filter((n) => n.endsWith('.jsonl')).map((n) => dir + sep + n));
  const each = dirs.map((dir) => list(dir).catch((e: unknown) => (cannotRead(dir, e, problems, 'cannot read folder'), [] as string[])));
  return (await Promise.all(each)).flat();
}

/** The session files of a store root (`<root>/<slug>/<id>.jsonl`), sorted; unreadable folders go into `problems`. */
export async function listSessionFiles(root: string, problems: SearchProblem[] = []): Promise<string[]> {
  let names: string[] = [];
  try {
    names = projectFolderNames(root);
  } catch (e) {
    cannotRead(root, e, problems, 'cannot read the store');
  }
  return (
    await jsonlIn(
      names.map((n) => join(root, n)),
      problems,
    )
  ).sort();
}

/** Brings the cache of the store at `root` up to date (building it when new); `files`: listed already. */
export async function buildCache(cache: SearchCache, root: string, o: SyncOptions & { files?: string[] } = {}): Promise<void> {
  await cache.sync(o.files ?? (await listSessionFiles(root, o.problems)), o);
  if (!cache.built) cache.markBuilt();
}

/** Brings the cache up to date with some project folders' files (the sidecar's watcher saw them touched). */
export async function syncFolders(cache: SearchCache, dirs: string[], problems: SearchProblem[] = []): Promise<void> {
  await cache.sync(await jsonlIn(dirs, problems), { within: dirs, problems });
}

/** Searches the store at `root` (see the top of this file). */
export async function searchSessions(root: string, query: string, opts: SearchOptions = {}): Promise<SearchResult> {
  opts.signal?.throwIfAborted();
  const q = parseQuery(query);
  if (q.errors.length) throw new QueryError(q.errors.join('; '));
  if (q.terms.length === 0) throw new QueryError('the query has no word to look for (filters and -exclusions narrow a search of words)');
  if (opts.since && (!q.since || opts.since > q.since)) q.since = opts.since;
  if (opts.until && (!q.until || opts.until < q.until)) q.until = opts.until;
  // Two different tools (the option and tool: in the query): no session is of both.
  if (opts.tool !== undefined && q.tool !== undefined && opts.tool !== q.tool) q.tool = '\0';
  q.tool ??= opts.tool;
  const problems: SearchProblem[] = [];
  const own = opts.cache === undefined;
  let cache = opts.cache ?? null;
  let listed: string[] | undefined;
  try {
    if (own) cache = SearchCache.open(root);
  } catch {
    // no SQLite at all: the files are scanned (the same matches)
  }
  try {
    if (cache && !(opts.fresh && cache.built)) {
      listed = await listSessionFiles(root, problems);
      const onProgress = cache.built ? undefined : opts.onProgress;
      if (own || cache.built) await buildCache(cache, root, { files: listed, problems, onProgress, signal: opts.signal });
    }
    if (cache?.built) return page(rank(cache, q, opts), q, opts, problems, cache.files.size, cache);
  } catch (e) {
    if (e instanceof QueryError || opts.signal?.aborted) throw e;
    // A cache SQLite finds damaged on the way: not the truth, so thrown away (when ours) and the
    // files scanned for this answer; the next search builds it anew.
    if (own) {
      cache?.close();
      cache = null;
      for (const f of ['', '-wal', '-shm']) rmSync(cacheFile(root) + f, { force: true });
    }
  } finally {
    if (own) cache?.close();
  }
  listed ??= await listSessionFiles(root, problems);
  return scan(listed, q, opts, problems);
}

// ---- Ranked, from the cache -------------------------------------------------------------------

/** A matched event row of the cache: its rowid (cache.ts rowId), its weight, and its line's place. */
type Row = { id: number; s: number; off: number; len: number };
/** A matching session: its file, its score, its best rows (found when its page is made). */
type Ranked = { file: FileRow; score: number; best?: Row[] };

const eventFilters = (q: Query): boolean => q.since !== undefined || q.until !== undefined || q.role !== undefined;

/** A SELECT of the events matching an FTS5 expression (`?`) within the query's event filters, and `more`. */
function matching(q: Query, columns: string, more = ''): { sql: string; args: unknown[] } {
  const join = q.since || q.until || columns.includes('r.') ? ' JOIN rows r ON r.id = fts.rowid' : '';
  const where = ['fts MATCH ?'];
  const args: unknown[] = [];
  if (q.since) where.push('r.t >= ?'), args.push(Date.parse(q.since));
  if (q.until) where.push('r.t <= ?'), args.push(Date.parse(q.until));
  if (q.role) where.push(`fts.rowid % 8 = ${ROLES.indexOf(q.role)}`);
  if (more) where.push(more);
  return { sql: `SELECT ${columns} FROM fts${join} WHERE ${where.join(' AND ')}`, args };
}

/** A term as a query of the events' table, which has no positions: its words, all of them. */
const eventTerm = (t: Term): string =>
  t.words.map((w, i) => ftsTerm({ words: [w], prefix: t.prefix && i === t.words.length - 1, text: '' })).join(' AND ');

function allowedFile(f: FileRow | undefined, q: Query, opts: SearchOptions): f is FileRow {
  if (!f || (opts.sessions && !opts.sessions.has(f.path))) return false;
  if ((q.tool && f.tool !== q.tool) || (q.project && !projectMatches(f.project, q.project))) return false;
  return opts.exclude === undefined || (f.session !== opts.exclude && f.sid !== opts.exclude);
}

const recency = (last: number, now: number): number => 1 + RECENCY * 2 ** (-Math.max(0, now - last) / 86_400_000 / HALF_LIFE_DAYS);

/** Sessions reranked by what their events hold (an event with every term, the query as a phrase). */
const RERANK = 50;

/**
 * The sessions of `cache` holding every term (within the event filters) and no excluded one,
 * best first. Relevance: BM25 of the conversation's documents in `docs` (a column a role,
 * weighted by WEIGHT; its parts summed 1, 1/2, 1/4...), plus, for each term its tools' calls
 * and results hold, the term's IDF over sessions times the tools' weight (`tools` is matched,
 * never scored); times the recency boost. Then the first RERANK are doubled when one event holds
 * every term and again when the session holds the query's words as a phrase.
 */
function rank(cache: SearchCache, q: Query, opts: SearchOptions): Ranked[] {
  const { db } = cache;
  // Per file id, in arrays (a common word: ten thousand sessions): terms held, the tools' IDFs, the parts' scores.
  let n = 0;
  for (const id of cache.files.keys()) n = Math.max(n, id + 1);
  const [held, mark, toolMark] = [0, 0, 0].map(() => new Uint16Array(n)) as [Uint16Array, Uint16Array, Uint16Array];
  const [tool, one] = [new Float64Array(n), new Float64Array(n)];
  const more = new Map<number, number[]>();
  const ids = (sql: string, m: string, ...args: unknown[]) =>
    arrays(db, sql, m, ...args).map((r) => Math.floor((r[0] as number) / DOC_SPAN));
  const inDocs = (m: string) => (q.role === 'tool' ? [] : ids('SELECT rowid FROM docs WHERE docs MATCH ?', m));
  const inTools = (m: string) => (q.role && q.role !== 'tool' ? [] : ids('SELECT rowid FROM tools WHERE tools MATCH ?', m));
  const role = q.role && q.role !== 'tool' ? `{${q.role}} : ` : '';
  // The conversations' scores, a part at a time (for one term, also the sessions whose conversation holds it).
  const sql = `SELECT rowid, -bm25(docs, ${PROSE.map((r) => WEIGHT[r]).join(', ')}) FROM docs WHERE docs MATCH ?`;
  const scored = (q.role === 'tool' ? [] : arrays(db, sql, `${role}(${q.terms.map(ftsTerm).join(' OR ')})`)) as [number, number][];
  for (const [rowid, s] of scored) {
    const id = Math.floor(rowid / DOC_SPAN);
    if (one[id] === 0) one[id] = s;
    else more.set(id, [...(more.get(id) ?? [one[id]!]), s]);
  }
  // Each term: the sessions holding it (within the event filters), and those whose tools do.
  q.terms.forEach((t, k) => {
    const docs = q.terms.length === 1 ? scored.map((r) => Math.floor(r[0] / DOC_SPAN)) : inDocs(role + ftsTerm(t));
    const tools = inTools(ftsTerm(t));
    let inRange: Uint8Array | undefined;
    if (eventFilters(q)) {
      const m = matching(q, `DISTINCT fts.rowid / ${FILE_SPAN}`); // a row a file, not an event
      inRange = new Uint8Array(n);
      for (const r of arrays(db, m.sql, eventTerm(t), ...m.args)) inRange[r[0] as number] = 1;
    }
    let size = 0;
    for (const list of [docs, tools])
      for (const id of list) if (mark[id] !== k + 1 && (!inRange || inRange[id])) (mark[id] = k + 1), held[id]!++, size++;
    const idf = Math.log((cache.files.size - size + 0.5) / (size + 0.5) + 1) * WEIGHT.tool;
    for (const id of tools) if (toolMark[id] !== k + 1 && (!inRange || inRange[id])) (toolMark[id] = k + 1), (tool[id]! += idf);
  });
  for (const t of q.excluded) for (const id of [...inDocs(ftsTerm(t)), ...inTools(ftsTerm(t))]) held[id] = 0;
  const now = Date.now();
  const order: Ranked[] = [];
  for (let id = 0; id < n; id++) {
    const file = held[id] === q.terms.length ? cache.files.get(id) : undefined;
    if (!allowedFile(file, q, opts)) continue;
    const parts = more.get(id)?.sort((a, b) => b - a);
    const prose = parts ? parts.reduce((sum, s, i) => sum + s / 2 ** i, 0) : one[id]!;
    order.push({ file, score: (prose + tool[id]!) * recency(file.last, now) });
  }
  order.sort(byScore);
  if (q.terms.length > 1) {
    const top = order.slice(0, RERANK);
    const every = q.terms.map(eventTerm).join(' AND ');
    const phrase = ftsTerm({ words: q.terms.flatMap((t) => t.words), prefix: q.terms.at(-1)!.prefix, text: '' });
    const inPhrase = new Set([...inDocs(role + phrase), ...inTools(phrase)]);
    const event = db.prepare('SELECT 1 FROM fts WHERE fts MATCH ? AND rowid >= ? AND rowid < ? LIMIT 1');
    for (const o of top) o.score *= (event.get(every, ...rowidRange(o.file.id, FILE_SPAN)) ? 2 : 1) * (inPhrase.has(o.file.id) ? 2 : 1);
    order.splice(0, top.length, ...top.sort(byScore));
  }
  return order;
}

/** Events matched a session, at most, to choose its hits from (its newest); best rows kept of them. */
const CHOOSE = 200;
const KEEP = 6;
/** An event line this long weighs half a short one's, when its hits are chosen. */
const SHORT_LINE = 4096;

/**
 * A session's best events: those holding a term (within the event filters), weighted by role,
 * doubled when they hold every term, and the shorter the better (a short event makes a clear
 * snippet); KEEP of them (the rest stand in for hits that fail their check; twice as many for a
 * phrase, whose words an event may hold apart). Its newest CHOOSE matches are looked at.
 */
function bestRows(cache: SearchCache, f: FileRow, q: Query): Row[] {
  const m = matching(q, 'fts.rowid, r.off, r.len', 'fts.rowid >= ? AND fts.rowid < ?');
  const sql = `${m.sql} ORDER BY fts.rowid DESC LIMIT ${CHOOSE}`;
  const rows = (e: string) => arrays(cache.db, sql, e, ...m.args, ...rowidRange(f.id, FILE_SPAN)) as [number, number, number][];
  const every = new Set(q.terms.length > 1 ? rows(q.terms.map(eventTerm).join(' AND ')).map((r) => r[0]) : []);
  const best = rows(q.terms.map((t) => `(${eventTerm(t)})`).join(' OR ')).map(([id, off, len]) => {
    const s = (WEIGHT[ROLES[id % 8]!] * (every.has(id) ? 2 : 1)) / (1 + len / SHORT_LINE);
    return { id, s, off, len };
  });
  return best.sort((a, b) => b.s - a.s || b.id - a.id).slice(0, q.terms.some((t) => t.words.length > 1) ? 2 * KEEP : KEEP);
}

/** The event whose line is `len` bytes at `off`, ending in a newline; null when it is not. */
function readLineAt(path: string, at: Row, problems: SearchProblem[]): Record<string, unknown> | null {
  try {
    const { fd } = openRegularSync(path);
    try {
      const buf = Buffer.allocUnsafe(at.len + 1);
      const whole = readSync(fd, buf, 0, at.len + 1, at.off) === at.len + 1 && buf[at.len] === 10;
      return whole ? parseEvent(buf.subarray(0, at.len)) : null;
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    cannotRead(path, e, problems);
    return null;
  }
}

// ---- One page -----------------------------------------------------------------------------------

/**
 * One page of `order`, each session's hits read from its file best first, only as many as are
 * shown; a row whose line does not check out is skipped and its file marked stale in `cache`
 * (which finds the best rows; without it, as scan does, they are found already).
 */
function page(order: Ranked[], q: Query, opts: SearchOptions, problems: SearchProblem[], files: number, cache?: SearchCache): SearchResult {
  const limit = Math.max(1, opts.limit ?? 20);
  const want = Math.max(1, opts.perSession ?? 3);
  const sessions: SessionMatch[] = [];
  let total = order.length;
  let i = opts.cursor === undefined ? Math.max(0, opts.offset ?? 0) : decodeCursor(opts.cursor);
  for (; i < order.length && sessions.length < limit; i++) {
    const { file, score } = order[i]!;
    const best = (order[i]!.best ??= bestRows(cache!, file, q));
    // A title set again unchanged is one hit (its newest, which comes first): shown once.
    const seen = new Set<string>();
    const hits: SearchHit[] = [];
    const lines = new Map<number, Record<string, unknown> | null>();
    for (const r of best) {
      // Its line read back (once a line) and checked: null when it is not what was indexed.
      if (!lines.has(r.off)) lines.set(r.off, readLineAt(file.path, r, problems));
      const ev = lines.get(r.off);
      const { seq, role } = rowOf(r.id);
      const hit = ev && hitOf(ev, role, file, seq, q);
      if (hit && !seen.has(`${hit.where}\0${hit.snippet}`)) seen.add(`${hit.where}\0${hit.snippet}`), hits.push(hit);
      // Not what was indexed: looked at again. (An event holding a phrase's words apart is no news.)
      else if (!hit && !(ev && holdsWords(eventTexts(ev), q))) cache?.stale(file.id);
      if (hits.length === want) break;
    }
    // A session none of whose hits checks out (or with none: its documents and events disagree)
    // is left out, and its file indexed again.
    if (hits.length === 0) {
      if (best.length === 0) cache?.stale(file.id);
      total--;
      continue;
    }
    const [{ project, title, tool }, t] = [file, new Date(file.last).toISOString()];
    sessions.push({ sessionId: idOf(file), project, title, tool, t, score: Math.round(score * 1000) / 1000, file: file.path, hits });
  }
  const cursor = i < order.length ? { cursor: Buffer.from(`at:${i}`).toString('base64url') } : {};
  return { sessions, hits: sessions.flatMap((s) => s.hits), total, files, ...cursor, ranked: !!cache, problems };
}

/** A session's id: its file's name (the store's layout), never only what the cache says. */
const idOf = (f: FileRow): string => basename(f.path, '.jsonl');

/** A cursor: where the next page begins in the order, as `at:N` in base64url (opaque to a client). */
function decodeCursor(c: string): number {
  const at = /^at:(\d{1,15})$/.exec(Buffer.from(c, 'base64url').toString('utf8'))?.[1];
  if (at === undefined) throw new QueryError(`not a cursor a search gave: ${JSON.stringify(c)}`);
  return Number(at);
}

// ---- The hit of an event ----------------------------------------------------------------------

/** The hit of an event whose texts of `role` hold a term (the text holding the most terms); null when none does. */
function hitOf(ev: Record<string, unknown>, role: Role, f: FileRow, seq: number, q: Query): SearchHit | null {
  let best: { text: string; where: SearchWhere; found: [number, number][]; terms: number } | null = null;
  for (const { where, text: whole } of eventTexts(ev).filter((p) => roleOf(p.where) === role)) {
    const text = whole.slice(0, MAX_TEXT); // what the cache indexed of it
    const each = placesOf(text, q);
    const terms = each.filter((at) => at.length).length;
    const found = each.flat();
    if (terms && (!best || terms > best.terms || (terms === best.terms && found.length > best.found.length)))
      best = { text, where, found, terms };
  }
  if (!best) return null;
  const { snippet, ranges } = snippetOf(
    best.text,
    best.found.sort((a, b) => a[0] - b[0]),
    SNIPPET_CHARS,
  );
  const sessionId = idOf(f);
  const [kind, t] = [typeof ev.kind === 'string' ? ev.kind : '', typeof ev.t === 'string' ? ev.t : ''];
  return {
    sessionId,
    project: f.project,
    title: f.title,
    seq,
    cite: `${sessionId}#${seq}`,
    kind,
    where: best.where,
    t,
    snippet,
    ranges,
    file: f.path,
  };
}

/** Whether the texts hold every word of a term, in any order (as the events' table says of a phrase). */
function holdsWords(texts: EventText[], q: Query): boolean {
  const all = texts.map((t) => t.text).join('\n');
  const holds = (s: string) => q.terms.some((t) => t.words.every((w) => s.includes(w)));
  return holds(all.toLowerCase()) || holds(fold(all));
}

/** A snippet's length in characters, about (protocol.md). */
const SNIPPET_CHARS = 160;

/** History's order of ranked sessions: score, then the newer, then by session (the same order every run). */
const byScore = (a: Ranked, b: Ranked) => b.score - a.score || b.file.last - a.file.last || a.file.session.localeCompare(b.file.session);

/** Texts beyond ASCII longer than this are matched as written (lowercase), never folded whole for a hit. */
const FOLD_TEXT = 16 << 10;
/** Each term's words as a pattern over a lowercase text: whole words in order, anything but a word between. */
const patterns = new WeakMap<Query, RegExp[]>();
const [W, NOT_W] = ['[\\p{L}\\p{N}\\p{M}\\p{Co}]', '[^\\p{L}\\p{N}\\p{M}\\p{Co}]+'];

/**
 * Where in `text` each term is ([start, end) of each place), by a pattern over its lowercase: a
 * text is not cut into words to check one hit (a tool output of megabytes). The query's words are
 * folded, so what the pattern finds is the term. Beyond ASCII a word may be the term only folded
 * (café for cafe): when the pattern finds no term, a text up to FOLD_TEXT long whose folded form
 * holds one is cut into words (texts.ts tokens).
 */
function placesOf(text: string, q: Query): [number, number][][] {
  let res = patterns.get(q);
  if (!res) {
    const esc = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    res = q.terms.map((t) => new RegExp(`(?<!${W})${t.words.map(esc).join(NOT_W)}${t.prefix ? `${W}*` : `(?!${W})`}`, 'gu'));
    patterns.set(q, res);
  }
  // Places in the lowercase are places in the text: İ, the one letter whose lowercase is longer
  // (i and a combining dot), is taken as i.
  const lower = text.replace(/\u0130/g, 'i').toLowerCase();
  const found = res.map((re) => [...lower.matchAll(re)].map((m): [number, number] => [m.index, m.index + m[0].length]));
  if (isAscii(text) || found.some((at) => at.length) || text.length > FOLD_TEXT) return found;
  const folded = fold(text);
  if (!res.some((re) => folded.search(re) >= 0)) return found;
  const toks = tokens(text);
  return q.terms.map((t) => find(text, t, toks));
}

/**
 * A one-line snippet about `width` long around the window holding the most matches (`found`,
 * sorted), never cut inside a surrogate pair, with '…' where text is left out; the matches in it.
 */
function snippetOf(text: string, found: [number, number][], width: number): { snippet: string; ranges: [number, number][] } {
  let [bestAt, bestCount] = [0, 0];
  for (let i = 0, j = 0; i < found.length; i++) {
    while (j < found.length && found[j]![1] - found[i]![0] <= width) j++;
    if (j - i > bestCount) [bestCount, bestAt] = [j - i, i];
  }
  let start = Math.max(0, (found[bestAt]?.[0] ?? 0) - Math.floor(width / 4));
  let end = Math.min(text.length, Math.max(start + width, found[bestAt]?.[1] ?? 0));
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start]!)) start--;
  if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end]!)) end++;
  const pre = start > 0 ? '…' : '';
  const snippet = pre + text.slice(start, end).replace(/[\r\n\t\f\v]/g, ' ') + (end < text.length ? '…' : '');
  const ranges = found
    .filter(([x, y]) => x >= start && y <= end)
    .map(([x, y]): [number, number] => [x - start + pre.length, y - start + pre.length]);
  return { snippet, ranges };
}

// ---- Scanning (before the cache's first build is done) ------------------------------------------

/** Bytes of session files a scan indexes at once. */
const SCAN_BATCH = 64 << 20;

/**
 * Searches by reading the files: each batch of them indexed into an SQLite database in memory
 * and ranked as the cache is (the same matches; bm25 within the batch), the batches' sessions
 * merged by score. FTS5 indexes faster than a search in JavaScript reads.
 */
async function scan(listed: string[], q: Query, opts: SearchOptions, problems: SearchProblem[]): Promise<SearchResult> {
  const found: Ranked[] = [];
  const files = opts.sessions ? listed.filter((f) => opts.sessions!.has(f)) : listed;
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0; // sync() says why
    }
  };
  for (let i = 0; i < files.length; ) {
    const batch: string[] = [];
    for (let bytes = 0; i < files.length && bytes < SCAN_BATCH; i++) batch.push(files[i]!), (bytes += size(files[i]!));
    const mem = SearchCache.open('', ':memory:');
    try {
      await mem.sync(batch, { problems, signal: opts.signal, yieldMs: 50 });
      for (const o of rank(mem, q, opts)) found.push({ ...o, best: bestRows(mem, o.file, q) });
    } finally {
      mem.close();
    }
  }
  found.sort(byScore);
  return page(found, q, opts, problems, listed.length);
}
