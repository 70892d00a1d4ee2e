// The import engine: the only part of server/import that writes. It takes the sessions an
// importer read from another tool's files and makes each one a session of ours, then keeps it
// current on every later run, at a cost proportional to what changed:
// - our id is derived from the source (the session's birth time and a hash of tool, source id
//   and variant), so a later run finds the session it made, ledger or no ledger; the store's
//   folders are listed once a run (an id map), never searched per id;
// - a source the ledger (./ledger.ts, a cache) saw with this size, mtime, ctime and inode is
//   skipped on its stat, unless it was modified within RACY_NS of being read: a file system's
//   clock ticks coarsely, so a write just after our read can keep the stat we saw (git's
//   "racily clean" entries); such a source is read again next time;
// - a source that only grew (same inode, the bytes before its old end unchanged) is mapped and
//   the events after those the ledger says we hold are appended, without reading our copy;
// - any other source is read and each mapped event is compared with ours by its source
//   signature (a hash of the record it came from, kept verbatim under `raw`): only events we do
//   not hold yet are appended. That one rule covers a file rewritten in place, a rewind, a torn
//   last line completed later and a lost ledger; what we hold is never removed or rewritten;
// - a new session's History entry is made from the events written (no file read back) and the
//   run ends by writing them into the folders' index.json (a cache), so the History after an
//   import is warm;
// - a new session is written whole under a hidden name and made visible with its batch (one
//   durability barrier: the batch's fsyncs together, store/staged.ts); the ledger records a batch's files only after it, so
//   a crash costs at most re-reading that batch, which the signature rule makes converge;
// - a record the schema refuses (nested too deep) is reported and left out, the rest kept; a
//   store that cannot be written (full, read-only) stops the run with a fatal problem;
// - a source that cannot be read is not read again until it changes or its retry time
//   (ledger.ts retryAfterMs, doubling) has come;
// - a real reset (the source starts again with another birth time) derives another id, so it
//   becomes a session of its own beside the old one; a source that is gone is not seen: ours stays.
// Each session is locked while it is compared and appended to, so two importers (the CLI and a
// sidecar that follows the sources) never append the same events twice.
// A run with nothing new opens no store (StoreRef: the schemas load with the first write) and
// writes no ledger; a follower's targeted run takes the sources a watch named (`sources`),
// stat'ed again, instead of discovering every source of its tools.
// Depends on the store (server/store/), the importer interface (./types.ts) and node:fs.

import { createHash } from 'node:crypto';
import { existsSync, lstatSync, statSync, utimesSync, type Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { MetaLine, SessionEvent } from '../format/events.js';
import type { IndexEntry } from '../store/entries.js';
import type { Digest } from '../store/reader.js';
import { projectFolders, realProjectPath } from '../store/files.js';
import { projectIdentity } from '../store/identity.js';
import { isStoreError } from '../store/errors.js';
import type { Staged } from '../store/staged.js';
import type { SessionStore, ValidLine } from '../store/store.js';
import { trashedImportIds } from '../store/trashed-imports.js';
import {
  type Ledger,
  type LedgerEntry,
  type LedgerSession,
  type UnknownKind,
  ledgerPath,
  loadLedger,
  retryAfterMs,
  saveLedger,
  signatureAt,
} from './ledger.js';
import { sourceLineOf } from './jsonl.js';
import { cleanTitle } from './titles.js';
import { type Importer, type MappedEvent, type MappedSession, type SourceFile, type SourceRef, SourceChanged } from './types.js';

export { ledgerPath } from './ledger.js';

export interface ImportProblem {
  /** The source file (or folder) the problem is about. */
  path: string;
  message: string;
  /** The store could not be written (a full disk, a read-only store): the run stopped there. */
  fatal?: boolean;
  /** The importer whose source it is. */
  tool?: string;
}

export interface ImportReport {
  /** Sessions created by this run. */
  imported: number;
  /** Sessions of ours that got new events. */
  updated: number;
  /** Sessions whose source had nothing new (skipped unread, or read and found the same). */
  unchanged: number;
  /** Sessions not imported: nothing in them to import, or locked by another importer. */
  skipped: number;
  problems: ImportProblem[];
  /** Every session this run created or updated. */
  sessions: { id: string; source: SourceRef }[];
  /** With ImportOptions.seen: every source file discovered (and its parts). */
  seen?: string[];
  /** The same counts for each tool of the run (found: the source files its importer discovered). */
  tools: ToolCounts[];
  /** Source files (or sessions in them) that gave no session of ours, and why. */
  skippedFiles: { path: string; reason: string }[];
  /**
   * Source records of a kind their importer has never seen (Importer.kinds), counted per tool
   * and version: a format change of the tool, kept raw, announced here.
   */
  unknownKinds: UnknownKind[];
  /** Data folders that could not be read (missing or unreadable): the run failed for them. */
  unreadable: string[];
  /** Sessions that could not be written (a full disk, a store that refuses): the run failed for them. */
  failed: number;
}

export interface ToolCounts {
  tool: string;
  found: number;
  imported: number;
  updated: number;
  unchanged: number;
  skipped: number;
  problems: number;
}

export type { UnknownKind } from './ledger.js';

export interface ImportJob {
  importer: Importer;
  /** Data folders (or single session files) of the tool to import from. */
  roots: string[];
}

export interface ImportOptions {
  /** Compute the report without writing anything (no session, no ledger). */
  dryRun?: boolean;
  /** Called after each source file: files done, files in all, bytes done, bytes in all. */
  onProgress?: (done: number, total: number, bytes: number, totalBytes: number) => void;
  /** The ledger file; defaults to ledgerPath(store.root, process.env). */
  ledger?: string;
  signal?: AbortSignal;
  /** List the source files discovered in the report (what a follower watches). */
  seen?: boolean;
  /**
   * A targeted run (a follower told which files changed): these sources, each stat'ed again,
   * instead of discovering every source of the jobs. A source no longer there is left out.
   */
  sources?: Source[];
  /** Called with the sources a discovering run found (what a later targeted run takes). */
  onDiscovered?: (sources: Source[]) => void;
}

/** One source file of one importer, as discovered. */
export interface Source {
  importer: Importer;
  file: SourceFile;
}

/**
 * A store not opened yet: the engine opens it when it first writes or reads a session of ours,
 * so a run with nothing new never loads the store's schemas (zod, a large part of a run that
 * is otherwise a stat walk).
 */
export interface StoreRef {
  root: string;
  open(): Promise<SessionStore>;
}

/** What writing needs (the store, its staged files, its reader, the format's schemas): loaded on first use. */
const writing = async () => {
  const [store, staged, reader, events, entries] = await Promise.all([
    import('../store/store.js'),
    import('../store/staged.js'),
    import('../store/reader.js'),
    import('../format/events.js'),
    import('../store/entries.js'),
  ]);
  return {
    validateBatch: store.validateBatch,
    ...staged,
    readMeta: reader.readMeta,
    emptyDigest: reader.emptyDigest,
    applyEvent: reader.applyEvent,
    entryOf: entries.entryOf,
    upsertEntries: entries.upsertEntries,
    mapLimit: entries.mapLimit,
    SCHEMA_VERSION: events.SCHEMA_VERSION,
  };
};
let writingParts: ReturnType<typeof writing> | undefined;
/** The parts once loaded (a batch staged has loaded them): what discard uses, synchronously. */
let loadedParts: Awaited<ReturnType<typeof writing>> | undefined;
const parts = () =>
  (writingParts ??= writing().then((p) => {
    loadedParts = p;
    return p;
  }));

// ---- ids and signatures ----------------------------------------------------------------------

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Our id of an imported session: its birth time (as our ids have) and four characters of a hash
 * of tool, source id and variant. The same source gives the same id on every machine and run.
 */
export function importedId(createdAt: string, source: Pick<SourceRef, 'tool' | 'id'>, variant = '', probe = 0): string {
  const stamp = new Date(createdAt).toISOString().slice(0, 19).replace(/:/g, '-');
  const h = createHash('sha256')
    .update(`${source.tool}\0${source.id}\0${variant}${probe ? `\0${probe}` : ''}`)
    .digest();
  let suffix = '';
  for (let i = 0; i < 4; i++) suffix += ALPHABET[h[i]! % ALPHABET.length];
  return `${stamp}-${suffix}`;
}

/** An event's source signature: what it was made from, so the same record is never appended twice. */
export function eventSignature(ev: { kind: string; raw?: unknown } & Record<string, unknown>): string {
  const basis = ev.raw !== undefined ? JSON.stringify(ev.raw) : JSON.stringify({ ...ev, t: undefined });
  return createHash('sha1')
    .update(basis ?? 'undefined')
    .digest('base64');
}

/** The mapped events we do not hold yet, in the source's order (signatures compared as a multiset). */
export function newEvents(held: string[], mapped: MappedEvent[]): MappedEvent[] {
  const have = new Map<string, number>();
  for (const s of held) have.set(s, (have.get(s) ?? 0) + 1);
  const out: MappedEvent[] = [];
  for (const ev of mapped) {
    const s = eventSignature(ev);
    const n = have.get(s) ?? 0;
    if (n > 0) have.set(s, n - 1);
    else out.push(ev);
  }
  return out;
}

// ---- the run ----------------------------------------------------------------------------------

/** Said of a file that failed before and waits for its retry (its first failure was told already). */
export const NOT_READ_AGAIN = ' (not read again until it changes)';

/** A batch is committed (one barrier, then the ledger) after this many new sessions or bytes. */
const BATCH_SESSIONS = 400;
const BATCH_BYTES = 256 << 20;
/** A source modified this close to being read may change again without its mtime moving. */
const RACY_NS = 2_000_000_000n;

/** A write to the store failed (a full disk, a read-only store): the run stops, the exit is an error. */
class WriteFailure extends Error {}

export function emptyReport(): ImportReport {
  return {
    imported: 0,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    problems: [],
    sessions: [],
    tools: [],
    skippedFiles: [],
    unknownKinds: [],
    unreadable: [],
    failed: 0,
  };
}

/** The counters of a report that the per-tool lines split (ToolCounts). */
const COUNTED = ['imported', 'updated', 'unchanged', 'skipped'] as const;

export async function runImport(store: SessionStore | StoreRef, jobs: ImportJob[], o: ImportOptions = {}): Promise<ImportReport> {
  const report = emptyReport();
  const ledgerFile = o.ledger ?? ledgerPath(store.root);
  const ledger = loadLedger(ledgerFile, store.root);
  const trashed = await trashedImportIds(store.root).catch(() => new Set<string>());
  const work: Source[] = [];
  const counts = new Map<string, ToolCounts>();
  const countsOf = (tool: string): ToolCounts => {
    let c = counts.get(tool);
    if (!c) counts.set(tool, (c = { tool, found: 0, imported: 0, updated: 0, unchanged: 0, skipped: 0, problems: 0 }));
    return c;
  };
  for (const src of o.sources ?? []) {
    const file = restat(src.file);
    if (!file) continue;
    work.push({ importer: src.importer, file });
    countsOf(src.importer.tool).found++;
  }
  for (const job of o.sources ? [] : jobs) {
    if (job.roots.length === 0) continue; // a tool not looked for (none of its folders is there)
    const c = countsOf(job.importer.tool);
    for (const root of job.roots) {
      try {
        for (const file of await job.importer.discover(root)) {
          work.push({ importer: job.importer, file });
          c.found++;
        }
      } catch (e) {
        report.problems.push({ path: root, message: (e as Error).message, tool: job.importer.tool });
        report.unreadable.push(root);
        c.problems++;
      }
    }
  }
  if (o.seen) report.seen = work.flatMap((w) => [w.file.path, ...(w.file.parts ?? [])]);
  if (!o.sources) o.onDiscovered?.(work);
  const unknown = new Map<string, UnknownKind>();
  const run = new Run(store, ledger, report, !!o.dryRun, { trashed, unknown });
  const save = () => {
    if (o.dryRun || !run.changed) return; // nothing new: the ledger on disk says it all already
    try {
      saveLedger(ledgerFile, ledger);
    } catch (e) {
      report.problems.push({
        path: ledgerFile,
        message: `cannot write the import ledger (${(e as Error).message}); the next run reads every source again`,
      });
    }
  };
  const totalBytes = work.reduce((n, w) => n + w.file.size, 0);
  let done = 0;
  let bytes = 0;
  try {
    for (const { importer, file } of work) {
      o.signal?.throwIfAborted();
      const before = { ...report, problems: report.problems.length };
      await run.file(importer, file);
      for (let i = before.problems; i < report.problems.length; i++) report.problems[i]!.tool ??= importer.tool;
      const c = countsOf(importer.tool);
      for (const k of COUNTED) c[k] += report[k] - before[k];
      c.problems += report.problems.length - before.problems;
      bytes += file.size;
      o.onProgress?.(++done, work.length, bytes, totalBytes);
      if (run.batchFull()) {
        await run.commit();
        save();
      }
    }
    await run.commit();
  } catch (e) {
    if (!(e instanceof WriteFailure)) {
      run.discard();
      throw e;
    }
    report.problems.push({ path: store.root, message: e.message, fatal: true });
    report.failed++;
    await run.commit().catch(() => run.discard());
  }
  await run.writeIndexes();
  save();
  report.tools = [...counts.values()];
  report.unknownKinds = [...unknown.values()].sort((a, b) =>
    a.tool !== b.tool ? (a.tool < b.tool ? -1 : 1) : a.version !== b.version ? (a.version < b.version ? -1 : 1) : b.count - a.count,
  );
  return report;
}

/**
 * The record kinds never seen that the ledger holds (each source file as last read): what
 * `doctor` reports. Nothing when the ledger is missing (a cache: the next import counts again).
 */
export async function ledgerUnknownKinds(root: string, env: NodeJS.ProcessEnv = process.env): Promise<UnknownKind[]> {
  const ledger = loadLedger(ledgerPath(root, env), root);
  const by = new Map<string, UnknownKind>();
  for (const e of Object.values(ledger.files))
    for (const u of Array.isArray(e.unknown) ? e.unknown : []) {
      const k = `${u.tool}\0${u.version}\0${u.kind}`;
      const had = by.get(k);
      if (had) had.count += u.count;
      else by.set(k, { ...u });
    }
  return [...by.values()];
}

/** Counts the kept records of a kind the importer does not declare (Importer.kinds). */
export function countUnknownKinds(importer: Importer, s: MappedSession, into: Map<string, UnknownKind>): void {
  const count = unknownKindCounter(importer, s, into);
  for (const ev of s.events) count(ev);
}

/** countUnknownKinds an event at a time (a streamed session's events, as they are written). */
function unknownKindCounter(importer: Importer, s: MappedSession, into: Map<string, UnknownKind>): (ev: MappedEvent) => void {
  if (!importer.kinds || !importer.kindOf) return () => {};
  const kindOf = importer.kindOf;
  const known = new Set([...importer.kinds.mapped, ...importer.kinds.hidden]);
  const version = s.source.version ?? '';
  return (ev) => {
    if (ev.kind !== 'event' || ev.type !== 'source-record' || ev.unparsed) return;
    const kind = kindOf(ev.raw);
    if (kind === undefined || known.has(kind) || known.has(`${kind.split('/')[0]}/*`)) return;
    const key = `${importer.tool}\0${version}\0${kind}`;
    const u = into.get(key);
    if (u) u.count++;
    else into.set(key, { tool: importer.tool, version, kind, count: 1 });
  };
}

/** How many events a mapped session has (a streamed one's count from its first pass). */
function eventCount(s: MappedSession): number {
  return s.streamed?.count ?? s.events.length;
}

/**
 * What the engine does to each mapped event before it compares or writes it (a title cleaned,
 * an unknown kind counted): at once for a session in memory, as they come for a streamed one.
 */
type Prepare = (ev: MappedEvent) => MappedEvent;

/** A streamed session's events held after all (a session of ours to compare with, a dry run). */
async function materialize(s: MappedSession, prepare: Prepare): Promise<void> {
  if (!s.streamed) return;
  const events: MappedEvent[] = [];
  for await (const ev of s.streamed.events()) events.push(prepare(ev));
  s.events = events;
  s.streamed = undefined;
}

/** What one run shares between its files: the user's deleted imports, the unknown kinds seen. */
interface RunState {
  trashed: ReadonlySet<string>;
  unknown: Map<string, UnknownKind>;
}

/** A source file whose new sessions wait in the batch: the ledger records it after the commit. */
interface Pending {
  path: string;
  entry: LedgerEntry;
  staged: LedgerSession[];
}

/** One import run: the decisions per source file, the batch of new sessions, the id map. */
class Run {
  private ids: Map<string, string> | undefined;
  private batch: Staged[] = [];
  private batchBytes = 0;
  private pending: Pending[] = [];
  /** A new session's History digest, from the events staged (committed: its index entry). */
  private readonly digests = new Map<string, { meta: MetaLine; metaEnd: number; d: Digest }>();
  /** Index entries of the sessions this run made, by folder: written once at its end (writeIndexes). */
  private readonly entries = new Map<string, IndexEntry[]>();
  /** The ledger was changed by this run (else it is not written again). */
  changed = false;
  /** Our files of sessions this run looked at, told to the store when it is opened (pathOf). */
  private readonly located = new Map<string, string>();
  private opened: SessionStore | undefined;
  private opening: Promise<SessionStore> | undefined;
  /** Store folders this run made and checked (staged.ts StageOptions.prepared). */
  private readonly prepared = new Set<string>();
  /** Each source project's real path, resolved once a run (a realpath and a stat each). */
  private readonly realPaths = new Map<string, Promise<string>>();

  constructor(
    private readonly ref: SessionStore | StoreRef,
    private readonly ledger: Ledger,
    private readonly report: ImportReport,
    private readonly dryRun: boolean,
    private readonly state: RunState,
  ) {}

  /** The store, opened on first use (StoreRef), knowing every file of ours this run located. */
  private store(): Promise<SessionStore> {
    this.opening ??= (async () => {
      const ref = this.ref as Partial<StoreRef> & { remember?: unknown };
      const s = typeof ref.remember === 'function' ? (this.ref as SessionStore) : await (this.ref as StoreRef).open();
      for (const [id, file] of this.located) s.remember(id, file);
      this.opened = s;
      return s;
    })();
    return this.opening;
  }

  private remember(id: string, file: string): void {
    this.located.set(id, file);
    this.opened?.remember(id, file);
  }

  private setEntry(path: string, entry: LedgerEntry): void {
    this.ledger.files[path] = entry;
    this.changed = true;
  }

  batchFull(): boolean {
    return this.batch.length >= BATCH_SESSIONS || this.batchBytes >= BATCH_BYTES;
  }

  /** Imports one source file, or skips it on its stat; problems go to the report. */
  async file(importer: Importer, file: SourceFile): Promise<void> {
    const last = this.ledger.files[file.path];
    const same = last ? await sameAsBefore(last, file) : false;
    if (last && same) {
      if (last.failed) {
        if (Date.now() < last.failed.retryAt) {
          this.report.skipped++;
          this.report.problems.push({ path: file.path, message: `${last.failed.message}${NOT_READ_AGAIN}` });
          this.report.skippedFiles.push({ path: file.path, reason: `could not be read: ${last.failed.message}` });
          return;
        }
      } else if (!last.racy && (await this.stillOurs(last))) {
        if (last.sessions.length) this.report.unchanged += last.sessions.length;
        else this.report.skipped++; // nothing in it to import, as on the run that read it
        return;
      }
    }
    const grown = !!last && !last.failed && !same && (await grewOnly(last, file));
    const readAtNs = BigInt(Date.now()) * 1_000_000n;
    let sessions: MappedSession[];
    try {
      sessions = await importer.read(file);
    } catch (e) {
      this.failed(file, last, (e as Error).message);
      return;
    }
    const entry: LedgerEntry = {
      size: file.size,
      mtimeNs: file.mtimeNs.toString(),
      ...(file.ctimeNs !== undefined ? { ctimeNs: file.ctimeNs.toString(), ino: String(file.ino) } : {}),
      offset: file.size,
      sig: await signatureAt(file.path, file.size).catch(() => ''),
      ...(readAtNs - file.mtimeNs < RACY_NS ? { racy: true } : {}),
      sessions: [],
    };
    const staged: LedgerSession[] = [];
    let complete = true;
    const mine = new Map<string, UnknownKind>();
    for (const s of sessions) {
      for (const p of s.problems) this.report.problems.push({ path: s.source.path, message: p });
      const count = unknownKindCounter(importer, s, mine);
      const prepare: Prepare = (ev) => {
        const e = cleanTitleEvent(ev);
        count(e);
        return e;
      };
      if (!s.streamed) s.events = s.events.map(prepare);
      if (eventCount(s) === 0) {
        this.report.skipped++;
        this.report.skippedFiles.push({ path: s.source.path, reason: `session ${s.source.id}: nothing in it to import yet (no message)` });
        continue;
      }
      const before = grown ? last!.sessions.find((x) => x.key === keyOf(s)) : undefined;
      let r;
      try {
        r = await this.session(s, before, prepare);
      } catch (e) {
        if (!(e instanceof SourceChanged)) throw e;
        this.report.problems.push({ path: s.source.path, message: e.message });
        this.report.skipped++;
        r = undefined;
      }
      if (!r) complete = false;
      else if (!r.held.file)
        continue; // nothing of it was importable
      else if (r.staged) staged.push(r.held);
      else entry.sessions.push(r.held);
    }
    if (sessions.length === 0) {
      this.report.skipped++;
      this.report.skippedFiles.push({ path: file.path, reason: 'no session in it' });
    }
    const unknown = [...mine.values()];
    if (!(last && same)) this.countUnknown(unknown); // a file read again unchanged (racy) announced them already
    if (unknown.length) entry.unknown = unknown;
    if (!complete || this.dryRun) return;
    if (staged.length) this.pending.push({ path: file.path, entry, staged });
    else this.setEntry(file.path, entry);
  }

  /** Adds a file's never-seen record kinds to the run's counts. */
  private countUnknown(kinds: UnknownKind[]): void {
    for (const u of kinds) {
      const k = `${u.tool}\0${u.version}\0${u.kind}`;
      const all = this.state.unknown.get(k);
      if (all) all.count += u.count;
      else this.state.unknown.set(k, { ...u });
    }
  }

  /**
   * Each session the ledger names is still there (one access each: no Stats made, a run with
   * nothing new does this for every session; appending opens it without following a link).
   */
  private async stillOurs(last: LedgerEntry): Promise<boolean> {
    for (const s of last.sessions) {
      if (!existsSync(s.file)) return false;
      this.remember(s.id, s.file);
    }
    return true;
  }

  private failed(file: SourceFile, last: LedgerEntry | undefined, message: string): void {
    this.report.problems.push({ path: file.path, message });
    this.report.skippedFiles.push({ path: file.path, reason: `could not be read: ${message}` });
    if (this.dryRun) return;
    const tries = last?.failed && last.size === file.size && last.mtimeNs === file.mtimeNs.toString() ? last.failed.tries + 1 : 1;
    this.setEntry(file.path, {
      size: file.size,
      mtimeNs: file.mtimeNs.toString(),
      ...(file.ctimeNs !== undefined ? { ctimeNs: file.ctimeNs.toString(), ino: String(file.ino) } : {}),
      offset: 0,
      sig: '',
      sessions: [],
      failed: { message, tries, retryAt: Date.now() + retryAfterMs(tries) },
    });
  }

  /**
   * Makes one mapped session ours or brings ours up to date: what the ledger says we hold of a
   * file that only grew is taken as is (after one lstat of our file); anything else is compared
   * with our copy by event signature. Returns what the ledger keeps, a staged new session, or
   * undefined when it was skipped (locked by another process: the next run tries again).
   */
  private async session(
    s: MappedSession,
    before: LedgerSession | undefined,
    prepare: Prepare,
  ): Promise<{ held: LedgerSession; staged?: true } | undefined> {
    if (s.streamed) {
      // Streamed only into a new session of ours; anything else compares events: held after all.
      const where = before ? undefined : await this.locate(s);
      if (!where || where.file || this.dryRun || this.state.trashed.has(where.id)) await materialize(s, prepare);
      else return this.stageNew(s, where.id, prepare);
    }
    const lastSig = eventSignature(s.events[s.events.length - 1]!);
    if (before && before.mapped <= s.events.length && before.mapped > 0 && eventSignature(s.events[before.mapped - 1]!) === before.last) {
      const st = lstatQuiet(before.file);
      if (st?.isFile() && st.size === before.bytes) {
        this.remember(before.id, before.file);
        const fresh = s.events.slice(before.mapped);
        countOutcome(this.report, before.id, s.source, true, fresh.length);
        if (this.dryRun || fresh.length === 0) return { held: { ...before, mapped: s.events.length, last: lastSig } };
        const done = await this.append(s, before.id, before.file, fresh, before.seq);
        return done && { held: { ...before, ...done, mapped: s.events.length, last: lastSig } };
      }
    }
    const { id, file } = await this.locate(s);
    if (!file && this.state.trashed.has(id)) {
      // The user deleted our copy: it stays deleted until `restore` (store/trashed-imports.ts).
      this.report.skipped++;
      this.report.skippedFiles.push({ path: s.source.path, reason: `session ${id} was deleted by the user (restore brings it back)` });
      return undefined; // the ledger does not record its file: each run says so again, and follows it after a restore
    }
    if (!file) {
      if (this.dryRun) {
        countOutcome(this.report, id, s.source, false, s.events.length);
        return { held: { id, key: keyOf(s), file: '', bytes: 0, seq: 0, mapped: 0, last: '' } };
      }
      return this.stageNew(s, id, prepare);
    }
    if (this.dryRun) {
      const held = await heldEvents(this.store(), id);
      countOutcome(this.report, id, s.source, true, newEvents(held.sigs, s.events).length);
      return { held: { id, key: keyOf(s), file, bytes: 0, seq: 0, mapped: 0, last: '' } };
    }
    if (!(await this.acquire(s, id))) return undefined;
    try {
      const held = await heldEvents(this.store(), id);
      const fresh = newEvents(held.sigs, s.events);
      countOutcome(this.report, id, s.source, held.count > 0, fresh.length);
      const done = fresh.length ? await this.appendHeld(s, id, fresh, held.count) : { bytes: (await lstat(file)).size, seq: held.count };
      return { held: { id, key: keyOf(s), file, ...done, mapped: s.events.length, last: lastSig } };
    } finally {
      await (await this.store()).release(id);
    }
  }

  /** Takes a session's lock; false (reported, the next run tries again) when another process holds it. */
  private async acquire(s: MappedSession, id: string): Promise<boolean> {
    try {
      await (await this.store()).acquire(id);
      return true;
    } catch (e) {
      if ((e as { code?: string }).code !== 'locked') throw writeFailure(e);
      const why = `session ${id} is held by another process; it is imported on a later run`;
      this.report.skipped++;
      this.report.skippedFiles.push({ path: s.source.path, reason: why });
      this.report.problems.push({ path: s.source.path, message: why });
      return false;
    }
  }

  /** Appends events to a session of ours (taking its lock); returns its size and next seq after. */
  private async append(s: MappedSession, id: string, file: string, fresh: MappedEvent[], seq: number) {
    if (!(await this.acquire(s, id))) return undefined;
    try {
      const done = await this.appendHeld(s, id, fresh, seq);
      return { ...done, file };
    } finally {
      await (await this.store()).release(id);
    }
  }

  private async appendHeld(s: MappedSession, id: string, fresh: MappedEvent[], seq: number): Promise<{ bytes: number; seq: number }> {
    const { validateBatch } = await parts();
    const store = await this.store();
    // Each event is validated and serialised once, here, so that a bad one is left out alone;
    // the store writes these lines as they are (appendValid). A compact covers the events
    // before its place in our file, counted after the ones left out.
    const good: ValidLine[] = [];
    fresh.forEach((ev, i) => {
      try {
        good.push(validateBatch([withCoverage([ev], seq + good.length)[0]!], sourceLineOf)[0]!);
      } catch (e) {
        this.report.problems.push({
          path: s.source.path,
          message: `a record of the source was left out (event ${seq + i}): ${(e as Error).message}`,
        });
      }
    });
    let r: { lastSeq: number } = { lastSeq: seq - 1 };
    try {
      if (good.length) r = await store.appendValid(id, good);
    } catch (e) {
      throw writeFailure(e);
    }
    return { bytes: (await lstat(await store.pathOf(id))).size, seq: r.lastSeq + 1 };
  }

  /** A session new to us staged; what the ledger keeps of it. */
  private async stageNew(s: MappedSession, id: string, prepare: Prepare): Promise<{ held: LedgerSession; staged?: true }> {
    let last: MappedEvent | undefined = s.events[s.events.length - 1];
    const streamed = s.streamed;
    const events = streamed
      ? (async function* () {
          for await (const ev of streamed.events()) yield (last = prepare(ev));
        })()
      : s.events;
    const staged = await this.stage(s, id, events);
    if (!staged) {
      this.report.skipped++;
      return { held: { id, key: keyOf(s), file: '', bytes: 0, seq: 0, mapped: 0, last: '' } };
    }
    countOutcome(this.report, id, s.source, false, staged.events);
    const held = {
      id,
      key: keyOf(s),
      file: staged.file,
      bytes: staged.bytes,
      seq: staged.events,
      mapped: eventCount(s),
      last: eventSignature(last!),
    };
    return { held, staged: true };
  }

  private async stage(
    s: MappedSession,
    id: string,
    events: Iterable<MappedEvent> | AsyncIterable<MappedEvent>,
  ): Promise<Staged | undefined> {
    const { SCHEMA_VERSION, stageSession, discardStaged, emptyDigest, applyEvent } = await parts();
    const store = await this.store();
    let project: string;
    try {
      project = await this.realProject(s.source.project);
    } catch (e) {
      // A folder no session of ours can name (the tool recorded a relative cwd): this session
      // is left out and said so; the rest of the import goes on.
      if (!isStoreError(e) || e.code !== 'invalid-project') throw e;
      this.report.problems.push({ path: s.source.path, message: `session ${s.source.id} left out: ${e.message}` });
      return undefined;
    }
    // The project's git identity where its folder is still there, as for our own sessions, so
    // that History follows an imported session's folder when it moves (identity.ts).
    const repo = await projectIdentity(project);
    const meta: MetaLine = {
      kind: 'meta',
      v: SCHEMA_VERSION,
      id,
      project,
      createdAt: new Date(s.createdAt).toISOString(),
      // When it became ours: its idle time (auto-archive) counts from here, not from the tool's last message.
      importedAt: new Date().toISOString(),
      title: null,
      ...(s.model ? { model: s.model } : {}),
      source: { ...s.source, project, ...(s.variant ? { variant: s.variant } : {}) },
      ...(repo ? { repo: { ...repo } } : {}),
    };
    let staged: Staged;
    // Its History row folded from the events as they are written, so that the first listing
    // after an import reads no file it made (a new user's History right after the first import).
    const metaEnd = Buffer.byteLength(JSON.stringify(meta)) + 1;
    const d = emptyDigest(meta, metaEnd);
    try {
      staged = await stageSession(
        store,
        meta,
        events,
        (i, message) => {
          this.report.problems.push({ path: s.source.path, message: `a record of the source was left out (event ${i}): ${message}` });
        },
        // A record's own line written as its `raw` (jsonl.ts); a compaction covers the event before it.
        {
          rawSource: sourceLineOf,
          prepared: this.prepared,
          withSeq: (ev, seq) => withCoverage([ev as MappedEvent], seq)[0],
          onWritten: (ev) => {
            applyEvent(d, ev as SessionEvent);
            d.lines++;
          },
        },
      );
    } catch (e) {
      // A streamed source that changed or failed while read again: this session waits for the next run.
      if (e instanceof SourceChanged || (!Array.isArray(events) && !isStoreError(e)))
        throw e instanceof SourceChanged ? e : new SourceChanged(`${s.source.path}: ${(e as Error).message}; read again on a later run`);
      throw writeFailure(e);
    }
    if (staged.events === 0) {
      discardStaged(staged); // nothing importable in it: no 0-turn row
      return undefined;
    }
    d.folded = staged.bytes;
    this.digests.set(staged.id, { meta, metaEnd, d });
    lastActivityAsMtime(staged.temp, d.updatedAt);
    this.ids?.set(id, staged.file);
    this.batch.push(staged);
    this.batchBytes += staged.bytes;
    return staged;
  }

  private realProject(project: string): Promise<string> {
    let p = this.realPaths.get(project);
    if (!p) this.realPaths.set(project, (p = realProjectPath(project, false)));
    return p;
  }

  /** Our id for a mapped session and its file if we hold it (the id map: one readdir a folder a run). */
  private async locate(s: MappedSession): Promise<{ id: string; file?: string }> {
    const { readMeta, folderNames, sweepStaged } = await parts();
    const ids = this.idMap(folderNames, sweepStaged);
    for (let probe = 0; ; probe++) {
      const id = importedId(s.idTime ?? s.createdAt, s.source, s.variant, probe);
      const file = ids.get(id);
      if (!file) return { id };
      if (this.batch.some((b) => b.id === id)) continue; // staged in this run for another source
      const src = (await readMeta(file)).meta.source as SourceRef | undefined;
      if (src && src.tool === s.source.tool && src.id === s.source.id && (src.variant ?? '') === (s.variant ?? '')) {
        this.remember(id, file);
        return { id, file };
      }
    }
  }

  private idMap(folderNames: (dir: string) => string[], sweepStaged: (dir: string, names: string[]) => void): Map<string, string> {
    if (this.ids) return this.ids;
    const ids = new Map<string, string>();
    for (const dir of projectFolders(this.ref.root)) {
      let names: string[];
      try {
        names = folderNames(dir);
      } catch (e) {
        throw new Error(`cannot read the store folder ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      }
      if (!this.dryRun) sweepStaged(dir, names);
      for (const n of names) if (n.endsWith('.jsonl') && !n.startsWith('.')) ids.set(n.slice(0, -6), join(dir, n));
    }
    this.ids = ids;
    return ids;
  }

  /** Makes the batch durable and visible, then lets the ledger record the files it came from. */
  async commit(): Promise<void> {
    if (this.batch.length === 0 && this.pending.length === 0) return;
    const batch = this.batch;
    const pending = this.pending;
    this.batch = [];
    this.batchBytes = 0;
    this.pending = [];
    let result: { visible: Staged[]; taken: Staged[] };
    try {
      result = batch.length ? await (await parts()).commitStaged(batch) : { visible: [], taken: [] };
    } catch (e) {
      throw writeFailure(e);
    }
    const taken = new Set(result.taken.map((s) => s.id));
    await this.entriesOf(result.visible);
    for (const s of batch) this.digests.delete(s.id);
    for (const p of pending) {
      if (p.staged.some((x) => taken.has(x.id))) continue; // another importer made it: compared next run
      for (const x of p.staged) this.remember(x.id, x.file);
      p.entry.sessions.push(...p.staged);
      this.setEntry(p.path, p.entry);
    }
  }

  /** The index entries of sessions just made visible, each checked against its file's stat. */
  private async entriesOf(visible: Staged[]): Promise<void> {
    const { entryOf } = await parts();
    for (const s of visible) {
      const got = this.digests.get(s.id);
      if (!got) continue;
      let st;
      try {
        st = await lstat(s.file, { bigint: true });
      } catch {
        continue; // gone already: the listing finds out
      }
      if (Number(st.size) !== s.bytes) continue; // changed since: the listing reads it
      const list = this.entries.get(s.dir) ?? this.entries.set(s.dir, []).get(s.dir)!;
      list.push(entryOf(got.d, s.id, got.meta, s.bytes, st.mtimeNs, got.metaEnd));
    }
  }

  /**
   * Writes the index entries of the sessions this run made, a folder at a time (a cache: a
   * failure costs only a slower first listing, which reads those files).
   */
  async writeIndexes(): Promise<void> {
    if (this.entries.size === 0) return;
    const { upsertEntries, mapLimit } = await parts();
    // A few folders at once: each is a lock, a write and a rename, mostly waits on the file system.
    await mapLimit([...this.entries], 8, ([dir, list]) => upsertEntries(dir, list).catch(() => {}));
    this.entries.clear();
  }

  discard(): void {
    for (const s of this.batch) loadedParts?.discardStaged(s);
    this.batch = [];
    this.pending = [];
  }
}

/**
 * A new session file's mtime set to its last message (`updatedAt`), not the import's time: a
 * cold History orders the files by mtime to read the newest first (protocol.md "Layout": a
 * session file's mtime). Set before the batch's barrier and before the index entry records the
 * mtime; a time it cannot set only costs that order.
 */
function lastActivityAsMtime(file: string, updatedAt: string): void {
  const t = Date.parse(updatedAt);
  if (Number.isNaN(t)) return;
  try {
    utimesSync(file, new Date(), new Date(t));
  } catch {
    /* the import's time stays: the listing still finds the session, later in a cold order */
  }
}

/**
 * A title event's title as a person reads it (titles.ts); one with nothing left is no title,
 * its record kept hidden (`source-record`).
 */
function cleanTitleEvent(ev: MappedEvent): MappedEvent {
  if (ev.kind !== 'title' || typeof ev.title !== 'string') return ev;
  const title = cleanTitle(ev.title);
  if (title === ev.title) return ev;
  if (title === '') return { kind: 'event', t: ev.t, type: 'source-record', raw: ev.raw };
  return { ...ev, title };
}

/**
 * A discovered source stat'ed again as discovery stats it (jsonl.ts statFile, Claude Code's
 * parts summed in): size, latest mtime, the file's own ctime and inode. Undefined when it is
 * gone or is no longer a file. Only for sources discovery stat'ed that way (with a ctime).
 */
export function restat(f: SourceFile): SourceFile | undefined {
  if (f.ctimeNs === undefined || f.unreadable !== undefined) return undefined;
  try {
    const st = statSync(f.path, { bigint: true });
    if (!st.isFile()) return undefined;
    let size = Number(st.size);
    let mtimeNs = st.mtimeNs;
    for (const p of f.parts ?? []) {
      const ps = statSync(p, { bigint: true });
      size += Number(ps.size);
      if (ps.mtimeNs > mtimeNs) mtimeNs = ps.mtimeNs;
    }
    return { ...f, size, mtimeNs, ctimeNs: st.ctimeNs, ino: st.ino };
  } catch {
    return undefined;
  }
}

/** One lstat, synchronous (a run with nothing new makes one a session: no thread-pool round trip). */
function lstatQuiet(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** Which mapped session a ledger session is: the tool's id and the variant. */
function keyOf(s: MappedSession): string {
  return `${s.source.id}\0${s.variant ?? ''}`;
}

/** The file is as the ledger saw it: by its stat where discovery gave ctime and inode, else also its tail. */
async function sameAsBefore(last: LedgerEntry, file: SourceFile): Promise<boolean> {
  if (last.size !== file.size || last.mtimeNs !== file.mtimeNs.toString()) return false;
  if (file.ctimeNs !== undefined && !file.parts?.length) return last.ctimeNs === file.ctimeNs.toString() && last.ino === String(file.ino);
  if (last.failed) return true;
  return last.offset === file.size && (await signatureAt(file.path, file.size).catch(() => '')) === last.sig;
}

/** The file is the one the ledger saw, only longer: same inode, and the bytes before the old end unchanged. */
async function grewOnly(last: LedgerEntry, file: SourceFile): Promise<boolean> {
  if (file.parts?.length || file.ino === undefined || last.ino !== String(file.ino)) return false;
  if (last.offset <= 0 || file.size <= last.offset) return false;
  return (await signatureAt(file.path, last.offset).catch(() => '')) === last.sig;
}

function writeFailure(e: unknown): Error {
  if (isStoreError(e) && (e.code === 'no-space' || e.code === 'read-only' || e.code === 'io')) return new WriteFailure(e.message);
  return e as Error;
}

function countOutcome(report: ImportReport, id: string, source: SourceRef, existed: boolean, fresh: number): void {
  if (!existed) report.imported++;
  else if (fresh > 0) report.updated++;
  else report.unchanged++;
  if (!existed || fresh > 0) report.sessions.push({ id, source });
}

async function heldEvents(store: Promise<SessionStore>, id: string): Promise<{ sigs: string[]; count: number }> {
  const r = await (await store).read(id);
  return { sigs: r.events.map((e) => eventSignature(e.event as MappedEvent)), count: r.totalEvents ?? r.events.length };
}

/**
 * A compaction of the tool covers everything before it: its coversThrough is the seq of the
 * event just before it in our file (which only the engine knows, appending incrementally).
 */
function withCoverage(events: MappedEvent[], firstSeq: number): MappedEvent[] {
  return events.map((ev, i) => (ev.kind === 'compact' ? { ...ev, coversThrough: Math.max(0, firstSeq + i - 1) } : ev));
}
