// The sidecar's search: one search cache (search/cache.ts) kept open for the sidecar's life and
// kept current before each search: only the project folders the store watcher saw touched since
// the last sync (every folder when no fs.watch watcher is live), so a search over an unchanged
// store does no file system work at all, and one after an append stats one folder's files.
//
// A long build never runs on the main thread, which answers session/list and appends: a first
// build (the cache missing, or of an older format) and a catch-up with more than WORKER_BYTES of
// session files new to the cache (a big import; looked at when the watcher saw new sessions, or
// does not watch: appends to known files are small and synced here) run on a worker thread
// (search/build-worker.ts) that opens the same database file, reported with $/progress; the main
// thread closes its connection meanwhile and opens the cache again when the worker is done.
// During a first build a search answers by scanning the files (so the first search is never a
// wall); during a catch-up it waits for it (the cache holds the rest of the store, and a scan
// would read all of it). Shutdown terminates the worker: what it committed stays, and the
// cache's `built` marker says whether the build was finished. Where no worker can run (its file
// missing, or no cache folder to share), the build runs here, yielding every few milliseconds.
// Syncs are one at a time. Depends on the search core; JSON-RPC only through `progress`.

import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SearchCache, cacheFile } from '../search/cache.js';
import {
  buildCache,
  listSessionFiles,
  parseQuery,
  searchSessions,
  syncFolders,
  type SearchOptions,
  type SearchProblem,
  type SearchResult,
} from '../search/search.js';

/** How long a search waits for a first build in progress before it scans instead. */
const WAIT_FOR_BUILD_MS = 250;
/** Bytes to index above which a sync runs on the worker thread (below it, an append's sync stays brief). */
const WORKER_BYTES = 2 << 20;
/** The worker's file: dist/search/ in the repository's build, dist/sidecar/search/ in the VS Code bundle. */
const WORKER = new URL('../search/build-worker.js', import.meta.url);

interface Progress {
  report(message: string, percentage?: number): void;
  done(): void;
  token?: { isCancellationRequested: boolean; onCancellationRequested(f: () => void): unknown };
}
type Log = { warn(m: string): void; info(m: string): void };

export class LiveSearch {
  private cache: SearchCache | null = null;
  /** The first build in progress (searches scan meanwhile). */
  private first: Promise<void> | undefined;
  /** Set when a worker failed: later builds run on the main thread. */
  private noWorker = false;
  private progress: (title: string) => Promise<Progress> = async () => ({ report: () => undefined, done: () => undefined });
  /** Whether a change may have happened anywhere since the last sync. */
  private changed = true;
  /** Project folders the watcher saw touched since the last sync. */
  private readonly dirs = new Set<string>();
  /** Whether the store watcher reports every change (fs.watch mode). */
  private watched = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly aborter = new AbortController();

  constructor(
    private readonly root: string,
    private readonly log: Log,
  ) {}

  /** Opens the cache, and builds it in the background when it was never built. */
  start(progress: (title: string) => Promise<Progress>, watched: boolean): void {
    this.watched = watched;
    this.progress = progress;
    try {
      this.cache = SearchCache.open(this.root);
    } catch (e) {
      this.log.warn(`search cache not usable, searches scan the files: ${(e as Error).message}`);
      return;
    }
    if (this.cache.built) return;
    const cache = this.cache;
    this.first = this.serial(async () => {
      const files = await listSessionFiles(this.root);
      if (this.canOffload() && pendingBytes(cache, files) > WORKER_BYTES) await this.offload(true);
      else await this.buildHere(cache, files);
    }).finally(() => {
      this.first = undefined;
    });
  }

  /** The store watcher fell back to polling: every search syncs every folder. */
  touched(watched = this.watched): void {
    this.changed = true;
    this.watched = watched;
  }

  /** The store watcher saw something change in a project folder (before it reports the change). */
  touchedFolder(dir: string): void {
    this.dirs.add(dir);
  }

  /** A search: from the cache once built (synced first when something changed), else by scanning. */
  async search(query: string, opts: SearchOptions): Promise<SearchResult> {
    const scan = () => searchSessions(this.root, query, { ...opts, cache: null });
    // A first build about to end (a small store) is waited for a moment; a long one is not.
    if (this.first) await Promise.race([this.first, new Promise((r) => setTimeout(r, WAIT_FOR_BUILD_MS))]);
    if (this.first) return scan();
    // A query that does not read is refused before any sync (searchSessions throws QueryError).
    const q = parseQuery(query);
    if (q.errors.length || !q.terms.length) return scan();
    return this.serial(async () => {
      const problems: SearchProblem[] = [];
      let cache: SearchCache | null;
      try {
        cache = await this.synced(problems);
      } catch (e) {
        // A cache SQLite finds damaged on the way: this search reads the files; the next one syncs again.
        if (this.aborter.signal.aborted) throw e;
        this.log.warn(`search cache not brought up to date, this search reads the files: ${(e as Error).message}`);
        this.changed = true;
        cache = null;
      }
      // Shutting down (a catch-up it waited for was stopped): no scan of the whole store now.
      if (this.aborter.signal.aborted) throw new Error('the sidecar is shutting down');
      if (!cache) return scan();
      try {
        const r = await searchSessions(this.root, query, { ...opts, cache, fresh: true });
        return { ...r, problems: [...problems, ...r.problems] };
      } catch (e) {
        this.changed = true;
        throw e;
      }
    });
  }

  /** Stops a build in progress (the worker is terminated) and closes the cache. */
  async close(): Promise<void> {
    this.aborter.abort();
    await this.queue.catch(() => undefined);
    this.cache?.close();
    this.cache = null;
  }

  /**
   * The cache brought up to date with what the watcher saw change (null: none is built): here
   * when there is little to index, else on the worker thread, which this search waits for.
   */
  private async synced(problems: SearchProblem[]): Promise<SearchCache | null> {
    const cache = this.cache;
    if (!cache?.built) return null;
    const fresh = this.watched && !this.changed;
    const dirs = [...this.dirs];
    this.changed = false;
    this.dirs.clear();
    if (fresh && !dirs.length) return cache;
    // The watcher saw no new session (it would have said `touched`): appends, synced here.
    if (fresh) {
      await syncFolders(cache, dirs, problems);
      return cache;
    }
    const files = await listSessionFiles(this.root, problems);
    if (this.canOffload() && pendingBytes(cache, files) > WORKER_BYTES) {
      await this.offload(false);
      // What changed while the worker ran (little): synced here.
      this.changed = false;
      if (this.cache?.built) await buildCache(this.cache, this.root, { problems });
      return this.cache?.built ? this.cache : null;
    }
    await buildCache(cache, this.root, { files, problems });
    return cache;
  }

  /** A worker can share the cache: its file is there, and so is the cache's (not one in memory). */
  private canOffload(): boolean {
    return !this.noWorker && existsSync(fileURLToPath(WORKER)) && existsSync(cacheFile(this.root));
  }

  /**
   * Brings the cache up to date on the worker thread, with $/progress; the main thread's
   * connection is closed meanwhile and opened again after. When the worker fails, or what it
   * built did not last (the cache removed meanwhile), a first build runs here instead.
   */
  private async offload(first: boolean): Promise<void> {
    this.cache?.close();
    this.cache = null;
    // The worker starts at once; the progress shows once the client has made it.
    let p: Progress | undefined;
    const stop = new AbortController();
    const created = this.progress(first ? 'Indexing sessions for search' : 'Indexing new sessions for search').then((made) => {
      made.token?.onCancellationRequested(() => stop.abort(new Cancelled('cancelled')));
      return (p = made);
    });
    const t0 = Date.now();
    let cancelled = false;
    try {
      const report = (done: number, total: number) => p?.report(`${done}/${total} sessions`, Math.floor((done / total) * 100));
      const unreadable = await runWorker(this.root, report, AbortSignal.any([this.aborter.signal, stop.signal]));
      const what = first ? 'built' : 'brought up to date';
      this.log.info(
        `search cache ${what} on a worker thread in ${Date.now() - t0} ms${unreadable ? ` (${unreadable} files unreadable)` : ''}`,
      );
    } catch (e) {
      cancelled = e instanceof Cancelled;
      if (cancelled) this.log.info('search cache build cancelled: searches scan the files until it is built');
      else if (!this.aborter.signal.aborted) {
        this.log.warn(`search cache not built on a worker thread: ${(e as Error).message}`);
        this.noWorker = true;
      }
    } finally {
      if (p) p.done();
      else void created.then((made) => made.done());
    }
    this.changed = true; // what changed while it ran is looked at by the next search
    if (this.aborter.signal.aborted) return;
    try {
      this.cache = SearchCache.open(this.root);
    } catch (e) {
      this.log.warn(`search cache not usable, searches scan the files: ${(e as Error).message}`);
      return;
    }
    if (!this.cache.built && !cancelled) await this.buildHere(this.cache, await listSessionFiles(this.root));
  }

  /** The first build on the main thread, in short slices (a small store, or no worker). */
  private async buildHere(cache: SearchCache, files: string[]): Promise<void> {
    // An empty store (a first start) is built at once, with no progress to show.
    const p = files.length ? await this.progress('Indexing sessions for search') : { report: () => undefined, done: () => undefined };
    const t0 = Date.now();
    try {
      let shown = -1;
      await buildCache(cache, this.root, {
        files,
        signal: this.aborter.signal,
        yieldMs: 20,
        onProgress: (done, total) => {
          const pct = total ? Math.floor((done / total) * 100) : 100;
          if (pct !== shown) p.report(`${done}/${total} sessions`, (shown = pct));
        },
      });
      this.changed = true; // what changed while building is looked at by the next search
      this.log.info(`search cache built in ${Date.now() - t0} ms`);
    } catch (e) {
      if (!this.aborter.signal.aborted) this.log.warn(`search cache not built, searches scan the files: ${(e as Error).message}`);
    } finally {
      p.done();
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

class Cancelled extends Error {}

/**
 * Runs search/build-worker.ts, passing on its progress; `signal` terminates it (and is what it
 * rejects with). Resolves with how many files were unreadable.
 */
function runWorker(root: string, onProgress: (done: number, total: number) => void, signal: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    // Its stdout goes to stderr: the sidecar's stdout carries protocol frames only.
    const worker = new Worker(WORKER, { workerData: { root }, stdout: true });
    worker.stdout.pipe(process.stderr, { end: false });
    let problems: number | undefined;
    const stop = () => void worker.terminate();
    signal.addEventListener('abort', stop, { once: true });
    worker.on('message', (m: { done?: number; total?: number; problems?: unknown[] }) => {
      if (m.problems) problems = m.problems.length;
      else if (typeof m.done === 'number' && m.total) onProgress(m.done, m.total);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      signal.removeEventListener('abort', stop);
      if (problems !== undefined) resolve(problems);
      else reject(signal.aborted ? signal.reason : new Error(`the worker exited (${code})`));
    });
  });
}

/**
 * About how many bytes of `files` a sync would index: the size of each file the cache does not
 * hold (a new one, or one marked to be read again). A file it holds is taken to have grown by
 * appends, which are small, so that the search after an append stats nothing its sync does not.
 */
function pendingBytes(cache: SearchCache, files: readonly string[]): number {
  const held = new Set<string>();
  for (const f of cache.files.values()) if (f.size >= 0) held.add(f.path);
  let bytes = 0;
  for (const path of files) {
    if (held.has(path)) continue;
    try {
      bytes += statSync(path).size;
    } catch {
      // the sync says why
    }
  }
  return bytes;
}
