// The session store: plain files under one root, one folder a project, one JSONL file a session.
// This is the only module that writes session files, and it only ever appends to them.
//
// Invariants kept here:
// - a session file is created exclusively and never rewritten, truncated or renamed; every
//   change is one appended batch, written with one write call and fsync'd before returning;
// - the next append after a torn last line starts on a fresh line;
// - files are 0600, folders 0700;
// - index.json is a cache (./entries.ts), never trusted over the files;
// - a file with a newer schema version is listed and read but never appended to.
// Depends on node:fs, ./entries, ./lock, ./reader, ./events; knows nothing of JSON-RPC or the CLI.

import { access, chmod, lstat, mkdir, stat } from 'node:fs/promises';
import { closeSync, constants, fstatSync, fsync, ftruncateSync, lstatSync, readSync, unlinkSync } from 'node:fs';
import {
  createExclusiveSync,
  openRegular,
  openRegularSync,
  plantedKind,
  projectFolders,
  realProjectPath,
  syncFolder,
  writeAllSync,
} from './files.js';
import { dirname, join, resolve } from 'node:path';
import {
  IncomingEvent,
  MetaLine,
  SCHEMA_VERSION,
  SessionEvent,
  serializeAroundRaw,
  serializeLine,
  tooDeep,
  MAX_DEPTH,
  type SeqEvent,
  type ForkedFrom,
  type ImportSource,
} from '../format/events.js';
import { projectIdentity } from './identity.js';
import { OF_RAW, shareWithRaw } from '../format/derived.js';
import { StoreError, fromFsError, isStoreError } from './errors.js';
import { isSessionId, newSessionId } from '../format/ids.js';
import { projectSlug } from './slug.js';
import { cachedEntry, entryFromFile, mapLimit, removeEntry, upsertEntry, type IndexEntry } from './entries.js';
import { acquireLock, inspectLock, takeable, DEFAULT_STALE_MS, type Held } from './lock.js';
import {
  readMeta,
  readMetaSync,
  readSession,
  readSessionFrom,
  readTail,
  foldEvents,
  foldDigest,
  parseEventLine,
  isTurn,
  type Problem,
} from './reader.js';
import { eachLineBackward, kindOfHead, KIND_HEAD_BYTES } from './lines.js';
import { elideToCap, StreamElider } from '../format/soft-cap.js';
import { lockPathOf } from './lock.js';
import { deviceName } from './device.js';

export type { Problem } from './reader.js';

export const DEFAULT_SOFT_CAP = 20 * 1024 * 1024;

export interface StoreOptions {
  root: string;
  /** Sessions larger than this get their oldest tool results elided when loaded. */
  softCapBytes?: number;
  staleLockMs?: number;
  /** Named in owner.json of the locks this store takes ("sidecar", "cli", ...). */
  agent?: string;
  /** Called when a held lock is lost (removed or taken over by someone else). */
  onLockLost?: (id: string, err: Error) => void;
}

export interface ReadResult {
  meta: MetaLine;
  events: SeqEvent[];
  problems: Problem[];
  /** Line positions after the meta line: the seq the next event will get. */
  totalEvents?: number;
  /** Tool results elided by the soft cap on load. */
  elided?: number;
}

export interface ResumeLoad extends ReadResult {
  /** Seq of the first event in `events` (0 for a whole session). */
  fromSeq: number;
  /** The last valid compact event, when the load starts after what it covers. */
  compact?: SeqEvent;
  /**
   * The lines before fromSeq, newest first, one at a time until `visit` returns false. Each
   * line's kind is read from its first bytes (null when the line does not start the way we
   * write events); only lines `want(kind, bytes)` accepts are read whole, parsed and visited,
   * `event` being the line's event (absent for an unreadable line; nothing is elided).
   * Lets a caller bound what precedes the load without reading a long session whole. Absent
   * when fromSeq is 0.
   */
  earlier?: (
    visit: (line: { seq: number; kind: string | null; bytes: number; event?: SessionEvent }) => boolean,
    o?: { want?: (kind: string | null, bytes: number) => boolean; signal?: AbortSignal },
  ) => Promise<void>;
  /** Bytes of the lines before fromSeq (0 when fromSeq is 0). */
  earlierBytes: number;
  /**
   * The whole session as load() reads it, when the plan needs it after all: only the lines
   * before fromSeq are read, the events after them are this load's. Itself when fromSeq is 0.
   */
  whole: (o?: { signal?: AbortSignal }) => Promise<ReadResult>;
}

export interface AppendResult {
  appended: number;
  firstSeq: number;
  lastSeq: number;
}

interface Live {
  held: Held;
  /**
   * The session held by its open file (O_RDWR | O_APPEND, opened without following a symlink):
   * every append is written here, after checking that `file` still names this device and inode.
   */
  fd: number;
  dev: bigint;
  ino: bigint;
  file: string;
  dir: string;
  /** Line positions after the meta line. */
  lines: number;
  size: number;
  /** The file ends without '\n' (a torn line): the next append starts with one. */
  torn: boolean;
  entry: IndexEntry;
  /**
   * Taken for this process's own use (a client's append, resume or delete), not only borrowed
   * for one write the sidecar makes on its own (a background title, an auto-archive): a borrowed
   * lock is let go after its write, a claimed one is kept (see append's `borrow`).
   */
  claimed: boolean;
}

export class SessionStore {
  readonly root: string;
  readonly softCapBytes: number;
  readonly staleLockMs: number;
  private readonly agent: string;
  private readonly onLockLost?: (id: string, err: Error) => void;
  private readonly live = new Map<string, Live>();
  private readonly located = new Map<string, string>();
  /** Serialises writes per session inside this process. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Sessions appended to whose index entry is not written yet (see afterAppend). */
  private readonly unindexed = new Map<string, Live>();
  private readonly indexWrites = new Set<Promise<void>>();
  private indexWriteScheduled = false;

  constructor(opts: StoreOptions) {
    this.root = resolve(opts.root);
    this.softCapBytes = opts.softCapBytes ?? DEFAULT_SOFT_CAP;
    this.staleLockMs = opts.staleLockMs ?? DEFAULT_STALE_MS;
    this.agent = opts.agent ?? 'process';
    this.onLockLost = opts.onLockLost;
  }

  // ---- paths ---------------------------------------------------------------------------------

  projectDirOf(project: string): string {
    return join(this.root, projectSlug(project));
  }

  /** The real path of a project folder, as stored in meta lines. */
  async realProject(project: string, mustExist: boolean): Promise<string> {
    return realProjectPath(project, mustExist);
  }

  private async ensureDir(dir: string): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      const st = await stat(this.root);
      if (!st.isDirectory()) throw new StoreError('io', `store root is not a folder: ${this.root}`);
      try {
        await mkdir(dir, { mode: 0o700 });
        await chmod(dir, 0o700);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const dst = await lstat(dir);
        if (!dst.isDirectory() || dst.isSymbolicLink()) throw new StoreError('io', `project folder in the store is not a folder: ${dir}`);
      }
    } catch (e) {
      throw fromFsError(e, `cannot create ${dir}`);
    }
  }

  /** Absolute path of a session's file. */
  async pathOf(id: string): Promise<string> {
    if (!isSessionId(id)) throw new StoreError('bad-id', `not a session id: ${JSON.stringify(String(id)).slice(0, 80)}`);
    const live = this.live.get(id);
    if (live) return live.file;
    const known = this.located.get(id);
    if (known && (await isRegularFile(known))) return known;
    const dirs = projectFolders(this.root);
    let found: string | undefined;
    await mapLimit(dirs, 16, async (d) => {
      if (found) return;
      const file = join(d, `${id}.jsonl`);
      if (await isRegularFile(file)) found = file;
    });
    if (!found) {
      // A folder that could not be looked into may hold it: that is an error, not "no session".
      const shut = await firstUnreadable(dirs);
      if (shut) throw new StoreError('io', `session ${id} not found, and cannot read ${shut.dir} (${shut.code}): it may be there`);
      throw new StoreError('unknown-session', `no session ${id} in ${this.root}`);
    }
    this.located.set(id, found);
    return found;
  }

  /**
   * Tells the store where a session's file is (the import engine lists the folders once a run):
   * the next pathOf checks it with one lstat instead of looking in every project folder.
   */
  remember(id: string, file: string): void {
    if (isSessionId(id)) this.located.set(id, file);
  }

  // ---- writing -------------------------------------------------------------------------------

  /** Creates a session: its file with the meta line, fsync'd. This store then owns it. */
  async create(o: { project: string; model?: string; forkedFrom?: ForkedFrom; source?: ImportSource }): Promise<MetaLine> {
    const project = await this.realProject(o.project, true);
    // The project's git identity, so that History finds this session after a move (identity.ts).
    const repo = await projectIdentity(project);
    if (o.model !== undefined && (typeof o.model !== 'string' || o.model.length > 500))
      throw new StoreError('invalid-events', 'model must be a string of at most 500 characters');
    const dir = this.projectDirOf(project);
    await this.ensureDir(dir);
    for (let attempt = 0; attempt < 20; attempt++) {
      const now = new Date();
      const id = newSessionId(now);
      const file = join(dir, `${id}.jsonl`);
      const meta: MetaLine = {
        kind: 'meta',
        v: SCHEMA_VERSION,
        id,
        project,
        createdAt: now.toISOString(),
        title: null,
        ...(o.model ? { model: o.model } : {}),
        ...(o.forkedFrom ? { forkedFrom: { id: o.forkedFrom.id, turn: o.forkedFrom.turn } } : {}),
        ...(o.source ? { source: o.source } : {}),
        ...(repo ? { repo: { ...repo } } : {}),
        device: deviceName(),
      };
      // A meta line this store could not read back is never written (a caller's `source` or
      // `forkedFrom` is typed, not checked, until here).
      const checked = MetaLine.safeParse(meta);
      if (!checked.success) throw new StoreError('invalid-events', 'invalid meta line', { issues: checked.error.issues });
      const line = Buffer.from(JSON.stringify(meta) + '\n');
      this.writable();
      let fd: number;
      try {
        // Exclusive (never a file that exists, nor a name planted as a symlink), and kept open:
        // this store then holds the session by this descriptor (see Live).
        fd = createExclusiveSync(file, constants.O_RDWR | constants.O_APPEND);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw fromFsError(e, `cannot create a session in ${dir}`);
      }
      let held: Held;
      let st;
      try {
        try {
          writeAllSync(fd, line);
          await fsyncFd(fd);
        } catch (e) {
          throw fromFsError(e, `cannot write the new session ${id}`);
        }
        await syncDir(dir);
        st = fstatSync(fd, { bigint: true });
        held = await this.lockFile(id, file);
      } catch (e) {
        // A failed create leaves nothing: the file is ours (made exclusively) and was never acknowledged.
        closeQuietly(fd);
        try {
          unlinkSync(file);
        } catch {
          /* nothing more to do */
        }
        throw e;
      }
      this.located.set(id, file);
      const entry: IndexEntry = {
        id,
        project,
        createdAt: meta.createdAt,
        model: meta.model ?? null,
        v: meta.v,
        bytes: line.length,
        mtimeNs: st.mtimeNs.toString(),
        metaEnd: line.length,
        turns: 0,
        updatedAt: meta.createdAt,
        preview: '',
        firstUser: '',
        title: null,
        titleSource: null,
        lines: 0,
        folded: line.length,
        bad: 0,
        ...(meta.forkedFrom ? { forkedFrom: meta.forkedFrom } : {}),
        ...(o.source ? { source: { tool: o.source.tool, id: o.source.id, path: o.source.path, project: o.source.project } } : {}),
        ...(repo ? { repo } : {}),
        device: meta.device,
        pinned: false,
        archived: false,
        unarchivedAt: null,
        interrupted: false,
      };
      this.live.set(id, { held, fd, dev: st.dev, ino: st.ino, file, dir, lines: 0, size: line.length, torn: false, entry, claimed: true });
      await upsertEntry(dir, entry).catch(() => {});
      return meta;
    }
    throw new StoreError('io', 'could not find a free session id');
  }

  /**
   * Writes the meta line of an imported session (server/import/engine.ts) under the id the
   * engine derived from its source, exclusively: returns false, writing nothing, when a session
   * of that id exists already. The first append then takes its lock.
   */
  async createImported(meta: MetaLine): Promise<boolean> {
    if (!isSessionId(meta.id)) throw new StoreError('bad-id', `not a session id: ${meta.id}`);
    const checked = MetaLine.safeParse(meta);
    if (!checked.success) throw new StoreError('invalid-events', 'invalid meta line', { issues: checked.error.issues });
    if (
      await this.pathOf(meta.id).then(
        () => true,
        () => false,
      )
    )
      return false;
    const dir = this.projectDirOf(meta.project);
    await this.ensureDir(dir);
    const file = join(dir, `${meta.id}.jsonl`);
    let fd: number;
    try {
      fd = createExclusiveSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw fromFsError(e, `cannot create a session in ${dir}`);
    }
    try {
      writeAllSync(fd, Buffer.from(JSON.stringify(meta) + '\n'));
      await fsyncFd(fd);
    } catch (e) {
      // A failed create leaves nothing: the file is ours (made exclusively) and holds no event.
      closeQuietly(fd);
      try {
        unlinkSync(file);
      } catch {
        /* nothing more to do */
      }
      throw fromFsError(e, `cannot write the new session ${meta.id}`);
    }
    closeQuietly(fd);
    await syncDir(dir);
    this.located.set(meta.id, file);
    return true;
  }

  private async lockFile(id: string, file: string): Promise<Held> {
    const held = await acquireLock(file, {
      staleMs: this.staleLockMs,
      agent: this.agent,
      onLost: (err) => {
        const live = this.live.get(id);
        if (live?.file === file) {
          this.live.delete(id);
          closeQuietly(live.fd);
        }
        this.onLockLost?.(id, err);
      },
    });
    await chmod(lockPathOf(file), 0o700).catch(() => {});
    return held;
  }

  /** Takes ownership of a session (its lock), or throws StoreError('locked'). */
  async acquire(id: string): Promise<void> {
    await this.own(id);
  }

  private async own(id: string, o: { borrow?: boolean } = {}): Promise<Live> {
    const existing = this.live.get(id);
    if (existing && !existing.held.compromised) {
      if (!o.borrow) existing.claimed = true;
      return existing;
    }
    this.writable();
    const file = await this.pathOf(id);
    // Held by its descriptor from here on: opened without following a symlink or waiting on a
    // FIFO, and only if it is a regular file (files.ts openRegularSync).
    let fd: number;
    try {
      fd = openRegularSync(file, constants.O_RDWR | constants.O_APPEND).fd;
    } catch (e) {
      throw fromFsError(e, `cannot open session ${id} for appending`);
    }
    let held: Held | undefined;
    try {
      const info = readMetaSync(file, fd);
      if (info.meta.v > SCHEMA_VERSION)
        throw new StoreError(
          'schema-too-new',
          `session ${id} was written with schema v${info.meta.v}; this build writes v${SCHEMA_VERSION} and will not append to it (update levelcode-sessions)`,
          { v: info.meta.v, supported: SCHEMA_VERSION },
        );
      held = await this.lockFile(id, file);
      const dir = join(file, '..');
      const st = fstatSync(fd, { bigint: true });
      const size = Number(st.size);
      // Sequence numbers come from the file: its line ends are counted (no parse), and the
      // cached entry is used only when it agrees with them.
      const counted = await countLines(fd, info.metaEnd, size);
      let entry = await cachedEntry(dir, id);
      if (
        !entry ||
        entry.bytes !== size ||
        entry.mtimeNs !== st.mtimeNs.toString() ||
        entry.lines !== counted.lines ||
        entry.folded < size !== counted.torn
      )
        entry = await entryFromFile(file, id, size, st.mtimeNs);
      const live: Live = {
        held,
        fd,
        dev: st.dev,
        ino: st.ino,
        file,
        dir,
        lines: counted.lines + (counted.torn ? 1 : 0),
        size,
        torn: counted.torn,
        entry,
        claimed: !o.borrow,
      };
      this.checkSame(live);
      this.live.set(id, live);
      return live;
    } catch (e) {
      closeQuietly(fd);
      await held?.release();
      throw e;
    }
  }

  /**
   * Refuses to touch a held session whose name no longer leads to the file held: removed,
   * renamed, or replaced (by a symlink, a FIFO or another file) behind this process. The
   * descriptor is let go with the lock; nothing is written anywhere.
   */
  private checkSame(live: Live): void {
    let st;
    try {
      st = lstatSync(live.file, { bigint: true });
    } catch {
      st = undefined;
    }
    if (st?.isFile() && st.dev === live.dev && st.ino === live.ino) return;
    const what = !st ? 'removed' : st.isFile() ? 'replaced by another file' : `replaced by ${plantedKind(live.file) ?? 'something else'}`;
    const id = live.entry.id;
    if (this.live.get(id) === live) this.live.delete(id);
    closeQuietly(live.fd);
    void live.held.release();
    throw new StoreError('io', `session ${id} was ${what} behind this process: nothing written (its lock is released; open it again)`, {
      file: live.file,
    });
  }

  /** After shutdown (closeForWrites), a late answer must not write: every write refuses. */
  private closed = false;

  /** Refuses every later create, lock and append; what is held is released by releaseAll. */
  closeForWrites(): void {
    this.closed = true;
  }

  private writable(): void {
    if (this.closed) throw new StoreError('io', 'the store is shut down: nothing more is written');
  }

  /** Gives up ownership. */
  async release(id: string): Promise<void> {
    const live = this.live.get(id);
    if (!live) return;
    await this.flushIndex();
    this.live.delete(id);
    closeQuietly(live.fd);
    await live.held.release();
  }

  /**
   * Gives up ownership between writes (session/release): queued behind the appends already
   * asked for, so a write in flight is never cut off; answers whether the lock was held. The
   * index entry is left to its pending pass (it needs no descriptor), unlike release(), which
   * a process about to exit calls.
   */
  async letGo(id: string): Promise<boolean> {
    return this.serial(id, async () => {
      const live = this.live.get(id);
      if (!live) return false;
      this.live.delete(id);
      closeQuietly(live.fd);
      await live.held.release();
      return true;
    });
  }

  async releaseAll(): Promise<void> {
    await this.flushIndex();
    await Promise.all([...this.live.keys()].map((id) => this.release(id)));
  }

  holds(id: string): boolean {
    const l = this.live.get(id);
    return !!l && !l.held.compromised;
  }

  held(): string[] {
    return [...this.live.keys()];
  }

  async lockInfo(id: string): Promise<{ locked: boolean; byUs: boolean; pid?: number; host?: string; agent?: string }> {
    if (this.holds(id)) return { locked: true, byUs: true, pid: process.pid };
    const file = await this.pathOf(id);
    const s = await inspectLock(file, this.staleLockMs);
    const live = s.locked && !takeable(s);
    return { locked: live, byUs: false, pid: s.owner?.pid, host: s.owner?.host, agent: s.owner?.agent };
  }

  /**
   * Appends a batch of events: all validated first (nothing is written if one is invalid),
   * then one write call and an fsync. Events without `t` are stamped with the current time.
   */
  /**
   * Appends a batch, all or nothing. With `expectedSeq` (the seq the client expects its first
   * event to get), a session whose conversation moved on meanwhile (another window appended a
   * turn: movedOn) is refused with StoreError('conflict') and nothing is written: one writer per
   * chat across windows. The refusal, and a 'locked' one (another window holds the chat now),
   * then carry `turn`: the turns before `expectedSeq`, where the window's copy is forked.
   *
   * `borrow`: a write the sidecar makes on its own (a background title, a pin, an auto-archive,
   * a sync resolution). A session nobody here held is held only for this write and let go after
   * it, unless a client's own write claimed it meanwhile; one already held stays held.
   */
  async append(id: string, events: unknown[], o: { expectedSeq?: number; borrow?: boolean } = {}): Promise<AppendResult> {
    return this.appendValid(id, validateBatch(events), o);
  }

  /**
   * Appends lines validateBatch made (as `append`, without validating again): for a caller that
   * validated its events already, one at a time to leave a bad one out (the importer), so each
   * event is checked and serialised once. A line that validateBatch did not make is refused
   * (StoreError('invalid-events')) and nothing is written: the store still writes only what
   * its reader accepts.
   */
  async appendValid(id: string, lines: readonly ValidLine[], o: { expectedSeq?: number; borrow?: boolean } = {}): Promise<AppendResult> {
    if (!Array.isArray(lines) || !lines.every((l) => made.has(l)))
      throw new StoreError('invalid-events', 'appendValid takes only lines made by validateBatch; nothing was written');
    return this.serial(id, async () => {
      let live: Live;
      try {
        live = await this.own(id, { borrow: o.borrow });
      } catch (e) {
        if (o.expectedSeq === undefined || !isStoreError(e, 'locked')) throw e;
        const turn = await this.turnsBefore(await this.pathOf(id), o.expectedSeq).catch(() => undefined);
        throw new StoreError(e.code, e.message, {
          ...(e.data as object),
          expectedSeq: o.expectedSeq,
          ...(turn !== undefined ? { turn } : {}),
        });
      }
      try {
        return await this.appendHeld(id, live, lines, o.expectedSeq);
      } finally {
        if (!live.claimed && this.live.get(id) === live) {
          this.live.delete(id);
          closeQuietly(live.fd);
          await live.held.release();
        }
      }
    });
  }

  /** append's write, on a session this store holds (`live`). */
  private async appendHeld(id: string, live: Live, lines: readonly ValidLine[], expectedSeq: number | undefined): Promise<AppendResult> {
    this.writable();
    this.checkSame(live);
    if (lines.length === 0) return { appended: 0, firstSeq: live.lines, lastSeq: live.lines - 1 };
    const bufs = lines.map((l) => Buffer.from(l.text + '\n'));
    // Performance: fstat and write are synchronous (microseconds on a page-cache write of a
    // turn, against a thread-pool round trip each for their promise forms, which doubled the
    // ack; bench/PERFORMANCE.md); only the fsync waits in the pool. The descriptor is the
    // one the session is held by (Live).
    const fd = live.fd;
    let prefixLen = 0;
    try {
      const st = fstatSync(fd, { bigint: true });
      if (Number(st.size) !== live.size) {
        // The file changed behind our back (a writer that ignores locks): re-derive its state.
        const e = await entryFromFile(live.file, id, Number(st.size), st.mtimeNs);
        live.entry = e;
        live.size = Number(st.size);
        live.torn = e.folded < live.size;
        live.lines = e.lines + (live.torn ? 1 : 0);
      }
      if (expectedSeq !== undefined && expectedSeq !== live.lines && (await this.movedOn(live, expectedSeq)))
        throw new StoreError(
          'conflict',
          `session ${id} is continuing in another window: its next event is #${live.lines}, not #${expectedSeq}; nothing was written`,
          { expectedSeq: expectedSeq, nextSeq: live.lines, turn: await this.turnsBefore(live.file, expectedSeq) },
        );
      const prefix = live.torn ? Buffer.from('\n') : Buffer.alloc(0);
      prefixLen = prefix.length;
      try {
        writeAllSync(fd, prefixLen ? Buffer.concat([prefix, ...bufs]) : Buffer.concat(bufs));
        await fsyncFd(fd);
      } catch (e) {
        // A batch is all or nothing: cut back our own unacknowledged bytes (a disk that filled
        // mid-write), so the file holds exactly what was acknowledged. If even that fails, the
        // next append re-derives the state and steps over the torn line.
        try {
          ftruncateSync(fd, live.size);
        } catch {
          /* see above */
        }
        throw e;
      }
    } catch (e) {
      throw fromFsError(e, `cannot append to session ${id}`);
    }
    return this.afterAppend(live, lines, bufs, prefixLen);
  }

  /**
   * Whether the conversation went on past `expectedSeq`: a turn (user, assistant, agent, compact)
   * at or after it. Titles and markers in between (the background title this sidecar wrote after
   * the client's second turn, a rename in another window) do not make two conversations.
   */
  /** The turns (as History counts them) among the events before `seq`: where a window's copy is forked. */
  private async turnsBefore(file: string, seq: number): Promise<number> {
    if (seq <= 0) return 0;
    const { events } = await readSession(file, { from: 0, to: seq - 1 });
    return events.filter((e) => isTurn(e.event)).length;
  }

  private async movedOn(live: Live, expectedSeq: number): Promise<boolean> {
    if (expectedSeq > live.lines) return true;
    const { events } = await readSession(live.file, { from: expectedSeq, to: live.lines - 1 });
    return events.some((e) => e.event.kind !== 'title' && e.event.kind !== 'event');
  }

  private async afterAppend(live: Live, lines: readonly ValidLine[], bufs: Buffer[], prefixLen: number): Promise<AppendResult> {
    const firstSeq = live.lines;
    const e = live.entry;
    if (live.torn) {
      // The torn fragment is now a complete line of its own. Reliability: it is folded
      // from the file the way a rebuild folds it (foldDigest), not counted by hand, so that the
      // index entry stays exactly what a rebuild from the file gives (a fragment whose head is
      // intact is classified by its head there; a whole line that only lacked its '\n' is an
      // event).
      try {
        const fh = await openRegular(live.file);
        try {
          await foldDigest(live.file, e, { fh, to: live.size + prefixLen });
        } finally {
          await fh.close().catch(() => {});
        }
      } catch {
        e.lines++;
        e.bad++;
        e.folded = live.size + prefixLen;
      }
    }
    const start = live.size + prefixLen;
    foldEvents(
      e,
      lines.map((l) => l.event),
      bufs.map((b) => b.length),
      start,
    );
    live.size = start + bufs.reduce((n, b) => n + b.length, 0);
    live.lines = firstSeq + lines.length;
    live.torn = false;
    // Performance: the index entry is written just after the ack, not before it. Rewriting
    // index.json (read, parse and write, with fsync, an entry per session of the folder) was
    // nine tenths of an append's ack at 650 sessions in a folder (bench/PERFORMANCE.md). The
    // index is a cache, so a write lost to a crash costs only a fold at the next listing; and
    // release()/releaseAll() wait for it, so a process that exits after them leaves it current.
    this.unindexed.set(live.entry.id, live);
    this.scheduleIndexWrite();
    return { appended: lines.length, firstSeq, lastSeq: live.lines - 1 };
  }

  private scheduleIndexWrite(): void {
    if (this.indexWriteScheduled) return;
    this.indexWriteScheduled = true;
    const pass = new Promise<void>((r) => setImmediate(r)).then(async () => {
      this.indexWriteScheduled = false;
      const batch = [...this.unindexed.values()];
      this.unindexed.clear();
      // One at a time, and each in its session's queue: never beside an append of it (the
      // entry must match the size it is stamped with), never two rewrites of one index at once.
      for (const live of batch) {
        await this.serial(live.entry.id, async () => {
          try {
            const st = await stat(live.file, { bigint: true });
            if (Number(st.size) !== live.size) return; // changed behind our back: the next list refolds
            live.entry.bytes = live.size;
            live.entry.mtimeNs = st.mtimeNs.toString();
            await upsertEntry(live.dir, live.entry);
          } catch {
            /* the index is a cache: the next list repairs it */
          }
        });
      }
    });
    this.indexWrites.add(pass);
    void pass.finally(() => this.indexWrites.delete(pass));
  }

  /** Resolves once the index entries of every append so far are written. */
  async flushIndex(): Promise<void> {
    while (this.indexWrites.size > 0) await Promise.all([...this.indexWrites]);
  }

  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.queues.get(id) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const settled = next.catch(() => {});
    this.queues.set(id, settled);
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
    return next;
  }

  /** Appends a title event (what Rename does). */
  async rename(id: string, title: string, source: 'user' | 'model' | 'fallback' = 'user', o: { borrow?: boolean } = {}): Promise<void> {
    const clean = typeof title === 'string' ? title.replace(/\s+/g, ' ').trim() : '';
    if (!clean) throw new StoreError('invalid-events', 'a title must have at least one visible character');
    await this.append(id, [{ kind: 'title', title: clean.slice(0, 500), source }], o);
  }

  /** Moves a session to the OS trash (never unlinks) and drops it from the index. */
  async delete(id: string): Promise<void> {
    const file = await this.pathOf(id);
    if (!this.holds(id)) {
      const info = await this.lockInfo(id);
      if (info.locked) await this.own(id); // throws 'locked'
    }
    const live = this.live.get(id);
    const source = await readMeta(file).then(
      (r) => r.meta.source,
      () => undefined,
    );
    const { default: trash } = await import('trash');
    try {
      await trash([file], { glob: false });
    } catch (e) {
      throw fromFsError(e, `cannot move session ${id} to the trash`);
    }
    // An imported session stays deleted: import does not bring it back (trashed-imports.ts).
    if (source) {
      const { rememberTrashed } = await import('./trashed-imports.js');
      const ref = { tool: source.tool, id: source.id, ...(source.variant ? { variant: source.variant } : {}) };
      await rememberTrashed(this.root, { id, source: ref }, true).catch(() => {});
    }
    this.located.delete(id);
    if (live) {
      this.live.delete(id);
      closeQuietly(live.fd);
      await live.held.release();
    }
    await removeEntry(join(file, '..'), id).catch(() => {});
  }

  // ---- trash and restore, relink ---------------------------------------------------------------

  /**
   * Brings a session delete() moved to the OS trash back to its place, listed and resumable as
   * before (trash.ts says where it looks and when it refuses).
   */
  async restore(id: string): Promise<{ project: string; path: string; trashed: string }> {
    if (!isSessionId(id)) throw new StoreError('bad-id', `not a session id: ${JSON.stringify(String(id)).slice(0, 80)}`);
    this.writable();
    const here = await this.pathOf(id).catch(() => undefined);
    if (here)
      throw new StoreError(
        'io',
        `session ${id} is in the store already (${here}); nothing was changed (a trashed copy stays in the trash)`,
        { taken: here },
      );
    const { restoreFromTrash } = await import('./trash.js');
    const t = await restoreFromTrash(this.root, id, (dir) => this.ensureDir(dir));
    this.located.set(id, t.original);
    await this.indexRestored(id, t.original).catch(() => {});
    const meta = (await readMeta(t.original)).meta;
    if (meta.source) await (await import('./trashed-imports.js')).rememberTrashed(this.root, { id }, false).catch(() => {});
    return { project: meta.project, path: t.original, trashed: t.file };
  }

  /** Adds a restored session's entry to its folder's index (a cache: a failure is only a miss). */
  private async indexRestored(id: string, file: string): Promise<void> {
    const st = await stat(file, { bigint: true });
    await upsertEntry(dirname(file), await entryFromFile(file, id, Number(st.size), st.mtimeNs));
  }

  /** Creates a project folder of the store (0700), as create() does. */
  async prepareProjectDir(dir: string): Promise<void> {
    this.writable();
    await this.ensureDir(dir);
  }

  /**
   * The project a session belongs to now when its folder took it in by relink (relinks.ts):
   * the relink's NEW; undefined for a session in its own project's folder.
   */
  async currentProjectOf(id: string): Promise<string | undefined> {
    const file = await this.pathOf(id);
    const { meta } = await readMeta(file);
    const { readRelinks } = await import('./relinks.js');
    const r = (await readRelinks(dirname(file))).filter((x) => x.projects.includes(meta.project) && x.to !== meta.project);
    return r[r.length - 1]?.to;
  }

  // ---- reading -------------------------------------------------------------------------------

  /**
   * A session's index entry (store/entries.ts): the live one while this store holds it, else the
   * cached one while it matches the file's size and mtime, else read from the file. What
   * History's rows (listing/history.ts) and pins are made from.
   */
  async entry(id: string): Promise<IndexEntry> {
    const live = this.live.get(id);
    if (live) return live.entry;
    const file = await this.pathOf(id);
    const dir = join(file, '..');
    let st;
    try {
      st = await stat(file, { bigint: true });
    } catch (e) {
      throw fromFsError(e, `cannot stat session ${id}`);
    }
    const bytes = Number(st.size);
    const mtimeNs = st.mtimeNs.toString();
    // cachedEntry keeps the folder's parsed index while index.json is unchanged.
    const cached = await cachedEntry(dir, id);
    if (cached && cached.bytes === bytes && cached.mtimeNs === mtimeNs) return cached;
    return entryFromFile(file, id, bytes, st.mtimeNs);
  }

  /**
   * A window of a session's events: the last `tail` events (read from the end of the file, so
   * its cost does not grow with the session), or the seq range [from, to].
   */
  async read(id: string, o: { tail?: number; from?: number; to?: number } = {}): Promise<ReadResult> {
    const file = await this.pathOf(id);
    if (o.tail !== undefined) {
      // The entry numbers the lines up to where it stopped; what the file gained since (another
      // writer, a torn last line) is counted by readTail.
      const entry = await this.entry(id);
      const r = await readTail(file, o.tail, entry);
      return { meta: r.meta, events: r.events, problems: r.problems, totalEvents: r.total };
    }
    const r = await readSession(file, { from: o.from, to: o.to });
    return { meta: r.meta, events: r.events, problems: r.problems, totalEvents: r.lines };
  }

  /** The whole session, with the soft cap applied: the input of resume and export. */
  async load(id: string, o: { signal?: AbortSignal } = {}): Promise<ReadResult> {
    const file = await this.pathOf(id);
    // The soft cap is applied as the lines are read (elide.ts StreamElider, the same choice as
    // elideToCap), so a 134 MB session's old tool outputs are never all held at once.
    const r = await readSession(file, { signal: o.signal, softCap: this.softCapBytes });
    return { meta: r.meta, events: r.events, problems: r.problems, totalEvents: r.lines, elided: r.elided };
  }

  /**
   * What a resume needs, read from the end: when the session has a compact event, only the
   * events from its `coversThrough + 1` on (the compact event among them), found by walking
   * line starts back from the end of the file for a line starting `{"kind":"compact"` (how
   * this store writes them, kind first); else the whole session, as load() reads it.
   * Performance: a 134 MB session whose last briefing covers most of it is read from there,
   * not whole (bench/PERFORMANCE.md: resume from a compact event). The events before fromSeq
   * are not read at all, so a caller that finds they are needed after all calls load().
   */
  async loadForResume(id: string, o: { signal?: AbortSignal } = {}): Promise<ResumeLoad> {
    const file = await this.pathOf(id);
    const found = await findResumePoint(file);
    if (!found) {
      const r = await this.load(id, o);
      return { ...r, fromSeq: 0, earlierBytes: 0, whole: async () => r };
    }
    const r = await readSessionFrom(file, found.offset, found.fromSeq, o.signal);
    let events = r.events;
    let elided = 0;
    const bytes = r.size - found.offset;
    if (bytes > this.softCapBytes) {
      const out = elideToCap(events, bytes, this.softCapBytes);
      events = out.events;
      elided = out.elided;
    }
    const compact = events.find((e) => e.seq === found.compactSeq);
    const earlier: ResumeLoad['earlier'] = (visit, eo = {}) => eachEarlierLine(file, found, visit, eo);
    const whole: ResumeLoad['whole'] = async (wo = {}) => {
      // The file as it was when the tail was read (r.size): its lines before the resume point
      // (which appends never change), capped as load() caps that size, then the tail's events
      // through the same elider. A tail capped on its own is read again instead.
      if (elided > 0) return this.load(id, wo);
      const elider = r.size > this.softCapBytes ? new StreamElider(r.size, this.softCapBytes) : undefined;
      const head = await readSession(file, { signal: wo.signal, end: found.offset, elider });
      if (head.lines !== found.fromSeq) return this.load(id, wo);
      const tail = elider ? r.events.map((se) => elider.take(se)) : r.events;
      return {
        meta: head.meta,
        events: head.events.concat(tail),
        problems: head.problems.concat(r.problems),
        totalEvents: r.lines,
        elided: elider ? elider.elided : 0,
      };
    };
    return {
      meta: found.meta,
      events,
      problems: r.problems,
      totalEvents: r.lines,
      elided,
      fromSeq: found.fromSeq,
      earlier,
      earlierBytes: found.offset - found.starts[found.starts.length - 1]!,
      whole,
      ...(compact ? { compact } : {}),
    };
  }

  /** Every project folder in the store (absolute paths). */
  async projectDirs(): Promise<string[]> {
    return projectFolders(this.root);
  }
}

declare const validated: unique symbol;
/**
 * An event that passed the schema, with the line it is written as. Only validateBatch makes one
 * (the brand in the type, and `made` at run time), and it is frozen: what appendValid writes is
 * what was checked.
 */
export interface ValidLine {
  readonly text: string;
  readonly event: SessionEvent;
  readonly [validated]: true;
}
/** The lines validateBatch made: appendValid trusts these and no others. */
const made = new WeakSet<object>();

/** The first of these folders whose names cannot be looked up (no search permission), if any. */
async function firstUnreadable(dirs: string[]): Promise<{ dir: string; code: string } | undefined> {
  for (const dir of dirs) {
    try {
      await access(dir, constants.X_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      if (code !== 'ENOENT') return { dir, code };
    }
  }
  return undefined;
}

/**
 * The bytes a record of an import was parsed from, when the caller has them (import/jsonl.ts
 * sourceLineOf): written as the event's `raw` instead of serialising the record again.
 */
export type RawSource = (raw: unknown) => Buffer | undefined;

/** Validates a batch; throws StoreError('invalid-events') with zod issues naming the index. */
export function validateBatch(events: unknown[], rawSource?: RawSource): ValidLine[] {
  if (!Array.isArray(events)) throw new StoreError('invalid-events', 'events must be an array');
  const now = new Date().toISOString();
  const out: ValidLine[] = [];
  const issues: unknown[] = [];
  events.forEach((raw, i) => {
    const ok = checkEvent(raw, i, now, issues);
    if (!ok) return;
    let text: string;
    try {
      const shared = shareWithRaw(ok); // parts of an imported record written once (format/derived.ts)
      const cut = rawSource && cutAroundRaw(shared, rawSource);
      text = cut ? cut.head + cut.raw.toString('utf8') + cut.tail : serializeLine(shared);
    } catch (e) {
      issues.push({ path: [i], message: `cannot be serialised as JSON (${(e as Error).message})` });
      return;
    }
    const line = Object.freeze({ text, event: ok as SessionEvent }) as ValidLine;
    made.add(line);
    out.push(line);
  });
  throwIssues(issues);
  return out;
}

/**
 * One event of an import checked as validateBatch checks it, as the pieces of its line: `head`,
 * then the source's bytes of its `raw` when rawSource has them (else `raw` is serialised into
 * `head`), then `tail` (with the line's '\n'). Throws StoreError('invalid-events') as validateBatch.
 * For a new session written whole (store/staged.ts): no string of the whole line is made.
 */
export function validateImported(event: unknown, rawSource?: RawSource): { head: string; raw?: Buffer; tail: string } {
  const issues: unknown[] = [];
  const ok = checkEvent(event, 0, '', issues);
  if (!ok) {
    throwIssues(issues);
    throw new StoreError('invalid-events', 'invalid event');
  }
  try {
    const shared = shareWithRaw(ok);
    const cut = rawSource && cutAroundRaw(shared, rawSource);
    return cut ? { head: cut.head, raw: cut.raw, tail: `${cut.tail}\n` } : { head: `${serializeLine(shared)}\n`, tail: '' };
  } catch (e) {
    throw new StoreError('invalid-events', `invalid event at 0: cannot be serialised as JSON (${(e as Error).message})`, {
      issues: [{ path: [0], message: `cannot be serialised as JSON (${(e as Error).message})` }],
    });
  }
}

/** The line cut around `raw` where the source's bytes of it are known. */
function cutAroundRaw(shared: Record<string, unknown>, rawSource: RawSource): { head: string; raw: Buffer; tail: string } | undefined {
  const raw = rawSource(shared.raw);
  if (!raw) return undefined;
  const around = serializeAroundRaw(shared);
  return around && { ...around, raw };
}

/** One incoming event checked (head, nesting, schema) and stamped with a time where it has none; undefined with issues. */
function checkEvent(raw: unknown, i: number, now: string, issues: unknown[]): Record<string, unknown> | undefined {
  const head = IncomingEvent.safeParse(raw);
  if (!head.success) {
    for (const iss of head.error.issues) issues.push({ ...iss, path: [i, ...iss.path] });
    return undefined;
  }
  const obj = raw as Record<string, unknown>;
  if (tooDeep(obj)) {
    issues.push({ path: [i], message: `nested deeper than ${MAX_DEPTH} levels` });
    return undefined;
  }
  if (obj.kind === 'meta') {
    issues.push({ path: [i, 'kind'], message: 'meta lines are written by the store only' });
    return undefined;
  }
  if (Object.hasOwn(obj, OF_RAW)) {
    // A reader puts `ofRaw` fields back and drops the key: one sent in would be lost unsaid.
    issues.push({ path: [i, OF_RAW], message: `${OF_RAW} is written by the store only` });
    return undefined;
  }
  const stamped: Record<string, unknown> = obj.t === undefined ? { kind: obj.kind, t: now || new Date().toISOString() } : obj;
  if (obj.t === undefined)
    for (const k of Object.keys(obj))
      if (k !== 'kind') Object.defineProperty(stamped, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
  const full = SessionEvent.safeParse(stamped);
  if (!full.success) {
    for (const iss of full.error.issues) issues.push({ ...iss, path: [i, ...iss.path] });
    return undefined;
  }
  return stamped;
}

function throwIssues(issues: unknown[]): void {
  if (issues.length === 0) return;
  const first = issues[0] as { path: unknown[]; message: string };
  throw new StoreError('invalid-events', `invalid event at ${first.path.join('.')}: ${first.message}`, { issues });
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}

/**
 * The line ends of a session after its meta line, counted from the file (no parse): `lines`
 * terminated lines, and whether a torn line follows them. Where an append's seqs come from.
 */
async function countLines(fd: number, from: number, size: number): Promise<{ lines: number; torn: boolean }> {
  const buf = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, size - from)));
  let lines = 0;
  let last = 10;
  for (let at = from, k = 0; at < size; k++) {
    if (k > 0 && (k & 15) === 0) await new Promise((r) => setImmediate(r)); // a long session: let other requests in
    const n = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
    if (n === 0) break;
    for (let i = buf.indexOf(10, 0); i !== -1 && i < n; i = buf.indexOf(10, i + 1)) lines++;
    last = buf[n - 1]!;
    at += n;
  }
  return { lines, torn: size > from && last !== 10 };
}

function fsyncFd(fd: number): Promise<void> {
  return new Promise((res, rej) => fsync(fd, (e) => (e ? rej(e) : res())));
}

async function syncDir(dir: string): Promise<void> {
  await syncFolder(dir);
}

async function isRegularFile(file: string): Promise<boolean> {
  try {
    const st = await lstat(file);
    return st.isFile();
  } catch {
    return false;
  }
}

const COMPACT_HEAD = Buffer.from('{"kind":"compact"');

/**
 * The byte offset and seq where a resume may start: the line after the last valid compact
 * event's `coversThrough`. Undefined when there is no compact event (or it covers nothing).
 * Seqs are counted from the end backwards and then made absolute with the number of line
 * positions, counted on the way (a newline search, no parse) down to the meta line.
 */
interface ResumePoint {
  meta: MetaLine;
  offset: number;
  fromSeq: number;
  compactSeq: number;
  /** Line starts newest first: starts[i] is the start of the line with seq starts.length-1-i. */
  starts: number[];
  /** The kind each line's first bytes name, as starts (null: not our shape; undefined: not seen). */
  kinds: (string | null | undefined)[];
}

async function findResumePoint(file: string): Promise<ResumePoint | undefined> {
  const fh = await openRegular(file).catch((e) => {
    throw fromFsError(e, `cannot open ${file}`);
  });
  try {
    const { meta, metaEnd } = await readMeta(file, fh);
    const size = (await fh.stat()).size;
    // Line starts, newest first, until the compact event and then its coversThrough are reached.
    const starts: number[] = [];
    const head = Buffer.alloc(COMPACT_HEAD.length);
    let compact: { index: number; coversThrough: number } | undefined;
    const kinds: (string | null | undefined)[] = [];
    await eachLineBackward(fh, size, metaEnd, async (start, end, chunk, base) => {
      starts.push(start);
      // The head from the chunk in memory; a read only for a line starting at its very end.
      const at = start - base;
      kinds.push(at >= 0 && at + KIND_HEAD_BYTES <= chunk.length ? kindOfHead(chunk, at) : undefined);
      if (compact || end - start < COMPACT_HEAD.length) return true;
      if (at >= 0 && at + COMPACT_HEAD.length <= chunk.length) {
        if (chunk.compare(COMPACT_HEAD, 0, COMPACT_HEAD.length, at, at + COMPACT_HEAD.length) !== 0) return true;
      } else {
        await fh.read(head, 0, head.length, start);
        if (!head.equals(COMPACT_HEAD)) return true;
      }
      const bytes = Buffer.alloc(end - start);
      await fh.read(bytes, 0, bytes.length, start);
      const r = parseEventLine(bytes);
      if ('event' in r && r.event.kind === 'compact' && Number.isInteger(r.event.coversThrough) && r.event.coversThrough >= 0) {
        compact = { index: starts.length - 1, coversThrough: r.event.coversThrough };
      }
      return true;
    });
    if (!compact) return undefined;
    // starts[i] is the line with seq total-1-i.
    const total = starts.length;
    const compactSeq = total - 1 - compact.index;
    const fromSeq = Math.min(compact.coversThrough + 1, compactSeq);
    if (fromSeq <= 0) return undefined;
    return { meta, offset: starts[total - 1 - fromSeq]!, fromSeq, compactSeq, starts, kinds };
  } finally {
    await fh.close().catch(() => {});
  }
}

/**
 * The lines before `p.fromSeq`, newest first (ResumeLoad.earlier). Each line is read on its own
 * at the starts findResumePoint counted, and only when it is wanted (its kind was seen on the
 * way), so a visitor that stops early or wants few lines reads little of a long session. The
 * reads are synchronous: a handful of microseconds each from the page cache, against tens for
 * a round trip through the thread pool, and the lines wanted are mostly short. A wanted line
 * that does not parse has no event, as a load skips it.
 */
async function eachEarlierLine(
  file: string,
  p: ResumePoint,
  visit: Parameters<NonNullable<ResumeLoad['earlier']>>[0],
  o: { want?: (kind: string | null, bytes: number) => boolean; signal?: AbortSignal },
): Promise<void> {
  const total = p.starts.length;
  let buf = Buffer.allocUnsafe(64 * 1024);
  const { fd } = openRegularSync(file);
  try {
    for (let seq = p.fromSeq - 1; seq >= 0; seq--) {
      if ((seq & 255) === 0) {
        o.signal?.throwIfAborted();
        await new Promise((r) => setImmediate(r)); // let other requests in on a long walk
      }
      const start = p.starts[total - 1 - seq]!;
      const bytes = p.starts[total - 2 - seq]! - 1 - start; // to the next line's start, less its '\n'
      let kind = p.kinds[total - 1 - seq];
      if (kind === undefined) {
        const got = readSync(fd, buf, 0, Math.min(KIND_HEAD_BYTES, bytes), start);
        kind = kindOfHead(buf.subarray(0, got), 0);
      }
      if (!(o.want?.(kind, bytes) ?? true)) continue;
      if (bytes > buf.length) buf = Buffer.allocUnsafe(Math.max(bytes, 2 * buf.length));
      if (readSync(fd, buf, 0, bytes, start) < bytes) throw new StoreError('io', `${file} shrank while it was read`);
      const r = parseEventLine(buf.subarray(0, bytes));
      if (!visit({ seq, kind, bytes, ...('event' in r ? { event: r.event } : {}) })) return;
    }
  } finally {
    closeSync(fd);
  }
}
