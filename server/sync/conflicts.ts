// Syncthing's conflict copies of sessions, made whole again with nothing lost.
//
// Two devices that append to one session while apart leave, once they meet, the newer file
// under the session's name and the other as `<id>.sync-conflict-<date>-<time>-<device>.jsonl`.
// Both are sessions (the copy is read like any session: meta line, then events), and the two
// share a prefix (what was synced before they parted). We compare their event lines (each
// normalised by serializeLine, the one way a line is written) and:
//   - every event of the copy is in the session already (a prefix, an equal copy, or one a
//     device resolved before): nothing to add;
//   - the session is a prefix of the copy, or what the copy adds is only titles, pins and
//     archive markers (`title` and `event` lines, which merge: the latest wins): those events
//     are appended to the session (an append, never a rewrite);
//   - they diverge in messages: the copy becomes a fork, "continued on <device>": a new session
//     with all the copy's events (both chats complete), `forkedFrom: {id, turn, device}` where
//     turn is the last turn they share, then a `forked` marker. Its id and every line of it are
//     derived from the copy's content, so two devices that resolve the same conflict write the
//     same file, and a conflict between those two writes is an equal copy (first case).
// Only then is the copy moved to the OS trash: never before its content is in the store. A copy
// whose session is gone (deleted on one device) is linked back under the session's name.
// One resolver at a time a copy: it works under the copy's own lock (lock.ts), which the
// ignore file keeps on this device. A copy that changed while it was read is left for the
// next pass. Depends on the store; nothing of JSON-RPC.

import { createHash } from 'node:crypto';
import { link, lstat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { serializeLine, SessionEvent, SCHEMA_VERSION, type MetaLine } from '../format/events.js';
import { constants, readdirSync } from 'node:fs';
import { openRegular, readRegularText } from '../store/files.js';
import { acquireLock } from '../store/lock.js';
import { isStoreError } from '../store/errors.js';
import { isTurn } from '../store/reader.js';
import type { SessionStore } from '../store/store.js';
import { parseConflictName } from './names.js';
import { copyDeviceLabel } from './syncthing.js';

export type ConflictAction = 'absorbed' | 'appended' | 'merged' | 'forked' | 'restored' | 'pending';

export interface ConflictOutcome {
  file: string;
  id: string;
  action: ConflictAction;
  /** The fork made (or found made) for a diverging copy. */
  fork?: string;
  /** Events appended to the session (appended, merged) or copied into the fork. */
  events?: number;
  /** Why a copy stays (pending): locked, unreadable, changed while read. */
  reason?: string;
}

interface Copy {
  meta: MetaLine;
  /** The valid event lines after the meta line, normalised, in order (torn and bad lines left out). */
  keys: string[];
  events: SessionEvent[];
  size: number;
  mtimeMs: number;
}

/** Every conflict copy of a session in the store's project folders. */
export async function findConflicts(store: SessionStore): Promise<string[]> {
  const out: string[] = [];
  for (const dir of await store.projectDirs()) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) if (n.includes('.sync-conflict-') && parseConflictName(n)) out.push(join(dir, n));
  }
  return out.sort();
}

/** Resolves every conflict copy in the store; one outcome a copy. */
export async function resolveAll(store: SessionStore, o: ResolveOptions = {}): Promise<ConflictOutcome[]> {
  const out: ConflictOutcome[] = [];
  for (const f of await findConflicts(store)) out.push(await resolveConflict(store, f, o));
  return out;
}

export interface ResolveOptions {
  /** The copy's device from the short id in its name, the winner's (default: syncthing.ts copyDeviceLabel). */
  label?: (short: string) => string;
  /** Moves a resolved copy away (default: the OS trash). */
  discard?: (file: string) => Promise<void>;
}

async function toTrash(file: string): Promise<void> {
  const { default: trash } = await import('trash');
  await trash([file], { glob: false });
}

/** Reads a copy's meta line and its valid events; undefined when it has no meta line. */
async function readCopy(file: string): Promise<Copy | undefined> {
  const fh = await openRegular(file);
  let buf: Buffer;
  let st;
  try {
    st = await fh.stat();
    buf = await fh.readFile();
  } finally {
    await fh.close();
  }
  const text = buf.toString('utf8');
  const lines = text.split('\n');
  lines.pop(); // the part after the last newline: empty, or a torn line (never acknowledged)
  let meta: MetaLine | undefined;
  try {
    const m = JSON.parse(lines[0] ?? '');
    if (m && m.kind === 'meta' && typeof m.id === 'string') meta = m as MetaLine;
  } catch {
    /* no meta line */
  }
  if (!meta) return undefined;
  const keys: string[] = [];
  const events: SessionEvent[] = [];
  for (const line of lines.slice(1)) {
    if (!line.trim()) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      continue;
    }
    if (!ev || typeof ev !== 'object' || Array.isArray(ev)) continue;
    const o = ev as Record<string, unknown>;
    if (typeof o.kind !== 'string' || o.kind === 'meta' || !SessionEvent.safeParse(o).success) continue;
    keys.push(serializeLine(o));
    events.push(o as SessionEvent);
  }
  return { meta, keys, events, size: st.size, mtimeMs: st.mtimeMs };
}

/** Lines that merge by being appended: a title, a pin or archive marker (the latest wins). */
function mergeable(e: SessionEvent): boolean {
  return e.kind === 'title' || e.kind === 'event';
}

/**
 * The fork's id, from the copy's content: its time is the first diverging event's (UTC, as
 * every id's), its four characters a hash of the session id and the copy's events.
 */
export function forkIdOf(id: string, keys: string[], firstDivergingT: string | undefined): string {
  const h = createHash('sha256').update(id);
  for (const k of keys) h.update('\n').update(k);
  const digest = h.digest();
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let tail = '';
  for (let i = 0; i < 4; i++) tail += alphabet[digest[i]! % alphabet.length];
  let t = firstDivergingT ? new Date(firstDivergingT) : new Date(NaN);
  if (Number.isNaN(t.getTime())) t = new Date(0);
  const stamp = t.toISOString().slice(0, 19).replace(/:/g, '-');
  return `${stamp}-${tail}`;
}

/** Resolves one conflict copy (see the header). Never throws for a copy it cannot settle yet. */
export async function resolveConflict(store: SessionStore, file: string, o: ResolveOptions = {}): Promise<ConflictOutcome> {
  const parsed = parseConflictName(basename(file));
  const id = parsed?.base ?? '';
  const pending = (reason: string): ConflictOutcome => ({ file, id, action: 'pending', reason });
  if (!parsed) return pending('not a conflict copy of a session');
  let held;
  try {
    held = await acquireLock(file, { agent: 'sync', staleMs: 30_000 });
  } catch (e) {
    return pending(isStoreError(e, 'locked') ? 'another process is resolving it' : (e as Error).message);
  }
  try {
    if (id === 'relinks') return await resolveRelinks(file, o.discard ?? toTrash);
    return await resolveHeld(store, file, id, parsed.device, o);
  } catch (e) {
    return pending((e as Error).message);
  } finally {
    await held.release();
  }
}

async function resolveHeld(store: SessionStore, file: string, id: string, short: string, o: ResolveOptions): Promise<ConflictOutcome> {
  const discard = o.discard ?? toTrash;
  const copy = await readCopy(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (copy === null) return { file, id, action: 'absorbed', reason: 'already gone' };
  if (!copy || copy.meta.id !== id) return { file, id, action: 'pending', reason: 'no meta line of this session: left as it is' };
  // The copy is ours to discard only as it was read: a write that reached it since is read next time.
  const unchanged = async () => {
    const st = await lstat(file).catch(() => undefined);
    return !!st && st.size === copy.size && st.mtimeMs === copy.mtimeMs;
  };
  const done = async (out: ConflictOutcome): Promise<ConflictOutcome> => {
    if (!(await unchanged())) return { file, id, action: 'pending', reason: 'changed while it was read: read again next time' };
    await discard(file);
    return out;
  };

  let mainFile: string | undefined;
  try {
    mainFile = await store.pathOf(id);
  } catch (e) {
    if (!isStoreError(e, 'unknown-session')) throw e;
  }
  if (!mainFile) {
    // Modified on one device, deleted on another: the copy is all there is. Linked back under
    // the session's name (exclusively: a session that appears meanwhile is compared next time),
    // but not in the moment after Syncthing renamed it: the new file may be on its way.
    const st = await lstat(file);
    if (Date.now() - st.ctimeMs < 10_000) return { file, id, action: 'pending', reason: 'just made; the session may be on its way' };
    const target = join(dirname(file), `${id}.jsonl`);
    try {
      await link(file, target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return { file, id, action: 'pending', reason: 'the session appeared meanwhile' };
      throw e;
    }
    return done({ file, id, action: 'restored', events: copy.keys.length });
  }

  const main = await readCopy(mainFile);
  if (!main) return { file, id, action: 'pending', reason: `${mainFile} has no meta line` };
  const have = new Set(main.keys);
  const missing: number[] = [];
  copy.keys.forEach((k, i) => {
    if (!have.has(k)) missing.push(i);
  });
  if (missing.length === 0) return done({ file, id, action: 'absorbed' });

  let shared = 0;
  while (shared < main.keys.length && shared < copy.keys.length && main.keys[shared] === copy.keys[shared]) shared++;
  const isPrefix = shared === main.keys.length;
  if (isPrefix || missing.every((i) => mergeable(copy.events[i]!))) {
    await appendWhole(
      store,
      id,
      missing.map((i) => copy.events[i]),
    );
    return done({ file, id, action: isPrefix ? 'appended' : 'merged', events: missing.length });
  }

  // Diverged in messages: the copy becomes a fork of the session at the last turn they share.
  const forkId = forkIdOf(id, copy.keys, copy.events[shared]?.t);
  const device = (o.label ?? copyDeviceLabel)(short);
  const turn = copy.events.slice(0, shared).filter(isTurn).length;
  const meta: MetaLine = {
    kind: 'meta',
    v: SCHEMA_VERSION,
    id: forkId,
    project: copy.meta.project,
    createdAt: new Date(forkId.slice(0, 10) + 'T' + forkId.slice(11, 19).replace(/-/g, ':') + 'Z').toISOString(),
    title: null,
    ...(typeof copy.meta.model === 'string' ? { model: copy.meta.model } : {}),
    forkedFrom: { id, turn, device },
    ...(copy.meta.repo ? { repo: copy.meta.repo } : {}),
    device,
  };
  const last = copy.events[copy.events.length - 1];
  const marker = {
    kind: 'event',
    t: last?.t ?? meta.createdAt,
    type: 'forked',
    from: id,
    throughSeq: shared - 1,
    atTurn: turn,
    reason: 'sync-conflict',
    device,
  };
  const created = await store.createImported(meta);
  const forkFile = await store.pathOf(forkId);
  const now = await readCopy(forkFile);
  const held = new Set(now?.keys ?? []);
  const wanted = [...copy.events, marker] as Record<string, unknown>[];
  const lacking = wanted.filter((e) => !held.has(serializeLine(e)));
  if (!created && lacking.length === wanted.length && now && now.keys.length > 0)
    return { file, id, action: 'pending', reason: `fork ${forkId} exists with other content` };
  if (lacking.length > 0) await appendWhole(store, forkId, lacking);
  return done({ file, id, action: 'forked', fork: forkId, events: copy.events.length });
}

/**
 * A conflict copy of a folder's relinks.jsonl (relinks.ts: append-only records of relinked
 * folders): the records it has that the file lacks are appended, then the copy is discarded.
 */
async function resolveRelinks(file: string, discard: (f: string) => Promise<void>): Promise<ConflictOutcome> {
  const target = join(dirname(file), 'relinks.jsonl');
  const whole = (t: string) =>
    t
      .split('\n')
      .slice(0, -1)
      .filter((l) => l.trim() !== '');
  const copy = whole(await readRegularText(file));
  const now = await readRegularText(target).catch(() => '');
  const have = new Set(whole(now));
  const missing = copy.filter((l) => !have.has(l));
  if (missing.length > 0) {
    const fh = await openRegular(target, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
    try {
      // A torn last record (never acknowledged) is stepped over, as the store does.
      await fh.write((now && !now.endsWith('\n') ? '\n' : '') + missing.map((l) => `${l}\n`).join(''));
      await fh.sync();
    } finally {
      await fh.close();
    }
  }
  await discard(file);
  return { file, id: 'relinks', action: missing.length ? 'merged' : 'absorbed', events: missing.length };
}

/**
 * Appends for the resolver: a session this store held for a window stays held; one it opened
 * only for this is let go at once. A file Syncthing replaced behind a held descriptor is
 * refused by the store (nothing written); it is opened again and tried once more.
 */
async function appendWhole(store: SessionStore, id: string, events: unknown[]): Promise<void> {
  try {
    await store.append(id, events, { borrow: true });
  } catch (e) {
    if (!isStoreError(e, 'io') || !/behind this process/.test((e as Error).message)) throw e;
    await store.append(id, events, { borrow: true });
  }
}

/** The device-free words of an outcome, for the CLI and the sidecar's log. */
export function describeOutcome(r: ConflictOutcome): string {
  const name = basename(r.file);
  switch (r.action) {
    case 'absorbed':
      return `${name}: already in session ${r.id}; moved to the trash`;
    case 'appended':
      return `${name}: ${r.events} event(s) appended to session ${r.id} (the longer copy wins); moved to the trash`;
    case 'merged':
      return `${name}: ${r.events} title/pin/archive event(s) merged into session ${r.id}; moved to the trash`;
    case 'forked':
      return `${name}: diverged from session ${r.id}: kept whole as fork ${r.fork}; moved to the trash`;
    case 'restored':
      return `${name}: session ${r.id} was deleted elsewhere and changed here: brought back`;
    case 'pending':
      return `${name}: left for now (${r.reason})`;
  }
}
