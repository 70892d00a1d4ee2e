// A cold History's first page: the rows a listing shows first, known before every session file
// is read. With no usable index.json, knowing a session's row means reading its whole file; a
// store of thousands of sessions takes seconds to read, and the first screen needs a few dozen.
//
// The files to read are taken newest mtime first. A session file's mtime is no earlier than its
// last message (protocol.md "Layout"), so once the page holds `limit` rows and its
// last row's last message is later than the mtime of every file not yet read, no unread file can
// take a place on it by date. The page is then exact but for what only an unread file's own
// events could say: that it is pinned (it would go on top) or that its mtime is earlier than its
// last message. The caller completes the listing afterwards and tells the user when the page
// it showed differs (history.ts listSessions, ListingCache.listFirst).
// Depends on ./lifecycle (History's order) and ../store/entries (entries and their jobs).

import type { EntryJob, IndexEntry } from '../store/entries.js';
import { historyOrder } from './lifecycle.js';

export interface PageAsk {
  /** Rows on the page. */
  limit: number;
  /** The archived list's page instead of the main list's. */
  archived?: boolean;
  /** Which entries are the listing's (a project's); all when absent. */
  keep?: (e: IndexEntry) => boolean;
}

/** The entries of a page, in History's order, from `entries` (every one known): the main or archived list. */
export function pageOf<T extends { archived: boolean; pinned: boolean; updatedAt: string; id: string }>(
  entries: Iterable<T>,
  ask: PageAsk,
): T[] {
  const rows: T[] = [];
  for (const e of entries) if (e.archived === !!ask.archived) rows.push(e);
  return rows.sort(historyOrder).slice(0, ask.limit);
}

/** Whether no file of mtime `nextMtimeNs` or older can take a place on `page` by date. */
export function pageSettled(page: IndexEntry[], ask: PageAsk, nextMtimeNs: bigint | undefined): boolean {
  if (nextMtimeNs === undefined) return true;
  if (page.length < ask.limit) return false;
  const last = page[page.length - 1]!;
  if (last.pinned) return true;
  // mtime to the millisecond, rounded up, and one more: an mtime set from a time in ms (an
  // import's utimes, through a double in seconds) may land a fraction of a ms below it.
  const bound = Number(nextMtimeNs / 1_000_000n) + 2;
  return Date.parse(last.updatedAt) > bound;
}

/** The jobs newest mtime first (then by id, for the same order every run). */
export function newestMtimeFirst(jobs: EntryJob[]): EntryJob[] {
  return [...jobs].sort((a, b) => (a.mtimeNs !== b.mtimeNs ? (a.mtimeNs < b.mtimeNs ? 1 : -1) : a.id < b.id ? 1 : -1));
}

/**
 * The first page from the entries known (`known`: an index's, still valid) and the files to read
 * (`unknown`), reading them newest mtime first until the page is settled. Each file read is put
 * in `read` (its entry, or the error that stopped it), so that the caller's complete listing
 * does not read it again. `readOne` reads one file (synchronously in the CLI, async in the sidecar).
 */
export async function firstPage(
  known: IndexEntry[],
  unknown: EntryJob[],
  readOne: (job: EntryJob) => IndexEntry | Promise<IndexEntry>,
  read: Map<EntryJob, IndexEntry | Error>,
  ask: PageAsk,
): Promise<IndexEntry[]> {
  const order = newestMtimeFirst(unknown);
  let page = pageOf(known, ask);
  for (let i = 0; i < order.length; i++) {
    if (pageSettled(page, ask, order[i]!.mtimeNs)) break;
    const job = order[i]!;
    let got = read.get(job);
    if (got === undefined) {
      try {
        got = await readOne(job);
      } catch (e) {
        got = e instanceof Error ? e : new Error(String(e));
      }
      read.set(job, got);
    }
    if (got instanceof Error || (ask.keep && !ask.keep(got))) continue; // an error: reported by the complete listing
    // Only the new entry can change the page: it joins where it sorts.
    page = pageOf([...page, got], ask);
  }
  return page;
}
