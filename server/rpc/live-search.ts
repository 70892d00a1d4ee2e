// The sidecar's search: one search cache (search/cache.ts) kept open for the sidecar's life,
// built in the background at start when it was never built (reported with $/progress), while
// session/search answers by scanning the files; then kept current before each search: only
// the project folders the store watcher saw touched since the last sync (every folder when no
// fs.watch watcher is live), so a search over an unchanged store does no file system work at
// all, and one after an append stats one folder's files, not the store's.
// Syncs are one at a time (one SQLite connection, one transaction).
// Depends on the search core; JSON-RPC only through the `progress` function it is given.

import { SearchCache } from '../search/cache.js';
import { buildCache, listSessionFiles, searchSessions, syncFolders, type SearchOptions, type SearchResult } from '../search/search.js';

/** How long a search waits for a build in progress before it scans instead. */
const WAIT_FOR_BUILD_MS = 250;

interface Progress {
  report(message: string, percentage?: number): void;
  done(): void;
}

export class LiveSearch {
  private cache: SearchCache | null = null;
  private building: Promise<void> | undefined;
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
    private readonly log: { warn(m: string): void; info(m: string): void },
  ) {}

  /** Opens the cache, and builds it in the background when it was never built. */
  start(progress: (title: string) => Promise<Progress>, watched: boolean): void {
    this.watched = watched;
    try {
      this.cache = SearchCache.open(this.root);
    } catch (e) {
      this.log.warn(`search cache not usable, searches scan the files: ${(e as Error).message}`);
      return;
    }
    if (this.cache.built) return;
    const cache = this.cache;
    this.building = this.serial(async () => {
      const files = await listSessionFiles(this.root);
      // An empty store (a first start) is built at once, with no progress to show.
      const p = files.length ? await progress('Indexing sessions for search') : { report: () => undefined, done: () => undefined };
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
        this.building = undefined;
      }
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
    // A build about to end (a small store) is waited for a moment; a long one is not.
    if (this.building) await Promise.race([this.building, new Promise((r) => setTimeout(r, WAIT_FOR_BUILD_MS))]);
    const cache = this.cache;
    if (!cache || this.building || !cache.built) return searchSessions(this.root, query, { ...opts, cache: null });
    return this.serial(async () => {
      const fresh = this.watched && !this.changed;
      const dirs = [...this.dirs];
      this.changed = false;
      this.dirs.clear();
      try {
        if (fresh && dirs.length) await syncFolders(cache, dirs);
        return await searchSessions(this.root, query, { ...opts, cache, fresh });
      } catch (e) {
        this.changed = true;
        throw e;
      }
    });
  }

  /** Stops a build in progress and closes the cache. */
  async close(): Promise<void> {
    this.aborter.abort();
    await this.queue.catch(() => undefined);
    this.cache?.close();
    this.cache = null;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
