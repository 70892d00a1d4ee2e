// The store watcher: tells its caller when any process (this sidecar, another window's sidecar,
// the CLI, a text editor) creates, appends to, retitles or deletes a session file.
//
// How: a first snapshot records every *.jsonl's size and mtime (synchronous stats, no opens),
// then each change is found by comparing with what was seen
// last. In fs.watch mode (the store root for new project folders, each project folder for its
// files) an event names the file, and only that file is stat'ed; a folder is re-listed only when
// an event does not name a file. When fs.watch is unavailable (EMFILE, ENOSPC: inotify limits
// are easy to hit) or fails later, or when asked to (`poll: true`, LEVELCODE_SESSIONS_POLL=1), it
// polls (see the polling section: folder mtimes, recently changed files every tick, every file
// over a few ticks).
//
// The meta line (for a change's `project`) is read only when a change of that file is reported,
// never for the snapshot: reading every meta line made the sidecar's start miss its guardrail
// (bench/PERFORMANCE.md). A deleted file whose project was never read is looked up in its
// folder's index.json (a cache, but the file is gone: it is the best left).
//
// A growth whose new lines hold a title event is reported as 'renamed' (and as 'appended' as well
// when other events came with it). Depends on node:fs, files.ts and entries.ts (the index lookup
// above, loaded when a deletion needs it); nothing of JSON-RPC, nothing of the store beyond the
// file layout <root>/<project folder>/<id>.jsonl.

import { watch as fsWatch, readdirSync, statSync, type FSWatcher, type Stats } from 'node:fs';
import { join, sep } from 'node:path';
import { SESSION_ID_RE } from '../format/text.js';
import { openRegular, projectFolderNames } from './files.js';

export type StoreChangeKind = 'created' | 'appended' | 'renamed' | 'deleted';

export interface StoreChange {
  id: string;
  /** The project's real path from the session's meta line ('' when it could not be read). */
  project: string;
  change: StoreChangeKind;
}

export interface WatchOptions {
  root: string;
  /** Poll instead of fs.watch. Defaults to LEVELCODE_SESSIONS_POLL=1. */
  poll?: boolean;
  /** Polling period: folders and recently changed files are checked every period. */
  pollMs?: number;
  /** Polling: every file is stat'ed once per this many periods (default 3). */
  sweepTicks?: number;
  debounceMs?: number;
  /** Called once if fs.watch fails and the watcher switches to polling. */
  onFallback?: (reason: string) => void;
  onError?: (err: unknown) => void;
  /**
   * Called synchronously whenever something may have changed in a project folder (an fs.watch
   * event, a poll that found a difference), before the change is reported: a cache of the
   * folder (the sidecar's listing) can drop it at once.
   */
  onFolderTouched?: (dir: string) => void;
  /**
   * Start with the folders watched but not yet listed, their files not stat'ed: the mode is
   * known at once, and the snapshot is taken by settle(). What changes before settle() is part
   * of the snapshot, not reported: for an owner that shows nothing of the store before it calls
   * settle() (the sidecar serves no request before).
   */
  deferStats?: boolean;
  /**
   * Called with the path of a Syncthing conflict copy of a session (`<id>.sync-conflict-*.jsonl`,
   * server/sync/names.ts) whenever one is seen in a project folder: appearing, or found by a
   * listing of the folder. It is not a session and never reported as a change.
   */
  onConflict?: (file: string) => void;
}

/** A Syncthing conflict copy's name (server/sync/names.ts has the full pattern). */
const CONFLICT_RE = /\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7}.*\.jsonl$/;

export interface StoreWatcher {
  readonly mode: 'watch' | 'poll';
  /**
   * Takes a deferred snapshot (deferStats): lists the folders the start only watched and stats
   * their files. The watcher also calls it before it looks at any change. Idempotent; nothing to
   * do without deferStats.
   */
  settle(): void;
  /** Resolves when every report found so far, and what the snapshot learns in the background, is done. */
  idle(): Promise<void>;
  close(): void;
}

interface Seen {
  size: number;
  mtimeMs: number;
  id: string;
  project: string;
  dir: string;
  /** Polling: checked every tick until this time (it changed recently). */
  hotUntil: number;
}

interface DirState {
  mtimeMs: number;
  /** Wall time of the last listing. */
  listedAt: number;
}

const FILE_RE = /^(.+)\.jsonl$/;
const TITLE_PREFIX = '{"kind":"title"';
/** Growths larger than this are reported as 'appended' without looking for title lines. */
const MAX_SCAN = 4 << 20;
/** Polling: a file that changed is stat'ed every tick for this long. */
const HOT_MS = 60_000;
/**
 * Polling: a folder whose mtime is this close to (or after) its last listing is listed again,
 * because a file created in the same timestamp tick as the listing leaves the mtime unchanged
 * (file system timestamps are coarse, a few ms).
 */
const RECENT_MS = 1000;

export function pollForced(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.LEVELCODE_SESSIONS_POLL;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * Starts watching. The snapshot records what exists without reporting it (it is taken before
 * this resolves, synchronously, so nothing that changes after the call is missed); every change
 * after that is reported once, in the order it was found.
 */
export async function watchStore(opts: WatchOptions, onChange: (c: StoreChange) => void): Promise<StoreWatcher> {
  const w = new Watcher(opts, onChange);
  w.start();
  return w;
}

class Watcher implements StoreWatcher {
  mode: 'watch' | 'poll' = 'watch';
  private readonly seen = new Map<string, Seen>();
  private readonly dirs = new Map<string, DirState>();
  private rootState: DirState = { mtimeMs: NaN, listedAt: 0 };
  private readonly dirWatchers = new Map<string, FSWatcher>();
  private rootWatcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  // fs.watch mode: what the debounced flush must look at.
  private pendingRoot = false;
  private readonly pendingDirs = new Set<string>();
  private readonly pendingFiles = new Set<string>();
  private debounce: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly pollMs: number;
  private readonly sweepTicks: number;
  private readonly debounceMs: number;
  // Polling: the rotating sweep over every known file.
  private sweepOrder: string[] = [];
  private sweepDirty = true;
  private sweepAt = 0;
  // With deferStats the start watches the folders and lists them later, in settle(): in a large
  // store the stats, and then the listings (a readdir a folder, a name check and a path for
  // each file), were most of our part of the sidecar's start before
  // `initialize` could be answered (bench/PERFORMANCE.md: sidecar start). The folders watched
  // and not yet listed, in order.
  private unsettled: string[] | undefined;

  constructor(
    private readonly opts: WatchOptions,
    private readonly onChange: (c: StoreChange) => void,
  ) {
    this.pollMs = opts.pollMs ?? 250;
    this.sweepTicks = Math.max(1, opts.sweepTicks ?? 3);
    this.debounceMs = opts.debounceMs ?? 40;
  }

  start(): void {
    const poll = this.opts.poll ?? pollForced();
    if (!poll) {
      try {
        this.rootWatcher = this.watchDir(this.opts.root, undefined);
      } catch (e) {
        this.fallBack(e);
      }
    }
    // The snapshot: each folder is watched before it is listed, so an event for a file that
    // changes while the snapshot is taken is delivered afterwards and compared with it (settle()
    // runs first: every path that looks at a change starts with it).
    if (this.opts.deferStats) this.unsettled = [];
    this.scanRoot([], false);
    if (poll) this.startPolling();
  }

  settle(): void {
    const dirs = this.unsettled;
    if (!dirs) return;
    this.unsettled = undefined;
    // A first listing of each: what it finds is the snapshot, not reported.
    for (const dir of dirs) this.listDir(dir, [], false);
  }

  idle(): Promise<void> {
    return this.chain;
  }

  close(): void {
    this.closed = true;
    this.stopWatching();
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.debounce) clearTimeout(this.debounce);
  }

  // -- fs.watch mode ---------------------------------------------------------------------------

  /** `dir` undefined: the store root. */
  private watchDir(path: string, dir: string | undefined): FSWatcher {
    const w = fsWatch(path, { persistent: true }, (_event, name) => this.onEvent(dir, name ? String(name) : null));
    w.on('error', (e) => {
      // A project folder removed as a whole ends its watcher (sometimes with an error): that is
      // a change of the root, not a reason to give up on fs.watch.
      if (dir !== undefined && !isDir(dir)) {
        w.close();
        this.dirWatchers.delete(dir);
        this.onEvent(undefined, null);
        return;
      }
      this.fallBack(e);
    });
    return w;
  }

  private onEvent(dir: string | undefined, name: string | null): void {
    if (this.closed || this.mode !== 'watch') return;
    if (dir === undefined) {
      this.pendingRoot = true;
    } else if (name === null) this.pendingDirs.add(dir);
    else {
      // Only session files matter: lock folders (and an old store's caches) are skipped without
      // a stat. The caches are not in the store (cache-dir.ts), so their writes fire nothing.
      const m = FILE_RE.exec(name);
      if (m && this.opts.onConflict && CONFLICT_RE.test(name)) this.opts.onConflict(join(dir, name));
      if (!m || !SESSION_ID_RE.test(m[1]!)) return;
      this.pendingFiles.add(join(dir, name));
    }
    if (dir !== undefined) this.opts.onFolderTouched?.(dir);
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.settle();
      const root = this.pendingRoot;
      const dirs = [...this.pendingDirs];
      const files = [...this.pendingFiles];
      this.pendingRoot = false;
      this.pendingDirs.clear();
      this.pendingFiles.clear();
      const found: Found[] = [];
      if (root) this.scanRoot(found, true);
      for (const d of dirs) if (this.dirs.has(d)) this.scanDir(d, found, true);
      for (const f of files) {
        const d = parentOf(f);
        if (this.dirs.has(d)) this.checkFile(f, d, found);
      }
      this.report(found);
    }, this.debounceMs);
  }

  private fallBack(err: unknown): void {
    if (this.closed || this.mode === 'poll') return;
    this.stopWatching();
    const code = (err as NodeJS.ErrnoException)?.code ?? String(err);
    this.opts.onFallback?.(`fs.watch failed (${code}); polling every ${this.pollMs} ms`);
    this.startPolling();
  }

  private stopWatching(): void {
    this.rootWatcher?.close();
    this.rootWatcher = undefined;
    for (const w of this.dirWatchers.values()) w.close();
    this.dirWatchers.clear();
  }

  // -- polling mode ----------------------------------------------------------------------------
  //
  // Stat'ing every file every tick cost a large share of a core in a large store. Instead, each tick:
  // the root and each project folder are stat'ed, and a folder is listed again only when its
  // mtime moved (a file created, deleted or renamed in it); files that changed in the last
  // minute are stat'ed (a session being written); and a 1/sweepTicks slice of all files is
  // stat'ed, so an append to any other session is seen within sweepTicks periods (within what
  // protocol.md promises for the polling fallback). The stats are synchronous: a fraction of the
  // main-thread time of the promise-based call, and a tick's slice of a large store takes a few
  // milliseconds.

  private startPolling(): void {
    this.mode = 'poll';
    const tick = (): void => {
      if (this.closed) return;
      const found: Found[] = [];
      try {
        this.settle();
        this.pollOnce(found);
      } catch (e) {
        this.opts.onError?.(e);
      }
      this.report(found).finally(() => {
        if (!this.closed) this.pollTimer = setTimeout(tick, this.pollMs);
      });
    };
    this.pollTimer = setTimeout(tick, this.pollMs);
  }

  private pollOnce(found: Found[]): void {
    const now = Date.now();
    const rst = statOrUndefined(this.opts.root);
    if (!rst || rst.mtimeMs !== this.rootState.mtimeMs || rst.mtimeMs >= this.rootState.listedAt - RECENT_MS) this.scanRoot(found, true);
    for (const [dir, ds] of this.dirs) {
      const st = statOrUndefined(dir);
      if (!st) continue; // removed: the root's listing (its mtime moved) drops it
      if (st.mtimeMs !== ds.mtimeMs || st.mtimeMs >= ds.listedAt - RECENT_MS) this.listDir(dir, found, true);
    }
    if (this.sweepDirty) {
      this.sweepOrder = [...this.seen.keys()];
      this.sweepDirty = false;
      if (this.sweepAt >= this.sweepOrder.length) this.sweepAt = 0;
    }
    const checked = new Set<string>();
    for (const [file, s] of this.seen) {
      if (s.hotUntil > now) {
        checked.add(file);
        this.checkFile(file, s.dir, found);
      }
    }
    const n = this.sweepOrder.length;
    const slice = Math.ceil(n / this.sweepTicks);
    for (let k = 0; k < slice && n > 0; k++) {
      const file = this.sweepOrder[this.sweepAt]!;
      this.sweepAt = (this.sweepAt + 1) % n;
      if (checked.has(file)) continue;
      const s = this.seen.get(file);
      if (s) this.checkFile(file, s.dir, found);
    }
  }

  // -- the comparison ----------------------------------------------------------------------------
  //
  // Synchronous: it only stats and lists. What needs reading (the meta line for `project`, the
  // grown bytes for title lines) is done in report(), in order, one change after another.

  /** Lists the root: new project folders are watched and listed, vanished ones dropped. */
  private scanRoot(found: Found[], report: boolean): void {
    const st = statOrUndefined(this.opts.root);
    const listedAt = Date.now();
    const live = new Set(listDirs(this.opts.root).map((d) => join(this.opts.root, d)));
    this.rootState = { mtimeMs: st?.mtimeMs ?? NaN, listedAt };
    for (const dir of live) {
      if (this.dirs.has(dir)) continue;
      if (this.mode === 'watch' && !this.closed) {
        try {
          this.dirWatchers.set(dir, this.watchDir(dir, dir));
        } catch (e) {
          this.fallBack(e);
        }
      }
      if (this.unsettled && !report) this.unsettled.push(dir);
      else this.listDir(dir, found, report);
    }
    for (const dir of [...this.dirs.keys()]) {
      if (live.has(dir)) continue;
      this.dirWatchers.get(dir)?.close();
      this.dirWatchers.delete(dir);
      this.dirs.delete(dir);
      this.opts.onFolderTouched?.(dir);
      for (const [file, s] of this.seen) if (s.dir === dir) this.gone(file, found);
    }
  }

  /** A folder listed again: every file in it checked (a fs.watch event without a name). */
  private scanDir(dir: string, found: Found[], report: boolean): void {
    this.listDir(dir, found, report);
    for (const [file, s] of this.seen) if (s.dir === dir) this.checkFile(file, dir, found);
  }

  /**
   * Reads, behind any report, the project of files found present (not reported), so that their
   * deletion, once the file is gone, still carries its project: from the folder's index.json
   * when it has them, else from each file's meta line.
   */
  private learnProjects(files: string[]): void {
    this.chain = this.chain
      .then(async () => {
        for (const file of files) {
          if (this.closed) return;
          const s = this.seen.get(file);
          if (!s || s.project) continue;
          s.project = (await cachedProject(s.dir, s.id)) || (await projectOf(file));
        }
      })
      .catch((e) => this.opts.onError?.(e));
  }

  /** Lists a folder: files not seen before are new, seen files not listed are gone. */
  private listDir(dir: string, found: Found[], report: boolean): void {
    const st = statOrUndefined(dir);
    const listedAt = Date.now();
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      names = [];
    }
    const first = !this.dirs.has(dir);
    this.dirs.set(dir, { mtimeMs: st?.mtimeMs ?? NaN, listedAt });
    if (!first) this.opts.onFolderTouched?.(dir);
    const present = new Set<string>();
    const unnamed: string[] = [];
    for (const name of names) {
      const m = FILE_RE.exec(name);
      if (m && this.opts.onConflict && CONFLICT_RE.test(name)) this.opts.onConflict(dir + sep + name);
      if (!m || !SESSION_ID_RE.test(m[1]!)) continue;
      // The folder's path is already normal and the name a session id: no join() needed
      // (2,700 of them were a few ms of the snapshot).
      const file = dir + sep + name;
      present.add(file);
      if (this.seen.has(file)) continue;
      const fst = statOrUndefined(file);
      if (!fst?.isFile()) {
        present.delete(file);
        continue;
      }
      this.seen.set(file, {
        size: fst.size,
        mtimeMs: fst.mtimeMs,
        id: m[1]!,
        project: '',
        dir,
        hotUntil: report ? Date.now() + HOT_MS : 0,
      });
      this.sweepDirty = true;
      if (report) found.push({ file, kind: 'created' });
      else unnamed.push(file);
    }
    if (unnamed.length) this.learnProjects(unnamed);
    if (first) return;
    for (const [file, s] of this.seen) if (s.dir === dir && !present.has(file)) this.gone(file, found);
  }

  /** Stats one known-or-new file and records what changed. */
  private checkFile(file: string, dir: string, found: Found[]): void {
    const st = statOrUndefined(file);
    const before = this.seen.get(file);
    if (!st?.isFile()) {
      if (before) this.gone(file, found);
      return;
    }
    if (!before) {
      const m = FILE_RE.exec(file.slice(dir.length + 1));
      if (!m || !SESSION_ID_RE.test(m[1]!)) return;
      this.seen.set(file, { size: st.size, mtimeMs: st.mtimeMs, id: m[1]!, project: '', dir, hotUntil: Date.now() + HOT_MS });
      this.sweepDirty = true;
      found.push({ file, kind: 'created' });
      return;
    }
    if (before.size === st.size && before.mtimeMs === st.mtimeMs) return;
    this.opts.onFolderTouched?.(dir);
    found.push({ file, kind: 'changed', from: before.size, to: st.size });
    before.size = st.size;
    before.mtimeMs = st.mtimeMs;
    before.hotUntil = Date.now() + HOT_MS;
  }

  private gone(file: string, found: Found[]): void {
    const s = this.seen.get(file);
    if (!s) return;
    this.seen.delete(file);
    this.sweepDirty = true;
    found.push({ file, kind: 'deleted', seen: s });
  }

  /** Reads what a report needs and emits, in order, behind any report still running. */
  private report(found: Found[]): Promise<void> {
    if (found.length === 0) return this.chain;
    this.chain = this.chain
      .then(async () => {
        for (const f of found) {
          if (this.closed) return;
          if (f.kind === 'deleted') {
            const s = f.seen;
            // entries.ts is loaded only for this (the sidecar loads this module before
            // `initialize` is answered, and entries.ts with the store, after).
            const project = s.project || ((await cachedProject(s.dir, s.id)) ?? '');
            this.emit({ id: s.id, project, change: 'deleted' });
            continue;
          }
          const s = this.seen.get(f.file);
          if (!s) continue; // gone since: its deletion is in this list or the next
          if (!s.project) s.project = await projectOf(f.file);
          if (f.kind === 'created') {
            this.emit({ id: s.id, project: s.project, change: 'created' });
            continue;
          }
          const kinds = f.to > f.from ? await grownKinds(f.file, f.from, f.to) : new Set<StoreChangeKind>(['appended']);
          if (kinds.has('appended')) this.emit({ id: s.id, project: s.project, change: 'appended' });
          if (kinds.has('renamed')) this.emit({ id: s.id, project: s.project, change: 'renamed' });
        }
      })
      .catch((e) => this.opts.onError?.(e));
    return this.chain;
  }

  private emit(c: StoreChange): void {
    if (this.closed) return;
    try {
      this.onChange(c);
    } catch (e) {
      this.opts.onError?.(e);
    }
  }
}

type Found =
  | { file: string; kind: 'created' }
  | { file: string; kind: 'changed'; from: number; to: number }
  | { file: string; kind: 'deleted'; seen: Seen };

function parentOf(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i < 0 ? '' : file.slice(0, i);
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function isDir(path: string): boolean {
  return statOrUndefined(path)?.isDirectory() ?? false;
}

function listDirs(root: string): string[] {
  try {
    return projectFolderNames(root).sort();
  } catch {
    return [];
  }
}

/** A deleted session's project, from its folder's index.json. */
async function cachedProject(dir: string, id: string): Promise<string | undefined> {
  const { cachedEntry } = await import('./entries.js');
  return (await cachedEntry(dir, id).catch(() => undefined))?.project;
}

/** The project path from a file's meta line (the first line), or '' when unreadable. */
async function projectOf(file: string): Promise<string> {
  const head = await readRange(file, 0, 64 * 1024);
  if (!head) return '';
  const nl = head.indexOf(0x0a);
  const line = head.subarray(0, nl < 0 ? head.length : nl).toString('utf8');
  try {
    const meta = JSON.parse(line) as { kind?: unknown; project?: unknown };
    return meta.kind === 'meta' && typeof meta.project === 'string' ? meta.project : '';
  } catch {
    return '';
  }
}

/** What a growth from `from` to `to` bytes added: title lines make it a rename. */
async function grownKinds(file: string, from: number, to: number): Promise<Set<StoreChangeKind>> {
  const kinds = new Set<StoreChangeKind>();
  if (to - from > MAX_SCAN) return kinds.add('appended');
  const bytes = await readRange(file, from, to - from);
  if (!bytes) return kinds.add('appended');
  for (const line of bytes.toString('utf8').split('\n')) {
    if (line.trim() === '') continue;
    kinds.add(isTitleLine(line) ? 'renamed' : 'appended');
  }
  if (kinds.size === 0) kinds.add('appended');
  return kinds;
}

/** Writers of this project put `kind` first (a fast path); any other writer's line is parsed. */
function isTitleLine(line: string): boolean {
  if (line.startsWith(TITLE_PREFIX)) return true;
  if (line.startsWith('{"kind":"')) return false;
  try {
    return (JSON.parse(line) as { kind?: unknown })?.kind === 'title';
  } catch {
    return false;
  }
}

async function readRange(file: string, position: number, length: number): Promise<Buffer | undefined> {
  let fh;
  try {
    fh = await openRegular(file);
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}
