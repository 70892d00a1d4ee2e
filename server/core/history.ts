// History: the listing of sessions, newest first, from the per-project index caches. Kept apart
// from store.ts so that `levelcode-sessions list` loads neither zod (the reader's schemas) nor
// the lock library: a warm listing only reads index.json files and stats the session files, and
// the process start is most of what it costs (bench/PERFORMANCE.md: warm list). SessionStore.list
// calls this; store.ts re-exports what moved here.
// Depends on node:fs and ./catalog (which loads the reader only to rebuild an entry).

import { readdir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { StoreError, fromFsError } from './errors.js';
import { projectSlug, isAbsoluteProjectPath } from './slug.js';
import { displayTitle, mapLimit, newestFirst, refreshIndex, type IndexEntry } from './catalog.js';
import type { Problem } from './reader.js';

/** One History row. */
export interface SessionEntry {
  id: string;
  project: string;
  title: string;
  /** True when a title event exists (or the meta line has a title). */
  titled: boolean;
  createdAt: string;
  updatedAt: string;
  /** Number of user messages. */
  turns: number;
  model: string | null;
  /** First line of the latest user message. */
  preview: string;
  v: number;
  bytes: number;
}

/** The store root: --dir, then LEVELCODE_SESSIONS_DIR, then ~/.levelcode/sessions. */
export function resolveStoreRoot(dir?: string): string {
  const chosen = dir ?? process.env.LEVELCODE_SESSIONS_DIR;
  if (chosen && chosen.length > 0) return resolve(chosen);
  return join(homedir(), '.levelcode', 'sessions');
}

export function toSessionEntry(e: IndexEntry): SessionEntry {
  return {
    id: e.id,
    project: e.project,
    title: displayTitle(e),
    titled: !!e.title,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    turns: e.turns,
    model: e.model,
    preview: e.preview,
    v: e.v,
    bytes: e.bytes,
  };
}

/** The real path of a project folder, as stored in meta lines. */
export async function realProjectPath(project: string, mustExist: boolean): Promise<string> {
  if (typeof project !== 'string' || project.length === 0 || project.includes('\0'))
    throw new StoreError('invalid-project', 'project must be a non-empty path');
  if (!isAbsolute(project) && !isAbsoluteProjectPath(project))
    throw new StoreError('invalid-project', `project must be an absolute path: ${project}`);
  try {
    const real = await realpath(project);
    const st = await stat(real);
    if (!st.isDirectory()) throw new StoreError('invalid-project', `project is not a directory: ${project}`);
    return real;
  } catch (e) {
    if (e instanceof StoreError) throw e;
    if (mustExist) throw new StoreError('invalid-project', `project folder does not exist: ${project}`);
    return isAbsolute(project) ? resolve(project) : project;
  }
}

/**
 * Sessions newest first; by project (its real path, exactly) or all. `onEntry` sees every row
 * listed with its file (the store uses it to remember where sessions are).
 */
export async function listSessions(
  root: string,
  o: { project?: string; all?: boolean } = {},
  onEntry?: (e: IndexEntry, file: string) => void,
): Promise<{ sessions: SessionEntry[]; problems: Problem[] }> {
  const problems: Problem[] = [];
  let dirs: string[];
  let project: string | undefined;
  if (o.project !== undefined && !o.all) {
    project = await realProjectPath(o.project, false);
    dirs = [join(root, projectSlug(project))];
  } else {
    try {
      dirs = (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => join(root, d.name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { sessions: [], problems };
      throw fromFsError(e, `cannot read the store ${root}`);
    }
  }
  const all: IndexEntry[] = [];
  await mapLimit(dirs, 4, async (dir) => {
    const r = await refreshIndex(dir);
    problems.push(...r.problems);
    for (const e of r.entries) {
      if (project !== undefined && e.project !== project) continue;
      all.push(e);
      onEntry?.(e, join(dir, `${e.id}.jsonl`));
    }
  });
  all.sort(newestFirst);
  return { sessions: all.map(toSessionEntry), problems };
}
