// Pins and archive: a session's place in History, from events appended to it (never a flag
// rewritten in place, never a side file). `{"kind":"event","type":"pin"}` and `unpin`,
// `archive` (with `auto: true` and a `reason` when the sweep made it) and `unarchive`: the latest
// of each pair wins (store/reader.ts folds them into the index), and a message appended after an
// archive brings the session back. They are `event` lines, the kind for
// "something that happened to the session", so a sidecar older than them reads them as markers it
// passes over: it still lists and reads the session with no problem reported (protocol.md).
//
// The order of History: pinned sessions first, then newest first (updatedAt, then id). Archived
// sessions leave the main list and are listed on their own (`list --archived`).
// setPinned and setArchived append through the store; the rest is plain data. Depends on
// store/entries.ts's newestFirst and SessionStore's type.

import { newestFirst } from '../store/entries.js';
import type { SessionStore } from '../store/store.js';

export const LIFECYCLE_TYPES = ['pin', 'unpin', 'archive', 'unarchive'] as const;
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];

/** Why the sweep archived a session (retention.ts). */
export type ArchiveReason = 'idle' | 'max-age' | 'keep';

/** The event to append for a change of state. */
export function lifecycleEvent(type: LifecycleType, o: { auto?: boolean; reason?: ArchiveReason } = {}): Record<string, unknown> {
  return { kind: 'event', type, ...(o.auto ? { auto: true } : {}), ...(o.reason ? { reason: o.reason } : {}) };
}

/**
 * Pins or unpins a session: appends a `pin` or `unpin` event, unless it is so already (then
 * nothing is written, and no lock is needed). Whether it appended. `borrow`: see
 * SessionStore.append.
 */
export async function setPinned(store: SessionStore, id: string, pinned: boolean, o: { borrow?: boolean } = {}): Promise<boolean> {
  if ((await store.entry(id)).pinned === pinned) return false;
  await store.append(id, [lifecycleEvent(pinned ? 'pin' : 'unpin')], o);
  return true;
}

/** Archives or unarchives a session the same way (`auto`, `reason`: what the sweep records). */
export async function setArchived(
  store: SessionStore,
  id: string,
  archived: boolean,
  o: { auto?: boolean; reason?: ArchiveReason; borrow?: boolean } = {},
): Promise<boolean> {
  if ((await store.entry(id)).archived === archived) return false;
  const { borrow, ...why } = o;
  await store.append(id, [lifecycleEvent(archived ? 'archive' : 'unarchive', archived ? why : {})], { borrow });
  return true;
}

interface Ordered {
  updatedAt: string;
  id: string;
  pinned?: boolean;
}

/** History's order: pinned first, then newest first. */
export function historyOrder(a: Ordered, b: Ordered): number {
  if (!!a.pinned !== !!b.pinned) return a.pinned ? -1 : 1;
  return newestFirst(a, b);
}

/** The rows of the main list (or, with `archived`, of the archived list), in History's order. */
export function arrange<T extends Ordered & { archived?: boolean }>(rows: T[], o: { archived?: boolean } = {}): T[] {
  return rows.filter((r) => !!r.archived === !!o.archived).sort(historyOrder);
}

/**
 * When a session was last active, for the idle and age rules: its last message, or the time it
 * was last unarchived if later (a session brought back is not archived again the next minute),
 * or for a fork the time it was made (its copied messages may be old).
 */
export function lastActive(e: { updatedAt: string; unarchivedAt: string | null; forkMadeAt?: string; importedAt?: string }): string {
  let at = e.updatedAt;
  for (const t of [e.unarchivedAt, e.forkMadeAt, e.importedAt]) if (t && Date.parse(t) > Date.parse(at)) at = t;
  return at;
}
