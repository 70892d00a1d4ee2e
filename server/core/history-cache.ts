// history.cache: the whole History, ready to print. `levelcode-sessions list --all` from a
// one-shot process read and parsed every folder's index.json (2,700 entries, 1.5 MB), made a
// row of each, sorted and serialized them: ~50 ms of a warm listing whose target (issue 9) is
// 100 ms including Node's own start, and most of it garbage collection of those objects
// (bench/PERFORMANCE.md: warm list). This file at the store root keeps the rows of the last
// listing of the whole store, already in `list --all --json`'s text, with what they were made
// from: the project folders, each folder's index.json (inode, size, mtime) and each session
// file's size and mtime in nanoseconds. A listing that finds all of that unchanged prints the
// rows as they are; anything else (a file appended to, added, removed, an index rewritten, a
// folder added, this file unreadable or torn) is a miss, and the ordinary listing runs and
// writes the file again. The check is the one index.json's entries get (size and mtime to the
// nanosecond, which is why every session file is still stat'ed), so a hit shows what the
// ordinary listing would: test/cli/history-cache.test.ts compares the two byte for byte.
//
// Like index.json it MAY be deleted at any time, and is only ever written whole (temp file and
// rename). It is written only after a listing of the whole store that had no problem to report
// (a problem is reported by the ordinary listing, every time). The sidecar does not use it: it
// keeps its own listing in memory (history.ts ListingCache).
//
// Layout (protocol.md "history.cache"): one line of JSON (the header), then the rows: each row
// is a session's JSON exactly as `list --all --json` indents it, rows joined by ",\n", newest
// first. The header's `ends` holds the byte offset (from the first row) where each row ends, so
// that the first n rows are one slice of the file.
// Depends on node:fs, node:path, write-file-atomic (loaded to write only) and ./plain.

import { lstatSync, readdirSync, readFileSync, type BigIntStats } from 'node:fs';
import { join, sep } from 'node:path';
import { HISTORY_CACHE_FILE, SESSION_ID_RE } from './plain.js';
import type { SessionEntry } from './history.js';

export { HISTORY_CACHE_FILE };
/**
 * Bumped whenever what a row holds, or how it is written, changes (SessionEntry,
 * toSessionEntry, displayTitle, the JSON's indentation): a cache of another format is a miss.
 */
export const HISTORY_CACHE_FORMAT = 1;
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

  /** The first `limit` sessions as rows (for the text listing). */
  sessions(limit = this.ends.length): SessionEntry[] {
    const n = Math.min(limit, this.ends.length);
    const out: SessionEntry[] = [];
    for (let i = 0, start = 0; i < n; start = this.ends[i] + 2, i++) out.push(JSON.parse(this.rows.toString('utf8', start, this.ends[i])) as SessionEntry);
    return out;
  }
}

/** A stat as the cache records it: inode, size and mtime (ns) for an index.json. */
function indexKey(path: string): string | null {
  const st = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  return st === undefined ? null : st.isFile() ? `${st.ino}:${st.size}:${st.mtimeNs}` : 'not a file';
}

/** A session file as the cache records it (the size and mtime its index entry was made from). */
const fileKey = (id: string, size: bigint | number, mtimeNs: bigint | string) => `${id} ${size} ${mtimeNs}`;

/** The session files of a folder's listing, as planRefresh takes them: sorted, for comparing. */
function sessionNames(names: string[]): string[] {
  return names.filter((n) => n.endsWith('.jsonl') && SESSION_ID_RE.test(n.slice(0, -6))).sort();
}

/** The store's project folders by name (real folders only, as history.ts projectFolders), sorted. */
function folderNames(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

function validHeader(h: unknown, rows: Buffer): h is Header {
  if (!h || typeof h !== 'object') return false;
  const x = h as Partial<Header>;
  if (x.format !== HISTORY_CACHE_FORMAT || !Array.isArray(x.folders) || !Array.isArray(x.ends)) return false;
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
  let buf: Buffer;
  try {
    buf = readFileSync(join(root, HISTORY_CACHE_FILE));
  } catch {
    return undefined;
  }
  const nl = buf.indexOf(10);
  if (nl < 0) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(buf.toString('utf8', 0, nl));
  } catch {
    return undefined;
  }
  const rows = buf.subarray(nl + 1);
  if (!validHeader(header, rows)) return undefined;
  try {
    if (!unchanged(root, header)) return undefined;
  } catch {
    return undefined; // a folder that cannot be read: the ordinary listing reports it
  }
  return new CachedHistory(rows, header.ends);
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

/** Between two rows of the listing's text: the first row's last line, and the next row's first. */
const BETWEEN = Buffer.from('\n    },\n    {\n');

/**
 * Writes the cache of a listing of the whole store: `sessions` newest first, and `files`, each
 * listed session's folder (its path) with its id, size and mtime as its entry recorded them
 * (history.ts listSessions's onEntry). Written only when it can be checked later: every
 * folder of the store listed, each holding exactly the files listed, and an index.json in each
 * folder that has sessions. Returns whether it was written; a failed write is a missed cache.
 */
export async function writeHistoryCache(root: string, sessions: SessionEntry[], files: Map<string, { id: string; bytes: number; mtimeNs: string }[]>): Promise<boolean> {
  try {
    const folders: FolderRecord[] = [];
    let listed = 0;
    for (const name of folderNames(root)) {
      const dir = join(root, name);
      const mine = (files.get(dir) ?? []).slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const index = indexKey(join(dir, INDEX_FILE));
      if (mine.length > 0 && (index === null || index === 'not a file')) return false;
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
    const header: Header = { about: ABOUT, format: HISTORY_CACHE_FORMAT, folders, ends };
    const { default: writeFileAtomic } = await import('write-file-atomic');
    // Not fsync'ed (~5-30 ms of a cold listing): a file a crash left torn or zeroed fails the
    // header's parse or the rows' shape check (validHeader), and is a miss.
    await writeFileAtomic(join(root, HISTORY_CACHE_FILE), Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), body]), { mode: 0o600, fsync: false });
    return true;
  } catch {
    return false;
  }
}
