// index.json: the per-project cache of one digest a session file (an IndexEntry), the store's
// own: the append path keeps its session's entry current (SessionStore.create, afterAppend,
// delete), an import writes the entries of the sessions it made (import/engine.ts, from the
// events it wrote, so the first History after an import reads none of them), and the listing (listing/catalog.ts refreshIndex) brings a whole folder up to date
// from it. It can be deleted at any time. It lives in the user's cache folder, not in the store
// (cache-dir.ts).
//
// What it is checked against: each entry records its file's size and mtime in nanoseconds.
// An entry is trusted only while both match the file (listing/catalog.ts says what happens when
// they do not). An index.json that is missing, not JSON, of another format or for another folder
// counts as empty; so does one that is not a regular file (a symlink or a FIFO planted under the
// name is never followed nor waited on: files.ts openRegularSync). It is written atomically
// (files.ts replaceFileSync: a temp file of our own, then a rename that replaces a planted name
// rather than writing through it), and a failed write is only a missed cache: listing still
// answers from the files.
//
// Rejected alternatives: one global SQLite database (opaque, one corrupt file hides every
// session, the lesson of Cursor's state.vscdb); trusting the index over the folder (the lesson
// of VS Code's chat index); rewriting the index in place (a crash leaves it half-written).
// Depends on node:fs, ./files, ./cache-dir, ./errors, and ./reader, ./lock, ./digest, ./lines
// and ../format/derived, loaded lazily.

import { closeSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openRegular, openRegularSync, readRegularSync, readUpTo, replaceFileSync } from './files.js';
import type { Digest } from './digest.js';
import type { SessionEvent } from '../format/events.js';
import { SESSION_ID_RE } from '../format/text.js';
import { fromFsError } from './errors.js';
import { cachePaths, ensureCacheFolder, projectCache } from './cache-dir.js';
import type { RepoIdentity } from './identity.js';

// Performance: a warm listing only reads index.json and stats the files. The reader (and zod
// behind it) are needed only when an entry must be (re)built, so they are loaded then, not at
// startup (bench/PERFORMANCE.md: warm list).
const reader = () => import('./reader.js');

export const INDEX_FILE = 'index.json';
/** Where the index of the project folder `dir` lives: the user's cache folder (cache-dir.ts). */
export const indexPath = (dir: string): string => projectCache(dir, INDEX_FILE);
/**
 * 2: a user line holding only tool results is not a turn (reader.ts isTurn). 3: updatedAt is the
 * last message, not the last event. 4: entries carry the meta line's forkedFrom and repo.
 * 5: pinned, archived and unarchivedAt (lifecycle.ts). 6: interrupted. 7: device, and
 * forkedFrom's device (a sync conflict's fork). 8: importedAt.
 */
export const INDEX_FORMAT = 8;
const ABOUT =
  'Cache of the session files in this folder, for fast listing. Safe to delete: it is rebuilt ' +
  'from the *.jsonl files, which are the only truth. An entry is used only while its file size ' +
  'and mtimeNs match.';

export interface IndexEntry extends Digest {
  id: string;
  project: string;
  createdAt: string;
  model: string | null;
  v: number;
  bytes: number;
  mtimeNs: string;
  metaEnd: number;
  /** The meta line's `source` (an imported session), absent for our own. */
  source?: {
    tool: string;
    id: string;
    path: string;
    project: string;
    version?: string;
    variant?: string;
    /** The tool's own record of a fork: its parent's id in the tool's ids. */
    forkedFrom?: { id: string; turn?: number };
  };
  /** The meta line's `forkedFrom` (a fork or copy), absent otherwise. */
  forkedFrom?: { id: string; turn: number; device?: string };
  /** The meta line's `importedAt` (when an import made the session ours), absent for our own. */
  importedAt?: string;
  /** The meta line's `repo` (the project's git identity at birth), absent otherwise. */
  repo?: RepoIdentity;
  /** The meta line's `device` (where the session was created), absent in older files. */
  device?: string;
}

/**
 * The names of the project folders of the store at `root` that have a cache folder (where an
 * index.json may be), listed once; undefined when that cannot be said (then each folder's index
 * is asked for). Performance: a cold listing opened every folder's missing index.json, an
 * error thrown and caught a folder (bench/PERFORMANCE.md: cold History).
 */
export function indexedFolders(root: string): Set<string> | undefined {
  try {
    return new Set(readdirSync(join(cachePaths(root).dir, 'projects')));
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? new Set() : undefined;
  }
}

interface IndexFile {
  about: string;
  format: number;
  entries: IndexEntry[];
}

/** An index file as read: its entries, whether it can be trusted at all, and what was wrong with it. */
export type LoadedIndex = { entries: Map<string, IndexEntry>; trusted: boolean; problem?: string };

export function loadIndexSync(dir: string): LoadedIndex {
  let raw: string;
  try {
    // Synchronous, like the reads below: a folder's index is small (a few hundred KB at most),
    // and a promise per read was a round trip through the thread pool per folder.
    raw = readRegularSync(indexPath(dir)).toString('utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTREG')
      return {
        entries: new Map(),
        trusted: false,
        problem: `index.json is ${(e as { what?: string }).what ?? 'not a regular file'}: not read, replaced by a rebuilt index`,
      };
    return { entries: new Map(), trusted: false, problem: code === 'ENOENT' ? undefined : `index.json unreadable (${code})` };
  }
  try {
    const parsed = JSON.parse(raw) as IndexFile;
    // Another version's index: a cache miss, rebuilt without a word (it is not corrupt).
    if (parsed && typeof parsed.format === 'number' && parsed.format !== INDEX_FORMAT) return { entries: new Map(), trusted: false };
    if (!parsed || parsed.format !== INDEX_FORMAT || !Array.isArray(parsed.entries)) throw new Error('not an index of this format');
    const entries = new Map<string, IndexEntry>();
    for (const e of parsed.entries) {
      if (!validEntry(e)) throw new Error('an entry has the wrong shape');
      entries.set(e.id, e);
    }
    return { entries, trusted: true };
  } catch (e) {
    // The reason without JSON.parse's quote of the bytes: whatever the name holds is not echoed.
    return {
      entries: new Map(),
      trusted: false,
      problem: `index.json is corrupt (${e instanceof SyntaxError ? 'not JSON' : (e as Error).message}); rebuilt`,
    };
  }
}

function validEntry(e: unknown): e is IndexEntry {
  if (!e || typeof e !== 'object') return false;
  const x = e as Record<string, unknown>;
  return (
    typeof x.id === 'string' &&
    SESSION_ID_RE.test(x.id) &&
    typeof x.project === 'string' &&
    typeof x.createdAt === 'string' &&
    typeof x.updatedAt === 'string' &&
    typeof x.turns === 'number' &&
    typeof x.lines === 'number' &&
    typeof x.folded === 'number' &&
    typeof x.metaEnd === 'number' &&
    typeof x.bytes === 'number' &&
    typeof x.mtimeNs === 'string' &&
    typeof x.v === 'number' &&
    (x.title === null || typeof x.title === 'string') &&
    typeof x.preview === 'string' &&
    typeof x.firstUser === 'string' &&
    typeof x.pinned === 'boolean' &&
    typeof x.archived === 'boolean' &&
    (x.unarchivedAt === null || typeof x.unarchivedAt === 'string') &&
    typeof x.interrupted === 'boolean'
  );
}

/** Reads a session file from scratch into an entry. */
export async function entryFromFile(file: string, id: string, bytes: number, mtimeNs: bigint): Promise<IndexEntry> {
  const { readMeta, foldDigest, emptyDigest, digestOfBuffer } = await reader();
  if (bytes <= SMALL_FILE) {
    // Performance: a small file (most of a store) is read whole, synchronously, into one reused
    // buffer, and folded from memory: the promise-based open, read and close cost a thread-pool
    // round trip each, most of a cold listing of 2,700 files (bench/PERFORMANCE.md). Tens of
    // microseconds of blocking per file; the caller yields between files.
    const buf = readSmall(file, bytes);
    const got = digestOfBuffer(file, buf);
    if (got) return entryOf(got.d, id, got.info.meta, bytes, mtimeNs, got.info.metaEnd);
    // The meta line does not end in the bytes stat'ed: read it the streaming way below.
  }
  // One open for the meta line and the fold, read up to the size the caller stat'ed (a cold
  // listing does this for every file: a second open, close and stat each were a fifth of it).
  let fh;
  try {
    fh = await openRegular(file);
  } catch (e) {
    throw fromFsError(e, `cannot open ${file}`);
  }
  let meta, metaEnd, d;
  try {
    ({ meta, metaEnd } = await readMeta(file, fh));
    d = emptyDigest(meta, metaEnd);
    await foldDigest(file, d, { fh, to: bytes });
  } finally {
    await fh.close().catch(() => {});
  }
  return entryOf(d, id, meta, bytes, mtimeNs, metaEnd);
}

/** What is read from a session file to (re)build its entry (listing/catalog.ts refreshIndex, the CLI's cold listing). */
export interface EntryJob {
  file: string;
  id: string;
  bytes: number;
  mtimeNs: bigint;
}

/**
 * entryFromFile, synchronously: the same entry (and the same errors) from the same bytes, with
 * readSync and no promise (lines.ts forEachLineSync says when that is right: a one-shot process
 * with nothing else to do, never the sidecar). Loads the reader first, hence async itself.
 */
export async function syncEntryReader(): Promise<(job: EntryJob) => IndexEntry> {
  const { readMetaSync, foldDigestSync, emptyDigest, digestOfBuffer } = await reader();
  return ({ file, id, bytes, mtimeNs }) => {
    if (bytes <= SMALL_FILE) {
      const got = digestOfBuffer(file, readSmall(file, bytes));
      if (got) return entryOf(got.d, id, got.info.meta, bytes, mtimeNs, got.info.metaEnd);
    }
    const fd = openForReading(file);
    try {
      const { meta, metaEnd } = readMetaSync(file, fd);
      const d = emptyDigest(meta, metaEnd);
      foldDigestSync(fd, d, bytes);
      return entryOf(d, id, meta, bytes, mtimeNs, metaEnd);
    } finally {
      closeSync(fd);
    }
  };
}

/**
 * A first look at session files, for a cold History's first page (listing/first-page.ts) before
 * the reader and its schemas are loaded: the entry entryOf makes, from the meta line and a
 * digest folded by digest.ts firstLook, neither checked by the schemas. For a file whose lines
 * are all valid it is the exact entry. The caller only shows it, never writes it: the complete
 * listing reads the file again, and the CLI says when the page it showed differs (cli/main.ts).
 */
export async function firstLookReader(): Promise<(job: EntryJob) => IndexEntry> {
  const { emptyDigest, firstLook, foldFdSync } = await import('./digest.js');
  const { firstLineSync } = await import('./lines.js');
  const { restoreFromRaw } = await import('../format/derived.js');
  const check = (bytes: Buffer): SessionEvent | undefined => {
    const v = jsonObject(bytes);
    return v && typeof v.kind === 'string' ? (restoreFromRaw(v, false) as SessionEvent) : undefined;
  };
  const fold = firstLook(check);
  return ({ file, id, bytes, mtimeNs }) => {
    const fd = openForReading(file);
    try {
      const { meta, metaEnd } = metaAtFirstLook(file, firstLineSync(fd));
      const d = emptyDigest(meta, metaEnd);
      foldFdSync(fd, d, bytes, fold);
      return entryOf(d, id, meta, bytes, mtimeNs, metaEnd);
    } finally {
      closeSync(fd);
    }
  };
}

/** A line parsed as a JSON object, or undefined. */
function jsonObject(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

type FirstLookMeta = Parameters<typeof entryOf>[2] & { title?: unknown };

/** Line 1 as a meta line, by the few fields an entry takes (reader.ts readMetaSync checks it whole). */
function metaAtFirstLook(file: string, { head, nl }: { head: Buffer; nl: number }): { meta: FirstLookMeta; metaEnd: number } {
  const m = nl === -1 ? undefined : jsonObject(head.subarray(0, nl));
  if (m?.kind !== 'meta' || typeof m.project !== 'string' || typeof m.createdAt !== 'string' || typeof m.v !== 'number')
    throw new Error(`${file}: line 1 is not a meta line`);
  return { meta: m as FirstLookMeta, metaEnd: nl + 1 };
}

/** A file descriptor of `file` to read, or the store's error for it. */
function openForReading(file: string): number {
  try {
    return openRegularSync(file).fd;
  } catch (e) {
    throw fromFsError(e, `cannot open ${file}`);
  }
}

const SMALL_FILE = 1 << 20;
let smallBuf: Buffer | undefined;

/** The first `bytes` bytes of `file` (fewer if it shrank), in a buffer reused by the next call. */
function readSmall(file: string, bytes: number): Buffer {
  smallBuf ??= Buffer.allocUnsafeSlow(SMALL_FILE);
  const fd = openForReading(file);
  try {
    return readUpTo(fd, smallBuf, bytes);
  } catch (e) {
    throw fromFsError(e, `cannot read ${file}`);
  } finally {
    closeSync(fd);
  }
}

/** The entry of a session file from its digest and meta line, as a rebuild from the file makes it. */
export function entryOf(
  d: Digest,
  id: string,
  meta: {
    project: string;
    createdAt: string;
    model?: unknown;
    v: number;
    source?: unknown;
    forkedFrom?: unknown;
    repo?: unknown;
    device?: unknown;
    importedAt?: unknown;
  },
  bytes: number,
  mtimeNs: bigint,
  metaEnd: number,
): IndexEntry {
  const source = sourceOf(meta.source);
  const forkedFrom = forkedFromOf(meta.forkedFrom);
  const repo = repoOf(meta.repo);
  const importedAt = typeof meta.importedAt === 'string' && !Number.isNaN(Date.parse(meta.importedAt)) ? meta.importedAt : undefined;
  return {
    ...(source ? { source } : {}),
    ...(forkedFrom ? { forkedFrom } : {}),
    ...(importedAt ? { importedAt } : {}),
    ...(repo ? { repo } : {}),
    ...(typeof meta.device === 'string' && meta.device ? { device: meta.device.slice(0, 200) } : {}),
    ...d,
    id,
    project: meta.project,
    createdAt: meta.createdAt,
    model: typeof meta.model === 'string' ? meta.model : null,
    v: meta.v,
    bytes,
    mtimeNs: mtimeNs.toString(),
    metaEnd,
  };
}

/** A meta line's `source`, when it has the shape an importer writes (else none). */
function sourceOf(v: unknown): IndexEntry['source'] {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  const tool = str('tool'),
    id = str('id'),
    path = str('path'),
    project = str('project');
  if (!tool || !id || !path || !project) return undefined;
  const version = str('version');
  const variant = str('variant');
  const f = o.forkedFrom as { id?: unknown; turn?: unknown } | undefined;
  const forkedFrom =
    f && typeof f === 'object' && typeof f.id === 'string' && f.id
      ? { id: f.id, ...(Number.isInteger(f.turn) && (f.turn as number) >= 0 ? { turn: f.turn as number } : {}) }
      : undefined;
  return {
    tool,
    id,
    path,
    project,
    ...(version ? { version } : {}),
    ...(variant ? { variant } : {}),
    ...(forkedFrom ? { forkedFrom } : {}),
  };
}

/** A meta line's `forkedFrom`, when it has the shape fork.ts writes (else none). */
function forkedFromOf(v: unknown): IndexEntry['forkedFrom'] {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.id !== 'string' || !SESSION_ID_RE.test(o.id) || !Number.isInteger(o.turn)) return undefined;
  const device = typeof o.device === 'string' && o.device ? o.device.slice(0, 200) : undefined;
  return { id: o.id, turn: o.turn as number, ...(device ? { device } : {}) };
}

/** A meta line's `repo`, when it has the shape identity.ts writes (else none: never half an identity). */
function repoOf(v: unknown): IndexEntry['repo'] {
  if (!v || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  const strings = (x: unknown): x is string[] => Array.isArray(x) && x.every((r) => typeof r === 'string');
  if (!strings(o.roots) || o.roots.length === 0 || typeof o.prefix !== 'string') return undefined;
  return { roots: o.roots, prefix: o.prefix, ...(strings(o.remotes) && o.remotes.length ? { remotes: o.remotes } : {}) };
}

/** History's order: the latest message first, then by id. */
export function newestFirst(a: { updatedAt: string; id: string }, b: { updatedAt: string; id: string }): number {
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export async function writeIndex(dir: string, entries: IndexEntry[]): Promise<void> {
  const body: IndexFile = { about: ABOUT, format: INDEX_FORMAT, entries };
  const file = indexPath(dir);
  ensureCacheFolder(file);
  // Not fsync'd: a cache. The rename makes it whole or absent to any reader; after a power cut
  // it may be the old index or an empty file, which is a miss (checked against each file's size
  // and mtime, or rebuilt as corrupt), never a wrong row. An fsync a folder was the largest part
  // of a cold listing of a store of many projects (bench/PERFORMANCE.md).
  replaceFileSync(file, JSON.stringify(body) + '\n', { mode: 0o600 });
}

/**
 * Replaces or adds one entry after a change this process made, without rescanning the folder.
 * A missing index (or one of another format) becomes an index of this one entry: the folder's
 * other files are files without an entry, which the next listing reads. A corrupt or planted
 * one is left for the listing, which reports it and rebuilds it (listing/catalog.ts).
 */
export async function upsertEntry(dir: string, entry: IndexEntry): Promise<void> {
  await withIndexLock(dir, async () => {
    const loaded = loadIndexSync(dir);
    if (!loaded.trusted && loaded.problem) return;
    loaded.entries.set(entry.id, entry);
    await writeIndex(dir, [...loaded.entries.values()].sort(newestFirst));
  });
}

/** upsertEntry for several entries of one folder (an import's new sessions): one rewrite. */
export async function upsertEntries(dir: string, entries: IndexEntry[]): Promise<void> {
  await withIndexLock(dir, async () => {
    const loaded = loadIndexSync(dir);
    if (!loaded.trusted && loaded.problem) return;
    for (const e of entries) loaded.entries.set(e.id, e);
    await writeIndex(dir, [...loaded.entries.values()].sort(newestFirst));
  });
}

/** Drops one entry (a session moved to the trash); an index that cannot be trusted has none to drop. */
export async function removeEntry(dir: string, id: string): Promise<void> {
  await withIndexLock(dir, async () => {
    const loaded = loadIndexSync(dir);
    if (!loaded.trusted || !loaded.entries.delete(id)) return;
    await writeIndex(dir, [...loaded.entries.values()].sort(newestFirst));
  });
}

// ---- Writers of one index, across processes ---------------------------------------------------
//
// Reliability: every index write is a read-modify-write of the whole file. Two
// processes writing one folder's index at once (two sidecars, or a sidecar and the CLI, each
// recording its own session's entry) lost each other's updates: the last rename won, and the
// index kept a stale entry of the other's session until the next listing refolded it. Index
// writes now take `index.lock` (the session lock's mechanism: an owner note, taken over at once
// from a dead pid, stale after INDEX_LOCK_STALE_MS) for the moment of the read-modify-write. The
// index is a cache: when the lock cannot be had (a read-only store, a full disk, a holder that
// keeps it), the write goes ahead unlocked, as before. Loaded lazily: a warm listing never
// writes, and must not load the lock library (bench/PERFORMANCE.md).

const INDEX_LOCK_STALE_MS = 10_000;

export async function withIndexLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const { acquireLock } = await import('./lock.js');
  let held: { release: () => Promise<void> } | undefined;
  for (let attempt = 0; attempt < 200 && !held; attempt++) {
    try {
      held = await acquireLock(join(dir, 'index'), { staleMs: INDEX_LOCK_STALE_MS, agent: 'index' });
    } catch (e) {
      if ((e as { code?: string }).code !== 'locked') break; // cannot lock here at all: write unlocked
      await new Promise((r) => setTimeout(r, 2 + Math.floor(Math.random() * 8)));
    }
  }
  try {
    return await fn();
  } finally {
    await held?.release();
  }
}

/**
 * A listing's entries, computed without the lock, reconciled under it with what another process
 * wrote meanwhile: an entry on disk that matches its file's current size and mtime wins over
 * ours when ours does not, or when ours was only copied from the index we loaded (`copied`: a
 * rebuild written since knows at least as much), and entries of files created since our readdir
 * are kept.
 */
export async function mergeNewer(dir: string, ours: IndexEntry[], copied: (e: IndexEntry) => boolean = () => false): Promise<IndexEntry[]> {
  const disk = loadIndexSync(dir);
  if (!disk.trusted) return ours;
  const matches = (e: IndexEntry): boolean => {
    try {
      const st = lstatSync(join(dir, `${e.id}.jsonl`), { bigint: true });
      return st.isFile() && Number(st.size) === e.bytes && st.mtimeNs.toString() === e.mtimeNs;
    } catch {
      return false;
    }
  };
  const out: IndexEntry[] = [];
  const seen = new Set<string>();
  for (const e of ours) {
    seen.add(e.id);
    const d = disk.entries.get(e.id);
    out.push(d && d !== e && (copied(e) || !matches(e)) && matches(d) ? d : e);
  }
  for (const d of disk.entries.values()) if (!seen.has(d.id) && matches(d)) out.push(d);
  return out.sort(newestFirst);
}

/**
 * The last few index files parsed by cachedEntry, by folder, with the size and mtime of the
 * index.json they were parsed from. Performance: a session/read of one session parsed its
 * folder's whole index for one entry, a sizeable part of the whole tail read
 * (bench/PERFORMANCE.md). A stale copy is only ever a miss: callers check the entry
 * against its session file.
 */
const recentIndexes = new Map<string, { size: bigint; mtimeNs: bigint; entries: Map<string, IndexEntry> }>();
const RECENT_INDEXES = 8;

/** Looks an entry up in the index file without checking it (callers verify size and mtime). A copy: callers may change it. */
export async function cachedEntry(dir: string, id: string): Promise<IndexEntry | undefined> {
  let st;
  try {
    st = lstatSync(indexPath(dir), { bigint: true });
  } catch {
    return undefined;
  }
  if (!st.isFile()) return undefined;
  let memo = recentIndexes.get(dir);
  if (!memo || memo.size !== st.size || memo.mtimeNs !== st.mtimeNs) {
    const loaded = loadIndexSync(dir);
    memo = { size: st.size, mtimeNs: st.mtimeNs, entries: loaded.entries };
    recentIndexes.delete(dir);
    if (loaded.trusted) recentIndexes.set(dir, memo);
    if (recentIndexes.size > RECENT_INDEXES) recentIndexes.delete(recentIndexes.keys().next().value as string);
  }
  const e = memo.entries.get(id);
  return e && { ...e };
}

export async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!);
    }
  });
  await Promise.all(workers);
}
