// What a History row shows, computed once here for every client: its date group in
// the user's calendar ("Today", "Previous 7 days", ...), its full one-line title, a local time
// label, the source tool's name, the turns and a short model name, and those joined in one
// description line. The three editors draw these strings as they are, so they show the same
// groups, in the same order, with the same words.
// Pure: the caller passes `now` and the time zone (initializationOptions.timeZone); no fs.

import { printable } from '../format/printable.js';

export const VIEW_GROUPS = ['pinned', 'today', 'yesterday', 'week', 'month', 'older', 'archived'] as const;
export type ViewGroup = (typeof VIEW_GROUPS)[number];

export const GROUP_LABELS: Record<ViewGroup, string> = {
  pinned: 'Pinned',
  today: 'Today',
  yesterday: 'Yesterday',
  week: 'Previous 7 days',
  month: 'Previous 30 days',
  older: 'Older',
  archived: 'Archived',
};

export interface RowView {
  group: ViewGroup;
  groupLabel: string;
  title: string;
  time: string;
  source?: string;
  turns: string;
  model?: string;
  description: string;
}

export interface ViewInput {
  title: string;
  updatedAt: string;
  turns: number;
  model: string | null;
  pinned?: boolean;
  archived?: boolean;
  sourceLabel?: string;
}

export const UNTITLED = 'Untitled session';
export const SEPARATOR = ' · ';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const DAY_MS = 86_400_000;

// ---- Time zones ------------------------------------------------------------------------------

/** A time zone: an IANA name (Intl knows its rules) or a fixed offset from UTC in minutes. */
export type Zone = { name: string; format: Intl.DateTimeFormat } | { offsetMinutes: number };

/** Local calendar fields of an instant. */
interface Local {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
}

/**
 * "Europe/Berlin", "UTC", or a fixed offset "+02:00" / "-0530" / "+02"; undefined: the
 * sidecar's own zone. Null for anything else (the caller logs it and uses its own zone).
 */
export function parseZone(spec: string | undefined): Zone | null {
  if (spec === undefined) return ianaZone(Intl.DateTimeFormat().resolvedOptions().timeZone);
  const m = /^([+-])(\d{2})(?::?(\d{2}))?$/.exec(spec.trim());
  if (m) {
    const h = Number(m[2]);
    const min = Number(m[3] ?? 0);
    if (h > 18 || min > 59) return null;
    return { offsetMinutes: (m[1] === '-' ? -1 : 1) * (h * 60 + min) };
  }
  return ianaZone(spec);
}

function ianaZone(name: string): Zone | null {
  try {
    const format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    return { name, format };
  } catch {
    return null;
  }
}

function local(ms: number, zone: Zone): Local {
  if ('offsetMinutes' in zone) {
    const d = new Date(ms + zone.offsetMinutes * 60_000);
    return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes() };
  }
  const f: Record<string, number> = {};
  for (const p of zone.format.formatToParts(ms)) if (p.type !== 'literal') f[p.type] = Number(p.value);
  return { year: f.year!, month: f.month!, day: f.day!, hour: f.hour! % 24, minute: f.minute! };
}

/** "2026-07-28 14:12" in `zone`; "2026-07-28 09:12 UTC" when the zone is UTC itself. */
export function localStamp(ms: number, zone: Zone): string {
  const l = local(ms, zone);
  const p = (n: number) => String(n).padStart(2, '0');
  const utc = 'offsetMinutes' in zone ? zone.offsetMinutes === 0 : /^(Etc\/)?(UTC|GMT|Zulu|UCT|Universal)$/i.test(zone.name);
  return `${l.year}-${p(l.month)}-${p(l.day)} ${p(l.hour)}:${p(l.minute)}${utc ? ' UTC' : ''}`;
}

/** A local date as a day number (days since 1970-01-01 in that calendar): differences are calendar days. */
function dayNumber(l: Local): number {
  return Math.round(Date.UTC(l.year, l.month - 1, l.day) / DAY_MS);
}

// ---- The row ---------------------------------------------------------------------------------

/**
 * The group of a row: pinned and archived by state; else by whole calendar days in the zone
 * between its last message and now: 0 (or a time ahead of the clock) today, 1 yesterday, 2 to 7
 * the previous 7 days, 8 to 30 the previous 30 days, then older.
 */
export function groupOf(days: number, s: Pick<ViewInput, 'pinned' | 'archived'>): ViewGroup {
  if (s.archived) return 'archived';
  if (s.pinned) return 'pinned';
  if (days <= 0) return 'today';
  if (days === 1) return 'yesterday';
  if (days <= 7) return 'week';
  if (days <= 30) return 'month';
  return 'older';
}

/**
 * The time label, by age whatever the group (a pinned row shows its age too): "14:05" today,
 * "Mon 14:05" for 1 to 7 days back, "Nov 28" earlier this year, "Nov 28, 2025" before.
 */
export function timeLabel(at: Local, days: number, nowYear: number): string {
  const hm = `${String(at.hour).padStart(2, '0')}:${String(at.minute).padStart(2, '0')}`;
  if (days <= 0) return hm;
  if (days <= 7) return `${WEEKDAYS[new Date(Date.UTC(at.year, at.month - 1, at.day)).getUTCDay()]} ${hm}`;
  const date = `${MONTHS[at.month - 1]} ${at.day}`;
  return at.year === nowYear ? date : `${date}, ${at.year}`;
}

/** The title on one line: whitespace collapsed, controls made visible, never cut, never empty. */
export function displayTitle(title: string): string {
  return printable(title.replace(/\s+/g, ' ').trim()) || UNTITLED;
}

/** "claude-sonnet-4" for "anthropic/claude-sonnet-4-20250514": no provider, no date stamp. */
export function shortModel(model: string | null): string | undefined {
  if (!model) return undefined;
  const name = model
    .trim()
    .split('/')
    .pop()!
    .replace(/[-@]\d{8}$/, '')
    .replace(/-latest$/, '');
  return name ? printable(name) : undefined;
}

export function turnsLabel(n: number): string {
  return n === 1 ? '1 turn' : `${n} turns`;
}

/** The view of one row, seen at `now` in `zone`. */
export function rowView(s: ViewInput, now: number, zone: Zone): RowView {
  const t = Date.parse(s.updatedAt);
  const today = local(now, zone);
  const at = Number.isNaN(t) ? undefined : local(t, zone);
  const days = at ? dayNumber(today) - dayNumber(at) : Number.POSITIVE_INFINITY;
  const group = groupOf(days, s);
  const time = at ? timeLabel(at, days, today.year) : 'unknown time';
  const source = s.sourceLabel ? printable(s.sourceLabel) : undefined;
  const turns = turnsLabel(s.turns);
  const model = shortModel(s.model);
  const description = [source, time, turns, model].filter((x) => x !== undefined).join(SEPARATOR);
  return {
    group,
    groupLabel: GROUP_LABELS[group],
    title: displayTitle(s.title),
    time,
    ...(source ? { source } : {}),
    turns,
    ...(model ? { model } : {}),
    description,
  };
}
