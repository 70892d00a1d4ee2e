// What a History entry says: its label, its description ("5 min · 3 turns · claude-sonnet-4"),
// its tooltip text, and relative times. Pure: no `vscode` import and no clock of its own (callers
// pass `now`); the words come from strings.ts so that every user-visible string lives there.

import { S } from '../strings';

export interface SummaryLike {
  id: string;
  title: string;
  titled?: boolean;
  createdAt: string;
  updatedAt: string;
  turns: number;
  model: string | null;
  preview: string;
  project?: string;
  /** An imported session's tool, as people know it ("Claude Code"). */
  sourceLabel?: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Short, as VS Code's chat list: "now", "5 min", "3 h", "2 d", "3 wk", then the date ("12 Mar"
 * this year, "12 Mar 2024" before); `long` spells them out for screen readers ("5 minutes ago").
 * Days are calendar days, as in group.ts; no word repeats a group's heading ("yesterday").
 */
export function relativeTime(iso: string, now: Date, long = false): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return S.time.unknown;
  const w = long ? S.time.long : S.time;
  const diff = now.getTime() - t;
  if (diff < MINUTE) return w.justNow; // also a clock a little ahead
  if (diff < HOUR) return w.minutesAgo(Math.floor(diff / MINUTE));
  const then = new Date(t);
  const days = calendarDaysBetween(then, now);
  if (days === 0) return w.hoursAgo(Math.floor(diff / HOUR));
  if (days < 7) return w.daysAgo(days);
  if (days <= 30) return w.weeksAgo(Math.floor(days / 7));
  return shortDate(then, now);
}

/** Whole calendar days from `a` to `b` in local time (0 = same day). */
export function calendarDaysBetween(a: Date, b: Date): number {
  const da = Date.UTC(a.getFullYear(), a.getMonth(), a.getDate());
  const db = Date.UTC(b.getFullYear(), b.getMonth(), b.getDate());
  return Math.round((db - da) / DAY);
}

/** "12 Mar", or "12 Mar 2024" for another year. Month names from strings.ts, no locale lookup. */
export function shortDate(d: Date, now: Date): string {
  const base = `${d.getDate()} ${S.time.months[d.getMonth()]}`;
  return d.getFullYear() === now.getFullYear() ? base : `${base} ${d.getFullYear()}`;
}

/** "2026-07-28 09:12" in local time, for tooltips. */
export function localStamp(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** The item's label: the title, on one line, never empty. */
export function itemLabel(s: SummaryLike): string {
  const one = s.title.replace(/\s+/g, ' ').trim();
  return one || S.history.untitled;
}

/** The item's description: relative time · turns · model (when known) · the source tool (an imported session). */
export function itemDescription(s: SummaryLike, now: Date, long = false): string {
  const parts = [relativeTime(s.updatedAt, now, long), S.history.turns(s.turns)];
  if (s.model) parts.push(s.model);
  if (s.sourceLabel) parts.push(s.sourceLabel);
  return parts.join(S.history.separator);
}

/** Tooltip lines (plain text; the view renders them as Markdown with the title in bold). */
export function tooltipLines(s: SummaryLike): { title: string; preview: string; facts: string[] } {
  const facts = [
    S.history.tooltipUpdated(localStamp(s.updatedAt)),
    S.history.tooltipCreated(localStamp(s.createdAt)),
    S.history.turns(s.turns) + (s.model ? `${S.history.separator}${s.model}` : ''),
    ...(s.project ? [S.history.tooltipProject(s.project)] : []),
    S.history.tooltipId(s.id),
    ...(s.sourceLabel ? [S.history.tooltipSource(s.sourceLabel)] : []),
  ];
  return { title: itemLabel(s), preview: s.preview.trim(), facts };
}

/** A line for screen readers: the label and the description in one sentence. */
export function accessibilityLabel(s: SummaryLike, now: Date): string {
  return `${itemLabel(s)}, ${itemDescription(s, now, true)}`;
}

/** A file name for "Export as Markdown": the title made safe for any file system. */
export function exportFileName(s: Pick<SummaryLike, 'title' | 'id'>): string {
  const base = s.title
    .normalize('NFKC')
    .replace(/[\u0000-\u001f<>:"/\\|?*\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[. ]+$/, '')
    .slice(0, 80)
    .trim();
  return `${base || s.id}.md`;
}
