// Groups History entries by when they were last used: Today, Yesterday, This week, Older, in the
// user's local calendar (not rolling 24-hour windows: "yesterday" at 00:30 means the day before).
// Pure: no `vscode` import, no clock of its own (callers pass `now`), so it is unit-tested.

export type GroupKey = 'today' | 'yesterday' | 'thisWeek' | 'older';

/** Display order of the groups. */
export const GROUP_ORDER: readonly GroupKey[] = ['today', 'yesterday', 'thisWeek', 'older'];

export interface Dated {
  /** ISO 8601 time of the last event. */
  updatedAt: string;
}

export interface Group<T> {
  key: GroupKey;
  items: T[];
}

export interface GroupOptions {
  /** First day of the week, 0 = Sunday ... 6 = Saturday. Default 1 (Monday, ISO 8601). */
  weekStart?: number;
}

/** Local midnight of the day `d` falls on. */
export function startOfDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

/** `d` moved by whole calendar days (DST-safe: goes through the calendar, not milliseconds). */
export function addDays(d: Date, days: number): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + days);
}

/** Which group a time belongs to, seen at `now`. Unparsable and future times count as today. */
export function groupOf(updatedAt: string, now: Date, opts: GroupOptions = {}): GroupKey {
  const t = Date.parse(updatedAt);
  if (Number.isNaN(t)) return 'older';
  const today = startOfDay(now);
  if (t >= today.getTime()) return 'today';
  const yesterday = addDays(today, -1);
  if (t >= yesterday.getTime()) return 'yesterday';
  const weekStart = opts.weekStart ?? 1;
  const back = (today.getDay() - weekStart + 7) % 7;
  const startOfWeek = addDays(today, -back);
  if (t >= startOfWeek.getTime()) return 'thisWeek';
  return 'older';
}

/**
 * Sorts newest first (updatedAt, then id, as the sidecar does) and splits into the non-empty
 * groups, in GROUP_ORDER.
 */
export function groupSessions<T extends Dated & { id: string }>(items: readonly T[], now: Date, opts: GroupOptions = {}): Group<T>[] {
  const sorted = [...items].sort(newestFirst);
  const byKey = new Map<GroupKey, T[]>();
  for (const item of sorted) {
    const key = groupOf(item.updatedAt, now, opts);
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push(item);
  }
  return GROUP_ORDER.filter((k) => byKey.has(k)).map((key) => ({ key, items: byKey.get(key)! }));
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
