// Reading other tools' SQLite databases (opencode 1.2+, Zed, Cursor, VS Code) without writing a
// byte of theirs: the database and its -wal are copied (through the store's openRegular: no
// symlink followed, no FIFO waited on) into a private temporary folder, and the copy is opened
// read-only, through better-sqlite3 (a dependency, loaded only when a SQLite source is read) or,
// where it cannot be loaded (the sidecar bundled into the VS Code extension carries no native
// module), Node's own node:sqlite (Node 22.13 and later). Why a copy: SQLite opening a WAL
// database, even read-only, maps and writes its -shm (the WAL index), and `immutable=1` would
// ignore the -wal and miss the last commits. A copy taken while the tool writes is checked
// against the originals' size and mtime afterwards and taken again when they moved. Closing the
// database removes the copy. A database counts as one source whose size and mtime are those of
// the file and its -wal together, so a write that only reached the -wal is seen as a change.

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openRegular } from '../store/files.js';
import { createRequire } from 'node:module';
import type { SourceFile } from './types.js';
import { exists, statFile } from './jsonl.js';

/** What the importers use of a database: the part better-sqlite3 and node:sqlite share. */
export interface ReadOnlyDb {
  prepare(sql: string): { all(...args: unknown[]): unknown[]; get(...args: unknown[]): unknown };
  close(): void;
}

type Open = (path: string) => ReadOnlyDb;
let opener: Promise<Open> | undefined;

/** better-sqlite3 where it loads, else node:sqlite, else an Error that says what is missing. */
async function loadOpener(): Promise<Open> {
  type BetterSqlite = new (path: string, o: { readonly: boolean; fileMustExist: boolean; timeout: number }) => ReadOnlyDb;
  let why: string;
  try {
    const Db = createRequire(import.meta.url)('better-sqlite3') as BetterSqlite;
    return (path) => new Db(path, { readonly: true, fileMustExist: true, timeout: 2000 });
  } catch (e) {
    why = (e as Error).message.split('\n')[0] ?? '';
  }
  try {
    type NodeSqlite = new (path: string, o: { readOnly: boolean; timeout: number }) => ReadOnlyDb;
    const { DatabaseSync } = (await import('node:sqlite' as string)) as { DatabaseSync: NodeSqlite };
    return (path) => new DatabaseSync(path, { readOnly: true, timeout: 2000 });
  } catch {
    throw new Error(`reading SQLite needs better-sqlite3 (${why}) or Node 22.13 or later (this is ${process.version})`);
  }
}

/**
 * Opens a private copy of a database (and its -wal) read-only; throws an Error in words (not a
 * database, unreadable). Its close() removes the copy.
 */
export async function openReadOnly(path: string): Promise<ReadOnlyDb> {
  opener ??= loadOpener();
  const open = await opener.catch((e: unknown) => {
    opener = undefined;
    throw e;
  });
  const dir = await mkdtemp(join(tmpdir(), 'levelcode-sqlite-'));
  const gone = () => rm(dir, { recursive: true, force: true }).catch(() => {});
  let db: ReadOnlyDb;
  try {
    const copy = await snapshot(path, dir);
    db = open(copy);
  } catch (e) {
    await gone();
    throw e;
  }
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').get(); // a file that is not a database fails here
  } catch (e) {
    db.close();
    await gone();
    throw new Error(`not a readable SQLite database (${(e as Error).message})`);
  }
  return {
    prepare: (sql) => db.prepare(sql),
    close() {
      db.close();
      void gone();
    },
  };
}

/** Size and mtime of a file, or 'none' when it does not exist: what a copy is checked against. */
async function signature(path: string): Promise<string> {
  const st = await stat(path, { bigint: true }).catch(() => undefined);
  return st ? `${st.size}:${st.mtimeNs}` : 'none';
}

/** Copies one regular file (never through a link or a FIFO) to `dst`; false when it does not exist. */
async function copyRegular(src: string, dst: string): Promise<boolean> {
  let fh;
  try {
    fh = await openRegular(src);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  try {
    await pipeline(fh.createReadStream({ autoClose: false }), createWriteStream(dst, { mode: 0o600, flags: 'wx' }));
  } finally {
    await fh.close();
  }
  return true;
}

/** The database and its -wal copied into `dir`, again while the originals moved under the copy: the copy's path. */
async function snapshot(path: string, dir: string): Promise<string> {
  const copy = join(dir, basename(path));
  for (let attempt = 0; ; attempt++) {
    const before = [await signature(path), await signature(`${path}-wal`)].join();
    await rm(copy, { force: true });
    await rm(`${copy}-wal`, { force: true });
    await copyRegular(path, copy).then((found) => {
      if (!found) throw new Error(`no such file: ${path}`);
    });
    await copyRegular(`${path}-wal`, `${copy}-wal`);
    const after = [await signature(path), await signature(`${path}-wal`)].join();
    if (before === after || attempt >= 4) return copy;
  }
}

/** A database as a source: the file, with its -wal as a part when there is one. */
export async function dbFile(path: string): Promise<SourceFile> {
  const self = await statFile(path);
  const wal = `${path}-wal`;
  if (!(await exists(wal))) return self;
  const w = await statFile(wal);
  return { path, size: self.size + w.size, mtimeNs: w.mtimeNs > self.mtimeNs ? w.mtimeNs : self.mtimeNs, parts: [wal] };
}
