// Groups History entries by when they were last talked in, as VS Code's own chat list does:
// Today, Yesterday, Previous 7 days, Previous 30 days, then one group per calendar month, in the
// user's local calendar (not rolling 24-hour windows: "yesterday" at 00:30 means the day before).
// Pinned chats come first, in a group of their own, whatever their age; archived chats, when the
// view shows them, come last in an "Archived" group.
// Pure: no `vscode` import, no clock of its own (callers pass `now`), so it is unit-tested.

import { S } from '../strings';

/** 'pinned' | 'today' | 'yesterday' | 'last7' | 'last30' | 'month:YYYY-MM' | 'unknown' | 'archived'. */
export type GroupKey = string;

export interface Dated {
  /** ISO 8601 time of the last message. */
  updatedAt: string;
  /** Pinned chats are grouped first (the sidecar's `pinned`). */
  pinned?: boolean;
}

export interface Group<T> {
  key: GroupKey;
  items: T[];
}

/** Local midnight of the day `d` falls on. */
export function startOfDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

/** `d` moved by whole calendar days (DST-safe: goes through the calendar, not milliseconds). */
export function addDays(d: Date, days: number): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + days);
}

/** Which group a time belongs to, seen at `now`. Future times count as today. */
export function groupOf(updatedAt: string, now: Date): GroupKey {
  const t = Date.parse(updatedAt);
  if (Number.isNaN(t)) return 'unknown';
  const today = startOfDay(now);
  if (t >= today.getTime()) return 'today';
  if (t >= addDays(today, -1).getTime()) return 'yesterday';
  if (t >= addDays(today, -7).getTime()) return 'last7';
  if (t >= addDays(today, -30).getTime()) return 'last30';
  const d = new Date(t);
  return `month:${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

const NAMED: Record<string, string> = {
  pinned: S.groups.pinned,
  archived: S.groups.archived, today: S.groups.today, yesterday: S.groups.yesterday, last7: S.groups.last7, last30: S.groups.last30, unknown: S.groups.unknown };

/** A group's heading: "Today" ... "Previous 30 days", "October" (this year), "October 2025". */
export function groupLabel(key: GroupKey, now: Date): string {
  const m = /^month:(\d{4})-(\d{2})$/.exec(key);
  if (!m) return NAMED[key] ?? key;
  const name = S.groups.months[Number(m[2]) - 1];
  return Number(m[1]) === now.getFullYear() ? name : `${name} ${m[1]}`;
}

/**
 * Sorts newest first (updatedAt, then id, as the sidecar does) and splits into the non-empty
 * groups: Pinned first, then newest group first (unreadable times last), then the `archived`
 * ones (newest first) in one Archived group when there are any.
 */
export function groupSessions<T extends Dated & { id: string }>(items: readonly T[], now: Date, archived: readonly T[] = []): Group<T>[] {
  const byKey = new Map<GroupKey, T[]>();
  if (items.some((i) => i.pinned)) byKey.set('pinned', []);
  for (const item of [...items].sort(newestFirst)) {
    const key = item.pinned ? 'pinned' : groupOf(item.updatedAt, now);
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push(item);
  }
  const unknown = byKey.get('unknown');
  byKey.delete('unknown');
  const out = [...byKey].map(([key, list]) => ({ key, items: list }));
  if (unknown) out.push({ key: 'unknown', items: unknown });
  if (archived.length) out.push({ key: 'archived', items: [...archived].sort(newestFirst) });
  return out;
}

/** Newest first: later updatedAt first, then the larger id (ids start with their birth time). */
export function newestFirst(a: Dated & { id: string }, b: Dated & { id: string }): number {
  const ta = Date.parse(a.updatedAt);
  const tb = Date.parse(b.updatedAt);
  const na = Number.isNaN(ta) ? -Infinity : ta;
  const nb = Number.isNaN(tb) ? -Infinity : tb;
  if (na !== nb) return nb - na;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
