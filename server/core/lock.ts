// Session ownership: one writer per session file, across processes and windows.
//
// A writer holds `<id>.jsonl.lock` (a directory made by proper-lockfile, whose mtime the holder
// refreshes; stale after 30 s by default) with `owner.json` inside naming its pid and host. A
// second writer gets StoreError('locked') and can still read. A lock whose owner is gone (same
// host, pid no longer running) is taken over at once, so reopening an editor after a crash
// never waits for the stale timeout; a lock from another host, or from a live pid, is honoured
// until it goes stale.
// Depends on node:fs, node:os and proper-lockfile; nothing of JSON-RPC.

import { hostname } from 'node:os';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { StoreError, fromFsError } from './errors.js';

export const DEFAULT_STALE_MS = 30_000;

export interface Owner {
  pid: number;
  host: string;
  since: string;
  /** Who holds it, for the "locked by another window" message (sidecar, cli, ...). */
  agent?: string;
}

// proper-lockfile removes its lock directory with rmdir; ours holds owner.json, so removal
// must take the directory with its content.
const lockFs = {
  ...nodeFs,
  rmdir: (p: string, cb: (err: NodeJS.ErrnoException | null) => void) => nodeFs.rm(p, { recursive: true }, cb),
};

export function lockPathOf(file: string): string {
  return `${file}.lock`;
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function readOwner(file: string): Promise<Owner | undefined> {
  try {
    const o = JSON.parse(await readFile(join(lockPathOf(file), 'owner.json'), 'utf8')) as Owner;
    if (typeof o?.pid === 'number' && typeof o?.host === 'string') return o;
  } catch {
    /* no owner recorded (yet) */
  }
  return undefined;
}

export interface LockState {
  locked: boolean;
  owner?: Owner;
  /** The owner is on this host and its pid is gone. */
  dead: boolean;
  /** The lock directory's mtime is older than the stale timeout. */
  stale: boolean;
}

export async function inspectLock(file: string, staleMs = DEFAULT_STALE_MS): Promise<LockState> {
  let st;
  try {
    st = await stat(lockPathOf(file));
  } catch {
    return { locked: false, dead: false, stale: false };
  }
  const owner = await readOwner(file);
  const dead = !!owner && owner.host === hostname() && !pidAlive(owner.pid);
  const stale = Date.now() - st.mtimeMs > staleMs;
  return { locked: true, owner, dead, stale };
}

export interface Held {
  release: () => Promise<void>;
  compromised: boolean;
}

/**
 * Takes the lock of a session file or throws StoreError('locked'). `onLost` is called if the
 * lock is compromised later (its directory removed or taken over by someone else).
 */
export async function acquireLock(
  file: string,
  opts: { staleMs?: number; agent?: string; onLost?: (err: Error) => void } = {},
): Promise<Held> {
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
  const held: Held = { release: async () => {}, compromised: false };
  const attempt = () =>
    lockfile.lock(file, {
      stale: staleMs,
      update: Math.max(1000, Math.floor(staleMs / 3)),
      realpath: false,
      lockfilePath: lockPathOf(file),
      retries: 0,
      fs: lockFs,
      onCompromised: (err) => {
        held.compromised = true;
        opts.onLost?.(err);
      },
    });
  let release;
  try {
    release = await attempt();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw fromFsError(e, `cannot lock ${file}`);
    const state = await inspectLock(file, staleMs);
    if (state.dead) {
      // Its holder is gone: take it over now rather than after the stale timeout.
      await rm(lockPathOf(file), { recursive: true, force: true });
      try {
        release = await attempt();
      } catch (e2) {
        throw lockedError(file, await readOwner(file));
      }
    } else {
      throw lockedError(file, state.owner);
    }
  }
  const owner: Owner = { pid: process.pid, host: hostname(), since: new Date().toISOString(), agent: opts.agent };
  try {
    await writeFile(join(lockPathOf(file), 'owner.json'), JSON.stringify(owner) + '\n', { mode: 0o600 });
  } catch {
    /* the lock holds without the owner note; takeover then waits for staleness */
  }
  held.release = async () => {
    if (held.compromised) return;
    try {
      await release();
    } catch {
      /* already released or removed */
    }
  };
  return held;
}

function lockedError(file: string, owner?: Owner): StoreError {
  const who = owner
    ? `${owner.agent ?? 'process'} ${owner.pid}${owner.host === hostname() ? '' : ` on ${owner.host}`}`
    : 'another process';
  return new StoreError('locked', `session is locked by another window (${who}); it can still be read`, {
    heldBy: owner ?? null,
    file,
  });
}
