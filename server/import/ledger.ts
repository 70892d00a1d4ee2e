// The import ledger: what the last import saw of each source file, so that the next one decides
// from a `stat` alone. A cache under the store's cache folder (store/cache-dir.ts): deleting it
// costs one full read of every source (each then compared with our copy by event signature),
// never a duplicate event; any mismatch of root or format reads as "missing".
// Per source file: size, mtime, ctime and inode (an unchanged file costs its stat, already paid
// by discovery), the offset imported up to with a signature of the bytes just before it (a file
// that only grew is recognised without reading what came before), and, per session it feeds,
// our file, its size after the import and how many of the source's mapped events it holds (a
// grown file appends what follows, without reading our copy). A file that failed is kept with
// its problem and a retry time that doubles until the file changes.
// Depends on the store's cache folder and files helpers only.

import { createHash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { cachePaths, ensureCacheFolder } from '../store/cache-dir.js';
import { openRegularSync, readRegularSync, replaceFileSync } from '../store/files.js';

const LEDGER_FORMAT = 2;
/** The bytes before the offset whose hash says "the part read last time is still there". */
export const SIG_BYTES = 4096;

export interface UnknownKind {
  tool: string;
  /** The tool's version as its records state it ('' when they do not). */
  version: string;
  kind: string;
  count: number;
}

export interface LedgerSession {
  id: string;
  /** Which of the file's sessions: the tool's id and the variant. */
  key: string;
  /** Our session file, as it was after the import. */
  file: string;
  /** Its size then: any other size means someone else wrote to it, and it is compared in full. */
  bytes: number;
  /** Our events after the meta line (the next one's seq). */
  seq: number;
  /** How many of the source's mapped events are accounted for, and the signature of the last. */
  mapped: number;
  last: string;
}

export interface LedgerEntry {
  size: number;
  mtimeNs: string;
  ctimeNs?: string;
  ino?: string;
  /** Bytes imported up to (the size then), and sha1 of the SIG_BYTES bytes before it. */
  offset: number;
  sig: string;
  /** Read within RACY_NS of its last change: its stat may not move on the next write. */
  racy?: boolean;
  sessions: LedgerSession[];
  /** The file could not be imported: not read again before retryAt unless it changes. */
  failed?: { message: string; tries: number; retryAt: number };
  /** Record kinds its importer has never seen, as counted when it was last read (doctor shows them). */
  unknown?: UnknownKind[];
}

export interface Ledger {
  about: string;
  format: number;
  root: string;
  files: Record<string, LedgerEntry>;
}

/** Where the ledger of a store lives: the store's cache folder (store/cache-dir.ts). */
export function ledgerPath(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return cachePaths(root, env).ledger;
}

export function loadLedger(file: string, root: string): Ledger {
  const empty: Ledger = {
    about: 'levelcode-sessions import ledger: what the last import saw of each source file. A cache; delete it at any time.',
    format: LEDGER_FORMAT,
    root,
    files: Object.create(null) as Record<string, LedgerEntry>,
  };
  try {
    const x = JSON.parse(readRegularSync(file).toString('utf8')) as Ledger; // no symlink followed, no FIFO waited on
    if (x.format !== LEDGER_FORMAT || x.root !== root || !x.files || typeof x.files !== 'object') return empty;
    empty.files = Object.assign(Object.create(null), x.files) as Record<string, LedgerEntry>;
  } catch {
    /* missing or unreadable: every source is read again */
  }
  return empty;
}

export function saveLedger(file: string, ledger: Ledger): void {
  ensureCacheFolder(file);
  replaceFileSync(file, JSON.stringify(ledger) + '\n', { mode: 0o600, fsync: false }); // a rename over a planted name: nothing written through
}

/** sha1 of the SIG_BYTES bytes before `offset` (no symlink followed, no FIFO waited on). */
export async function signatureAt(path: string, offset: number): Promise<string> {
  // Synchronous: 4 KiB, and a first import asks it of every source (four thread-pool round trips each).
  const { fd } = openRegularSync(path);
  try {
    const n = Math.min(offset, SIG_BYTES);
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const bytesRead = readSync(fd, buf, got, n - got, offset - n + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return createHash('sha1').update(buf.subarray(0, got)).digest('hex');
  } finally {
    closeSync(fd);
  }
}

/** The next retry of a file that failed `tries` times: half a minute, doubling, at most a day. */
export function retryAfterMs(tries: number): number {
  return Math.min(86_400_000, 30_000 * 2 ** Math.max(0, tries - 1));
}
