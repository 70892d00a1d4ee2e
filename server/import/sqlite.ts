// Reading other tools' SQLite databases (opencode 1.2+, Zed) without disturbing them:
// opened read-only on a file that must exist, through better-sqlite3 (a dependency, loaded only
// when a SQLite source is read) or, where it cannot be loaded (the sidecar bundled into the VS
// Code extension carries no native module), Node's own node:sqlite (Node 22.13 and later).
// Read-only never writes, migrates or checkpoints the tool's database; in WAL mode it reads the
// last committed state (the -wal as well) while the tool goes on writing. A database counts as
// one source whose size and mtime are those of the file and its -wal together, so a write that
// only reached the -wal is seen as a change by the engine and by live following.

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

/** Opens a database read-only; throws an Error in words (not a database, locked, unreadable). */
export async function openReadOnly(path: string): Promise<ReadOnlyDb> {
  opener ??= loadOpener();
  const open = await opener.catch((e: unknown) => {
    opener = undefined;
    throw e;
  });
  try {
    const db = open(path);
    db.prepare('SELECT count(*) FROM sqlite_master').get(); // a file that is not a database fails here
    return db;
  } catch (e) {
    throw new Error(`not a readable SQLite database (${(e as Error).message})`);
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
