// The listing's side of index.json (store/entries.ts holds the file and its entries): a project
// folder's index brought up to date with its files, and rebuilt on demand (reindex).
//
// An entry is trusted only while its file's size and mtime (ns) match; a file that grew is
// folded from where the entry stopped (sessions are append-only); a file that shrank or changed
// in place is re-read whole; an entry without a file is dropped; a file without an entry is
// read. An index.json that is missing, not JSON, of another format or planted counts as empty
// and is rebuilt (the corrupt or planted one reported as a cache problem).
// Depends on node:fs, ../store/entries and ../store/reader (loaded only to fold a grown file).

import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { oneLine } from '../format/text.js';
import type { Problem } from '../store/reader.js';
import type { SessionStore } from '../store/store.js';
import { SESSION_ID_RE } from '../format/text.js';
import {
  entryFromFile,
  indexPath,
  loadIndexSync,
  mapLimit,
  mergeNewer,
  newestFirst,
  withIndexLock,
  writeIndex,
  type EntryJob,
  type IndexEntry,
  type LoadedIndex,
} from '../store/entries.js';

// Performance: loaded only when a grown file is folded (see store/entries.ts).
const reader = () => import('../store/reader.js');

/** The title shown for an entry: the latest title event, else the first user line (80 chars). */
export function displayTitle(e: Pick<IndexEntry, 'title' | 'firstUser'>): string {
  if (e.title) return e.title;
  if (e.firstUser) return oneLine(e.firstUser, 80);
  return 'Untitled session';
}

export interface RefreshResult {
  entries: IndexEntry[];
  problems: Problem[];
  /** What was wrong with the cache itself (corrupt, planted, not written): not the user's files, so not in a listing's problems. */
  cacheProblems: Problem[];
  /** How the cache fared: entries reused, folded (grew), re-read, dropped; and whether it was written. */
  stats: { reused: number; folded: number; read: number; dropped: number; rebuilt: boolean; written: boolean };
}

/**
 * Brings a project folder's index up to date with its files, re-reading only what changed,
 * and writes it back when anything changed. Never touches a session file.
 */
export async function refreshIndex(dir: string, opts: { write?: boolean; rebuild?: boolean } = {}): Promise<RefreshResult> {
  return completeRefresh(planRefresh(dir, opts), new Map(), opts);
}

/**
 * refreshIndex from a plan made before: its files read (those not in `read` already: a cold
 * page read them, history.ts ListingCache), then finishRefresh.
 */
export async function completeRefresh(
  plan: RefreshPlan | { done: RefreshResult },
  read: Map<EntryJob, IndexEntry | Error>,
  opts: { write?: boolean } = {},
): Promise<RefreshResult> {
  if ('done' in plan) return plan.done;
  // Entries read from scratch, concurrently (async: the sidecar's event loop stays free).
  await mapLimit(
    plan.reads.filter((j) => !read.has(j)),
    16,
    async (job) => {
      try {
        read.set(job, await entryFromFile(job.file, job.id, job.bytes, job.mtimeNs));
      } catch (e) {
        read.set(job, e instanceof Error ? e : new Error(String(e)));
      }
    },
  );
  return finishRefresh(plan, read, opts);
}

/**
 * The first half of refreshIndex, synchronous (no file is read but index.json): the folder
 * checked, the index loaded, every file stat'ed; the entries that still match are kept, the
 * files that grew are to be folded, the others (`reads`) to be read from scratch. Split so that
 * the CLI's cold listing can read every folder's `reads` at once, on two threads
 * (history.ts listSessions); refreshIndex reads them itself.
 */
export interface RefreshPlan {
  dir: string;
  loaded: LoadedIndex;
  out: IndexEntry[];
  problems: Problem[];
  cacheProblems: Problem[];
  stats: RefreshResult['stats'];
  changed: boolean;
  seen: Set<string>;
  /** Files that grew, with the entry they are folded from. */
  folds: (EntryJob & { prev: IndexEntry })[];
  /** Files to read from scratch. */
  reads: EntryJob[];
}

export function planRefresh(
  dir: string,
  /** `unindexed`: the folder has no cache folder (indexedFolders), so no index.json to open. */
  opts: { rebuild?: boolean; unindexed?: boolean } = {},
): RefreshPlan | { done: RefreshResult } {
  const problems: Problem[] = [];
  const stats = { reused: 0, folded: 0, read: 0, dropped: 0, rebuilt: false, written: false };
  // Never follow a symlink planted in the store: it could lead outside it.
  try {
    const dst = lstatSync(dir);
    if (!dst.isDirectory()) {
      problems.push({ file: dir, message: dst.isSymbolicLink() ? 'project folder is a symlink: skipped' : 'not a folder: skipped' });
      return { done: { entries: [], problems, cacheProblems: [], stats } };
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') problems.push({ file: dir, message: `cannot read folder (${code})` });
    return { done: { entries: [], problems, cacheProblems: [], stats } };
  }
  // `rebuild`: trust nothing cached; every file is read again (session/reindex, doctor).
  const loaded: LoadedIndex =
    opts.rebuild || opts.unindexed ? { entries: new Map<string, IndexEntry>(), trusted: false, problem: undefined } : loadIndexSync(dir);
  const cacheProblems: Problem[] = [];
  if (loaded.problem) cacheProblems.push({ file: indexPath(dir), message: loaded.problem });
  stats.rebuilt = !loaded.trusted;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { done: { entries: [], problems, cacheProblems: [], stats } };
    problems.push({ file: dir, message: `cannot read folder (${code})` });
    return { done: { entries: [], problems, cacheProblems: [], stats } };
  }
  // Performance: each file's path is the folder's normalized path plus its name, by
  // concatenation; path.join normalizes the whole string again per call, which was a fifth of
  // the stat loop of a warm listing (2,700 calls). Ids match SESSION_ID_RE: nothing to normalize.
  const prefix = join(dir, 'x').slice(0, -1);
  const plan: RefreshPlan = {
    dir,
    loaded,
    out: [],
    problems,
    cacheProblems,
    stats,
    changed: !loaded.trusted,
    seen: new Set(),
    folds: [],
    reads: [],
  };
  // Performance: the files are stat'ed synchronously, then only the entries that changed are
  // read. An async lstat costs several times a synchronous one in main-thread time (a promise
  // and a bigint stats array each), which across a large store is most of a warm listing, and
  // the loop is too short to matter to the sidecar's event loop (bench/PERFORMANCE.md).
  for (const name of names) {
    if (!name.endsWith('.jsonl')) continue;
    const id = name.slice(0, -6);
    if (!SESSION_ID_RE.test(id)) continue;
    const file = prefix + name;
    plan.seen.add(id);
    let st;
    try {
      st = lstatSync(file, { bigint: true });
    } catch (e) {
      problems.push({ file, message: `cannot stat (${(e as NodeJS.ErrnoException).code})` });
      continue;
    }
    if (!st.isFile()) {
      problems.push({ file, message: st.isSymbolicLink() ? 'a symlink, not a session file: skipped' : 'not a regular file: skipped' });
      continue;
    }
    const bytes = Number(st.size);
    const prev = loaded.entries.get(id);
    if (prev && prev.bytes === bytes && prev.mtimeNs === st.mtimeNs.toString()) {
      stats.reused++;
      plan.out.push(prev);
      continue;
    }
    plan.changed = true;
    // Append-only: a file that grew is folded from where its entry stopped.
    if (prev && bytes > prev.bytes && prev.folded <= prev.bytes) plan.folds.push({ id, file, bytes, mtimeNs: st.mtimeNs, prev });
    else plan.reads.push({ id, file, bytes, mtimeNs: st.mtimeNs });
  }
  return plan;
}

/**
 * The second half of refreshIndex: the grown files folded, the entries read (`read`: one a job
 * of `plan.reads`, or the error that stopped it) added in the order of the folder listing, the
 * index written when anything changed.
 */
export async function finishRefresh(
  plan: RefreshPlan,
  read: Map<EntryJob, IndexEntry | Error>,
  opts: { write?: boolean } = {},
): Promise<RefreshResult> {
  const { dir, loaded, out, problems, cacheProblems, stats } = plan;
  // Folds first, then reads, each in listing order: the order in which the entries join `out`
  // only matters before the sort below, which orders them fully (updatedAt, then id).
  await mapLimit(plan.folds, 16, async ({ file, bytes, mtimeNs, prev }) => {
    try {
      const next = { ...prev };
      await (await reader()).foldDigest(file, next);
      next.bytes = bytes;
      next.mtimeNs = mtimeNs.toString();
      stats.folded++;
      out.push(next);
    } catch (e) {
      problems.push({ file, message: (e as Error).message });
    }
  });
  for (const job of plan.reads) {
    const got = read.get(job);
    stats.read++;
    if (got === undefined) problems.push({ file: job.file, message: 'not read' });
    else if (got instanceof Error) problems.push({ file: job.file, message: got.message });
    else out.push(got);
  }
  for (const id of loaded.entries.keys()) {
    if (!plan.seen.has(id)) {
      stats.dropped++;
      plan.changed = true;
    }
  }
  out.sort(newestFirst);
  if (plan.changed && opts.write !== false) {
    try {
      // An entry kept as loaded yields to the one on disk now: a reindex may have rebuilt it.
      const copied = (e: IndexEntry) => loaded.entries.get(e.id) === e;
      await withIndexLock(dir, async () => writeIndex(dir, await mergeNewer(dir, out, copied)));
      stats.written = true;
    } catch (e) {
      cacheProblems.push({
        file: indexPath(dir),
        message: `index not written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); listing from the files`,
      });
    }
  }
  return { entries: out, problems, cacheProblems, stats };
}

/**
 * Rebuilds index.json of one project's folder (by real path) or of every folder, re-reading
 * every session file: the cache is thrown away, never the sessions. Cancellable between
 * folders through `signal`; `onFolder` reports progress.
 */
export async function reindex(
  store: SessionStore,
  o: { project?: string; signal?: AbortSignal; onFolder?: (done: number, total: number) => void } = {},
): Promise<{ projects: number; sessions: number; written: number; problems: Problem[] }> {
  const dirs = o.project !== undefined ? [store.projectDirOf(await store.realProject(o.project, false))] : await store.projectDirs();
  const out = { projects: 0, sessions: 0, written: 0, problems: [] as Problem[] };
  for (const [i, dir] of dirs.entries()) {
    if (o.signal?.aborted) throw o.signal.reason ?? new Error('aborted');
    const r = await refreshIndex(dir, { rebuild: true });
    out.projects++;
    out.sessions += r.entries.length;
    if (r.stats.written) out.written++;
    out.problems.push(...r.problems);
    o.onFolder?.(i + 1, dirs.length);
  }
  return out;
}
