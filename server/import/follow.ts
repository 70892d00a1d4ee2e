// Live following of other AI tools' data folders: the sidecar watches each importer's roots
// (fs.watch, recursive, where the platform has it) and polls them as well (a folder that does
// not exist yet, a network disk, a platform without recursive watching), and after a change
// settles re-runs the import engine. The engine's ledger makes a run cheap: an unchanged source
// costs a stat and a tail read, a grown one appends only its new records. What the engine writes
// lands in the store, whose own watcher (server/store/watch.ts) turns it into session/didChange.
// Depends on the engine (./engine.ts) and node:fs only.

import { watch, type FSWatcher } from 'node:fs';
import type { SessionStore } from '../store/store.js';
import { runImport, type ImportJob, type ImportReport } from './engine.js';

export interface FollowOptions {
  /** Quiet time after a change before the engine runs (ms). */
  debounceMs?: number;
  /** How often the roots are polled (ms): the fallback when fs.watch is off or misses a change. */
  pollMs?: number;
  /** Poll only, never fs.watch. */
  poll?: boolean;
  onReport?: (r: ImportReport) => void;
  onError?: (e: unknown) => void;
}

export interface Follower {
  /** 'watch' when every root that exists is watched by fs.watch, else 'poll'. */
  readonly mode: 'watch' | 'poll';
  /** Runs the engine now (or after the run in progress) and resolves with its report. */
  runNow(): Promise<ImportReport>;
  close(): void;
}

/** With fs.watch on, polling is only a safety net; without it, it is how changes are seen. */
const WATCHED_POLL_FACTOR = 15;

export function followImports(store: SessionStore, jobs: ImportJob[], o: FollowOptions = {}): Follower {
  const debounceMs = o.debounceMs ?? 200;
  const pollMs = o.pollMs ?? 2000;
  const watchers: FSWatcher[] = [];
  let allWatched = !o.poll;
  if (!o.poll)
    for (const root of jobs.flatMap((j) => j.roots)) {
      try {
        const w = watch(root, { recursive: true, persistent: false }, () => schedule());
        w.on('error', (e) => {
          o.onError?.(e);
          w.close();
        });
        watchers.push(w);
      } catch {
        allWatched = false; // missing folder or no recursive watch here: the poll sees it
      }
    }
  const mode: 'watch' | 'poll' = allWatched && watchers.length > 0 ? 'watch' : 'poll';

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<ImportReport> | undefined;
  let again: Promise<ImportReport> | undefined;
  const ac = new AbortController();

  /** Debounced, but a tool that never stops writing still gets imported every few debounces. */
  let pendingSince = 0;
  function schedule(): void {
    if (closed) return;
    const now = Date.now();
    if (timer) {
      if (now - pendingSince >= debounceMs * 4) return;
      clearTimeout(timer);
    } else pendingSince = now;
    timer = setTimeout(() => {
      timer = undefined;
      runNow().catch((e) => {
        if (!closed) o.onError?.(e);
      });
    }, debounceMs);
    timer.unref();
  }

  async function once(): Promise<ImportReport> {
    const r = await runImport(store, jobs, { signal: ac.signal });
    if (!closed) o.onReport?.(r);
    return r;
  }

  /** One run at a time; a change during a run asks for exactly one more after it. */
  function runNow(): Promise<ImportReport> {
    if (closed) return Promise.reject(new Error('import following is closed'));
    if (!running) {
      running = once().finally(() => (running = undefined));
      return running;
    }
    again ??= running
      .catch(() => undefined)
      .then(() => {
        again = undefined;
        return runNow();
      });
    return again;
  }

  const poller = setInterval(() => timer || schedule(), mode === 'watch' ? pollMs * WATCHED_POLL_FACTOR : pollMs);
  poller.unref();
  schedule();

  return {
    mode,
    runNow,
    close() {
      closed = true;
      ac.abort();
      if (timer) clearTimeout(timer);
      clearInterval(poller);
      for (const w of watchers) w.close();
    },
  };
}
