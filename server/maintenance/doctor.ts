// The store's health check: unreadable lines, stale or corrupt indexes (in the cache folder,
// store/cache-dir.ts), stale locks, schema versions, permissions, leftover temp files, and the
// caches an older version kept in the store folder (index.json, search.idx, history.cache:
// ignored now, named here, removed by --fix). `fix` repairs caches and metadata only (index
// files, lock folders, temp files, modes, old caches): it never touches a session's content.
// Maintenance, above the store and the listing: it reads the store's files and rebuilds the
// listing's caches. Depends on node:fs, ../store and ../listing/catalog; nothing of JSON-RPC.

import { TRASHED_IMPORTS_FILE } from '../store/trashed-imports.js';
import type { Stats } from 'node:fs';
import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import { RELINKS_FILE } from '../store/relinks.js';
import { join } from 'node:path';
import { SCHEMA_VERSION } from '../format/events.js';
import { refreshIndex } from '../listing/catalog.js';
import { INDEX_FILE, indexPath } from '../store/entries.js';
import { projectCache } from '../store/cache-dir.js';
import { inspectLock, DEFAULT_STALE_MS } from '../store/lock.js';
import { readSession } from '../store/reader.js';
import { isSessionId } from '../format/ids.js';
import { SYNC_TOOL_NAMES, plantedKind } from '../store/files.js';

export type FindingKind =
  | 'unreadable-line'
  | 'torn-line'
  | 'corrupt-session'
  | 'index-stale'
  | 'index-corrupt'
  | 'index-unwritable'
  | 'stale-lock'
  | 'schema-too-new'
  | 'permissions'
  | 'unreadable'
  | 'stray-file'
  | 'old-cache';

export interface Finding {
  kind: FindingKind;
  path: string;
  line?: number;
  message: string;
  /** What --fix did about it, if anything. */
  fixed?: string;
}

/** Warnings describe content as it is (never changed by --fix); errors need attention or --fix. */
export const WARNINGS: ReadonlySet<FindingKind> = new Set(['unreadable-line', 'torn-line', 'schema-too-new', 'stray-file']);
export function severity(f: Finding): 'warning' | 'error' {
  return WARNINGS.has(f.kind) ? 'warning' : 'error';
}

export interface DoctorReport {
  root: string;
  projects: number;
  sessions: number;
  findings: Finding[];
  ok: boolean;
}

/** An older version's search index of a project folder (the search cache is one SQLite file now). */
const SEARCH_INDEX_FILE = 'search.idx';
/** The caches an older version kept in the store folder (and their temp files): ignored now. */
const OLD_CACHES = [INDEX_FILE, SEARCH_INDEX_FILE];
/** The CLI's cache of the whole History an older version kept at the store's root. */
const OLD_HISTORY_CACHE = 'history.cache';

/** An old cache in the store folder: named, and removed by --fix (the name itself; nothing followed). */
async function oldCache(path: string, fix?: boolean): Promise<Finding> {
  const f: Finding = {
    kind: 'old-cache',
    path,
    message: 'a cache an older version kept in the store: ignored (caches live in the cache folder now)',
  };
  if (fix) {
    await rm(path, { recursive: true, force: true });
    f.fixed = 'removed';
  }
  return f;
}

export async function doctor(
  root: string,
  opts: { fix?: boolean; staleLockMs?: number; signal?: AbortSignal } = {},
): Promise<DoctorReport> {
  const findings: Finding[] = [];
  const report: DoctorReport = { root, projects: 0, sessions: 0, findings, ok: true };
  // A store its owner cannot read is mended first when fixing (its mode), else reported.
  // (Its mode toward others is the user's choice: --dir may name any folder.)
  await checkMode(root, 0o700, findings, opts.fix, 'the store', false);
  let dirs;
  try {
    dirs = await readdir(root, { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return report;
    findings.push({ kind: 'unreadable', path: root, message: `cannot read the store (${code ?? (e as Error).message})` });
    report.ok = false;
    return report;
  }
  for (const d of dirs) {
    const path = join(root, d.name);
    if (SYNC_TOOL_NAMES.has(d.name)) continue; // Syncthing's own (server/sync)
    if (d.isDirectory()) {
      report.projects++;
      report.sessions += await checkProject(path, findings, opts);
    } else if (d.name === TRASHED_IMPORTS_FILE) {
      // The imported sessions the user deleted (trashed-imports.ts): the store's own file.
    } else if (d.name === OLD_HISTORY_CACHE || d.name.startsWith(`${OLD_HISTORY_CACHE}.`)) findings.push(await oldCache(path, opts.fix));
    else findings.push({ kind: 'stray-file', path, message: 'not a project folder (left alone)' });
  }
  report.ok = findings.every((f) => severity(f) === 'warning' || f.fixed !== undefined);
  return report;
}

type Opts = Parameters<typeof doctor>[1] & {};

/** One project folder: its mode, its index, every name in it, its caches. Returns its number of session files. */
async function checkProject(dir: string, findings: Finding[], opts: Opts): Promise<number> {
  await checkMode(dir, 0o700, findings, opts.fix, 'the folder');
  try {
    await readdir(dir);
  } catch (e) {
    // Nothing in it can be checked: one finding, not one per cache it holds.
    findings.push({
      kind: 'unreadable',
      path: dir,
      message: `cannot read the project folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    });
    return 0;
  }
  await checkIndex(dir, findings, opts.fix);
  let sessions = 0;
  let reindex = false;
  // Listed again: the index check may have taken and let go index.lock meanwhile.
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    const what = await checkName(join(dir, name), name, findings, opts);
    if (what !== 'other') sessions++;
    if (what === 'reindex') reindex = true;
  }
  if (reindex) await refreshIndex(dir);
  await checkCaches(dir, findings, opts.fix);
  return sessions;
}

/** A folder's index.json compared with the folder without writing; rebuilt when fixing. */
async function checkIndex(dir: string, findings: Finding[], fix?: boolean): Promise<void> {
  const dry = await refreshIndex(dir, { write: false });
  const s = dry.stats;
  for (const p of dry.cacheProblems) findings.push({ kind: 'index-corrupt', path: p.file, message: p.message });
  const stale = s.folded + s.read + s.dropped > 0;
  if (stale && !s.rebuilt)
    findings.push({
      kind: 'index-stale',
      path: indexPath(dir),
      message: `index out of date: ${s.folded} grown, ${s.read} changed or new, ${s.dropped} gone`,
    });
  else if (s.rebuilt && dry.entries.length > 0 && dry.cacheProblems.length === 0)
    findings.push({ kind: 'index-stale', path: indexPath(dir), message: 'index missing' });
  if (!fix || !(stale || s.rebuilt)) return;
  const r = await refreshIndex(dir);
  const last = findings[findings.length - 1];
  if (r.stats.written && last && last.path === indexPath(dir)) last.fixed = 'index rebuilt';
  if (!r.stats.written && (stale || dry.entries.length > 0))
    findings.push({ kind: 'index-unwritable', path: indexPath(dir), message: 'could not write the index' });
}

/**
 * One name in a project folder: an old cache, a lock or its leftovers, the relinks file, a stray
 * file, or a session file (checked). Says whether it was a session, and one to index again.
 */
async function checkName(path: string, name: string, findings: Finding[], opts: Opts): Promise<'other' | 'session' | 'reindex'> {
  if (OLD_CACHES.some((c) => name === c || name.startsWith(`${c}.`))) findings.push(await oldCache(path, opts.fix));
  else if (/\.lock(\.takeover)?(\.(new|gone)-\d+-[a-z0-9]+)?$/.test(name) && !name.endsWith('.jsonl.lock') && name !== 'index.lock') {
    // What a process killed while making or taking over a lock leaves (store/lock.ts).
    findings.push(await leftover(path, 'leftover of an interrupted lock', opts.fix));
  } else if (name.endsWith('.jsonl.lock') || name === 'index.lock') {
    // index.lock guards index writes across processes (store/entries.ts), like a session's lock.
    const f = await checkLock(path, opts.staleLockMs ?? DEFAULT_STALE_MS, opts.fix);
    if (f) findings.push(f);
  } else if (name === RELINKS_FILE) {
    // relink.ts (store/relinks.ts): the folders this one's sessions came from
  } else if (name.includes('.sync-conflict-') && name.endsWith('.jsonl'))
    findings.push({
      kind: 'stray-file',
      path,
      message: 'a Syncthing conflict copy: resolved into the store by the next command (sync status)',
    });
  else if (name.startsWith('.syncthing.') && name.endsWith('.tmp'))
    findings.push({ kind: 'stray-file', path, message: "Syncthing's temp file of a transfer (Syncthing removes it; left alone)" });
  else if (!name.endsWith('.jsonl') || !isSessionId(name.slice(0, -6)))
    findings.push({ kind: 'stray-file', path, message: 'not a session file (left alone)' });
  else return checkSessionFile(path, findings, opts);
  return 'other';
}

/** A lock folder whose owner is gone or that went stale: a finding, removed when fixing. */
async function checkLock(path: string, staleMs: number, fix?: boolean): Promise<Finding | undefined> {
  const st = await inspectLock(path.slice(0, -5), staleMs);
  if (!st.dead && !st.stale) return undefined;
  const f: Finding = {
    kind: 'stale-lock',
    path,
    message: st.dead
      ? `lock of a process that is gone (pid ${st.owner?.pid})`
      : st.foreign
        ? `lock of ${st.owner?.host} (open there, or left by it) not refreshed for longer than the stale timeout; only --fix takes it`
        : 'lock not refreshed for longer than the stale timeout',
  };
  if (fix) {
    await rm(path, { recursive: true, force: true });
    f.fixed = 'removed';
  }
  return f;
}

/** A session file: its mode, its schema version, every line read. */
async function checkSessionFile(path: string, findings: Finding[], opts: Opts): Promise<'other' | 'session' | 'reindex'> {
  // Never read through a symlink (one planted in the store may lead anywhere) or from a
  // FIFO or device (the read would wait forever): the listing skips them too.
  const st = await lstat(path).catch(() => undefined);
  if (!st) return 'other'; // gone meanwhile
  if (!st.isFile()) {
    findings.push({
      kind: 'stray-file',
      path,
      message: `${plantedKind(path) ?? 'not a regular file'}, not a session file: never read nor followed (left alone)`,
    });
    return 'other';
  }
  const before = findings.length;
  await checkModeOf(path, st, 0o600, findings, opts.fix, 'the file');
  // A file made readable again by --fix was left out of the index rebuilt before.
  const reindex = findings.length > before && !!findings[before]!.fixed && (st.mode & 0o600) !== 0o600;
  try {
    // A name swapped for a symlink or a FIFO since the lstat above is not read (readSession opens no-follow).
    const r = await readSession(path, { signal: opts.signal });
    if (r.meta.v > SCHEMA_VERSION)
      findings.push({
        kind: 'schema-too-new',
        path,
        message: `schema v${r.meta.v} is newer than v${SCHEMA_VERSION}: listed and readable, not appendable`,
      });
    for (const p of r.problems)
      findings.push({ kind: p.message.startsWith('torn') ? 'torn-line' : 'unreadable-line', path, line: p.line, message: p.message });
  } catch (e) {
    const denied = /\((EACCES|EPERM)\)/.test((e as Error).message);
    findings.push({ kind: denied ? 'unreadable' : 'corrupt-session', path, message: (e as Error).message });
  }
  return reindex ? 'reindex' : 'session';
}

/**
 * The caches of one project folder, in the cache folder: only their mode is checked (search.idx
 * is rebuilt by search when it does not check out). One planted as a symlink, a FIFO or a device
 * is said so and never read nor followed (index.json's is reported by the refresh); --fix removes
 * the name itself, or replaces it by a rebuilt index (a rename: nothing followed).
 */
async function checkCaches(dir: string, findings: Finding[], fix?: boolean): Promise<void> {
  for (const name of [INDEX_FILE, SEARCH_INDEX_FILE]) {
    const path = projectCache(dir, name);
    const planted = plantedKind(path);
    if (!planted) {
      await checkMode(path, 0o600, findings, fix);
      continue;
    }
    if (name === SEARCH_INDEX_FILE) {
      const f: Finding = { kind: 'index-corrupt', path, message: `${name} is ${planted}, not a regular file: never read nor followed` };
      if (fix) {
        await rm(path, { force: true });
        f.fixed = 'removed (the next search rebuilds it)';
      }
      findings.push(f);
    } else if (fix) {
      const f = findings.find((x) => x.path === path && x.kind === 'index-corrupt');
      const again = await refreshIndex(dir);
      if (f && again.stats.written) f.fixed = 'replaced by a rebuilt index';
    }
  }
}

/** A leftover of an interrupted write or lock: a stray file, removed (with what it holds) by --fix. */
async function leftover(path: string, message: string, fix?: boolean): Promise<Finding> {
  const f: Finding = { kind: 'stray-file', path, message };
  if (fix) {
    await rm(path, { recursive: true, force: true });
    f.fixed = 'removed';
  }
  return f;
}

/**
 * Reports (and with --fix sets) a mode other than `want`: one that lets others read, or keeps
 * the owner out. Only the owner (or root) can change a mode: for anyone else the finding says
 * so and what would mend it. Never through a symlink: one planted in the store may lead outside
 * it, and chmod would change what it points to. `what` names the path in the message.
 */
async function checkMode(path: string, want: number, findings: Finding[], fix?: boolean, what = 'it', others = true): Promise<void> {
  const st = await lstat(path).catch(() => undefined); // gone meanwhile, or its folder unreadable (reported there)
  if (st) await checkModeOf(path, st, want, findings, fix, what, others);
}

/** checkMode with `path`'s lstat already taken. */
async function checkModeOf(
  path: string,
  st: Stats,
  want: number,
  findings: Finding[],
  fix?: boolean,
  what = 'it',
  others = true,
): Promise<void> {
  if (st.isSymbolicLink()) return;
  const mode = st.mode & 0o777;
  const open = others && (mode & ~want) !== 0;
  const shut = (mode & want) !== want;
  if (!open && !shut) return;
  const why = shut ? `keeps its owner from using ${what}` : `lets others read ${what}`;
  const f: Finding = {
    kind: 'permissions',
    path,
    message: `mode ${mode.toString(8).padStart(3, '0')} ${why}; expected ${want.toString(8)}`,
  };
  findings.push(f);
  if (!fix) return;
  const uid = process.getuid?.();
  if (uid !== undefined && uid !== 0 && st.uid !== uid) {
    f.message += `; not fixed: it belongs to uid ${st.uid}, and only its owner or root can change its mode (chmod ${want.toString(8)} ${path})`;
    return;
  }
  try {
    const to = others ? want : mode | want;
    await chmod(path, to);
    f.fixed = `chmod ${to.toString(8)}`;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') f.message += `; not fixed: chmod failed (${code ?? (e as Error).message})`;
    else findings.pop(); // vanished meanwhile
  }
}
