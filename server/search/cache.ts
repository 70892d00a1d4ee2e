// The search cache: one SQLite FTS5 database a store, `search-<FORMAT>.sqlite` in its cache
// folder. It can be deleted at any time (it holds nothing the session files do not; the next
// search or sidecar start builds it again); a file there that is not such a database, or is of
// another format, is removed and rebuilt. It holds a row a file (`files`: the size, mtime and
// inode read, the bytes indexed); a row an event's role (`rows`: offset, length, time) with its
// words in the position-less FTS5 table `fts` (rowId: file, seq, role); and a session's words a
// document per part of its file (docId: file, part): the conversation's in `docs` (a column a
// role, scored by BM25), the tools' in `tools` (matched only). Contentless: hits are read back
// from the files (search.ts). ARCHITECTURE.md says why it is so.
//
// Kept current by the listing's change detection: a file with the size, mtime and inode read is
// trusted; one that grew with the same inode, its indexed part ending at a line's end, has its
// new lines indexed (an append starts a new part unless the last is small: that one is read
// again and replaced); any other is indexed again; a file gone is dropped. SQLite: better-sqlite3
// where it loads, else node:sqlite (the VS Code bundle). Depends on node:fs, store/, format/ and
// texts.ts; nothing of JSON-RPC.

import { closeSync, readSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { cachePaths, ensureCacheFolder } from '../store/cache-dir.js';
import { restoreFromRaw } from '../format/derived.js';
import { openRegularSync, plantedKind } from '../store/files.js';
import { forEachLineSync } from '../store/lines.js';
import { ROLES, eventTexts, roleOf, type EventText, type Role } from './texts.js';

/** Bumped when the schema or what is indexed changes: a new name, so an old file is never misread. */
export const FORMAT = 4;

/** Rowids: file id x 2^29 + seq x 8 + role (2^24 files, 2^26 events a file, within 2^53). */
export const FILE_SPAN = 2 ** 29;
const MAX_FILE = 2 ** 24;
const MAX_SEQ = 2 ** 26;
const rowId = (file: number, seq: number, role: Role): number => file * FILE_SPAN + seq * 8 + ROLES.indexOf(role);
/** The columns of `docs`: the roles but the tools'. */
export const PROSE = ROLES.filter((r) => r !== 'tool');
/** Rowids of `docs` and `tools`: file id x 2^20 + part. */
export const DOC_SPAN = 2 ** 20;
const docId = (file: number, part: number): bigint => BigInt(file * DOC_SPAN + part);
/** A file's rowids in a table of `span` a file, [from, to), as integers (a REAL bound makes FTS5 read every match). */
export const rowidRange = (file: number, span: number): [bigint, bigint] => [BigInt(file * span), BigInt((file + 1) * span)];
/** A rowid's seq and role. */
export const rowOf = (id: number): { seq: number; role: Role } => ({ seq: Math.floor((id % FILE_SPAN) / 8), role: ROLES[id % 8]! });

/** What both drivers offer. */
interface Stmt {
  run(...a: unknown[]): { lastInsertRowid: number | bigint };
  get(...a: unknown[]): unknown;
  all(...a: unknown[]): unknown[];
  raw?: (on: boolean) => Stmt;
  setReturnArrays?: (on: boolean) => void;
}
export interface Db {
  exec(sql: string): void;
  prepare(sql: string): Stmt;
  close(): void;
}

/** Statements of `arrays`, by database and text: a search runs the same few again and again. */
const prepared = new WeakMap<Db, Map<string, Stmt>>();

/** The rows of a query as arrays: no object a row (better-sqlite3's raw mode, node:sqlite's setReturnArrays). */
export function arrays(db: Db, sql: string, ...args: unknown[]): unknown[][] {
  let byDb = prepared.get(db);
  if (!byDb) prepared.set(db, (byDb = new Map()));
  let s = byDb.get(sql);
  if (!s) byDb.set(sql, (s = db.prepare(sql)));
  if (s.raw) return s.raw(true).all(...args) as unknown[][];
  s.setReturnArrays?.(true); // absent before Node 22.16: objects, made arrays
  return s.all(...args).map((r) => (Array.isArray(r) ? r : Object.values(r as object)));
}

let opener: ((path: string) => Db) | undefined;

/** better-sqlite3 where it loads, else node:sqlite; an Error in words when neither does. */
function open(path: string): Db {
  if (!opener) {
    const require = createRequire(import.meta.url);
    type Driver = new (p: string, o: { timeout: number }) => Db;
    let why = '';
    try {
      const B = require('better-sqlite3') as Driver;
      opener = (p) => new B(p, { timeout: 5000 });
    } catch (e) {
      why = (e as Error).message.split('\n')[0] ?? '';
      try {
        const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: Driver };
        opener = (p) => new DatabaseSync(p, { timeout: 5000 });
      } catch {
        throw new Error(`search needs better-sqlite3 (${why}) or Node 22.13 or later (this is ${process.version})`);
      }
    }
  }
  return opener(path);
}

/** How text is cut into words (texts.ts says the same in JavaScript, for queries). */
const TOKENIZE = `tokenize="unicode61 remove_diacritics 2 categories 'L* N* Co M*'"`;
const MMAP = 'PRAGMA mmap_size = 4294967296;';

// synchronous OFF: a cache torn by a power cut is found broken and rebuilt (or a hit fails its check);
// mmap: a fresh process (the CLI) reads the pages a bm25 needs without a read() each.
const SCHEMA = `
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -32768;
${MMAP}
CREATE TABLE IF NOT EXISTS about (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files (
  id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, session TEXT NOT NULL, project TEXT NOT NULL,
  tool TEXT NOT NULL, sid TEXT NOT NULL, title TEXT NOT NULL, size INTEGER NOT NULL, mtime REAL NOT NULL, ino TEXT NOT NULL,
  done INTEGER NOT NULL, seq INTEGER NOT NULL, last INTEGER NOT NULL, titled INTEGER NOT NULL,
  part INTEGER NOT NULL, pstart INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, off INTEGER NOT NULL, len INTEGER NOT NULL, t INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(body, content='', contentless_delete=1, detail=none, ${TOKENIZE});
CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(${PROSE.join(', ')}, content='', contentless_delete=1, ${TOKENIZE});
CREATE VIRTUAL TABLE IF NOT EXISTS tools USING fts5(body, content='', contentless_delete=1, ${TOKENIZE});
`;

/** A file as the cache knows it (its row in `files`). */
export interface FileRow {
  id: number;
  path: string;
  session: string;
  project: string;
  tool: string;
  /** The tool's own id of the session ('' for our own). */
  sid: string;
  /** Its latest title event's (titled 1), else its first user line's (titled 0). */
  title: string;
  titled: number;
  /** As stat'ed when read: -1 until the file is indexed whole, or when a hit did not check out. */
  size: number;
  mtime: number;
  ino: string;
  /** Bytes indexed, events seen, and the time of its newest event (ms). */
  done: number;
  seq: number;
  last: number;
  /** Its last document in `docs` (perhaps empty, so not written), and the byte where its lines begin. */
  part: number;
  pstart: number;
}
type Stat = Pick<FileRow, 'size' | 'mtime' | 'ino'>;

/** An error reading `file` as a problem in words (a file gone is none: it is no longer a session). */
export function cannotRead(file: string, e: unknown, problems: { file: string; message: string }[], what = 'cannot read'): void {
  const code = (e as NodeJS.ErrnoException).code;
  if (code !== 'ENOENT') problems.push({ file, message: `${what} (${code ?? (e as Error).message})` });
}

/** Where the search cache of the store at `root` lives. */
export const cacheFile = (root: string): string => join(cachePaths(root).dir, `search-${FORMAT}.sqlite`);

/** Texts of one event longer than this are indexed up to it (a 50 MB tool output is not prose). */
export const MAX_TEXT = 256 << 10;
/** Bytes a file is read in between two pauses of a build; a document of `docs` holds at most a slice. */
const SLICE = 4 << 20;
/** A file's last document smaller than this is replaced by an append, not followed by a new one. */
const MERGE = 256 << 10;

/** How a sync runs: see SearchCache.sync. */
export interface SyncOptions {
  /** `paths` are these folders' files only: files elsewhere are kept. */
  within?: readonly string[];
  problems?: { file: string; message: string }[];
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  yieldMs?: number;
}

/** A session being indexed: its title, newest time, events seen, and its document's texts by role. */
interface Indexing {
  title: string;
  titled: number;
  last: number;
  seq: number;
  doc: Record<Role, string[]>;
  bytes: number;
}
const newDoc = () => Object.fromEntries(ROLES.map((r) => [r, [] as string[]])) as Record<Role, string[]>;

export class SearchCache {
  /** Files by id, as in the files table. */
  readonly files = new Map<number, FileRow>();
  private readonly byPath = new Map<string, FileRow>();
  private readonly ins: Record<'file' | 'row' | 'fts' | 'doc' | 'tools' | 'upd', Stmt>;
  /** Whether a first build has completed (until then a search scans, search.ts). */
  built: boolean;

  private constructor(readonly db: Db) {
    const sql = {
      file: 'INSERT INTO files (path, session, project, tool, sid, title, size, mtime, ino, done, seq, last, titled, part, pstart) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,0,0)',
      row: 'INSERT INTO rows (id, off, len, t) VALUES (?,?,?,?)',
      fts: 'INSERT INTO fts (rowid, body) VALUES (?,?)',
      doc: `INSERT INTO docs (rowid, ${PROSE.join(', ')}) VALUES (?,?,?,?,?)`,
      tools: 'INSERT INTO tools (rowid, body) VALUES (?,?)',
      upd: 'UPDATE files SET title=?, size=?, mtime=?, ino=?, done=?, seq=?, last=?, titled=?, part=?, pstart=? WHERE id=?',
    };
    this.ins = Object.fromEntries(Object.entries(sql).map(([k, v]) => [k, db.prepare(v)])) as typeof this.ins;
    this.reload();
    this.built = (db.prepare("SELECT value FROM about WHERE key='built'").get() as { value: string } | undefined)?.value === '1';
  }

  /**
   * Opens (or makes) the cache of the store at `root`; one that does not check out is made anew.
   * Whatever is in its place that is not a regular file (a symlink, a FIFO) is removed, never
   * followed nor waited on. When no cache can be kept there (a cache folder that cannot be
   * made), the cache lives in memory for this search: the same answer, built each time.
   */
  static open(root: string, path = cacheFile(root)): SearchCache {
    try {
      ensureCacheFolder(path);
    } catch {
      path = ':memory:';
    }
    for (let attempt = 0; ; attempt++) {
      let db: Db | undefined;
      const all = [path, `${path}-wal`, `${path}-shm`];
      try {
        if (path !== ':memory:') for (const f of all) if (plantedKind(f)) rmSync(f, { force: true });
        db = open(path);
        db.exec(SCHEMA);
        const format = db.prepare("SELECT value FROM about WHERE key='format'").get() as { value: string } | undefined;
        if (!format) {
          db.prepare("INSERT OR IGNORE INTO about VALUES ('format', ?)").run(String(FORMAT));
          // Words held in memory before a table writes a segment: fewer, larger segments to merge.
          for (const t of ['fts', 'docs', 'tools']) db.exec(`INSERT INTO ${t}(${t}, rank) VALUES ('hashsize', ${8 << 20})`);
        } else if (format.value !== String(FORMAT)) throw new Error(`format ${format.value}`);
        // File ids used up (rowId): made anew, like any cache that does not fit.
        if (((db.prepare('SELECT max(id) AS n FROM files').get() as { n: number | null }).n ?? 0) >= MAX_FILE / 2) throw new Error('full');
        return new SearchCache(db);
      } catch (e) {
        db?.close();
        if (/search needs/.test((e as Error).message) || (attempt > 0 && path === ':memory:')) throw e;
        // Not ours, or broken: a cache, so made anew (in memory when that fails too).
        if (attempt > 0) path = ':memory:';
        else for (const f of all) rmSync(f, { force: true });
      }
    }
  }

  close(): void {
    this.db.close();
  }

  /** The files as committed. */
  private reload(): void {
    this.files.clear();
    this.byPath.clear();
    for (const f of this.db.prepare('SELECT * FROM files').all() as FileRow[]) this.remember(f);
  }

  private remember(f: FileRow): void {
    this.files.set(f.id, f);
    this.byPath.set(f.path, f);
  }

  private forget(f: FileRow): void {
    const range = [f.id * FILE_SPAN, (f.id + 1) * FILE_SPAN];
    this.db.prepare('DELETE FROM fts WHERE rowid IN (SELECT id FROM rows WHERE id >= ? AND id < ?)').run(...range);
    this.db.prepare('DELETE FROM rows WHERE id >= ? AND id < ?').run(...range);
    for (const t of ['docs', 'tools'])
      this.db.prepare(`DELETE FROM ${t} WHERE rowid >= ? AND rowid < ?`).run(...rowidRange(f.id, DOC_SPAN));
    this.db.prepare('DELETE FROM files WHERE id = ?').run(f.id);
    this.files.delete(f.id);
    this.byPath.delete(f.path);
  }

  /** Marks a file to be indexed again by the next sync (a hit that did not check out). */
  stale(id: number): void {
    const f = this.files.get(id);
    if (f) this.db.prepare('UPDATE files SET size = -1 WHERE id = ?').run(id), (f.size = -1);
  }

  /**
   * Brings the cache up to date with `paths`, every session file of the store. Unreadable files
   * go to `problems` and are dropped. Yields between files and slices when `yieldMs` have passed.
   */
  async sync(paths: readonly string[], o: SyncOptions = {}): Promise<void> {
    // A first build reads back what it merges without mmap: mapped pages would count as its memory.
    if (!this.built) this.db.exec('PRAGMA mmap_size = 0');
    const todo: { path: string; st: Stat }[] = [];
    for (const path of paths) {
      try {
        const s = statSync(path);
        const [st, f] = [{ size: s.size, mtime: s.mtimeMs, ino: String(s.ino) }, this.byPath.get(path)];
        if (!f || f.size !== st.size || f.mtime !== st.mtime || f.ino !== st.ino) todo.push({ path, st });
      } catch (e) {
        if (o.problems) cannotRead(path, e, o.problems);
      }
    }
    const [seen, within] = [new Set(paths), o.within && new Set(o.within)];
    const gone = [...this.byPath.values()].filter((f) => !seen.has(f.path) && (!within || within.has(dirname(f.path))));
    if (todo.length === 0 && gone.length === 0) return;
    let slice = Date.now();
    const pause = async () => {
      if (o.yieldMs === undefined || Date.now() - slice < o.yieldMs) return;
      this.db.exec('COMMIT');
      await new Promise((r) => setImmediate(r));
      o.signal?.throwIfAborted();
      this.db.exec('BEGIN IMMEDIATE');
      slice = Date.now();
    };
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const f of gone) this.forget(f);
      let done = 0;
      for (const { path, st } of todo) {
        o.signal?.throwIfAborted();
        try {
          await this.index(path, st, pause);
        } catch (e) {
          if ((e as Error).name === 'AbortError' || o.signal?.aborted) throw e;
          const had = this.byPath.get(path);
          if (had) this.forget(had);
          if (o.problems) cannotRead(path, e, o.problems);
        }
        o.onProgress?.(++done, todo.length);
        await pause();
      }
      this.db.exec('COMMIT');
    } catch (e) {
      this.db.exec('ROLLBACK');
      this.reload();
      throw e;
    }
  }

  /**
   * Records that every file has been indexed once (searches then use the cache), the events' and
   * the conversations' indexes merged into one segment first: a session's events are then found
   * by a seek, not a walk of each segment's list (what a page of hits asks, session by session).
   */
  markBuilt(): void {
    for (const t of ['fts', 'docs']) this.db.exec(`INSERT INTO ${t}(${t}) VALUES ('optimize')`);
    this.db.prepare("INSERT OR REPLACE INTO about VALUES ('built', '1')").run();
    this.built = true;
    this.db.exec(MMAP);
  }

  /** Indexes a file: its new lines when it only grew, else all of it, a slice at a time (pause between). */
  private async index(path: string, st: Stat, pause: () => Promise<void>): Promise<void> {
    const { fd } = openRegularSync(path);
    try {
      let f = this.byPath.get(path);
      if (f && (f.ino !== st.ino || f.size < 0 || st.size < f.done || (f.done > 0 && byteAt(fd, f.done - 1) !== 10))) {
        this.forget(f);
        f = undefined;
      }
      let off = f?.done ?? 0;
      const s: Indexing = { title: f?.title ?? '', titled: f?.titled ?? 0, last: f?.last ?? 0, seq: f?.seq ?? 0, doc: newDoc(), bytes: 0 };
      let [part, pstart] = [f?.part ?? 0, f?.pstart ?? 0];
      if (f && st.size > f.done && f.done - f.pstart < MERGE) {
        // Its last document is small: read again from the file, and replaced with the new lines'.
        forEachLineSync(fd, (l) => void (l.terminated && docTexts(parseEvent(l.bytes), s)), { from: pstart, to: f.done });
        for (const t of ['docs', 'tools']) this.db.prepare(`DELETE FROM ${t} WHERE rowid = ?`).run(docId(f.id, part));
      } else if (f && st.size > f.done) [part, pstart] = [part + 1, off];
      // A torn last line is indexed once it is whole; a line longer than a slice is read whole.
      const slice = (to: number) =>
        forEachLineSync(
          fd,
          (l) => {
            if (!l.terminated) return;
            if (f) return this.indexLine(f.id, l.bytes, l.start, s);
            f = this.added(path, st, l.bytes, l.end + 1);
            return f ? undefined : false; // no meta line: nothing indexed, looked at again when it changes
          },
          { from: off, to },
        ).endOfLastFullLine;
      while (off < st.size) {
        let next = slice(Math.min(st.size, off + SLICE));
        if (next === off) next = slice(st.size);
        if (next === off || !f) break;
        off = next;
        // A document a slice: a new part begins here.
        if (off < st.size && s.bytes > 0) [part, pstart] = [this.flush(f.id, part, s), off];
        await pause();
      }
      if (!f) return;
      if (s.bytes > 0) this.flush(f.id, part, s);
      Object.assign(f, { title: s.title, titled: s.titled, last: s.last, seq: s.seq, ...st, done: off, part, pstart });
      this.ins.upd.run(s.title, st.size, st.mtime, st.ino, off, s.seq, s.last, s.titled, part, pstart, f.id);
    } finally {
      closeSync(fd);
    }
  }

  /** Writes the document `part` of a file from what `s` holds, and empties it; the next part's number. */
  private flush(file: number, part: number, s: Indexing): number {
    const id = docId(file, part);
    if (PROSE.some((r) => s.doc[r].length)) this.ins.doc.run(id, ...PROSE.map((r) => s.doc[r].join('\n')));
    if (s.doc.tool.length) this.ins.tools.run(id, s.doc.tool.join('\n'));
    [s.doc, s.bytes] = [newDoc(), 0];
    return part + 1;
  }

  /** A file's row, made from its meta line (session id, project, source tool and id); undefined when it is not one. */
  private added(path: string, st: Stat, line: Buffer, end: number): FileRow | undefined {
    let m;
    try {
      m = JSON.parse(line.toString('utf8')) as { id?: unknown; project?: unknown; source?: { tool?: unknown; id?: unknown } };
    } catch {
      return undefined;
    }
    if (typeof m?.id !== 'string') return undefined;
    const tool = typeof m.source?.tool === 'string' && m.source.tool ? m.source.tool : 'levelcode';
    const sid = typeof m.source?.id === 'string' ? m.source.id : '';
    const project = typeof m.project === 'string' ? m.project : '';
    // Size -1 until the file is indexed whole (index()): a build cut short between two commits
    // leaves a file that is looked at again, never one trusted half-indexed.
    const id = Number(this.ins.file.run(path, m.id, project, tool, sid, '', -1, st.mtime, st.ino, end, 0, 0, 0).lastInsertRowid);
    const f = { id, path, session: m.id, project, tool, sid, title: '', ...st, done: end, seq: 0, last: 0, titled: 0, part: 0, pstart: 0 };
    this.remember(f);
    return f;
  }

  /**
   * Indexes one event line: a row per role its texts are in, and its texts into the session's
   * document; the session's title (its latest title event, else its first user line) and newest
   * time. A line that is not JSON is skipped.
   */
  private indexLine(file: number, line: Buffer, off: number, s: Indexing): void {
    const seq = s.seq++;
    if (seq >= MAX_SEQ) return; // 67 million events in one file: the rest is not searchable
    const ev = parseEvent(line);
    if (!ev) return;
    const t = typeof ev.t === 'string' ? Date.parse(ev.t) : Number.NaN;
    const time = Number.isNaN(t) ? 0 : t;
    if (time > s.last) s.last = time;
    const byRole = ROLES.map(() => [] as string[]);
    for (const p of docTexts(ev, s)) {
      byRole[ROLES.indexOf(p.role)]!.push(p.text);
      if (p.where === 'title') Object.assign(s, { title: p.text, titled: 1 });
      else if (p.where === 'user' && !s.titled && !s.title) s.title = p.text.slice(0, 200).replace(/\s+/g, ' ').trim();
    }
    // In rowid order: FTS5 flushes what it holds in memory at every rowid below the last one.
    byRole.forEach((texts, role) => {
      if (!texts.length) return;
      const id = rowId(file, seq, ROLES[role]!);
      this.ins.row.run(id, off, line.length, time);
      this.ins.fts.run(id, texts.join('\n'));
    });
  }
}

/** An event line read; null when it is not JSON of an object. */
export function parseEvent(line: Buffer): Record<string, unknown> | null {
  try {
    const ev = restoreFromRaw(JSON.parse(line.toString('utf8')) as Record<string, unknown>, false);
    return ev && typeof ev === 'object' ? ev : null;
  } catch {
    return null;
  }
}

/** An event's texts (each cut at MAX_TEXT) with their roles, added to the session's document too. */
function docTexts(ev: Record<string, unknown> | null, s: Indexing): { where: EventText['where']; role: Role; text: string }[] {
  return (ev ? eventTexts(ev) : []).map((p) => {
    const [role, text] = [roleOf(p.where), p.text.length > MAX_TEXT ? p.text.slice(0, MAX_TEXT) : p.text];
    s.doc[role].push(text);
    s.bytes += text.length;
    return { where: p.where, role, text };
  });
}

function byteAt(fd: number, at: number): number {
  const b = Buffer.alloc(1);
  return readSync(fd, b, 0, 1, at) === 1 ? b[0]! : -1;
}
