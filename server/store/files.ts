// The store's files as files: where the store is and its project folders, and the opens and
// writes that planted names (symlinks, FIFOs, devices) must not redirect (openRegularSync,
// replaceFileSync, openRegular). Every read or write of a store or cache file goes through here.
// Depends on node:fs, node:os, node:path and ./errors (./slug, loaded for a relative Windows path).

import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import { homedir } from 'node:os';
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { StoreError, fromFsError } from './errors.js';

/** The store root: --dir, then LEVELCODE_SESSIONS_DIR, then ~/.levelcode/sessions. */
export function resolveStoreRoot(dir?: string): string {
  const chosen = dir ?? process.env.LEVELCODE_SESSIONS_DIR;
  if (chosen && chosen.length > 0) return resolve(chosen);
  return join(homedir(), '.levelcode', 'sessions');
}

/**
 * The names of the store's project folders, in the order the file system lists them: real
 * folders only (a symlink planted in the store could lead outside it). Throws what readdir throws.
 */
export function projectFolderNames(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !SYNC_TOOL_NAMES.has(d.name))
    .map((d) => d.name);
}

/** The real path of a project folder, as stored in meta lines. */
export async function realProjectPath(project: string, mustExist: boolean): Promise<string> {
  if (typeof project !== 'string' || project.length === 0 || project.includes('\0'))
    throw new StoreError('invalid-project', 'project must be a non-empty path');
  if (!isAbsolute(project) && !(await import('./slug.js')).isAbsoluteProjectPath(project))
    throw new StoreError('invalid-project', `project must be an absolute path: ${project}`);
  try {
    const real = await realpath(project);
    const st = await stat(real);
    if (!st.isDirectory()) throw new StoreError('invalid-project', `project is not a directory: ${project}`);
    return real;
  } catch (e) {
    if (e instanceof StoreError) throw e;
    if (mustExist) throw new StoreError('invalid-project', `project folder does not exist: ${project}`);
    return isAbsolute(project) ? resolve(project) : project;
  }
}

/**
 * The project folders of the store (absolute paths): real folders only, since a symlink
 * planted in the store could lead outside it. A missing store has none. The one place that
 * lists the store; listings, lookups and reindexing all start here.
 */
export function projectFolders(root: string): string[] {
  try {
    return projectFolderNames(root).map((name) => join(root, name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw fromFsError(e, `cannot read the store ${root}`);
  }
}

/**
 * What a folder synchroniser keeps at the store's root (Syncthing's folder marker, ignore file
 * and versions folder; server/sync): neither project folders nor strays.
 */
export const SYNC_TOOL_NAMES: ReadonlySet<string> = new Set(['.stfolder', '.stignore', '.stversions']);

/**
 * open(2) flags of a read of a file planted names must not redirect: no symlink followed
 * (O_NOFOLLOW), no FIFO waited on (O_NONBLOCK). The reader checks that what it opened is a
 * regular file (the caches' readers, readSession's regularOnly for doctor).
 */
export const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * A planted name refused by openRegularSync: a symlink, a FIFO, a socket, a device or a folder
 * where a regular file was expected. Its code is ELOOP for a symlink, else ENOTREG (ours).
 */
export class NotRegularError extends Error {
  readonly code: string;
  constructor(
    readonly path: string,
    readonly what: string,
  ) {
    super(`${path} is ${what}, not a regular file: not opened`);
    this.name = 'NotRegularError';
    this.code = what === 'a symlink' ? 'ELOOP' : 'ENOTREG';
  }
}

function kindOf(st: {
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a folder';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** What a planted name is (a symlink, a FIFO, ...), for problems and doctor; undefined for a regular file or nothing. */
export function plantedKind(path: string): string | undefined {
  try {
    const st = lstatSync(path);
    return st.isFile() ? undefined : kindOf(st);
  } catch {
    return undefined;
  }
}

/**
 * Every read and write of a file the store names goes through here (STYLE.md 11c): opened with
 * O_NOFOLLOW (a symlink is refused with ELOOP, never followed out of the store) and O_NONBLOCK
 * (a FIFO planted under the name does not wait for a writer), then fstat'ed: anything but a
 * regular file is closed again and refused (NotRegularError). `flags` adds to O_NOFOLLOW |
 * O_NONBLOCK (default O_RDONLY). Returns the descriptor and what fstat said of it.
 */
export function openRegularSync(path: string, flags: number = constants.O_RDONLY, mode = 0o600): { fd: number; st: BigIntStats } {
  let fd: number;
  try {
    fd = openSync(path, flags | NO_FOLLOW, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularError(path, 'a symlink');
    throw e;
  }
  let st: BigIntStats;
  try {
    st = fstatSync(fd, { bigint: true });
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  if (!st.isFile()) {
    closeSync(fd);
    throw new NotRegularError(path, kindOf(st));
  }
  return { fd, st };
}

/** A whole regular file, read through openRegularSync (no symlink followed, no FIFO waited on). */
export function readRegularSync(path: string): Buffer {
  const { fd, st } = openRegularSync(path);
  try {
    return readUpTo(fd, Buffer.allocUnsafe(Number(st.size)), Number(st.size));
  } finally {
    closeSync(fd);
  }
}

/** A whole regular file as UTF-8 text, read through openRegularSync. */
export function readRegularTextSync(path: string): string {
  return readRegularSync(path).toString('utf8');
}

/**
 * A new file made exclusively (O_CREAT | O_EXCL | O_NOFOLLOW: never a name that exists, nor a
 * planted symlink): the descriptor. `flags` adds the access mode (default O_WRONLY).
 */
export function createExclusiveSync(path: string, flags: number = constants.O_WRONLY, mode = 0o600): number {
  return openSync(path, flags | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
}

/** The first `bytes` bytes of an open file read into `buf` (fewer if the file is shorter): the part read. */
export function readUpTo(fd: number, buf: Buffer, bytes: number): Buffer {
  let got = 0;
  while (got < bytes) {
    const n = readSync(fd, buf, got, bytes - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** Every byte of `buf` written at the descriptor's position; a write that makes no progress is an error. */
export function writeAllSync(fd: number, buf: Uint8Array): void {
  let off = 0;
  while (off < buf.length) {
    const n = writeSync(fd, buf, off, buf.length - off);
    if (n <= 0) throw Object.assign(new Error('short write: the disk took no more bytes'), { code: 'ENOSPC' });
    off += n;
  }
}

/**
 * Replaces a cache file (index.json, search.idx, the import ledger) whole: the bytes go to a temp
 * file made beside it exclusively (O_CREAT | O_EXCL | O_NOFOLLOW: never a planted name), are
 * written whole (a short write is an error), optionally fsync'd, and the temp file is renamed
 * over the name. rename(2) replaces a symlink or FIFO planted under the name itself, never what
 * it points to; a failure removes the temp file and leaves the old file as it was. Used instead
 * of write-file-atomic, which resolves a symlink at the name and writes (and chmods) its target.
 */
export function replaceFileSync(path: string, data: string | Uint8Array, o: { mode?: number; fsync?: boolean } = {}): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  const tmp = `${path}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW, o.mode ?? 0o600);
  try {
    try {
      writeAllSync(fd, bytes);
      if (o.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
}

const NO_FOLLOW = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A whole regular file, read through openRegular: asynchronously, no symlink followed, no FIFO waited on. */
export async function readRegular(path: string): Promise<Buffer> {
  const fh = await openRegular(path);
  try {
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/** A whole regular file as UTF-8 text, read through openRegular. */
export async function readRegularText(path: string): Promise<string> {
  return (await readRegular(path)).toString('utf8');
}

/** fsync of a folder (its entries made durable); a platform that cannot is no error. */
export async function syncFolder(dir: string): Promise<void> {
  const { open } = await import('node:fs/promises');
  try {
    const fh = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0));
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* not supported on every platform */
  }
}

/** openRegularSync's check for a promise-based open: a FileHandle of a regular file, never of a planted name. */
export async function openRegular(
  path: string,
  flags: number = constants.O_RDONLY,
  mode = 0o600,
): Promise<import('node:fs/promises').FileHandle> {
  const { open } = await import('node:fs/promises');
  let fh;
  try {
    fh = await open(path, flags | NO_FOLLOW, mode);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularError(path, 'a symlink');
    throw e;
  }
  const st = await fh.stat().catch(async (e) => {
    await fh.close().catch(() => {});
    throw e;
  });
  if (!st.isFile()) {
    await fh.close().catch(() => {});
    throw new NotRegularError(path, kindOf(st));
  }
  return fh;
}

/** A regular file or a folder opened to be made durable (fsync): no symlink followed, no FIFO waited on. */
export async function openForSync(path: string): Promise<import('node:fs/promises').FileHandle> {
  const { open } = await import('node:fs/promises');
  const fh = await open(path, constants.O_RDONLY | NO_FOLLOW).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'ELOOP' ? new NotRegularError(path, 'a symlink') : e;
  });
  const st = await fh.stat().catch(async (e) => {
    await fh.close().catch(() => {});
    throw e;
  });
  if (!st.isFile() && !st.isDirectory()) {
    await fh.close().catch(() => {});
    throw new NotRegularError(path, kindOf(st));
  }
  return fh;
}
