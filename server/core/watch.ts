// The store watcher: tells its caller when any process (this sidecar, another window's sidecar,
// the CLI, a text editor) creates, appends to, retitles or deletes a session file.
//
// How: fs.watch on the store root (new project folders) and on each project folder, debounced;
// a fired watch only says "look at this folder", and the verdict comes from comparing each
// *.jsonl's existence, size and mtime with what was seen last. When fs.watch is unavailable
// (EMFILE, ENOSPC: inotify limits are easy to hit) or fails later, or when asked to
// (`poll: true`, LEVELCODE_SESSIONS_POLL=1), it falls back to a real polling loop (every 250 ms
// by default) over the same comparison, not a slow safety rescan.
//
// A growth whose new lines hold a title event is reported as 'renamed' (and as 'appended' as well
// when other events came with it). Depends on node:fs only: nothing of JSON-RPC, nothing of the
// store's internals beyond the file layout <root>/<project folder>/<id>.jsonl.

import { watch as fsWatch, type FSWatcher } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SESSION_ID_RE } from './events.js';

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
  pollMs?: number;
  debounceMs?: number;
  /** Called once if fs.watch fails and the watcher switches to polling. */
  onFallback?: (reason: string) => void;
  onError?: (err: unknown) => void;
}

export interface StoreWatcher {
  readonly mode: 'watch' | 'poll';
  close(): void;
}

interface Seen {
  size: number;
  mtimeMs: number;
  id: string;
  project: string;
}

const FILE_RE = /^(.+)\.jsonl$/;
const TITLE_PREFIX = '{"kind":"title"';
/** Growths larger than this are reported as 'appended' without looking for title lines. */
const MAX_SCAN = 4 << 20;

export function pollForced(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.LEVELCODE_SESSIONS_POLL;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * Starts watching. The first scan records what exists without reporting it; every change after
 * that is reported once, in the order it was found.
 */
export async function watchStore(opts: WatchOptions, onChange: (c: StoreChange) => void): Promise<StoreWatcher> {
  const w = new Watcher(opts, onChange);
  await w.start();
  return w;
}

class Watcher implements StoreWatcher {
  mode: 'watch' | 'poll' = 'watch';
  private readonly seen = new Map<string, Seen>();
  private readonly dirWatchers = new Map<string, FSWatcher>();
  private rootWatcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly pending = new Set<string>(); // folders to rescan; ROOT for the folder list
  private debounce: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly pollMs: number;
  private readonly debounceMs: number;

  constructor(
    private readonly opts: WatchOptions,
    private readonly onChange: (c: StoreChange) => void,
  ) {
    this.pollMs = opts.pollMs ?? 250;
    this.debounceMs = opts.debounceMs ?? 40;
  }

  async start(): Promise<void> {
    const poll = this.opts.poll ?? pollForced();
    if (!poll) {
      try {
        this.rootWatcher = this.watchDir(this.opts.root, ROOT);
      } catch (e) {
        this.fallBack(e);
      }
    }
    await this.scanAll(false);
    if (poll) this.startPolling();
  }

  close(): void {
    this.closed = true;
    this.stopWatching();
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.debounce) clearTimeout(this.debounce);
  }

  // -- fs.watch mode ---------------------------------------------------------------------------

  private watchDir(dir: string, key: string): FSWatcher {
    const w = fsWatch(dir, { persistent: true }, () => this.schedule(key));
    w.on('error', (e) => this.fallBack(e));
    return w;
  }

  private schedule(key: string): void {
    if (this.closed || this.mode !== 'watch') return;
    this.pending.add(key);
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      const keys = [...this.pending];
      this.pending.clear();
      this.enqueue(async () => {
        if (keys.includes(ROOT)) await this.scanAll(true);
        else for (const dir of keys) await this.scanDir(dir, true);
      });
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

  private startPolling(): void {
    this.mode = 'poll';
    const tick = (): void => {
      if (this.closed) return;
      this.enqueue(() => this.scanAll(true)).finally(() => {
        if (!this.closed) this.pollTimer = setTimeout(tick, this.pollMs);
      });
    };
    this.pollTimer = setTimeout(tick, this.pollMs);
  }

  // -- the comparison ----------------------------------------------------------------------------

  private enqueue(job: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(job).catch((e) => this.opts.onError?.(e));
    return this.chain;
  }

  private async scanAll(report: boolean): Promise<void> {
    const dirs = await listDirs(this.opts.root);
    const live = new Set(dirs.map((d) => join(this.opts.root, d)));
    for (const dir of live) {
      if (this.mode === 'watch' && !this.dirWatchers.has(dir)) {
        try {
          this.dirWatchers.set(dir, this.watchDir(dir, dir));
        } catch (e) {
          this.fallBack(e);
        }
      }
      await this.scanDir(dir, report);
    }
    // Folders that vanished: everything in them is gone.
    for (const [dir, w] of this.dirWatchers) {
      if (!live.has(dir)) {
        w.close();
        this.dirWatchers.delete(dir);
      }
    }
    for (const file of [...this.seen.keys()]) {
      if (!live.has(parentOf(file))) this.gone(file, report);
    }
  }

  private async scanDir(dir: string, report: boolean): Promise<void> {
    if (this.closed) return;
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      names = [];
    }
    const present = new Set<string>();
    for (const name of names) {
      const m = FILE_RE.exec(name);
      if (!m || !SESSION_ID_RE.test(m[1])) continue;
      const file = join(dir, name);
      let st;
      try {
        st = await stat(file);
      } catch {
        continue; // vanished between readdir and stat: handled as deleted below
      }
      if (!st.isFile()) continue;
      present.add(file);
      const before = this.seen.get(file);
      if (!before) {
        const project = await projectOf(file);
        this.seen.set(file, { size: st.size, mtimeMs: st.mtimeMs, id: m[1], project });
        if (report) this.emit({ id: m[1], project, change: 'created' });
        continue;
      }
      if (before.size === st.size && before.mtimeMs === st.mtimeMs) continue;
      if (!before.project) before.project = await projectOf(file);
      const kinds = st.size > before.size ? await grownKinds(file, before.size, st.size) : new Set<StoreChangeKind>(['appended']);
      before.size = st.size;
      before.mtimeMs = st.mtimeMs;
      if (report) {
        if (kinds.has('appended')) this.emit({ id: before.id, project: before.project, change: 'appended' });
        if (kinds.has('renamed')) this.emit({ id: before.id, project: before.project, change: 'renamed' });
      }
    }
    for (const file of [...this.seen.keys()]) {
      if (parentOf(file) === dir && !present.has(file)) this.gone(file, report);
    }
  }

  private gone(file: string, report: boolean): void {
    const s = this.seen.get(file);
    if (!s) return;
    this.seen.delete(file);
    if (report) this.emit({ id: s.id, project: s.project, change: 'deleted' });
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

const ROOT = '\0root';

function parentOf(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i < 0 ? '' : file.slice(0, i);
}

async function listDirs(root: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch {
    return [];
  }
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
    fh = await open(file, 'r');
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}
