// Ranked full-text search over session files: the core of `session/search`, the CLI's `search`
// and MCP's search_sessions and recall. The query language is query.ts's; the cache is
// cache.ts's SQLite FTS5 database.
//
// A session matches when it holds every term (each in any of its events, within the query's
// event filters) and none of the excluded ones. The ranking is a session's, never an event's
// (BM25 of its conversation weighted by role, the IDF of each term its tools hold, boosted for
// an event holding every term and for the whole phrase, times a recency boost; `rank` below), as
// protocol.md's "Search queries" says; its constants are WEIGHT, RECENCY and HALF_LIFE_DAYS
// below. Only the page's sessions have their events looked up, to show their best (`bestRows`).
//
// No cache decides the truth: every hit shown is read back from its file at its offset and
// checked to hold a term (only the hits shown); one that does not is dropped and its file indexed
// again by the next search (unless it holds a phrase's words apart: the events' table has no
// positions). Until the cache's first build is done a search scans the files
// (scan, below) with the same matching and ranking, so the first search is never a wall.
//
// Tolerant: an unreadable file or folder becomes a problem; only an abort or a query that does
// not read (QueryError) throws. Depends on node:fs, store/ and this folder; no JSON-RPC.

import { readdir } from 'node:fs/promises';
import { closeSync, readSync, rmSync, statSync } from 'node:fs';
import { basename, join, sep } from 'node:path';
import { restoreFromRaw } from '../format/derived.js';
import { openRegularSync } from '../store/files.js';
import { DOC_SPAN, FILE_SPAN, PROSE, SearchCache, arrays, cacheFile, rowOf, rowidRange, type FileRow, type SyncOptions } from './cache.js';
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
  /** Sessions a page (default 20). */
  limit?: number;
  /** Where the previous page ended (its `cursor`). */
  cursor?: string;
  /** Or: matching sessions to skip. */
  offset?: number;
  /** Hits shown a session (default 3). */
  perSession?: number;
  /** A snippet's length in characters, about (default 160). */
  snippetChars?: number;
  signal?: AbortSignal;
  /** A first build's progress: files done, files in all. */
  onProgress?: (done: number, total: number) => void;
  /**
   * The cache to use (the sidecar keeps one open); by default one is opened (and built, with
   * onProgress, when it was never built) and closed. null: scan, never touch a cache.
   */
  cache?: SearchCache | null;
  /** With `cache`: the files it is known to be current for (the sidecar's watcher); others are not stat'ed. */
  fresh?: boolean;
}

export interface SearchHit {
  sessionId: string;
  project: string;
  /** The session's title: its latest title event, else its first user line. */
  title: string;
  /** The event's seq (0 = the line after the meta line). */
  seq: number;
  /** `<sessionId>#<seq>`: the event, as read_session and `show` take it. */
  cite: string;
  kind: string;
  where: SearchWhere;
  t: string;
  /** A one-line excerpt of the matched text, at most about snippetChars long. */
  snippet: string;
  /** [start, end) ranges of the matched terms in `snippet`, in UTF-16 code units. */
  ranges: [number, number][];
  file: string;
}

export interface SessionMatch {
  sessionId: string;
  project: string;
  title: string;
  /** The tool the session was imported from; levelcode for our own. */
  tool: string;
  /** Its newest event's time. */
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
  /** Matching sessions, best first: one page of them. */
  sessions: SessionMatch[];
  /** The pages's hits, session by session (each session's `hits`, in order). */
  hits: SearchHit[];
  /** Matching sessions in all (not only this page). */
  total: number;
  /** Session files searched. */
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

/**
 * The `.jsonl` files of a store root (`<root>/<slug>/<id>.jsonl`). Missing root: none. A root or
 * project folder that cannot be read goes into `problems` (it is never "nothing there").
 */
export async function listSessionFiles(root: string, problems: SearchProblem[] = []): Promise<string[]> {
  let dirs;
  try {
    dirs = await readdir(root, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') problems.push({ file: root, message: `cannot read the store (${code ?? (e as Error).message})` });
    return [];
  }
  const lists = await Promise.all(
    dirs
      .filter((d) => d.isDirectory())
      .map((d) =>
        readdir(join(root, d.name)).then(
          (names) => ({ dir: join(root, d.name), names }),
          (e: NodeJS.ErrnoException) => {
            if (e.code !== 'ENOENT') problems.push({ file: join(root, d.name), message: `cannot read folder (${e.code ?? e.message})` });
            return null;
          },
        ),
      ),
  );
  const files: string[] = [];
  for (const l of lists) if (l) for (const n of l.names) if (n.endsWith('.jsonl')) files.push(l.dir + sep + n);
  return files.sort();
}

/** Brings the cache of the store at `root` up to date (building it when new); `files`: listed already. */
export async function buildCache(cache: SearchCache, root: string, o: SyncOptions & { files?: string[] } = {}): Promise<void> {
  await cache.sync(o.files ?? (await listSessionFiles(root, o.problems)), o);
  if (!cache.built) cache.markBuilt();
}

/** Brings the cache up to date with some project folders' files (the sidecar's watcher saw them touched). */
export async function syncFolders(cache: SearchCache, dirs: string[], problems: SearchProblem[] = []): Promise<void> {
  const files: string[] = [];
  for (const dir of dirs)
    try {
      for (const n of await readdir(dir)) if (n.endsWith('.jsonl')) files.push(dir + sep + n);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') problems.push({ file: dir, message: `cannot read folder (${code ?? (e as Error).message})` });
    }
  await cache.sync(files, { within: dirs, problems });
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
  if (own) {
    try {
      cache = SearchCache.open(root);
    } catch {
      cache = null; // no SQLite at all: the files are scanned (the same matches)
    }
  }
  try {
    if (cache && !(opts.fresh && cache.built)) {
      listed = await listSessionFiles(root, problems);
      if (own || cache.built)
        await buildCache(cache, root, {
          files: listed,
          problems,
          onProgress: cache.built ? undefined : opts.onProgress,
          signal: opts.signal,
        });
    }
    if (cache?.built) return ranked(cache, q, opts, problems);
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

/** A matched row of the cache: its rowid (cache.ts rowId), its weighted score, its line when known. */
interface Row {
  id: number;
  s: number;
  at?: { off: number; len: number };
}

/** A SELECT of the events matching an FTS5 expression (`?`) within the query's event filters, and `more` (`r`: their rows). */
function matching(q: Query, columns: string, more = ''): { sql: string; args: unknown[] } {
  let sql = `SELECT ${columns} FROM fts`;
  const where = ['fts MATCH ?'];
  const args: unknown[] = [];
  if (q.since || q.until || columns.includes('r.')) sql += ' JOIN rows r ON r.id = fts.rowid';
  if (q.since) where.push('r.t >= ?'), args.push(Date.parse(q.since));
  if (q.until) where.push('r.t <= ?'), args.push(Date.parse(q.until));
  if (q.role) where.push(`fts.rowid % 8 = ${ROLES.indexOf(q.role)}`);
  if (more) where.push(more);
  return { sql: `${sql} WHERE ${where.join(' AND ')}`, args };
}

function allowedFile(f: FileRow | undefined, q: Query, opts: SearchOptions): f is FileRow {
  if (!f || (opts.sessions && !opts.sessions.has(f.path))) return false;
  if (q.tool && f.tool !== q.tool) return false;
  if (q.project && !projectMatches(f.project, q.project)) return false;
  return opts.exclude === undefined || (f.session !== opts.exclude && f.sid !== opts.exclude);
}

/** The query's terms as one phrase (the last one's prefix kept). */
const wholePhrase = (q: Query): Term => ({ words: q.terms.flatMap((t) => t.words), prefix: q.terms.at(-1)!.prefix, text: '' });

/** A session's id: its file's name (the store's layout), never only what the cache says. */
const idOf = (f: FileRow): string => basename(f.path, '.jsonl');

const recency = (last: number, now: number): number => 1 + RECENCY * 2 ** (-Math.max(0, now - last) / 86_400_000 / HALF_LIFE_DAYS);

/** Best rows kept a session: the first make its hits, the rest stand in for hits that fail their check. */
const KEEP = 6;

/** A matching session: its file, its best rows (best first; found when its page is made, when absent) and its score. */
interface Ranked {
  file: FileRow;
  best?: Row[];
  score: number;
}

const eventFilters = (q: Query): boolean => q.since !== undefined || q.until !== undefined || q.role !== undefined;

/** A term as a query of the events' table, which has no positions: its words, all of them. */
const eventTerm = (t: Term): string =>
  t.words.map((w, i) => ftsTerm({ words: [w], prefix: t.prefix && i === t.words.length - 1, text: '' })).join(' AND ');

/** Sessions reranked by what their events hold (an event with every term, the query as a phrase). */
const RERANK = 50;

/**
 * The sessions of `cache` holding every term (within the event filters) and no excluded one,
 * best first. A session's relevance: BM25 of its conversation's documents in `docs` (a column a
 * role, weighted by WEIGHT; its parts summed 1, 1/2, 1/4...), plus, for each term its tools'
 * calls and results hold, the term's IDF over sessions times the tools' weight (BM25 of one
 * occurrence: `tools` is matched, never scored); times the recency boost. Then the first RERANK
 * are doubled when one event holds every term and again when the session holds the query's
 * words as a phrase.
 */
function rank(cache: SearchCache, q: Query, opts: SearchOptions): Ranked[] {
  const { db } = cache;
  const filesOf = (sql: string, span: number, ...args: unknown[]) =>
    new Set(arrays(db, sql, ...args).map((r) => Math.floor((r[0] as number) / span)));
  const docs = q.role !== 'tool';
  const tools = !q.role || q.role === 'tool';
  const inDocs = (m: string) => (docs ? filesOf('SELECT rowid FROM docs WHERE docs MATCH ?', DOC_SPAN, m) : new Set<number>());
  const inTools = (m: string) => (tools ? filesOf('SELECT rowid FROM tools WHERE tools MATCH ?', DOC_SPAN, m) : new Set<number>());
  const role = q.role && q.role !== 'tool' ? `{${q.role}} : ` : '';
  // Each term: the sessions holding it (within the event filters), and those whose tools do.
  const terms = q.terms.map((t) => {
    const tool = inTools(ftsTerm(t));
    let has = new Set([...inDocs(role + ftsTerm(t)), ...tool]);
    if (eventFilters(q)) {
      const m = matching(q, `DISTINCT fts.rowid / ${FILE_SPAN}`);
      const inRange = filesOf(m.sql, 1, eventTerm(t), ...m.args);
      has = new Set([...has].filter((id) => inRange.has(id)));
    }
    const n = has.size;
    return { has, tool, idf: Math.log((cache.files.size - n + 0.5) / (n + 0.5) + 1) };
  });
  const gone = new Set<number>();
  for (const t of q.excluded) for (const id of [...inDocs(ftsTerm(t)), ...inTools(ftsTerm(t))]) gone.add(id);
  const [first, ...rest] = terms.map((t) => t.has).sort((a, b) => a.size - b.size);
  const candidates = [...first!].filter((id) => !gone.has(id) && rest.every((s) => s.has(id)));
  const parts = new Map<number, number[]>();
  const weights = PROSE.map((r) => WEIGHT[r]).join(', ');
  if (docs && candidates.length)
    for (const [id, s] of arrays(
      db,
      `SELECT rowid, -bm25(docs, ${weights}) FROM docs WHERE docs MATCH ?`,
      `${role}(${q.terms.map(ftsTerm).join(' OR ')})`,
    ) as [number, number][]) {
      const file = Math.floor(id / DOC_SPAN);
      const p = parts.get(file);
      if (p) p.push(s);
      else parts.set(file, [s]);
    }
  const now = Date.now();
  const order: Ranked[] = [];
  for (const id of candidates) {
    const file = cache.files.get(id);
    if (!allowedFile(file, q, opts)) continue;
    const prose = (parts.get(id) ?? []).sort((a, b) => b - a).reduce((sum, s, i) => sum + s / 2 ** i, 0);
    const tool = terms.reduce((sum, t) => sum + (t.tool.has(id) ? t.idf * WEIGHT.tool : 0), 0);
    order.push({ file, score: (prose + tool) * recency(file.last, now) });
  }
  const byScore = (a: Ranked, b: Ranked) => b.score - a.score || b.file.last - a.file.last || a.file.session.localeCompare(b.file.session);
  order.sort(byScore);
  if (q.terms.length > 1) {
    const top = order.slice(0, RERANK);
    const every = q.terms.map(eventTerm).join(' AND ');
    const phrase = ftsTerm(wholePhrase(q));
    const inPhrase = new Set([...inDocs(role + phrase), ...inTools(phrase)]);
    const event = db.prepare('SELECT 1 FROM fts WHERE fts MATCH ? AND rowid >= ? AND rowid < ? LIMIT 1');
    for (const o of top) o.score *= (event.get(every, ...rowidRange(o.file.id, FILE_SPAN)) ? 2 : 1) * (inPhrase.has(o.file.id) ? 2 : 1);
    order.splice(0, top.length, ...top.sort(byScore));
  }
  return order;
}

/** Events matched a session, at most, to choose its hits from (its newest). */
const CHOOSE = 200;

/**
 * A session's best events: those holding a term (within the event filters), weighted by role,
 * doubled when they hold every term, and the shorter the better (their lines are read, and a
 * short event makes a clear snippet); KEEP of them (the rest stand in for hits that fail their
 * check). Its newest CHOOSE matches are looked at, and its newest holding every term.
 */
function bestRows(cache: SearchCache, f: FileRow, q: Query): Row[] {
  const m = matching(q, 'fts.rowid, r.off, r.len', 'fts.rowid >= ? AND fts.rowid < ?');
  const sql = `${m.sql} ORDER BY fts.rowid DESC LIMIT ${CHOOSE}`;
  const rows = (e: string) => arrays(cache.db, sql, e, ...m.args, ...rowidRange(f.id, FILE_SPAN)) as [number, number, number][];
  const every = new Set(q.terms.length > 1 ? rows(q.terms.map(eventTerm).join(' AND ')).map((r) => r[0]) : []);
  const best = new Map<number, Row>();
  for (const [id, off, len] of rows(q.terms.map((t) => `(${eventTerm(t)})`).join(' OR ')))
    best.set(id, { id, s: (WEIGHT[ROLES[id % 8]!] * (every.has(id) ? 2 : 1)) / (1 + len / SHORT_LINE), at: { off, len } });
  // A phrase's events hold its words, not always side by side: more of them stand by.
  return [...best.values()].sort((a, b) => b.s - a.s || b.id - a.id).slice(0, q.terms.some((t) => t.words.length > 1) ? 2 * KEEP : KEEP);
}

/** An event line this long weighs half a short one's, when its hits are chosen. */
const SHORT_LINE = 4096;

function ranked(cache: SearchCache, q: Query, opts: SearchOptions, problems: SearchProblem[]): SearchResult {
  const where = cache.db.prepare('SELECT off, len FROM rows WHERE id = ?');
  const at = (r: Row) => where.get(r.id) as Row['at'];
  const best = (o: Ranked) => (o.best ??= bestRows(cache, o.file, q));
  return page(rank(cache, q, opts), q, opts, problems, at, best, (o) => cache.stale(o.file.id), cache.files.size, true);
}

/** The event whose line is `len` bytes at `off`, ending in a newline; null when it is not. */
function readLineAt(path: string, at: { off: number; len: number }, problems: SearchProblem[]): Record<string, unknown> | null {
  try {
    const { fd } = openRegularSync(path);
    try {
      const buf = Buffer.allocUnsafe(at.len + 1);
      const n = readSync(fd, buf, 0, at.len + 1, at.off);
      if (n !== at.len + 1 || buf[at.len] !== 10) return null;
      const ev = restoreFromRaw(JSON.parse(buf.toString('utf8', 0, at.len)) as unknown, false);
      return ev && typeof ev === 'object' ? (ev as Record<string, unknown>) : null;
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && code !== 'ENOENT') problems.push({ file: path, message: `cannot read (${code})` });
    return null;
  }
}

// ---- One page -----------------------------------------------------------------------------------

/**
 * One page of `order`, each session's hits read from its file best first, only as many as are
 * shown; a row whose line does not check out is skipped and its file marked `stale`.
 */
function page(
  order: Ranked[],
  q: Query,
  opts: SearchOptions,
  problems: SearchProblem[],
  at: (r: Row) => Row['at'],
  bestOf: (o: Ranked) => Row[],
  stale: (o: Ranked) => void,
  files: number,
  isRanked: boolean,
): SearchResult {
  const limit = limitOf(opts);
  const want = Math.max(1, opts.perSession ?? 3);
  const sessions: SessionMatch[] = [];
  let total = order.length;
  let i = startOf(opts);
  for (; i < order.length && sessions.length < limit; i++) {
    const { file, score } = order[i]!;
    const best = bestOf(order[i]!);
    // A title set again unchanged is one hit (its newest, which comes first): shown once.
    const seen = new Set<string>();
    const hits: SearchHit[] = [];
    const lines = new Map<number, Record<string, unknown> | null>();
    for (const r of best) {
      // Its line read back (once a line) and checked: null when it is not what was indexed.
      const { seq, role } = rowOf(r.id);
      const where = r.at ?? at(r);
      if (where && !lines.has(where.off)) lines.set(where.off, readLineAt(file.path, where, problems));
      const ev = where && lines.get(where.off);
      const hit =
        ev &&
        hitOf(
          ev,
          eventTexts(ev).filter((p) => roleOf(p.where) === role),
          file,
          seq,
          q,
          opts,
        );
      // Not what was indexed: looked at again. (An event holding a phrase's words apart is no news.)
      if (!hit) {
        if (!(ev && holdsWords(eventTexts(ev), q))) stale(order[i]!);
      } else if (!seen.has(`${hit.where}\0${hit.snippet}`)) seen.add(`${hit.where}\0${hit.snippet}`), hits.push(hit);
      if (hits.length === want) break;
    }
    // A session none of whose hits checks out (or with none: its documents and events disagree)
    // is left out, and its file indexed again.
    if (hits.length === 0) {
      if (best.length === 0) stale(order[i]!);
      total--;
      continue;
    }
    const { sessionId, project, title, tool } = { ...file, sessionId: idOf(file) };
    sessions.push({ sessionId, project, title, tool, t: new Date(file.last).toISOString(), score: round(score), file: file.path, hits });
  }
  return {
    sessions,
    hits: sessions.flatMap((s) => s.hits),
    total,
    files,
    ...(i < order.length ? { cursor: encodeCursor(i) } : {}),
    ranked: isRanked,
    problems,
  };
}

const limitOf = (opts: SearchOptions): number => Math.max(1, opts.limit ?? 20);
const startOf = (opts: SearchOptions): number => (opts.cursor === undefined ? Math.max(0, opts.offset ?? 0) : decodeCursor(opts.cursor));
const round = (x: number): number => Math.round(x * 1000) / 1000;
const encodeCursor = (at: number): string => Buffer.from(JSON.stringify({ at })).toString('base64url');
function decodeCursor(c: string): number {
  try {
    const at = (JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as { at?: unknown }).at;
    if (typeof at === 'number' && Number.isInteger(at) && at >= 0) return at;
  } catch {
    // below
  }
  throw new QueryError(`not a cursor this search gave: ${JSON.stringify(c)}`);
}

// ---- The hit of an event ----------------------------------------------------------------------

/** The hit of an event whose texts hold a term (the text holding the most terms); null when none does. */
function hitOf(ev: Record<string, unknown>, texts: EventText[], f: FileRow, seq: number, q: Query, opts: SearchOptions): SearchHit | null {
  let best: { text: EventText; found: [number, number][]; terms: number } | null = null;
  const look = (text: string, toks: ReturnType<typeof tokens>) => {
    const found: [number, number][] = [];
    let terms = 0;
    for (const t of q.terms) {
      const at = find(text, t, toks);
      if (at.length) terms++;
      found.push(...at);
    }
    return { found, terms };
  };
  for (const text of texts) {
    const { found, terms } = look(text.text, wordsNear(text.text, q));
    if (terms && (!best || terms > best.terms || (terms === best.terms && found.length > best.found.length))) best = { text, found, terms };
  }
  if (!best) return null;
  const { snippet, ranges } = snippetOf(
    best.text.text,
    best.found.sort((a, b) => a[0] - b[0]),
    opts.snippetChars ?? 160,
  );
  const sessionId = idOf(f);
  const [kind, where, t] = [typeof ev.kind === 'string' ? ev.kind : '', best.text.where, typeof ev.t === 'string' ? ev.t : ''];
  return { sessionId, project: f.project, title: f.title, seq, cite: `${sessionId}#${seq}`, kind, where, t, snippet, ranges, file: f.path };
}

/** Whether the texts hold every word of a term, in any order (as the events' table says of a phrase). */
function holdsWords(texts: EventText[], q: Query): boolean {
  const all = texts.map((t) => t.text).join('\n');
  const lower = all.toLowerCase();
  if (q.terms.some((t) => t.words.every((w) => lower.includes(w)))) return true;
  const folded = fold(all);
  return q.terms.some((t) => t.words.every((w) => folded.includes(w)));
}

/** Texts longer than this are cut into words only around where a term's letters are. */
const LONG_TEXT = 4 << 10;
const NEAR = 512;

/** Each term's words as a pattern over a lowercase text: whole words in order, anything but a word between. */
const anchors = new WeakMap<Query, RegExp[]>();
function anchorsOf(q: Query): RegExp[] {
  let a = anchors.get(q);
  if (!a) {
    const esc = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const [w, nw] = ['[\\p{L}\\p{N}\\p{M}\\p{Co}]', '[^\\p{L}\\p{N}\\p{M}\\p{Co}]'];
    a = q.terms.map((t) => new RegExp(`(?<!${w})${t.words.map(esc).join(`${nw}+`)}${t.prefix ? '' : `(?!${w})`}`, 'gu'));
    anchors.set(q, a);
  }
  return a;
}

/**
 * The words of `text` that may hold a term: none when no term is in its lowercase (or, beyond
 * ASCII, no term's first word in its folded form), all of them in a short text, and in a long
 * one those near the first places its lowercase holds a term (a tool output of megabytes is not
 * cut whole to check one hit; hitOf cuts one beyond ASCII whole when these hold no term).
 */
function wordsNear(text: string, q: Query): ReturnType<typeof tokens> {
  const lower = text.toLowerCase();
  const spans: [number, number][] = [];
  for (const re of anchorsOf(q)) {
    re.lastIndex = 0;
    for (let m = re.exec(lower), n = 0; m && n < 4; m = re.exec(lower), n++)
      spans.push([Math.max(0, m.index - NEAR), Math.min(text.length, m.index + m[0].length + NEAR)]);
  }
  if (spans.length === 0) {
    if (isAscii(text)) return [];
    // Beyond ASCII: a short text folded and looked at again; a long one cut near its terms' words.
    if (text.length <= 4 * LONG_TEXT) {
      const folded = fold(text);
      return anchorsOf(q).some((re) => ((re.lastIndex = 0), re.test(folded))) ? tokens(text) : [];
    }
    for (const w of q.terms.flatMap((t) => t.words))
      for (let at = lower.indexOf(w), n = 0; at >= 0 && n < 4; at = lower.indexOf(w, at + 1), n++)
        spans.push([Math.max(0, at - NEAR), Math.min(text.length, at + w.length + NEAR)]);
  }
  if (text.length <= LONG_TEXT) return tokens(text);
  spans.sort((a, b) => a[0] - b[0]);
  const out: ReturnType<typeof tokens> = [];
  let end = 0;
  for (const [a0, b] of spans) {
    let a = Math.max(a0, end);
    if (a >= b) continue;
    // Start and end on a word's edge, so no word is cut in two.
    while (a > end && /[\p{L}\p{N}\p{M}]/u.test(text[a - 1]!)) a--;
    let z = b;
    while (z < text.length && /[\p{L}\p{N}\p{M}]/u.test(text[z]!)) z++;
    for (const w of tokens(text.slice(a, z))) out.push({ word: w.word, start: w.start + a, end: w.end + a });
    end = z;
  }
  return out;
}

/**
 * A one-line snippet about `width` long around the window holding the most matches (`found`,
 * sorted), never cut inside a surrogate pair, with '…' where text is left out; the matches in it.
 */
function snippetOf(text: string, found: [number, number][], width: number): { snippet: string; ranges: [number, number][] } {
  let bestAt = 0;
  let bestCount = 0;
  for (let i = 0, j = 0; i < found.length; i++) {
    while (j < found.length && found[j]![1] - found[i]![0] <= width) j++;
    if (j - i > bestCount) (bestCount = j - i), (bestAt = i);
  }
  const a = found[bestAt]?.[0] ?? 0;
  let start = Math.max(0, a - Math.floor(width / 4));
  let end = Math.min(text.length, Math.max(start + width, found[bestAt]?.[1] ?? 0));
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start]!)) start--;
  if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end]!)) end++;
  const pre = start > 0 ? '…' : '';
  const snippet = pre + text.slice(start, end).replace(/[\r\n\t\f\v]/g, ' ') + (end < text.length ? '…' : '');
  const ranges: [number, number][] = [];
  for (const [x, y] of found) if (x >= start && y <= end) ranges.push([x - start + pre.length, y - start + pre.length]);
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
  for (let i = 0; i < files.length; ) {
    const batch: string[] = [];
    for (let bytes = 0; i < files.length && bytes < SCAN_BATCH; i++) {
      batch.push(files[i]!);
      try {
        bytes += statSync(files[i]!).size;
      } catch {
        // sync() says why
      }
    }
    const mem = SearchCache.open('', ':memory:');
    try {
      await mem.sync(batch, { problems, signal: opts.signal, yieldMs: 50 });
      const where = mem.db.prepare('SELECT off, len FROM rows WHERE id = ?');
      for (const o of rank(mem, q, opts)) {
        o.best = bestRows(mem, o.file, q);
        for (const r of o.best) r.at = where.get(r.id) as Row['at'];
        found.push(o);
      }
    } finally {
      mem.close();
    }
  }
  found.sort((a, b) => b.score - a.score || b.file.last - a.file.last);
  return page(
    found,
    q,
    opts,
    problems,
    () => undefined,
    (o) => o.best ?? [],
    () => undefined,
    listed.length,
    false,
  );
}
