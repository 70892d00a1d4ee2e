// Retention and auto-archive: which sessions fall out of History, and what is done with them.
// Nothing is deleted silently: the sweep archives (an `archive` event with `auto: true` and its
// reason, reversible with unarchive); deleting (to the OS trash, as delete does) happens only when
// asked for by name (`retention --delete`, `session/retention` with `delete: true`), and a dry
// run answers the same plan without acting. Pinned sessions never fall out; a session live in a
// window (locked) or of a newer schema is skipped and said so.
//
// The rules, per project, counted from each session's last activity (lifecycle.ts lastActive):
//   idle      archived after `idleDays` without activity (auto-archive; the default is 30)
//   max-age   older than `maxAgeDays`: archived (deleted with `delete`)
//   keep      beyond the newest `keep` sessions: archived (deleted with `delete`); archiving
//             counts the main list, deleting every session of the project, archived included.
// Depends on lifecycle.ts, and on the store for lock checks and appends (passed in).

import type { History, SessionEntry } from './history.js';
import type { SessionStore } from '../store/store.js';
import { lastActive, setArchived, type ArchiveReason } from './lifecycle.js';
import { SCHEMA_VERSION } from '../format/events.js';

export const DEFAULT_IDLE_DAYS = 30;
const DAY_MS = 86_400_000;

/** A rule's value as given (a count or days; 0 is off) over its default; null is off. */
export const ruleValue = (n: number | undefined, dflt: number | null): number | null => (n === undefined ? dflt : n === 0 ? null : n);

export interface RetentionSettings {
  /** Auto-archive after this many idle days; null: off. */
  idleDays: number | null;
  /** The most sessions kept per project; null: no limit. */
  keep: number | null;
  /** The oldest age kept, in days; null: no limit. */
  maxAgeDays: number | null;
  /** Delete (to the OS trash) what keep and max-age let go, instead of archiving it. */
  delete: boolean;
}

export interface RetentionItem {
  id: string;
  project: string;
  title: string;
  action: 'archive' | 'delete';
  reason: ArchiveReason;
  lastActive: string;
  /** Set when the session was left alone: why (locked, a newer schema, an error). */
  skipped?: string;
}

export interface RetentionReport {
  dryRun: boolean;
  settings: RetentionSettings;
  /** What was done (or, in a dry run, would be). */
  done: RetentionItem[];
  /** What falls out but was left alone, with why. */
  skipped: RetentionItem[];
}

/** What falls out of History under `s` at time `now` (ms), per project, oldest last. */
export function planRetention(rows: SessionEntry[], s: RetentionSettings, now: number): RetentionItem[] {
  const byProject = new Map<string, SessionEntry[]>();
  for (const r of rows) if (!r.pinned) byProject.set(r.project, [...(byProject.get(r.project) ?? []), r]);
  const out: RetentionItem[] = [];
  for (const group of byProject.values()) {
    const active = (r: SessionEntry) =>
      lastActive({
        updatedAt: r.updatedAt,
        unarchivedAt: r.unarchivedAt ?? null,
        forkMadeAt: r.forkedFrom ? r.createdAt : undefined,
        importedAt: r.importedAt,
      });
    const ranked = group
      .map((r) => ({ r, at: active(r), age: (now - Date.parse(active(r))) / DAY_MS }))
      .sort((a, b) => Date.parse(b.at) - Date.parse(a.at) || (a.r.id < b.r.id ? 1 : -1));
    let rank = 0;
    for (const { r, at, age } of ranked) {
      // Deleting counts every session of the project; archiving, those still in the main list.
      const counted = s.delete || !r.archived;
      const over = counted && s.keep !== null && rank++ >= s.keep;
      const old = s.maxAgeDays !== null && age > s.maxAgeDays;
      const idle = s.idleDays !== null && age > s.idleDays;
      const reason: ArchiveReason | null = old ? 'max-age' : over ? 'keep' : idle ? 'idle' : null;
      if (!reason) continue;
      const action = s.delete && reason !== 'idle' ? 'delete' : 'archive';
      if (action === 'archive' && r.archived) continue;
      out.push({ id: r.id, project: r.project, title: r.title, action, reason, lastActive: at });
    }
  }
  return out;
}

/**
 * Plans and (unless `dryRun`) carries out retention over the sessions `history.list` gives for
 * `scope`. A dry run checks what the real run checks (locks, schema versions), so that it names
 * exactly what the run then does.
 */
export async function runRetention(
  history: History,
  o: { scope: { project?: string; all?: boolean }; settings: RetentionSettings; dryRun: boolean; now?: number },
): Promise<RetentionReport> {
  const { store } = history;
  const { sessions } = await history.list(o.scope);
  const report: RetentionReport = { dryRun: o.dryRun, settings: o.settings, done: [], skipped: [] };
  const byId = new Map(sessions.map((r) => [r.id, r]));
  for (const item of planRetention(sessions, o.settings, o.now ?? Date.now())) {
    const why = await leftAlone(store, item.id, byId.get(item.id)?.v ?? SCHEMA_VERSION);
    if (why) {
      report.skipped.push({ ...item, skipped: why });
      continue;
    }
    if (!o.dryRun) {
      try {
        await carryOut(store, item);
      } catch (e) {
        report.skipped.push({ ...item, skipped: (e as Error).message });
        continue;
      }
    }
    report.done.push(item);
  }
  return report;
}

/** Why a session that falls out is not touched, if it is not: live in a window, a newer schema. */
async function leftAlone(store: SessionStore, id: string, v: number): Promise<string | undefined> {
  if (v > SCHEMA_VERSION) return `written by a newer schema version (${v})`;
  const lock = await store.lockInfo(id);
  if (lock.locked) return lock.byUs ? 'open in this window' : `live in another window${lock.pid ? ` (pid ${lock.pid})` : ''}`;
  return undefined;
}

async function carryOut(store: SessionStore, item: RetentionItem): Promise<void> {
  if (item.action === 'delete') return store.delete(item.id);
  // Held only for this write: a session a request of this process holds (or claims meanwhile) stays held.
  await setArchived(store, item.id, true, { auto: true, reason: item.reason, borrow: true });
}
