// Imported sessions written whole, in batches: the import engine's write path into the store.
// A new session is written in one go (its meta line and every event) under a hidden temporary
// name in its project folder (`.<id>.jsonl.importing-<pid>`, which no listing reads), and only
// becomes visible when its batch is committed: one durability barrier for the batch's data,
// then each file linked to its real name (exclusively: a session that appeared meanwhile is
// never overwritten), then one barrier for the names. A crash before the commit leaves only
// hidden files the next import sweeps; a full disk leaves nothing visible; so a session never
// appears without its events, and a 0-turn row cannot come from an import.
// The barrier is the fsyncs of the batch's files issued together, then of their folders.
// Depends on the store's files helpers, the event schema (validateImported) and node:fs.

import { closeSync, constants, linkSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { MetaLine } from '../format/events.js';
import { fromFsError } from './errors.js';
import { openForSync, openRegularSync, writeAllSync } from './files.js';
import { pidAlive } from './lock.js';
import { validateImported, type RawSource, type SessionStore } from './store.js';

export interface Staged {
  id: string;
  dir: string;
  /** The hidden temporary name the session is written under. */
  temp: string;
  /** Its real name, once committed. */
  file: string;
  bytes: number;
  /** Events written (after the meta line). */
  events: number;
}

const STAGE_MARK = '.importing-';
/** Lines are gathered into writes of this size: a huge session never sits in memory twice. */
const WRITE_CHUNK = 4 << 20;

export interface StageOptions {
  /** The bytes an event's `raw` was parsed from, written as they are (store.ts validateImported). */
  rawSource?: RawSource;
  /**
   * Project folders made and checked already in this run (prepareProjectDir: four file-system
   * round trips a session otherwise); those this call prepares are added.
   */
  prepared?: Set<string>;
  /**
   * Sees each event with the seq it will have (what was left out before it not counted) and
   * answers the event to write (an import's compaction covers the event before it).
   */
  withSeq?: (event: unknown, seq: number) => unknown;
  /** Sees each event written (as given, before withSeq): what the caller folds into its digest. */
  onWritten?: (event: unknown) => void;
}

/**
 * Writes a new session (meta line and events) under a hidden name in its project folder. An
 * event the schema refuses (nested too deep, not serialisable) is left out and passed to
 * `onBad` with its index; the rest is written. Nothing is durable or visible until commitStaged.
 * StageOptions say where an event's `raw` bytes are and which folders are ready. `events` may
 * be made as they are written (a large source's second pass): an error of theirs is thrown as it
 * is, the hidden file removed.
 */
export async function stageSession(
  store: SessionStore,
  meta: MetaLine,
  events: Iterable<unknown> | AsyncIterable<unknown>,
  onBad: (index: number, message: string) => void,
  o: StageOptions = {},
): Promise<Staged> {
  const { rawSource, prepared, withSeq, onWritten } = o;
  const dir = store.projectDirOf(meta.project);
  if (!prepared?.has(dir)) {
    await store.prepareProjectDir(dir);
    prepared?.add(dir);
  }
  const temp = join(dir, `.${meta.id}.jsonl${STAGE_MARK}${process.pid}`);
  let fd: number;
  try {
    fd = openRegularSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600).fd;
  } catch (e) {
    throw fromFsError(e, `cannot create a session in ${dir}`);
  }
  let bytes = 0;
  let written = 0;
  try {
    // Lines are encoded straight into one buffer, a record's source bytes copied in as its
    // `raw` (rawSource), and written when it is full: no string or buffer of each line.
    const buf = Buffer.allocUnsafe(WRITE_CHUNK);
    let at = 0;
    const flush = () => {
      if (!at) return;
      writeAllSync(fd, buf.subarray(0, at));
      bytes += at;
      at = 0;
    };
    const put = (piece: string | Buffer) => {
      if (typeof piece === 'string' && buf.length - at >= piece.length * 3) {
        at += buf.write(piece, at); // fits for sure (UTF-8: at most 3 bytes a UTF-16 unit): no byteLength pass
        return;
      }
      const size = typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
      if (at + size > buf.length) flush();
      if (size > buf.length) {
        writeAllSync(fd, typeof piece === 'string' ? Buffer.from(piece) : piece);
        bytes += size;
      } else at += typeof piece === 'string' ? buf.write(piece, at) : piece.copy(buf, at);
    };
    put(`${JSON.stringify(meta)}\n`);
    let i = 0;
    const one = (ev: unknown) => {
      let line: { head: string; raw?: Buffer; tail: string };
      try {
        line = validateImported(withSeq ? withSeq(ev, written) : ev, rawSource);
      } catch (e) {
        onBad(i++, (e as Error).message);
        return;
      }
      i++;
      put(line.head);
      if (line.raw) put(line.raw);
      if (line.tail) put(line.tail);
      written++;
      onWritten?.(ev);
    };
    if (Symbol.asyncIterator in events) for await (const ev of fromSource(events)) one(ev);
    else for (const ev of events) one(ev); // no await an event
    flush();
  } catch (e) {
    closeQuietly(fd);
    unlinkQuietly(temp);
    throw e && typeof e === 'object' && sourceErrors.has(e) ? e : fromFsError(e, `cannot write the new session ${meta.id}`);
  }
  closeQuietly(fd);
  return { id: meta.id, dir, temp, file: join(dir, `${meta.id}.jsonl`), bytes, events: written };
}

/** Errors of the events' own making (reading their source), thrown as they are: not the store's. */
const sourceErrors = new WeakSet<object>();

async function* fromSource(events: AsyncIterable<unknown>): AsyncGenerator<unknown> {
  try {
    yield* events;
  } catch (e) {
    if (e && typeof e === 'object') sourceErrors.add(e);
    throw e;
  }
}

/**
 * Makes a batch of staged sessions durable and visible: barrier, exclusive links to the real
 * names, barrier. Returns those made visible and those whose name was taken meanwhile (another
 * importer made that session first: nothing of theirs was touched, ours is dropped).
 */
export async function commitStaged(batch: Staged[]): Promise<{ visible: Staged[]; taken: Staged[] }> {
  const visible: Staged[] = [];
  const taken: Staged[] = [];
  if (batch.length === 0) return { visible, taken };
  await durableBarrier(batch.map((s) => s.temp));
  try {
    for (const s of batch) {
      try {
        linkSync(s.temp, s.file);
        visible.push(s);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        taken.push(s);
      }
    }
  } catch (e) {
    for (const s of batch) unlinkQuietly(s.temp);
    throw fromFsError(e, 'cannot make the imported sessions visible');
  } finally {
    for (const s of batch) unlinkQuietly(s.temp);
  }
  await durableBarrier([...new Set(batch.map((s) => s.dir))]);
  return { visible, taken };
}

/** Removes a staged session that will not be committed. */
export function discardStaged(s: Staged): void {
  unlinkQuietly(s.temp);
}

/** Hidden files a killed import left in a project folder (names from its listing), removed. */
export function sweepStaged(dir: string, names: string[]): void {
  for (const n of names) {
    const at = n.lastIndexOf(STAGE_MARK);
    if (!n.startsWith('.') || at < 0) continue;
    const pid = Number(n.slice(at + STAGE_MARK.length));
    if (pid === process.pid || pidAlive(pid)) continue;
    unlinkQuietly(join(dir, n));
  }
}

/** The names in a project folder, for the engine's id map (errors are the caller's). */
export function folderNames(dir: string): string[] {
  return readdirSync(dir);
}

/**
 * Everything written so far to these files and folders is on disk when this resolves: their
 * fsyncs issued together (a journaling file system commits them as one group), not one by one.
 * Rejected alternative: syncfs(2) (`sync -f`), one call, but it also waits for every other
 * process's dirty data on that file system, seconds on a busy machine.
 */
export async function durableBarrier(paths: string[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < paths.length) await fsyncPath(paths[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(16, paths.length) }, worker));
}

async function fsyncPath(p: string): Promise<void> {
  let fh: import('node:fs/promises').FileHandle | undefined;
  try {
    fh = await openForSync(p);
  } catch (e) {
    throw fromFsError(e, `cannot make ${p} durable`);
  }
  try {
    await fh.sync();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'ENOTSUP') throw fromFsError(e, `cannot make ${p} durable`); // a folder some platforms cannot sync
  } finally {
    await fh.close().catch(() => {});
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}

function unlinkQuietly(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    /* gone already */
  }
}
