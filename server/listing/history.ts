// History: the listing of sessions, newest first, from the per-project index caches, over the
// store (`History`: a store's listing and rows, `listSessions`: a root's, for a process that
// opens no store). Kept apart from store/store.ts so that `levelcode-sessions list` loads neither
// zod (the reader's schemas) nor the lock library: a warm listing only reads index.json files and
// stats the session files, and the process start is most of what it costs (bench/PERFORMANCE.md:
// warm list); History only names SessionStore's type.
// Depends on node:fs, ./catalog and ../store/entries (which loads the reader only to rebuild an entry).

import { lstatSync, readdirSync, type BigIntStats } from 'node:fs';
import { basename, join } from 'node:path';
import { firstPage, pageOf, type PageAsk } from './first-page.js';
import {
  completeRefresh,
  displayTitle,
  finishRefresh,
  planRefresh,
  refreshIndex,
  type RefreshPlan,
  type RefreshResult,
} from './catalog.js';
import {
  entryFromFile,
  firstLookReader,
  indexedFolders,
  mapLimit,
  newestFirst,
  syncEntryReader,
  type EntryJob,
  type IndexEntry,
} from '../store/entries.js';
import { projectFolders, realProjectPath } from '../store/files.js';
import { SESSION_ID_RE } from '../format/text.js';
import type { Problem } from '../store/reader.js';
import { relinkedInto } from '../store/relinks.js';
import type { SessionStore } from '../store/store.js';

// Performance: slug.js (and node:crypto behind it, a few ms to load) is needed only to find one
// project's folder, never by `list --all`: loaded when asked for.
const slugs = () => import('../store/slug.js');

/** One History row. */
export interface SessionEntry {
  id: string;
  project: string;
  title: string;
  /** True when a title event exists (or the meta line has a title). */
  titled: boolean;
  createdAt: string;
  updatedAt: string;
  /** Number of user messages. */
  turns: number;
  model: string | null;
  /** First line of the latest user message. */
  preview: string;
  v: number;
  bytes: number;
  /** Where an imported session came from (tool, its id, file, project); absent for our own. */
  source?: IndexEntry['source'];
  /** A fork or copy: the session it was made from and the last of its turns it holds (and, for a sync conflict's fork, the device its copy came from). */
  forkedFrom?: { id: string; turn: number; device?: string };
  /** The device the session was created on (its meta line's `device`). */
  device?: string;
  /** An imported session: when the import made it ours (idle time counts from it at the earliest). */
  importedAt?: string;
  /** A project listing's row of a session recorded under another folder (moved or relinked): that folder. */
  movedFrom?: string;
  /** Pinned: first in its project's History (lifecycle.ts). */
  pinned: boolean;
  /** Archived: out of the main History, listed with --archived, still searched. */
  archived: boolean;
  /** Time of the latest unarchive, when there is one: idleness counts from it too. */
  unarchivedAt?: string;
  /** The last run stopped part way (an interrupted or reaped event after the last message). */
  interrupted?: true;
}

export function toSessionEntry(e: IndexEntry): SessionEntry {
  return {
    id: e.id,
    project: e.project,
    title: displayTitle(e),
    titled: !!e.title,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    turns: e.turns,
    model: e.model,
    preview: e.preview,
    v: e.v,
    bytes: e.bytes,
    ...(e.source ? { source: e.source } : {}),
    ...(e.forkedFrom ? { forkedFrom: e.forkedFrom } : {}),
    ...(e.device ? { device: e.device } : {}),
    ...(e.importedAt ? { importedAt: e.importedAt } : {}),
    pinned: e.pinned,
    archived: e.archived,
    ...(e.unarchivedAt ? { unarchivedAt: e.unarchivedAt } : {}),
    ...(e.interrupted ? { interrupted: true as const } : {}),
  };
}

/**
 * The folders a listing covers: one project's (by real path, kept for filtering) or all. For a
 * project, `relinked` holds the recorded paths whose sessions its folder took in (relinks.ts).
 */
async function scope(
  root: string,
  o: { project?: string; all?: boolean },
): Promise<{ dirs: string[]; project?: string; relinked: Set<string> }> {
  if (o.project !== undefined && !o.all) {
    const project = await realProjectPath(o.project, false);
    const dir = join(root, (await slugs()).projectSlug(project));
    return { dirs: [dir], project, relinked: await relinkedInto(dir, project) };
  }
  return { dirs: projectFolders(root), relinked: new Set() };
}

// ---- Moved and relinked folders ---------------------------------------------------------------

/** Whether a project listing shows entry `e`: its own, or one relinked into its folder. */
function belongs(e: IndexEntry, project: string | undefined, relinked: Set<string>): boolean {
  return project === undefined || e.project === project || relinked.has(e.project);
}

/** A row of `project`'s listing for an entry recorded under another folder. */
function movedRow(e: IndexEntry, project: string): SessionEntry {
  return { ...toSessionEntry(e), project, movedFrom: e.project };
}

/**
 * A project listing's entries, with those of its moved folder (moved.ts) added, newest first,
 * as rows: the ones recorded under another path say so (`movedFrom`).
 */
async function projectRows(
  root: string,
  project: string,
  dirs: string[],
  own: IndexEntry[],
  problems: Problem[],
  onEntry?: (e: IndexEntry, file: string) => void,
  rowOf: (e: IndexEntry) => SessionEntry = toSessionEntry,
): Promise<SessionEntry[]> {
  let others: string[] = [];
  try {
    others = projectFolders(root).filter((d) => !dirs.includes(d));
  } catch {
    /* a store that cannot be read: the listing of the project's own folder says so */
  }
  const { movedHere } = await import('./moved.js');
  const found = await movedHere(project, others);
  problems.push(...found.problems);
  for (const m of found.moved) onEntry?.(m.entry, join(m.dir, `${m.entry.id}.jsonl`));
  const moved = new Set(found.moved.map((m) => m.entry));
  const all = [...own, ...moved].sort(newestFirst);
  return all.map((e) => (moved.has(e) || e.project !== project ? movedRow(e, project) : rowOf(e)));
}

/**
 * The session files of `project`'s History, archived ones included: its own and those of a
 * folder moved or relinked into it. What a project's search covers (search.ts `sessions`).
 */
export async function projectSessionFiles(root: string, project: string): Promise<{ files: Set<string>; problems: Problem[] }> {
  const files = new Set<string>();
  const r = await listSessions(root, { project }, (_e, file) => files.add(file));
  // A session file the listing could not read stays in: the search then says so, with its path.
  for (const p of r.problems) if (p.file.endsWith('.jsonl')) files.add(p.file);
  return { files, problems: r.problems };
}

/**
 * Sessions newest first; by project (its real path, exactly) or all. `onEntry` sees every row
 * listed with its file (the store uses it to remember where sessions are).
 *
 * `threads` (the CLI, a one-shot process): the files to read from scratch are read with
 * synchronous reads, the largest first, and on two threads when there is enough to read (see
 * readEntries). Same entries, same index files; never for the sidecar, whose event loop must
 * stay free (it lists through ListingCache).
 */
export async function listSessions(
  root: string,
  o: { project?: string; all?: boolean } = {},
  onEntry?: (e: IndexEntry, file: string) => void,
  opts: { threads?: boolean; firstPage?: PageAsk & { show: (rows: SessionEntry[]) => void } } = {},
): Promise<{ sessions: SessionEntry[]; problems: Problem[] }> {
  const problems: Problem[] = [];
  const { dirs, project, relinked } = await scope(root, o);
  const all: IndexEntry[] = [];
  const take = (dir: string, r: RefreshResult) => {
    problems.push(...r.problems);
    for (const e of r.entries) {
      if (!belongs(e, project, relinked)) continue;
      all.push(e);
      onEntry?.(e, join(dir, `${e.id}.jsonl`));
    }
  };
  if (opts.threads) {
    // Every folder planned first (index loaded, files stat'ed: no session file read), so that
    // the reads of all folders are shared out together, largest first; then each folder's
    // index is completed and written.
    const results = new Map<string, RefreshResult>();
    const plans: RefreshPlan[] = [];
    const indexed = indexedFolders(root);
    for (const dir of dirs) {
      const p = planRefresh(dir, { unindexed: indexed && !indexed.has(basename(dir)) });
      if ('done' in p) results.set(dir, p.done);
      else plans.push(p);
    }
    // A folder is completed (its index written, under index.lock) as soon as its last file is
    // read, while the reading goes on: a lock and an atomic write are a wait on the file system
    // per folder, which summed over many folders after the reads was a visible delay.
    const read = new Map<EntryJob, IndexEntry | Error>();
    const finishing: Promise<void>[] = [];
    const finish = (p: RefreshPlan) => {
      finishing.push(finishRefresh(p, read).then((r) => void results.set(p.dir, r)));
    };
    if (opts.firstPage && project === undefined && plans.some((p) => p.reads.length || p.folds.length))
      await showFirstPage(plans, [...results.values()], opts.firstPage);
    const left = new Map<RefreshPlan, number>();
    const planOf = new Map<EntryJob, RefreshPlan>();
    for (const p of plans) {
      left.set(p, p.reads.length);
      for (const j of p.reads) planOf.set(j, p);
      if (p.reads.length === 0) finish(p);
    }
    await readEntries(
      plans.flatMap((p) => p.reads),
      {
        into: read,
        onRead: (job) => {
          const p = planOf.get(job) as RefreshPlan;
          const n = (left.get(p) as number) - 1;
          left.set(p, n);
          if (n === 0) finish(p);
        },
      },
    );
    await Promise.all(finishing);
    for (const dir of dirs) take(dir, results.get(dir) as RefreshResult);
  } else {
    await mapLimit(dirs, 4, async (dir) => take(dir, await refreshIndex(dir)));
  }
  if (project !== undefined)
    return { sessions: linkImportedForks(await projectRows(root, project, dirs, all, problems, onEntry)), problems };
  all.sort(newestFirst);
  return { sessions: linkImportedForks(all.map(toSessionEntry)), problems };
}

/**
 * The CLI's cold listing shows its first page before reading the rest (first-page.ts): from the
 * entries still valid and the files to read, newest mtime first (a file that grew is looked at
 * whole for it; the complete listing still folds only what it gained). Every listing of the
 * whole store (`--all`); a project's adds its moved folders, and is one folder's reading.
 */
async function showFirstPage(
  plans: RefreshPlan[],
  done: RefreshResult[],
  ask: PageAsk & { show: (rows: SessionEntry[]) => void },
): Promise<void> {
  const known = [...plans.flatMap((p) => p.out), ...done.flatMap((r) => r.entries)];
  // A first look (entries.ts firstLookReader: no schema library loaded before the page): its
  // entries are shown, never kept, so the complete listing reads those files again and the
  // CLI compares its page with the exact one.
  const page = await firstPage(
    known,
    plans.flatMap((p) => [...p.reads, ...p.folds]),
    await firstLookReader(),
    new Map(),
    ask,
  );
  ask.show(linkImportedForks(page.map(toSessionEntry)));
}

/**
 * A store's History: its listing (kept in memory between calls with `cache`, for a long-running
 * process such as the sidecar: ListingCache) and one row. Every row listed tells the store where
 * its session's file is (SessionStore.remember).
 */
export class History {
  /** The in-memory listing (`cache`): a watcher reports folders that changed, and whether it is live. */
  readonly cache: ListingCache | undefined;

  constructor(
    readonly store: SessionStore,
    o: { cache?: boolean } = {},
  ) {
    this.cache = o.cache ? new ListingCache(store.root) : undefined;
  }

  /** Sessions newest first; by project (its real path, exactly) or all. */
  async list(o: { project?: string; all?: boolean } = {}): Promise<{ sessions: SessionEntry[]; problems: Problem[] }> {
    const onEntry = (e: IndexEntry, file: string) => this.store.remember(e.id, file);
    if (this.cache) return this.cache.list(o, onEntry);
    return listSessions(this.store.root, o, onEntry);
  }

  /**
   * A listing (every project's, or one's), or from a cold store its first page before every file is read
   * (`partial`: ListingCache.listFirst; without the cache kept in memory, the whole listing).
   */
  async listFirst(
    o: { project?: string; all?: boolean },
    ask: PageAsk,
    hooks: ColdHooks = {},
  ): Promise<{ sessions: SessionEntry[]; problems: Problem[]; partial?: true }> {
    const onEntry = (e: IndexEntry, file: string) => this.store.remember(e.id, file);
    return this.cache ? this.cache.listFirst(o, ask, onEntry, hooks) : listSessions(this.store.root, o, onEntry);
  }

  /** One History row, fresh from the file when the cached entry does not match it. */
  async get(id: string): Promise<SessionEntry> {
    return toSessionEntry(await this.store.entry(id));
  }
}

/**
 * An imported fork names its parent in the tool's own ids (`source.forkedFrom`): its row gets
 * `forkedFrom` with our id of that parent when the parent is in the same listing. Rows are
 * changed in place (the same answer every time, so a cached row may carry it).
 */
export function linkImportedForks(rows: SessionEntry[]): SessionEntry[] {
  const wanted = rows.filter((r) => !r.forkedFrom && r.source?.forkedFrom);
  if (wanted.length === 0) return rows;
  const ours = new Map<string, SessionEntry>();
  for (const r of rows) if (r.source && !r.source.variant) ours.set(`${r.source.tool}\0${r.source.id}`, r);
  for (const r of wanted) {
    const f = r.source!.forkedFrom!;
    const parent = ours.get(`${r.source!.tool}\0${f.id}`);
    if (parent && parent !== r) r.forkedFrom = { id: parent.id, turn: f.turn ?? parent.turns };
  }
  return rows;
}

// ---- The CLI's cold listing ----------------------------------------------------------------
//
// A cold listing reads every byte of the store, one file after another on this thread. The
// large files go first, largest first; the small ones after, folder by folder, so that folders
// are completed (and their index written) while the rest is read.

/** Files above this size are read first, largest first; the others after, in the given order. */
const BIG_FILE = 1 << 20;
/** How long (ms) the reading thread may go without letting I/O callbacks and messages run. */
const YIELD_MS = 4;

/**
 * The entries of `jobs`, each read from scratch (or the error that stopped it), into `o.into`;
 * `o.onRead` hears of each as it is done. The reading yields every few milliseconds so that the
 * index writes of completed folders go on meanwhile.
 */
export async function readEntries(
  jobs: EntryJob[],
  o: { into?: Map<EntryJob, IndexEntry | Error>; onRead?: (job: EntryJob) => void } = {},
): Promise<Map<EntryJob, IndexEntry | Error>> {
  const read = o.into ?? new Map<EntryJob, IndexEntry | Error>();
  if (jobs.length === 0) return read; // a warm listing: no reader, no zod
  const readOne = await syncEntryReader();
  const order = [...jobs.filter((j) => j.bytes > BIG_FILE).sort((a, b) => b.bytes - a.bytes), ...jobs.filter((j) => j.bytes <= BIG_FILE)];
  let yielded = performance.now();
  for (const job of order) {
    let r: IndexEntry | Error;
    try {
      r = readOne(job);
    } catch (e) {
      r = e instanceof Error ? e : new Error(String(e));
    }
    read.set(job, r);
    o.onRead?.(job);
    if (performance.now() - yielded > YIELD_MS) {
      await new Promise((res) => setImmediate(res));
      yielded = performance.now();
    }
  }
  return read;
}

// ---------------------------------------------------------------------------------------------
// The sidecar's listing, kept in memory.
//
// A long-running process (the sidecar) lists again and again; re-reading and re-parsing every
// index.json each time missed the session/list guardrail (bench/PERFORMANCE.md). This
// keeps each folder's entries (and the rows made from them) in memory, and never trusts them
// over the files: every call lstat's each project folder and each session file in scope
// (synchronously: cheap each, a few ms for a large store), and a folder is refreshed through
// refreshIndex (the same code as a cold process) as soon as one of its files differs in size
// or mtime (ns) from its entry, a file appears or vanishes (its listing differs), or its own
// mtime moved. Folders with problems (a symlink, an unreadable file) are not kept: they are
// refreshed on every call, exactly as without the cache.

interface CachedFolder {
  entries: IndexEntry[];
  /** Size and mtime (ns) of each session file (by id), as its entry recorded them. */
  stats: Map<string, { file: string; size: bigint; mtimeNs: bigint }>;
  mtimeNs: bigint;
  /** Wall time (ms) of the listing the entries come from. */
  listedAt: number;
  /** Wall time (ms) when every file was last checked; 0 once a watcher saw the folder change. */
  verifiedAt: number;
}

/**
 * With a live fs.watch watcher (setWatched), a folder whose watcher has been quiet since its
 * files were last checked, less than this long ago, is not stat'ed file by file (only the
 * folder itself is): a large store's lstat calls are most of a warm session/list. The bound
 * caps how long memory is trusted if the kernel ever dropped an event.
 */
const TRUST_WATCHER_MS = 2000;

/**
 * A folder listed within this many ms of its mtime is listed again: a file created in the
 * same (coarse) timestamp tick as the listing leaves the folder's mtime unchanged.
 */
const RECENT_MS = 1000;

/** A folder planned before it is listed (ListingCache.listFirst): its stat then, and when. */
interface Planned {
  before: BigIntStats | undefined;
  listedAt: number;
  plan: RefreshPlan | { done: RefreshResult };
}

/** What the background build after a cold page reports (ListingCache.listFirst). */
export interface ColdHooks {
  /** Project folders completed, of all. */
  onFolder?: (done: number, total: number) => void;
  /** The build is over (whatever its outcome). */
  onDone?: () => void;
}

export class ListingCache {
  private readonly folders = new Map<string, CachedFolder>();
  /** The listing of every project being completed after a cold page: other listings wait for it. */
  private building: Promise<unknown> | undefined;
  /**
   * Hears of each session the complete listing places on a cold page that page did not show
   * (a pinned session further back, a file dated before its last message): the sidecar sends
   * session/didChange `listed` for it.
   */
  onLate: ((row: SessionEntry) => void) | undefined;
  private readonly rows = new WeakMap<IndexEntry, SessionEntry>();
  private merged: { key: string; gen: number; rows: SessionEntry[] } | undefined;
  /** Bumped whenever a folder's entries are replaced or dropped. */
  private gen = 0;
  private watched = false;

  constructor(private readonly root: string) {}

  /** Whether a live fs.watch watcher calls touched() for every change in the store. */
  setWatched(on: boolean): void {
    this.watched = on;
  }

  /** A watcher saw something change in `dir`: its files are checked at the next listing. */
  touched(dir: string): void {
    const c = this.folders.get(dir);
    if (c) c.verifiedAt = 0;
  }

  /** Forgets a folder (a watcher saw it change): the next listing refreshes it. */
  invalidate(dir?: string): void {
    if (dir === undefined) this.folders.clear();
    else this.folders.delete(dir);
    this.gen++;
  }

  async list(
    o: { project?: string; all?: boolean } = {},
    onEntry?: (e: IndexEntry, file: string) => void,
  ): Promise<{ sessions: SessionEntry[]; problems: Problem[] }> {
    while (this.building) await this.building;
    return this.listNow(o, onEntry);
  }

  /**
   * Every project's listing, or its first page when nothing is kept in memory yet and files
   * must be read (no usable index.json): the files read newest mtime first until the page is
   * known (first-page.ts; `partial` is then set), then the whole listing completed in the
   * background (async reads: the event loop stays free), every index written, from the same
   * plans and without reading the page's files again; a listing asked meanwhile waits for it.
   * When it is complete, each session it places on the page that the page lacked goes to
   * `onLate`. A partial answer's problems are those found so far (folders and files stat'ed,
   * files read). A page that needed every file is the complete listing, its indexes written.
   */
  async listFirst(
    o: { project?: string; all?: boolean },
    ask: PageAsk,
    onEntry: (e: IndexEntry, file: string) => void,
    hooks: ColdHooks = {},
  ): Promise<{ sessions: SessionEntry[]; problems: Problem[]; partial?: true }> {
    if (this.building) return this.list(o, onEntry);
    const { dirs, project, relinked } = await scope(this.root, o);
    if (dirs.every((d) => this.folders.has(d))) return this.list(o, onEntry);
    // A project's page: its folder's sessions (relinked ones too); a moved folder's are read
    // with the rest (moved.ts), and a row of theirs that belongs on the page goes to onLate.
    const keep = (e: IndexEntry) => belongs(e, project, relinked);
    // Each folder's stat before its plan: listNow keeps it, so a change after is seen next time.
    const planned = new Map(dirs.map((dir) => [dir, { before: lstatOrUndefined(dir), listedAt: Date.now(), plan: planRefresh(dir) }]));
    const plans = [...planned.values()].map((p) => p.plan);
    const unread = plans.flatMap((p) => ('done' in p ? [] : [...p.reads, ...p.folds.map(({ prev: _, ...job }) => job)]));
    if (unread.length === 0) return this.listNow(o, onEntry, { planned });
    // From here until the listing is complete, every other listing waits (a second cold page
    // would read and build it all again).
    let open!: () => void;
    const building = new Promise<void>((res) => (open = res));
    this.building = building;
    const over = () => {
      if (this.building === building) this.building = undefined;
      open();
      hooks.onDone?.();
    };
    const read = new Map<EntryJob, IndexEntry | Error>();
    const problems: Problem[] = [];
    let page: IndexEntry[];
    try {
      page = await this.readColdPage(dirs, plans, unread, ask, { onEntry, read, problems, keep });
    } catch (e) {
      over();
      throw e;
    }
    if (unread.every((j) => read.has(j))) {
      // The page needed every file: the listing is complete once the indexes are written.
      try {
        return await this.listNow(o, onEntry, { planned, read });
      } finally {
        over();
      }
    }
    void this.listNow(o, onEntry, { planned, read, onFolder: hooks.onFolder })
      .then((full) => {
        // The same page from the complete listing: what it holds that the cold one lacked.
        const shown = new Set(page.map((e) => e.id));
        for (const r of pageOf(full.sessions, ask)) if (!shown.has(r.id)) this.onLate?.(r);
      })
      .catch(() => undefined) // its problems are the next listing's to report
      .finally(over);
    const row = (e: IndexEntry) => (project !== undefined && e.project !== project ? movedRow(e, project) : this.rowOf(e));
    return { sessions: linkImportedForks(page.map(row)), problems, partial: true };
  }

  /** listFirst's reading: the page's entries from the valid ones and the files read newest first. */
  private async readColdPage(
    dirs: string[],
    plans: (RefreshPlan | { done: RefreshResult })[],
    unread: EntryJob[],
    ask: PageAsk,
    o: {
      onEntry: (e: IndexEntry, file: string) => void;
      read: Map<EntryJob, IndexEntry | Error>;
      problems: Problem[];
      keep: (e: IndexEntry) => boolean;
    },
  ): Promise<IndexEntry[]> {
    const files = new Map<string, string>();
    const known: IndexEntry[] = [];
    plans.forEach((p, i) => {
      const entries = 'done' in p ? p.done.entries : p.out;
      for (const e of entries) files.set(e.id, join(dirs[i]!, `${e.id}.jsonl`));
      known.push(...entries.filter(o.keep));
      o.problems.push(...('done' in p ? p.done.problems : p.problems)); // a folder or file that cannot be read, a symlink
    });
    for (const j of unread) files.set(j.id, j.file);
    const page = await firstPage(known, unread, (j) => entryFromFile(j.file, j.id, j.bytes, j.mtimeNs), o.read, { ...ask, keep: o.keep });
    for (const [job, got] of o.read) if (got instanceof Error) o.problems.push({ file: job.file, message: got.message });
    for (const e of page) o.onEntry(e, files.get(e.id)!);
    return page;
  }

  /**
   * The listing, refreshing the folders whose files changed. `pre`: folders planned already
   * (listFirst), with the files read for its page, and progress by folder.
   */
  private async listNow(
    o: { project?: string; all?: boolean } = {},
    onEntry?: (e: IndexEntry, file: string) => void,
    pre: {
      planned?: Map<string, Planned>;
      read?: Map<EntryJob, IndexEntry | Error>;
      onFolder?: (done: number, total: number) => void;
    } = {},
  ): Promise<{ sessions: SessionEntry[]; problems: Problem[] }> {
    const problems: Problem[] = [];
    const { dirs, project, relinked } = await scope(this.root, o);
    if (project === undefined) {
      // Folders gone from the store.
      const live = new Set(dirs);
      for (const d of this.folders.keys()) if (!live.has(d)) this.invalidate(d);
    }
    const stale = dirs.filter((d) => !this.stillValid(d));
    const uncached: { dir: string; entries: IndexEntry[] }[] = [];
    let folders = 0;
    await mapLimit(stale, 4, async (dir) => {
      const planned = pre.planned?.get(dir);
      const before = planned ? planned.before : lstatOrUndefined(dir);
      const listedAt = planned ? planned.listedAt : Date.now();
      const r = await (planned ? completeRefresh(planned.plan, pre.read ?? new Map()) : refreshIndex(dir));
      pre.onFolder?.(++folders, stale.length);
      problems.push(...r.problems);
      for (const e of r.entries) onEntry?.(e, join(dir, `${e.id}.jsonl`));
      // Problems about the index file itself are repaired by the refresh; any other (a file
      // skipped) must be reported again next time, so such a folder is not kept.
      const keep = before?.isDirectory() && r.problems.length === 0;
      this.gen++;
      if (!keep || before === undefined) {
        this.folders.delete(dir);
        uncached.push({ dir, entries: r.entries });
        return;
      }
      const stats = new Map<string, { file: string; size: bigint; mtimeNs: bigint }>();
      for (const e of r.entries) stats.set(e.id, { file: join(dir, `${e.id}.jsonl`), size: BigInt(e.bytes), mtimeNs: BigInt(e.mtimeNs) });
      // verifiedAt: listedAt, not now: a change during the refresh may be missing from it.
      this.folders.set(dir, { entries: r.entries, stats, mtimeNs: before.mtimeNs, listedAt, verifiedAt: listedAt });
    });
    const all: IndexEntry[] = [];
    if (project !== undefined) {
      // A project's listing: its folder's entries (relinked ones included) and its moved folder's.
      for (const dir of dirs) {
        const entries = this.folders.get(dir)?.entries ?? uncached.find((u) => u.dir === dir)?.entries ?? [];
        for (const e of entries) if (belongs(e, project, relinked)) all.push(e);
      }
      return {
        sessions: linkImportedForks(await projectRows(this.root, project, dirs, all, problems, onEntry, (e) => this.rowOf(e))),
        problems,
      };
    }
    const key = `${project ?? ''}\0${dirs.join('\0')}`;
    if (uncached.length === 0 && this.merged && this.merged.key === key && this.merged.gen === this.gen) {
      return { sessions: this.merged.rows.slice(), problems };
    }
    for (const dir of dirs) {
      const entries = this.folders.get(dir)?.entries ?? uncached.find((u) => u.dir === dir)?.entries ?? [];
      for (const e of entries) all.push(e);
    }
    all.sort(newestFirst);
    const rows = linkImportedForks(all.map((e) => this.rowOf(e)));
    if (uncached.length === 0) this.merged = { key, gen: this.gen, rows };
    return { sessions: rows.slice(), problems };
  }

  private rowOf(e: IndexEntry): SessionEntry {
    let row = this.rows.get(e);
    if (!row) this.rows.set(e, (row = toSessionEntry(e)));
    return row;
  }

  /** Whether a folder's kept entries still match its files (stats only, no reads). */
  private stillValid(dir: string): boolean {
    const c = this.folders.get(dir);
    if (!c) return false;
    const st = lstatOrUndefined(dir);
    if (!st?.isDirectory()) return false;
    if (st.mtimeNs !== c.mtimeNs || Number(st.mtimeMs) >= c.listedAt - RECENT_MS) {
      // Files created, removed or renamed (or a listing too close to the last change to tell):
      // list it again and compare the names.
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return false;
      }
      let n = 0;
      for (const name of names) {
        if (!name.endsWith('.jsonl') || !SESSION_ID_RE.test(name.slice(0, -6))) continue;
        if (!c.stats.has(name.slice(0, -6))) return false;
        n++;
      }
      if (n !== c.stats.size) return false;
      c.mtimeNs = st.mtimeNs;
      c.listedAt = Date.now();
    }
    const now = Date.now();
    if (this.watched && c.verifiedAt > now - TRUST_WATCHER_MS) return true;
    for (const s of c.stats.values()) {
      const f = lstatOrUndefined(s.file);
      if (!f?.isFile() || f.size !== s.size || f.mtimeNs !== s.mtimeNs) return false;
    }
    c.verifiedAt = now;
    return true;
  }
}

function lstatOrUndefined(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
