// Reading other tools' SQLite databases (opencode 1.2+, Cursor, Zed) without disturbing them:
// better-sqlite3, loaded only when a SQLite source is read, opened read-only on a file that must
// exist. Read-only never writes, migrates or checkpoints the tool's database; in WAL mode it
// reads the last committed state (the -wal as well) while the tool goes on writing. A database
// counts as one source whose size and mtime are those of the file and its -wal together, so a
// write that only reached the -wal is seen as a change by the engine and by live following.

import { createRequire } from 'node:module';
import type { SourceFile } from './types.js';
import { exists, statFile } from './jsonl.js';

/** The parts of better-sqlite3 the importers use. */
export interface ReadOnlyDb {
  prepare(sql: string): { all(...args: unknown[]): unknown[]; get(...args: unknown[]): unknown };
  close(): void;
}

type Ctor = new (path: string, o: { readonly: boolean; fileMustExist: boolean; timeout?: number }) => ReadOnlyDb;
let ctor: Ctor | undefined;

/** Opens a database read-only; throws an Error in words (not a database, locked, unreadable). */
export async function openReadOnly(path: string): Promise<ReadOnlyDb> {
  ctor ??= createRequire(import.meta.url)('better-sqlite3') as Ctor;
  try {
    const db = new ctor(path, { readonly: true, fileMustExist: true, timeout: 2000 });
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
