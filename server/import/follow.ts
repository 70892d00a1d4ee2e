// Live following of other AI tools' data folders: the sidecar learns of changes from the file
// system and re-runs the import engine after a change settles. It idles: nothing runs while
// nothing changes, but for a stat-only sweep every `sweepMs` (the safety net for a change a
// watch missed), and a run with nothing new costs a stat of each source (the engine's ledger).
// What the engine writes lands in the store, whose own watcher (server/store/watch.ts) turns it
// into session/didChange; what it could not import is told once per file and problem.
// A run after a watch event that named only files the last full run discovered (a session
// growing) is targeted: those sources are stat'ed and read, nothing else (engine `sources`).
// Anything else (a new file, a folder event without a name, the sweep) is a full run.
//
// Watching: one fs.watch a folder, not recursive. Node 20's recursive fs.watch on Linux walks
// the whole tree and puts an inotify watch on every file as well (thousands for a heavy user's
// history); the folders that hold sessions are enough: each run's discovery says which they are
// (with their parents up to the root, where a new project or day folder appears), and the set
// is brought up to date after every run. Where a folder cannot be watched (inotify limits, a
// network disk, a folder that does not exist yet), polling at `pollMs` takes over.
// Depends on the engine (./engine.ts) and node:fs only.

import { statSync, watch, type FSWatcher } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import type { SessionStore } from '../store/store.js';
import { join } from 'node:path';
import { NOT_READ_AGAIN, runImport, type ImportJob, type ImportProblem, type ImportReport, type Source } from './engine.js';

export interface FollowOptions {
  /** Quiet time after a change before the engine runs (ms). */
  debounceMs?: number;
  /** How often the roots are polled (ms) when they cannot be watched. */
  pollMs?: number;
  /** The stat-only sweep while watching (ms). */
  sweepMs?: number;
  /** Poll only, never fs.watch. */
  poll?: boolean;
  onReport?: (r: ImportReport) => void;
  /** A problem not told before (per file and message). */
  onProblem?: (p: ImportProblem & { tool: string }) => void;
  onError?: (e: unknown) => void;
}

export interface Follower {
  /** 'watch' when every root that exists is watched, else 'poll'. */
  readonly mode: 'watch' | 'poll';
  /** Runs the engine now (or after the run in progress) and resolves with its report. */
  runNow(): Promise<ImportReport>;
  close(): void;
}

export function followImports(store: SessionStore, jobs: ImportJob[], o: FollowOptions = {}): Follower {
  const debounceMs = o.debounceMs ?? 200;
  const pollMs = o.pollMs ?? 2000;
  const sweepMs = o.sweepMs ?? 120_000;
  const roots = jobs.flatMap((j) => j.roots.map((r) => resolve(r)));
  const targets = new Targets();
  const watches = new FolderWatches(
    roots,
    (path) => {
      targets.note(path);
      schedule();
    },
    !o.poll,
  );
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<ImportReport> | undefined;
  let again: Promise<ImportReport> | undefined;
  const ac = new AbortController();
  const told = new Set<string>();

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
      runNow(false).catch((e) => {
        if (!closed) o.onError?.(e);
      });
    }, debounceMs);
    timer.unref();
  }

  async function once(full: boolean): Promise<ImportReport> {
    const sources = targets.take(full);
    const r = await runImport(store, jobs, {
      signal: ac.signal,
      ...(sources ? { sources } : { seen: true, onDiscovered: (work: Source[]) => targets.discovered(work) }),
    });
    if (closed) return r;
    if (!sources) watches.update(r.seen ?? []);
    tellProblems(r, roots, told, o);
    o.onReport?.(r);
    return r;
  }

  /** One run at a time; a change during a run asks for exactly one more after it. */
  function runNow(full = true): Promise<ImportReport> {
    if (closed) return Promise.reject(new Error('import following is closed'));
    if (!running) {
      running = once(full).finally(() => (running = undefined));
      return running;
    }
    again ??= running
      .catch(() => undefined)
      .then(() => {
        again = undefined;
        return runNow(full);
      });
    return again;
  }

  watches.update([]);
  const mode: 'watch' | 'poll' = !o.poll && !watches.failed && watches.size > 0 ? 'watch' : 'poll';
  // Watching: a sweep now and then, and a stat of each root not there yet (it starts a run when
  // it appears). Polling: a run every pollMs (each costs a stat a source).
  let lastSweep = Date.now();
  const poller = setInterval(() => {
    if (timer || running) return;
    if (mode === 'poll' || Date.now() - lastSweep >= sweepMs) {
      lastSweep = Date.now();
      targets.note(undefined); // the sweep: a full run
      schedule();
      return;
    }
    for (const r of roots)
      if (!watches.has(r) && existsQuick(r)) {
        targets.note(undefined);
        return schedule();
      }
  }, pollMs);
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
      watches.close();
    },
  };
}

/** Each problem once (per file and message): a file waiting for its retry was told when it failed. */
function tellProblems(r: ImportReport, roots: string[], told: Set<string>, o: FollowOptions): void {
  for (const p of r.problems) {
    if (roots.includes(p.path) && !existsQuick(p.path)) continue; // a tool not installed (yet)
    const message = p.message.endsWith(NOT_READ_AGAIN) ? p.message.slice(0, -NOT_READ_AGAIN.length) : p.message;
    const key = `${p.path}\0${message}`;
    if (told.has(key)) continue;
    told.add(key);
    o.onProblem?.({ ...p, tool: p.tool ?? '' });
  }
}

/** What a targeted run needs: the sources of the last full run, and the files named since the last run. */
class Targets {
  /** By the path of each source and of each of its parts. */
  private known: Map<string, Source> | undefined;
  /** Undefined: the next run is a full one. */
  private named: Set<string> | undefined;

  /** A watch event naming a file, or undefined (no name, a sweep, a new root): a full run. */
  note(path: string | undefined): void {
    if (path === undefined || !this.known?.has(path)) this.named = undefined;
    else this.named?.add(path);
  }

  /** The sources of the run starting now (undefined: discover them all); collecting starts anew. */
  take(full: boolean): Source[] | undefined {
    const known = this.known;
    const named = this.named;
    this.named = new Set();
    if (full || !named || !known) return undefined;
    const sources = [...new Set([...named].map((p) => known.get(p)!))];
    // Only a source discovery stat'ed file by file (with a ctime) can be stat'ed again alone (engine restat).
    return sources.every((x) => x.file.ctimeNs !== undefined) ? sources : undefined;
  }

  discovered(work: Source[]): void {
    this.known = new Map();
    for (const w of work) for (const p of [w.file.path, ...(w.file.parts ?? [])]) this.known.set(p, w);
  }
}

/** One fs.watch a folder: the roots, and each source's folder with its parents up to its root. */
class FolderWatches {
  private readonly watchers = new Map<string, FSWatcher>();
  /** A root that exists could not be watched: the follower polls. */
  failed = false;
  private closed = false;

  constructor(
    private readonly roots: string[],
    /** A change in a watched folder: the file it names, or undefined when it names none. */
    private readonly onChange: (path: string | undefined) => void,
    private readonly enabled: boolean,
  ) {}

  get size(): number {
    return this.watchers.size;
  }

  has(dir: string): boolean {
    return this.watchers.has(dir);
  }

  /** Brings the set up to date with the sources a run discovered. */
  update(seen: string[]): void {
    if (!this.enabled || this.closed) return;
    const want = new Set<string>(this.roots);
    for (const s of seen) {
      const root = this.roots.find((r) => s === r || s.startsWith(r + sep));
      if (!root) continue;
      for (let d = dirname(s); d.length >= root.length && !relative(root, d).startsWith('..'); d = dirname(d)) {
        if (want.has(d) && d !== dirname(s)) break;
        want.add(d);
        if (d === root) break;
      }
    }
    for (const [d, w] of this.watchers)
      if (!want.has(d)) {
        w.close();
        this.watchers.delete(d);
      }
    for (const d of want) this.add(d);
  }

  private add(dir: string): void {
    if (this.watchers.has(dir)) return;
    try {
      const w = watch(dir, { persistent: false }, (_event, name) => this.onChange(name ? join(dir, String(name)) : undefined));
      w.on('error', () => {
        w.close();
        this.watchers.delete(dir);
        this.onChange(undefined); // a folder removed or renamed: the next run sees what is there now
      });
      this.watchers.set(dir, w);
    } catch (e) {
      // A root that is not there yet is looked for at every poll; one that cannot be watched is polled.
      if (this.roots.includes(dir) && (e as NodeJS.ErrnoException).code !== 'ENOENT') this.failed = true;
    }
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }
}

function existsQuick(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}
