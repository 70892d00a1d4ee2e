// Session ownership: one writer per session file, across processes and windows.
//
// A writer holds `<id>.jsonl.lock` (a directory made by proper-lockfile, whose mtime the holder
// refreshes; stale after DEFAULT_STALE_MS) with `owner.json` inside naming its pid and host. A
// second writer gets StoreError('locked') and can still read. A lock whose owner is gone (same
// host and PID namespace, pid no longer running) is taken over at once, so reopening an editor
// after a crash never waits for the stale timeout; a lock from another host, from another PID
// namespace on this host (a Flatpak or Snap editor, a container sharing the hostname: its pids
// are not ours to see), or from a live pid, is honoured until it goes stale. A pid is evidence
// only where it can be seen; elsewhere the lock's freshness (its mtime, refreshed by a live
// owner) is the truth. A lock written on another host (a store shared or synced between
// devices) is "open on <host>" and never taken over by age alone: that host's clock and
// refreshes are not ours to judge, and two devices appending at once is a sync conflict
// (server/sync/conflicts.ts), never a corruption; `doctor --fix` removes one when asked.
// Depends on node:fs, node:os and proper-lockfile; nothing of JSON-RPC.

import { hostname } from 'node:os';
import { link, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { readRegularText } from './files.js';
import { readlinkSync } from 'node:fs';
import * as nodeFs from 'node:fs';
import { dirname, join } from 'node:path';
import { StoreError, fromFsError } from './errors.js';

// proper-lockfile (with graceful-fs behind it) is loaded by the first lock taken: a listing, a
// read, a resume or an export takes none, and its import was a visible part of the sidecar's
// first request and of every CLI command that opens the store.
const lockfileLib = async () => (await import('proper-lockfile')).default;

export const DEFAULT_STALE_MS = 30_000;

export interface Owner {
  pid: number;
  host: string;
  since: string;
  /** Who holds it, for the "locked by another window" message (sidecar, cli, ...). */
  agent?: string;
  /** The owner's PID namespace (Linux: /proc/self/ns/pid's link, "pid:[4026531836]"). */
  pidns?: string;
}

/**
 * This process's PID namespace: its pids are evidence of life only to a process in the same
 * one. "none" where the system has no PID namespaces (no /proc/self/ns/pid, not Linux); on
 * Linux a namespace that cannot be read is undefined, and then no pid is evidence.
 */
export const PID_NAMESPACE: string | undefined = (() => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return process.platform === 'linux' ? undefined : 'none';
  }
})();

/** Whether an owner's pid can be seen from here: same host, same PID namespace. */
export function pidVisible(o: { host?: unknown; pidns?: unknown }): boolean {
  return (
    o.host === hostname() && PID_NAMESPACE !== undefined && (o.pidns ?? (PID_NAMESPACE === 'none' ? 'none' : undefined)) === PID_NAMESPACE
  );
}

// proper-lockfile removes its lock directory with rmdir; ours holds owner.json, so removal
// must take the directory with its content.
//
// Reliability: removal first renames the directory away (atomic), then deletes it: a
// process killed in the middle of `rm -r` used to leave the lock directory without its
// owner.json, an anonymous lock that blocked the session for the whole stale timeout. A killed
// remover now leaves only `<lock>.gone-<pid>-<random>`, which locks nothing (the next writer in the folder removes it: sweepLeftovers).
const lockFs = {
  ...nodeFs,
  rmdir: (p: string, cb: (err: NodeJS.ErrnoException | null) => void) => {
    const tomb = `${p}.gone-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    nodeFs.rename(p, tomb, (err) => {
      if (err) return cb(err);
      nodeFs.rm(tomb, { recursive: true, force: true }, () => cb(null));
    });
  },
};

/**
 * Reliability: the lock directory appears with its owner.json already inside. It is
 * built under a temporary name and renamed into place (atomic; fails when a lock exists), so a
 * writer killed between proper-lockfile's mkdir and the owner note no longer leaves an
 * anonymous lock that blocks the session for the whole stale timeout although its pid is gone,
 * and owner.json is never seen half-written.
 */
function lockFsFor(owner: Owner): typeof nodeFs {
  const fs = {
    ...lockFs,
    mkdir: (p: string, cb: (err: NodeJS.ErrnoException | null) => void) => {
      const tmp = `${p}.new-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
      nodeFs.mkdir(tmp, { mode: 0o700 }, (err) => {
        if (err) return cb(err);
        nodeFs.writeFile(join(tmp, 'owner.json'), JSON.stringify(owner) + '\n', { mode: 0o600 }, (werr) => {
          if (werr) {
            // No room for the note (a full disk): a bare lock still works; takeover waits for staleness.
            nodeFs.rm(tmp, { recursive: true, force: true }, () => nodeFs.mkdir(p, cb));
            return;
          }
          nodeFs.rename(tmp, p, (rerr) => {
            if (!rerr) return cb(null);
            nodeFs.rm(tmp, { recursive: true, force: true }, () => {
              const code = rerr.code === 'ENOTEMPTY' || rerr.code === 'EEXIST' || rerr.code === 'EISDIR' ? 'EEXIST' : rerr.code;
              cb(Object.assign(rerr, { code }));
            });
          });
        });
      });
    },
  };
  return fs as unknown as typeof nodeFs;
}

/** How long a takeover in progress may take before another process may clear its marker. */
const TAKEOVER_STALE_MS = 10_000;

/**
 * Removes a lock whose owner is gone (or that went stale), unless another process is doing the
 * same. Reliability: two writers that both saw a dead lock used to both remove it and
 * lock: the second removal deleted the first one's fresh lock, and both appended. Now a takeover
 * happens under `<lock>.takeover` (a file made exclusively: one process at a time), and the lock is inspected again
 * under it, so a lock that changed hands meanwhile (a live owner) is never removed. Resolves true
 * when the caller may try to lock.
 */
async function takeOver(file: string, staleMs: number, seen: LockState): Promise<boolean> {
  const lockPath = lockPathOf(file);
  const marker = `${lockPath}.takeover`;
  // The marker is a file naming its maker, so that one left by a taker killed mid-takeover is
  // cleared at once when that pid is gone (else after TAKEOVER_STALE_MS).
  const note = JSON.stringify({ pid: process.pid, host: hostname(), pidns: PID_NAMESPACE });
  // Made whole, then linked into place (link fails when the marker exists): a taker killed
  // between creating the marker and writing its note must not leave an anonymous marker. A
  // note that cannot be written (a full disk) is removed, and the failure is the caller's
  // (NoSpace), never "locked".
  const claim = async () => {
    const tmp = `${marker}.new-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
    try {
      await writeFile(tmp, note, { mode: 0o600 });
      await link(tmp, marker);
    } finally {
      await rm(tmp, { force: true });
    }
  };
  const failed = (e: unknown) => {
    throw fromFsError(e, `cannot take over the lock of ${file}`);
  };
  try {
    await claim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') failed(e);
    const st = await stat(marker).catch(() => undefined);
    let maker: { pid?: number; host?: string; pidns?: string } | undefined;
    try {
      maker = JSON.parse(await readRegularText(marker));
    } catch {
      /* empty or half-written: judged by its age */
    }
    const gone = !!maker && pidVisible(maker) && !pidAlive(Number(maker.pid));
    if (st && !gone && Date.now() - st.mtimeMs < TAKEOVER_STALE_MS) return false;
    await rm(marker, { force: true });
    try {
      await claim();
    } catch (e2) {
      if ((e2 as NodeJS.ErrnoException).code !== 'EEXIST') failed(e2);
      return false;
    }
  }
  try {
    const now = await inspectLock(file, staleMs);
    if (!now.locked) return true;
    if (!takeable(now)) return false;
    const same = (a?: Owner, b?: Owner) => (!a && !b) || (!!a && !!b && a.pid === b.pid && a.host === b.host && a.since === b.since);
    if (!same(now.owner, seen.owner)) return false;
    await new Promise<void>((resolve, reject) => lockFs.rmdir(lockPath, (err) => (err && err.code !== 'ENOENT' ? reject(err) : resolve())));
    return true;
  } finally {
    await rm(marker, { force: true }).catch(() => {});
  }
}

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
    const o = JSON.parse(await readRegularText(join(lockPathOf(file), 'owner.json'))) as Owner;
    if (typeof o?.pid === 'number' && typeof o?.host === 'string') return o;
  } catch {
    /* no owner recorded (yet) */
  }
  return undefined;
}

export interface LockState {
  locked: boolean;
  owner?: Owner;
  /** The owner's pid can be seen from here (same host and PID namespace) and is gone. */
  dead: boolean;
  /** The lock directory's mtime is older than the stale timeout. */
  stale: boolean;
  /** Written on another host: never taken over by staleness alone (see the header). */
  foreign: boolean;
}

/** Whether a lock may be taken over: its owner is seen gone, or it went stale on this host. */
export function takeable(s: LockState): boolean {
  return s.dead || (s.stale && !s.foreign);
}

export async function inspectLock(file: string, staleMs = DEFAULT_STALE_MS): Promise<LockState> {
  let st;
  try {
    st = await stat(lockPathOf(file));
  } catch {
    return { locked: false, dead: false, stale: false, foreign: false };
  }
  const owner = await readOwner(file);
  const dead = !!owner && pidVisible(owner) && !pidAlive(owner.pid);
  const stale = Date.now() - st.mtimeMs > staleMs;
  return { locked: true, owner, dead, stale, foreign: !!owner && owner.host !== hostname() };
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
  const owner: Owner = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    agent: opts.agent,
    ...(PID_NAMESPACE ? { pidns: PID_NAMESPACE } : {}),
  };
  const lockfile = await lockfileLib();
  const attempt = () =>
    lockfile.lock(file, {
      stale: staleMs,
      update: Math.max(1000, Math.floor(staleMs / 3)),
      realpath: false,
      lockfilePath: lockPathOf(file),
      retries: 0,
      fs: lockFsFor(owner),
      onCompromised: (err) => {
        held.compromised = true;
        opts.onLost?.(err);
      },
    });
  // A lock that is there already is judged here (dead owner, or stale), and taken over only
  // under the takeover marker: proper-lockfile's own stale removal is not safe against two
  // processes doing it at once (see takeOver).
  // A refusal names its holder (heldBy): a lock released between two looks is tried again, not
  // refused with nobody named.
  let release: (() => Promise<void>) | undefined;
  for (let tries = 0; !release; tries++) {
    const existing = await inspectLock(file, staleMs);
    if (existing.locked && !(takeable(existing) && (await takeOver(file, staleMs, existing)))) {
      const who = existing.owner ?? (await readOwner(file));
      if (who || tries >= 5) throw lockedError(file, who ?? (await anonymousOwner(file)));
      continue;
    }
    try {
      release = await attempt();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw fromFsError(e, `cannot lock ${file}`);
      const who = await readOwner(file);
      if (who || tries >= 5) throw lockedError(file, who ?? (await anonymousOwner(file)));
    }
  }
  if (!(await readOwner(file))) {
    // The lock was made without its note (see lockFsFor): write it now, as before.
    try {
      // proper-lockfile remembers the directory's mtime and takes any other mtime at its next
      // refresh for a lock taken by someone else: put it back after writing the note.
      const dir = lockPathOf(file);
      const before = await stat(dir);
      await writeFile(join(dir, 'owner.json'), JSON.stringify(owner) + '\n', { mode: 0o600 });
      await utimes(dir, before.atime, before.mtime);
    } catch {
      /* the lock holds without the owner note; takeover then waits for staleness */
    }
  }
  await sweepLeftovers(dirname(file));
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

/** A lock's leftover: a tomb a killed remover left, or a lock (or takeover note) a killed maker was building. */
const LEFTOVER = /\.lock(\.takeover)?\.(gone|new)-\d+-[a-z0-9]+$/;
/** A `.new-` leftover younger than this may be a lock another process is making right now. */
const LEFTOVER_NEW_MS = 60_000;
/** Folders swept lately, and when: a folder is swept at most once a minute by a process. */
const swept = new Map<string, number>();

/**
 * Reliability: the leftovers of a writer killed while it removed or made a lock
 * (`<lock>.gone-*`, `<lock>.new-*`, `<lock>.takeover.new-*`) are removed by the next writer in
 * the folder, not only by `doctor --fix`. A tomb locks nothing and goes at once; a `.new-` one
 * only when older than LEFTOVER_NEW_MS (never one a live maker is about to rename into place).
 * Best effort: what cannot be removed stays for doctor.
 */
export async function sweepLeftovers(dir: string): Promise<void> {
  const now = Date.now();
  if (now - (swept.get(dir) ?? 0) < LEFTOVER_NEW_MS) return;
  swept.set(dir, now);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = LEFTOVER.exec(name);
    if (!m) continue;
    const path = join(dir, name);
    try {
      if (m[2] === 'new' && now - (await stat(path)).mtimeMs < LEFTOVER_NEW_MS) continue;
      await rm(path, { recursive: true, force: true });
    } catch {
      /* gone meanwhile, or not ours to remove: doctor reports it */
    }
  }
}

/**
 * What a refusal names when the lock has no owner note (one made on a full disk, or one another
 * process is making right now): the lock itself, since when it was refreshed.
 */
async function anonymousOwner(file: string): Promise<Partial<Owner> & { agent: string }> {
  const st = await stat(lockPathOf(file)).catch(() => undefined);
  return { agent: 'unknown', ...(st ? { since: st.mtime.toISOString() } : {}) };
}

function lockedError(file: string, owner: Partial<Owner>): StoreError {
  if (owner.host !== undefined && owner.host !== hostname())
    return new StoreError(
      'locked',
      `session is open on ${owner.host} (${owner.agent ?? 'process'} ${owner.pid ?? '?'}); it can still be read`,
      {
        heldBy: owner,
        file,
      },
    );
  const who =
    owner.pid !== undefined
      ? `${owner.agent ?? 'process'} ${owner.pid}${owner.host === hostname() ? (pidVisible(owner) ? '' : ' in another PID namespace') : ` on ${owner.host}`}`
      : 'another process';
  return new StoreError('locked', `session is locked by another window (${who}); it can still be read`, {
    heldBy: owner,
    file,
  });
}
