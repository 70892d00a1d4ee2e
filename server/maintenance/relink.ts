// `levelcode-sessions relink OLD NEW`: the sessions of folder OLD become NEW's, by hand (for a
// folder that is not a git repository, or sessions from before identities were recorded). The
// session files are moved, unchanged, from OLD's project folder of the store to NEW's, and one
// line appended to NEW's relinks.jsonl (store/relinks.ts) says they belong there; the record is written
// before any file moves, so a crash midway leaves every session listed in one of the two places.
// Refused, moving nothing, while another process holds one of them.
// Maintenance, above the store and the listing. Depends on ../store and ../listing/catalog.

import { link, unlink } from 'node:fs/promises';
import { closeSync, constants, fsyncSync, writeSync } from 'node:fs';
import { openRegularSync } from '../store/files.js';
import { join } from 'node:path';
import { StoreError, fromFsError } from '../store/errors.js';
import { RELINKS_FILE, relinkedInto, type RelinkRecord } from '../store/relinks.js';
import type { SessionStore } from '../store/store.js';

export interface RelinkResult {
  from: string;
  to: string;
  dryRun: boolean;
  sessions: { id: string; title: string; project: string }[];
}

export async function relinkProject(store: SessionStore, old: string, next: string, o: { dryRun?: boolean } = {}): Promise<RelinkResult> {
  const to = await store.realProject(next, true);
  const from = await store.realProject(old, false);
  if (from === to) throw new StoreError('invalid-project', `OLD and NEW are the same folder (${to})`);
  const oldDir = store.projectDirOf(from);
  const newDir = store.projectDirOf(to);
  const { refreshIndex } = await import('../listing/catalog.js');
  const listed = await refreshIndex(oldDir);
  if (listed.problems.length) throw new StoreError('io', `cannot read all of ${oldDir}: ${listed.problems[0]!.message}; nothing was moved`);
  const own = await relinkedInto(oldDir, from);
  const entries = listed.entries.filter((e) => e.project === from || own.has(e.project));
  const result: RelinkResult = {
    from,
    to,
    dryRun: !!o.dryRun,
    sessions: entries.map((e) => ({ id: e.id, title: e.title ?? e.firstUser, project: e.project })),
  };
  if (o.dryRun || entries.length === 0) return result;
  for (const e of entries) {
    const info = await store.lockInfo(e.id);
    if (info.locked && !info.byUs)
      throw new StoreError('locked', `session ${e.id} is open in another window (pid ${info.pid ?? '?'}); nothing was moved`, info);
  }
  if (oldDir === newDir) throw new StoreError('invalid-project', `OLD and NEW share a store folder (${newDir}): nothing to move`);
  await store.prepareProjectDir(newDir);
  const record: RelinkRecord = {
    t: new Date().toISOString(),
    from,
    to,
    projects: [...new Set(entries.map((e) => e.project))],
    sessions: entries.map((e) => e.id),
  };
  appendRecord(newDir, record);
  for (const e of entries) {
    const src = join(oldDir, `${e.id}.jsonl`);
    const dst = join(newDir, `${e.id}.jsonl`);
    try {
      await link(src, dst); // never replaces a file
      await unlink(src);
    } catch (err) {
      throw fromFsError(err, `cannot move ${src} to ${dst}`);
    }
  }
  await refreshIndex(oldDir).catch(() => {});
  await refreshIndex(newDir).catch(() => {});
  return result;
}

function appendRecord(dir: string, r: RelinkRecord): void {
  const file = join(dir, RELINKS_FILE);
  let fd: number;
  try {
    fd = openRegularSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600).fd; // never through a planted name
  } catch (e) {
    throw fromFsError(e, `cannot write ${file}`);
  }
  try {
    writeSync(fd, `${JSON.stringify(r)}\n`);
    fsyncSync(fd);
  } catch (e) {
    throw fromFsError(e, `cannot write ${file}`);
  } finally {
    closeSync(fd);
  }
}
