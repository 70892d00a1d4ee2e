// history.cache: the whole History, ready to print. `levelcode-sessions list --all` from a
// one-shot process read and parsed every folder's index.json (2,700 entries, 1.5 MB), made a
// row of each, sorted and serialized them: ~50 ms of a warm listing whose target (issue 9) is
// 100 ms including Node's own start, and most of it garbage collection of those objects
// (bench/PERFORMANCE.md: warm list). This file at the store root keeps the rows of the last
// listing of the whole store, already in `list --all --json`'s text, with what they were made
// from: the project folders, each folder's index.json (inode, size, mtime, ctime) and each
// session file's size and mtime in nanoseconds. A listing that finds all of that unchanged
// prints the rows as they are; anything else (a file appended to, added, removed; an index
// rewritten or its mode changed; a folder added; this file unreadable, torn or not a regular
// file) is a miss, and the ordinary listing runs and writes the file again. The check is the
// one index.json's entries get (size and mtime to the nanosecond, which is why every session
// file is still stat'ed), so a hit shows what the ordinary listing would:
// test/cli/history-cache.test.ts compares the two byte for byte.
//
// Like index.json it MAY be deleted at any time, and is only ever written whole (temp file and
// rename). It is written only after a listing of the whole store that had no problem to report
// (a problem is reported by the ordinary listing, every time) and during which no index.json
// changed (so the one listing after a change writes the indexes, and the next the cache). The
// sidecar does not use it: it keeps its own listing in memory (history.ts ListingCache).
//
// Layout (protocol.md "history.cache"): one line of JSON (the header), then the rows: each row
// is a session's JSON exactly as `list --all --json` indents it, rows joined by ",\n", newest
// first. The header's `ends` holds the byte offset (from the first row) where each row ends, so
// that the first n rows are one slice of the file, and `sum` a sum of the rows' bytes.
// Depends on node:fs, node:path and ./plain.

import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { join, sep } from 'node:path';
import { HISTORY_CACHE_FILE, SESSION_ID_RE, projectFolderNames, readRegularSync, replaceFileSync } from './plain.js';
import type { SessionEntry } from './history.js';
import type { IndexEntry } from './catalog.js';
import type { Problem } from './reader.js';

/** A listed session as the cache records it: the size and mtime its row was made from. */
type ListedFile = Pick<IndexEntry, 'id' | 'bytes' | 'mtimeNs'>;

export { HISTORY_CACHE_FILE };
/**
 * Bumped whenever what a row holds, or how it is written, changes (SessionEntry,
 * toSessionEntry, displayTitle, the JSON's indentation): a cache of another format is a miss.
 */
export const HISTORY_CACHE_FORMAT = 3; // 2: turns no longer count tool-result-only user lines; 3: updatedAt = last message
/** index.json's name (catalog.ts INDEX_FILE; not imported, so that a hit loads no catalog). */
const INDEX_FILE = 'index.json';
const ABOUT =
  'Cache of the whole History (list --all), for fast listing. Safe to delete: it is rebuilt from ' +
  'the project folders, which are the only truth. Used only while every folder, index.json and ' +
  'session file it names is unchanged.';

/** One project folder as the cache saw it: its name, its index.json's stat key, its files. */
type FolderRecord = [name: string, index: string | null, files: string];

interface Header {
  about: string;
  format: number;
  folders: FolderRecord[];
  /** Byte offset, from the first row, of the end of each row. */
  ends: number[];
  /** rowsSum of the rows' bytes. */
  sum: number;
}

/** The opening and closing of `list --all --json`'s text around its rows (JSON.stringify, indent 2). */
const OPEN = '{\n  "sessions": [\n';
const CLOSE = '\n  ],\n  "problems": []\n}\n';
const EMPTY = '{\n  "sessions": [],\n  "problems": []\n}\n';

/** The rows of a listing found unchanged. */
export class CachedHistory {
  constructor(
    private readonly rows: Buffer,
    private readonly ends: readonly number[],
  ) {}

  /** The bytes `list --all --json` prints for the first `limit` sessions (all by default). */
  json(limit = this.ends.length): Buffer {
    const n = Math.min(limit, this.ends.length);
    if (n === 0) return Buffer.from(EMPTY);
    return Buffer.concat([Buffer.from(OPEN), this.rows.subarray(0, this.ends[n - 1]), Buffer.from(CLOSE)]);
  }

  /** The first `limit` sessions as rows (for the text listing); undefined if a row does not parse. */
  sessions(limit = this.ends.length): SessionEntry[] | undefined {
    const n = Math.min(limit, this.ends.length);
    const out: SessionEntry[] = [];
    try {
      for (let i = 0, start = 0; i < n; start = this.ends[i] + 2, i++) out.push(JSON.parse(this.rows.toString('utf8', start, this.ends[i])) as SessionEntry);
    } catch {
      return undefined;
    }
    return out;
  }
}

/**
 * An index.json as the cache records it: inode, size, mtime and ctime (ns; a chmod moves only
 * the ctime, and an index the listing cannot read is a problem it reports); null when there is
 * none. Anything but a regular file is NOT_A_FILE, which no cache records.
 */
function indexKey(path: string): string | null {
  const st = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return st === undefined ? null : st.isFile() ? `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : NOT_A_FILE;
}
const NOT_A_FILE = 'not a file';

/**
 * Every project folder's index.json as indexKey records it, by folder name: taken before a
 * listing, for writeHistoryCache, which writes the cache only if none changed meanwhile (so
 * that the state it records is the one the rows were made from).
 */
function indexStates(root: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  try {
    for (const name of folderNames(root)) out.set(name, indexKey(join(root, name, INDEX_FILE)));
  } catch {
    /* no store yet, or unreadable: the listing says so, and nothing is written */
  }
  return out;
}

/** A session file as the cache records it (the size and mtime its index entry was made from). */
const fileKey = (id: string, size: bigint | number, mtimeNs: bigint | string) => `${id} ${size} ${mtimeNs}`;

/** The session files of a folder's listing, as planRefresh takes them: sorted, for comparing. */
function sessionNames(names: string[]): string[] {
  return names.filter((n) => n.endsWith('.jsonl') && SESSION_ID_RE.test(n.slice(0, -6))).sort();
}

/** The store's project folders by name, sorted (the order the cache records them in). */
const folderNames = (root: string): string[] => projectFolderNames(root).sort();

function validHeader(h: unknown, rows: Buffer): h is Header {
  if (!h || typeof h !== 'object') return false;
  const x = h as Partial<Header>;
  if (x.format !== HISTORY_CACHE_FORMAT || !Array.isArray(x.folders) || !Array.isArray(x.ends) || typeof x.sum !== 'number') return false;
  for (const f of x.folders)
    if (!Array.isArray(f) || f.length !== 3 || typeof f[0] !== 'string' || (f[1] !== null && typeof f[1] !== 'string') || typeof f[2] !== 'string') return false;
  // Each row is an object ("    {" ... "}"), and rows are two bytes (",\n") apart: an offset
  // out of place would cut a row when a limit is printed.
  let start = 0;
  for (let i = 0; i < x.ends.length; i++) {
    const e = x.ends[i];
    if (!Number.isSafeInteger(e) || e < start + 6 || e > rows.length) return false;
    if (rows[start + 4] !== 0x7b || rows[e - 1] !== 0x7d) return false;
    if (i < x.ends.length - 1 && (rows[e] !== 0x2c || rows[e + 1] !== 0x0a)) return false;
    start = e + 2;
  }
  return x.ends.length === 0 ? rows.length === 0 : x.ends[x.ends.length - 1] === rows.length;
}

/**
 * The cached History of the store at `root`, when everything it was made from is unchanged;
 * undefined otherwise (no cache, another format, torn, or anything in the store changed).
 * Synchronous: it stats every session file, as the ordinary listing does.
 */
export function readHistoryCache(root: string): CachedHistory | undefined {
  const buf = readRegularFile(join(root, HISTORY_CACHE_FILE));
  if (buf === undefined) return undefined;
  const nl = buf.indexOf(10);
  if (nl < 0) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(buf.toString('utf8', 0, nl));
  } catch {
    return undefined;
  }
  const rows = buf.subarray(nl + 1);
  // The sum catches what the offsets' checks do not look at: a block a crash left zeroed inside
  // a row, or any other byte changed there (~1 ms for 1.3 MB).
  if (!validHeader(header, rows) || header.sum !== rowsSum(rows)) return undefined;
  try {
    if (!unchanged(root, header) || !rowsNameTheFiles(header, rows)) return undefined;
  } catch {
    return undefined; // a folder that cannot be read: the ordinary listing reports it
  }
  return new CachedHistory(rows, header.ends);
}

/**
 * A 32-bit sum of `b` for telling a damaged cache from a whole one (not against tampering: the
 * file is the user's own, like the sessions it lists). Word by word, multiply and shift.
 */
export function rowsSum(b: Uint8Array): number {
  // Words in the machine's byte order (protocol.md): the cache is read where it was written.
  const words = new Int32Array(Math.ceil(b.length / 4));
  new Uint8Array(words.buffer).set(b);
  let h = 0x811c9dc5 ^ b.length;
  for (let i = 0; i < words.length; i++) {
    h = Math.imul(h ^ words[i], 0x5bd1e995);
    h ^= h >>> 15;
  }
  return h >>> 0;
}

/**
 * The bytes of `path` if it is a regular file; undefined otherwise. Never follows a symlink
 * (O_NOFOLLOW) nor waits on a FIFO (O_NONBLOCK) planted under the name.
 */
function readRegularFile(path: string): Buffer | undefined {
  try {
    return readRegularSync(path);
  } catch {
    return undefined;
  }
}

function unchanged(root: string, h: Header): boolean {
  const names = folderNames(root);
  if (names.length !== h.folders.length) return false;
  let files = 0;
  for (let i = 0; i < names.length; i++) {
    const [name, index, list] = h.folders[i];
    if (names[i] !== name) return false;
    const dir = join(root, name) + sep;
    if (indexKey(dir + INDEX_FILE) !== index) return false;
    const want = list === '' ? [] : list.split('\n');
    const have = sessionNames(readdirSync(dir));
    if (have.length !== want.length) return false;
    for (let j = 0; j < have.length; j++) {
      const st: BigIntStats | undefined = lstatSync(dir + have[j], { bigint: true, throwIfNoEntry: false });
      if (st === undefined || !st.isFile() || fileKey(have[j].slice(0, -6), st.size, st.mtimeNs) !== want[j]) return false;
    }
    files += want.length;
  }
  return files === h.ends.length;
}

/**
 * Whether the rows list exactly the session files the header names, each once: a row's id is
 * its first line ("      \"id\": \"<id>\","), checked against the ids of the folders' files (which
 * unchanged() checked against the files themselves). The sum is no defence against a row
 * written on purpose (protocol.md documents it), so a forged cache can at worst misstate a real
 * session's row: it can never list a session that has no file nor hide one that has.
 */
function rowsNameTheFiles(h: Header, rows: Buffer): boolean {
  const want = new Set<string>();
  for (const [, , list] of h.folders) if (list !== '') for (const key of list.split('\n')) want.add(key.slice(0, key.indexOf(' ')));
  if (want.size !== h.ends.length) return false;
  for (let i = 0, start = 0; i < h.ends.length; start = h.ends[i] + 2, i++) {
    if (rows.compare(ROW_HEAD, 0, ROW_HEAD.length, start, start + ROW_HEAD.length) !== 0) return false;
    const at = start + ROW_HEAD.length;
    const id = rows.toString('latin1', at, at + ID_CHARS);
    if (rows[at + ID_CHARS] !== 0x22 || rows[at + ID_CHARS + 1] !== 0x2c || !want.delete(id)) return false;
  }
  return want.size === 0;
}
const ROW_HEAD = Buffer.from('    {\n      "id": "');
const ID_CHARS = '2026-07-28T09-12-33-8f3k'.length;

/**
 * The ordinary listing of the whole store (a one-shot process's: history.ts listSessions with
 * threads), with `keep`, which writes the cache of it when it may: the listing reported no
 * problem (a problem is reported every time, never cached) and writeHistoryCache's checks hold.
 * Call `keep` once the answer is out; it resolves to whether the cache was written.
 */
export async function listAndCache(root: string): Promise<{ sessions: SessionEntry[]; problems: Problem[]; keep: () => Promise<boolean> }> {
  const { listSessions } = await import('./history.js');
  const before = indexStates(root);
  const files = new Map<string, ListedFile[]>();
  const onEntry = (e: IndexEntry, file: string) => {
    const dir = file.slice(0, file.lastIndexOf(sep));
    let mine = files.get(dir);
    if (!mine) files.set(dir, (mine = []));
    mine.push(e);
  };
  const { sessions, problems } = await listSessions(root, { all: true }, onEntry, { threads: true });
  return { sessions, problems, keep: async () => problems.length === 0 && writeHistoryCache(root, sessions, files, before) };
}

/** Between two rows of the listing's text: the first row's last line, and the next row's first. */
const BETWEEN = Buffer.from('\n    },\n    {\n');

/**
 * Writes the cache of a listing of the whole store (listAndCache): `sessions` newest first, and
 * `files`, each listed session's folder (its path) with its id, size and mtime as its entry
 * recorded them; `before`, indexStates taken before the listing. Written
 * only when it can be checked later: every folder of the store listed, each holding exactly the
 * files listed, its index.json a regular file (present if it has sessions) that did not change
 * during the listing, and no other kind of file under the cache's name. Returns whether it was
 * written; a failed write is a missed cache.
 */
async function writeHistoryCache(root: string, sessions: SessionEntry[], files: Map<string, ListedFile[]>, before: Map<string, string | null>): Promise<boolean> {
  try {
    // Anything but a regular file planted under the name is left as it is (doctor reports it).
    const target = join(root, HISTORY_CACHE_FILE);
    const existing = lstatSync(target, { throwIfNoEntry: false });
    if (existing && !existing.isFile()) return false;
    const folders: FolderRecord[] = [];
    let listed = 0;
    for (const name of folderNames(root)) {
      const dir = join(root, name);
      const mine = (files.get(dir) ?? []).slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const index = indexKey(join(dir, INDEX_FILE));
      // An index rewritten during the listing (by it, or by another process) may not be the one
      // the rows were made from: the next listing, finding it in place, writes the cache.
      if (index === NOT_A_FILE || (mine.length > 0 && index === null) || !before.has(name) || before.get(name) !== index) return false;
      // The folder must hold exactly the files listed (a file added since is a miss anyway, but
      // a cache that cannot hit is not worth writing).
      const have = sessionNames(readdirSync(dir));
      if (have.length !== mine.length || have.some((n, i) => n.slice(0, -6) !== mine[i].id)) return false;
      folders.push([name, index, mine.map((f) => fileKey(f.id, f.bytes, f.mtimeNs)).join('\n')]);
      listed += mine.length;
    }
    if (listed !== sessions.length) return false;
    // The rows are cut out of the listing's own text. A row's values are one line each (JSON
    // escapes every line break in a string), so a line "    }," (indented as a row, not as a
    // value) is found only where a row ends.
    const text = JSON.stringify({ sessions, problems: [] }, null, 2) + '\n';
    let body = Buffer.alloc(0);
    const ends: number[] = [];
    if (sessions.length > 0) {
      if (!text.startsWith(OPEN) || !text.endsWith(CLOSE)) return false;
      body = Buffer.from(text, 'utf8').subarray(OPEN.length, -CLOSE.length); // both ASCII: a byte a character
      for (let at = body.indexOf(BETWEEN); at >= 0; at = body.indexOf(BETWEEN, at + 1)) ends.push(at + 6);
      ends.push(body.length);
    } else if (text !== EMPTY) return false;
    if (ends.length !== sessions.length) return false;
    const header: Header = { about: ABOUT, format: HISTORY_CACHE_FORMAT, folders, ends, sum: rowsSum(body) };
    // Not fsync'ed (~5-30 ms of a cold listing): a file a crash left torn or zeroed fails the
    // header's parse, the rows' shape check (validHeader) or their sum, and is a miss.
    replaceFileSync(target, Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), body]), { mode: 0o600, fsync: false });
    return true;
  } catch {
    return false;
  }
}
