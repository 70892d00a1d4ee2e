// One listing query for every door: the sidecar's session/list and the MCP server's
// list_sessions and list_projects ask History the same way. Which list (the main one, the
// archived one, or both), in which order (History's: pinned first; or most recent first), the
// filters (project, source tool, last activity since/until, a session left out), and a page
// by opaque cursor or by offset; the page's rows can gain who holds them (`heldBy`), their
// tool's label and continue-in command, and their view (group, relative time) in a zone.
// Plain data in, plain data out: a bad cursor is a CursorError, which each door words.
// Depends on the store (its listing and locks), listing's lifecycle and view, and the tool
// descriptors (import/tools.ts: plain data, no importer loaded) for labels and commands.

import { resumeArgv, toolOf } from '../import/tools.js';
import type { Problem } from '../store/reader.js';
import type { SessionStore } from '../store/store.js';
import type { ColdHooks, History, SessionEntry } from './history.js';
import { newestFirst } from '../store/entries.js';
import { historyOrder } from './lifecycle.js';
import { type RowView, rowView, type Zone } from './view.js';

/** The tool a session belongs to when its meta line names no source: ours. */
export const OWN_TOOL = 'levelcode';

/** Where a session came from: its source tool (ours when none) and that tool's own session id. */
export interface Origin {
  tool: string;
  id?: string;
}

export interface HistoryQuery {
  /** Only this project (its History: its own sessions and those relinked into it). */
  project?: string;
  /** Every project (as when `project` is absent), even when `project` is given. */
  all?: boolean;
  /** 'main' (History's list, the default), 'archived' (the archived list) or 'both'. */
  list?: 'main' | 'archived' | 'both';
  /** 'history' (pinned first, then newest; the default) or 'recent' (newest first). */
  order?: 'history' | 'recent';
  /** Only sessions of this source tool (OWN_TOOL for sessions without a source). */
  source?: string;
  /** Last activity (updatedAt) at or after / at or before these ISO times. */
  since?: string;
  until?: string;
  /** Left out: the session whose id, or whose source's id, this is (a calling agent's own). */
  exclude?: string;
  /** Where the previous page ended (its `nextCursor`). */
  cursor?: string;
  /** Rows skipped (after the cursor's), for doors that page by number. */
  offset?: number;
  limit: number;
}

export interface QueryOptions {
  /** The page's rows another live process owns gain `heldBy` (one lock stat a row). */
  holders?: boolean;
  /** Imported rows gain `sourceLabel` and, where their tool resumes by id, `continueIn`. */
  labels?: boolean;
  /** Rows gain `view`, as seen at `now` (default: the current time) in `zone`. */
  zone?: Zone;
  now?: number;
  /** Awaited once the query is checked, before the listing (the sidecar's start-up auto-archive). */
  waitFor?: Promise<unknown>;
  /**
   * A first page of History may be answered from a cold store before every file is read
   * (History.listFirst; the rest is read in the background, reported to these hooks). Only for
   * a plain first page: no cursor, offset or filter; `total` is then the page's rows.
   */
  early?: ColdHooks;
}

export type QueryRow = SessionEntry & {
  heldBy?: { pid?: number; host?: string };
  sourceLabel?: string;
  continueIn?: { argv: string[]; cwd: string };
  view?: RowView;
};

export interface QueryResult {
  rows: QueryRow[];
  /** Rows matching the filters, in all (before the cursor, the offset and the limit). */
  total: number;
  /** Set when rows follow this page. */
  nextCursor?: string;
  problems: Problem[];
}

/** A page of History: history.list, then the lists, filters and page asked for, then the rows dressed. */
export async function queryHistory(history: History, q: HistoryQuery, o: QueryOptions = {}): Promise<QueryResult> {
  const after = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  await o.waitFor;
  const order = q.order === 'recent' ? newestFirst : historyOrder;
  const list = q.list ?? 'main';
  // A cold first page (no cursor, offset or filter): one row more than the page, to know
  // whether another page follows.
  const plain = !after && !q.offset && q.order !== 'recent' && list !== 'both' && !q.source && !q.since && !q.until && !q.exclude;
  const scope = { project: q.all ? undefined : q.project, all: q.all };
  const listed =
    o.early && plain
      ? await history.listFirst(scope, { limit: q.limit + 1, archived: list === 'archived' }, o.early)
      : await history.list(scope);
  const since = q.since ? Date.parse(q.since) : Number.NEGATIVE_INFINITY;
  const until = q.until ? Date.parse(q.until) : Number.POSITIVE_INFINITY;
  const matching = listed.sessions
    .filter((e) => list === 'both' || e.archived === (list === 'archived'))
    .filter((e) => {
      const t = Date.parse(e.updatedAt);
      return Number.isNaN(t) ? q.since === undefined && q.until === undefined : t >= since && t <= until;
    })
    .filter((e) => allowed(e, q))
    .sort(order);
  const rows = after ? matching.filter((e) => order(e, after) > 0) : matching;
  const offset = q.offset ?? 0;
  const page: QueryRow[] = rows.slice(offset, offset + q.limit);
  const more = rows.length > offset + q.limit;
  let dressed = o.labels ? withSourceTool(page) : page;
  if (o.holders) dressed = await withHolders(history.store, dressed);
  if (o.zone) {
    const now = o.now ?? Date.now();
    const zone = o.zone;
    dressed = dressed.map((r) => ({ ...r, view: rowView(r, now, zone) }));
  }
  return {
    rows: dressed,
    total: matching.length,
    problems: listed.problems,
    ...(more && page.length > 0 ? { nextCursor: encodeCursor(page[page.length - 1]!) } : {}),
  };
}

/** A session's origin, from its History row (the meta line's `source`, as the index keeps it). */
export function originOf(e: Pick<SessionEntry, 'source'>): Origin {
  return e.source ? { tool: e.source.tool, id: e.source.id } : { tool: OWN_TOOL };
}

function allowed(e: SessionEntry, q: HistoryQuery): boolean {
  if (q.source === undefined && q.exclude === undefined) return true;
  const origin = originOf(e);
  if (q.source !== undefined && origin.tool !== q.source) return false;
  return q.exclude === undefined || (e.id !== q.exclude && origin.id !== q.exclude);
}

// Paging: an opaque cursor naming the last row of the previous page, so rows created meanwhile
// (they sort first) never shift the next page.

export function encodeCursor(e: { updatedAt: string; id: string; pinned: boolean }): string {
  return Buffer.from(JSON.stringify([e.updatedAt, e.id, e.pinned])).toString('base64url');
}

/** A cursor this server did not make (a RangeError, for doors that word it). */
export class CursorError extends RangeError {
  constructor() {
    super('not a cursor this server made');
    this.name = 'CursorError';
  }
}

/** A cursor: where the last page ended in the query's order. A string we did not make is a CursorError. */
export function decodeCursor(c: string): { updatedAt: string; id: string; pinned: boolean } {
  try {
    const v = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string')
      return { updatedAt: v[0], id: v[1], pinned: v[2] === true };
  } catch {
    /* fall through */
  }
  throw new CursorError();
}

/**
 * The rows another live process owns get `heldBy` ("live in another window"). One stat of a
 * lock folder a row, for the page only: a listing of the whole store does not look at locks.
 */
async function withHolders<T extends { id: string }>(store: SessionStore, rows: T[]): Promise<(T & Pick<QueryRow, 'heldBy'>)[]> {
  return Promise.all(
    rows.map(async (r) => {
      if (store.holds(r.id)) return r;
      const info = await store.lockInfo(r.id).catch(() => undefined);
      if (!info?.locked || info.byUs) return r;
      return { ...r, heldBy: { ...(info.pid !== undefined ? { pid: info.pid } : {}), ...(info.host ? { host: info.host } : {}) } };
    }),
  );
}

/** Imported rows get their tool's name and, where the tool resumes by id, the command that does. */
function withSourceTool<T extends Pick<SessionEntry, 'source'>>(rows: T[]): (T & Pick<QueryRow, 'sourceLabel' | 'continueIn'>)[] {
  return rows.map((r) => {
    const tool = r.source ? toolOf(r.source.tool) : undefined;
    if (!r.source || !tool) return r;
    const argv = resumeArgv(tool, r.source);
    return { ...r, sourceLabel: tool.label, ...(argv ? { continueIn: { argv, cwd: r.source.project } } : {}) };
  });
}
