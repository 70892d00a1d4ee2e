// The import engine: the only part of server/import that writes. It takes the sessions an
// importer read from another tool's files and makes each one a session of ours, then keeps it
// current on every later run:
// - our id is derived from the source (the session's birth time and a hash of tool, source id
//   and variant), so a later run finds the session it made, ledger or no ledger;
// - a source whose (size, mtime_ns) and tail signature are those of the last run is skipped
//   unread (the ledger, a cache under $XDG_CACHE_HOME, says what the last run saw), unless it
//   was modified within RACY_NS of being read: a file system's clock ticks coarsely, so a write
//   just after our read can keep the size and mtime we saw (a SQLite page rewritten in place);
//   such a source is read again next time (git's "racily clean" entries);
// - otherwise the source is read and each mapped event is compared with ours by its source
//   signature (a hash of the record it came from, kept verbatim under `raw`): only events we do
//   not hold yet are appended. That one rule covers growth, a file rewritten in place, a rewind
//   and a torn last line completed later; what we hold is never removed or rewritten;
// - a real reset (the source starts again with another birth time) derives another id, so it
//   becomes a session of its own beside the old one;
// - a source that is gone is simply not seen: ours stays.
// Each session is locked while it is compared and appended to, so two importers (the CLI and a
// sidecar that follows the sources) never append the same events twice.
// Depends on the store (server/store/store.ts), the importer interface (./types.ts) and node:fs.

import { createHash } from 'node:crypto';
import { SCHEMA_VERSION, type MetaLine } from '../format/events.js';
import { realProjectPath } from '../listing/history.js';
import { readMeta } from '../store/reader.js';
import { projectIdentity } from '../store/identity.js';
import { cachePaths, ensureCacheFolder } from '../store/cache-dir.js';
import { openRegular, readRegularSync, replaceFileSync } from '../store/files.js';
import type { SessionStore } from '../store/store.js';
import type { Importer, MappedEvent, MappedSession, SourceFile, SourceRef } from './types.js';

export interface ImportProblem {
  /** The source file (or folder) the problem is about. */
  path: string;
  message: string;
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
}

export interface ImportJob {
  importer: Importer;
  /** Data folders (or single session files) of the tool to import from. */
  roots: string[];
}

export interface ImportOptions {
  /** Compute the report without writing anything (no session, no ledger). */
  dryRun?: boolean;
  /** Called after each source file: files done, files in all. */
  onProgress?: (done: number, total: number) => void;
  /** The ledger file; defaults to ledgerPath(store.root, process.env). */
  ledger?: string;
  signal?: AbortSignal;
}

// ---- the ledger (a cache: losing it costs one full re-read of every source) ------------------

const LEDGER_FORMAT = 1;
const TAIL_BYTES = 4096;

interface LedgerEntry {
  size: number;
  mtimeNs: string;
  /** sha1 of the file's last TAIL_BYTES bytes. */
  tail: string;
  /** Our sessions made from this file. */
  ids: string[];
}

interface Ledger {
  about: string;
  format: number;
  root: string;
  files: Record<string, LedgerEntry>;
}

/** Where the ledger of a store lives: the store's cache folder (store/cache-dir.ts). */
export function ledgerPath(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return cachePaths(root, env).ledger;
}

async function loadLedger(file: string, root: string): Promise<Ledger> {
  const empty: Ledger = {
    about: 'levelcode-sessions import ledger: what the last import saw of each source file. A cache; delete it at any time.',
    format: LEDGER_FORMAT,
    root,
    files: Object.create(null) as Record<string, LedgerEntry>,
  };
  try {
    const x = JSON.parse(readRegularSync(file).toString('utf8')) as Ledger; // no symlink followed, no FIFO waited on
    if (x.format !== LEDGER_FORMAT || x.root !== root || !x.files || typeof x.files !== 'object') return empty;
    empty.files = Object.assign(Object.create(null), x.files) as Record<string, LedgerEntry>;
  } catch {
    /* missing or unreadable: every source is read again */
  }
  return empty;
}

async function saveLedger(file: string, ledger: Ledger): Promise<void> {
  ensureCacheFolder(file);
  replaceFileSync(file, JSON.stringify(ledger) + '\n', { mode: 0o600, fsync: false }); // a rename over a planted name: nothing written through
}

async function tailSignature(path: string, size: number): Promise<string> {
  const fh = await openRegular(path); // no symlink followed, no FIFO waited on
  try {
    const n = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(n);
    await fh.read(buf, 0, n, size - n);
    return createHash('sha1').update(buf).digest('hex');
  } finally {
    await fh.close();
  }
}

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

export async function runImport(store: SessionStore, jobs: ImportJob[], o: ImportOptions = {}): Promise<ImportReport> {
  const report: ImportReport = { imported: 0, updated: 0, unchanged: 0, skipped: 0, problems: [], sessions: [] };
  const ledgerFile = o.ledger ?? ledgerPath(store.root);
  const ledger = await loadLedger(ledgerFile, store.root);
  const work: { importer: Importer; file: SourceFile }[] = [];
  for (const job of jobs)
    for (const root of job.roots) {
      try {
        for (const file of await job.importer.discover(root)) work.push({ importer: job.importer, file });
      } catch (e) {
        report.problems.push({ path: root, message: (e as Error).message });
      }
    }
  let done = 0;
  let sinceSave = 0;
  for (const { importer, file } of work) {
    o.signal?.throwIfAborted();
    try {
      const saw = await importFile(store, importer, file, ledger.files[file.path], report, !!o.dryRun);
      if (saw) ledger.files[file.path] = saw;
    } catch (e) {
      report.problems.push({ path: file.path, message: (e as Error).message });
    }
    o.onProgress?.(++done, work.length);
    if (!o.dryRun && ++sinceSave >= 500) {
      sinceSave = 0;
      await saveLedger(ledgerFile, ledger).catch(() => {});
    }
  }
  if (!o.dryRun)
    await saveLedger(ledgerFile, ledger).catch((e: Error) =>
      report.problems.push({
        path: ledgerFile,
        message: `cannot write the import ledger (${e.message}); the next run reads every source again`,
      }),
    );
  return report;
}

/** A source modified this close to being read may change again without its mtime moving. */
const RACY_NS = 2_000_000_000n;

/** Imports one source file; returns what the ledger should remember of it (nothing: read it again next time). */
async function importFile(
  store: SessionStore,
  importer: Importer,
  file: SourceFile,
  last: LedgerEntry | undefined,
  report: ImportReport,
  dryRun: boolean,
): Promise<LedgerEntry | undefined> {
  const readAtNs = BigInt(Date.now()) * 1_000_000n;
  const tail = await tailSignature(file.path, file.size);
  const mtimeNs = file.mtimeNs.toString();
  if (last && last.size === file.size && last.mtimeNs === mtimeNs && last.tail === tail && (await allExist(store, last.ids))) {
    report.unchanged += Math.max(1, last.ids.length);
    return last;
  }
  const sessions = await importer.read(file);
  const ids: string[] = [];
  let complete = true;
  for (const s of sessions) {
    for (const p of s.problems) report.problems.push({ path: s.source.path, message: p });
    const id = await importSession(store, s, report, dryRun);
    if (id) ids.push(id);
    else complete = false;
  }
  if (sessions.length === 0) report.skipped++;
  return complete && readAtNs - file.mtimeNs >= RACY_NS ? { size: file.size, mtimeNs, tail, ids } : undefined;
}

async function allExist(store: SessionStore, ids: string[]): Promise<boolean> {
  for (const id of ids)
    if (
      !(await store.pathOf(id).then(
        () => true,
        () => false,
      ))
    )
      return false;
  return true;
}

/**
 * Makes one mapped session ours or brings ours up to date. Returns our id, or undefined when
 * it was skipped (nothing to import, or another process holds it: the next run tries again).
 */
async function importSession(store: SessionStore, s: MappedSession, report: ImportReport, dryRun: boolean): Promise<string | undefined> {
  if (s.events.length === 0) {
    report.skipped++;
    return undefined;
  }
  const { id, exists } = await locate(store, s);
  if (dryRun) {
    const held = exists ? await heldSignatures(store, id) : [];
    countOutcome(report, id, s.source, exists, newEvents(held, s.events).length);
    return id;
  }
  if (!exists) {
    const project = await realProjectPath(s.source.project, false);
    // The project's git identity where its folder is still there, as for our own sessions, so
    // that History follows an imported session's folder when it moves (identity.ts).
    const repo = await projectIdentity(project);
    const meta: MetaLine = {
      kind: 'meta',
      v: SCHEMA_VERSION,
      id,
      project,
      createdAt: new Date(s.createdAt).toISOString(),
      title: null,
      ...(s.model ? { model: s.model } : {}),
      source: { ...s.source, project, ...(s.variant ? { variant: s.variant } : {}) },
      ...(repo ? { repo: { ...repo } } : {}),
    };
    await store.createImported(meta);
  }
  try {
    await store.acquire(id);
  } catch (e) {
    if ((e as { code?: string }).code !== 'locked') throw e;
    report.skipped++;
    report.problems.push({ path: s.source.path, message: `session ${id} is held by another process; it is imported on a later run` });
    return undefined;
  }
  try {
    const held = await heldEvents(store, id);
    const fresh = newEvents(held.sigs, s.events);
    if (fresh.length) await store.append(id, withCoverage(fresh, held.count));
    countOutcome(report, id, s.source, exists && held.count > 0, fresh.length);
  } finally {
    await store.release(id);
  }
  return id;
}

/**
 * Our id for a mapped session: the derived one, or, when a session of another source holds it
 * (two sources born in the same second whose hashes meet), the next probe's.
 */
async function locate(store: SessionStore, s: MappedSession): Promise<{ id: string; exists: boolean }> {
  for (let probe = 0; ; probe++) {
    const id = importedId(s.createdAt, s.source, s.variant, probe);
    const file = await store.pathOf(id).catch(() => undefined);
    if (!file) return { id, exists: false };
    const src = (await readMeta(file)).meta.source as SourceRef | undefined;
    if (src && src.tool === s.source.tool && src.id === s.source.id && (src.variant ?? '') === (s.variant ?? ''))
      return { id, exists: true };
  }
}

function countOutcome(report: ImportReport, id: string, source: SourceRef, existed: boolean, fresh: number): void {
  if (!existed) report.imported++;
  else if (fresh > 0) report.updated++;
  else report.unchanged++;
  if (!existed || fresh > 0) report.sessions.push({ id, source });
}

async function heldSignatures(store: SessionStore, id: string): Promise<string[]> {
  return (await heldEvents(store, id)).sigs;
}

async function heldEvents(store: SessionStore, id: string): Promise<{ sigs: string[]; count: number }> {
  const r = await store.read(id);
  return { sigs: r.events.map((e) => eventSignature(e.event as MappedEvent)), count: r.totalEvents ?? r.events.length };
}

/**
 * A compaction of the tool covers everything before it: its coversThrough is the seq of the
 * event just before it in our file (which only the engine knows, appending incrementally).
 */
function withCoverage(events: MappedEvent[], firstSeq: number): MappedEvent[] {
  return events.map((ev, i) => (ev.kind === 'compact' ? { ...ev, coversThrough: Math.max(0, firstSeq + i - 1) } : ev));
}
