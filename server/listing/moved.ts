// Sessions that follow a moved or renamed folder. A project's listing shows, besides the
// sessions recorded under its path, those recorded under another path that is gone, when both
// folders are the same folder of the same git repository (identity.ts sameRepo: the rule
// protocol.md states). Each such row names the folder it was recorded under (`movedFrom`); the
// files stay where they are (relink moves them, by hand).
//
// Cost: a project listing reads each other project folder's newest session's meta line (one
// small read a folder); git is asked about the listed folder only when one of those was a git
// repository whose folder is gone. Depends on node:fs, ./catalog and ../store/identity.

import { closeSync, lstatSync, readdirSync, readSync } from 'node:fs';
import { openRegularSync } from '../store/files.js';
import { join } from 'node:path';
import { SESSION_ID_RE } from '../format/text.js';
import { projectIdentity, sameRepo, type RepoIdentity } from '../store/identity.js';
import { refreshIndex, type IndexEntry } from './catalog.js';
import type { Problem } from '../store/reader.js';

/** Entries of other folders that belong to `project` because its folder moved there. */
export async function movedHere(
  project: string,
  folders: string[],
): Promise<{ moved: { entry: IndexEntry; dir: string }[]; problems: Problem[] }> {
  const candidates: { dir: string; project: string; repo: RepoIdentity }[] = [];
  for (const dir of folders) {
    const meta = newestMeta(dir);
    if (!meta || meta.project === project || !meta.repo || exists(meta.project)) continue;
    candidates.push({ dir, project: meta.project, repo: meta.repo });
  }
  if (candidates.length === 0) return { moved: [], problems: [] };
  const here = await projectIdentity(project);
  if (!here) return { moved: [], problems: [] };
  const moved: { entry: IndexEntry; dir: string }[] = [];
  const problems: Problem[] = [];
  for (const c of candidates) {
    if (!sameRepo(c.repo, here)) continue;
    const r = await refreshIndex(c.dir);
    problems.push(...r.problems);
    for (const e of r.entries) if (e.project === c.project && sameRepo(e.repo, here)) moved.push({ entry: e, dir: c.dir });
  }
  return { moved, problems };
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

type Head = { project: string; repo?: RepoIdentity } | undefined;

/** newestMeta by folder, while the folder's mtime is unchanged (no file came or went). */
const heads = new Map<string, { mtimeNs: bigint; head: Head }>();

/** The meta line of a folder's newest session (ids sort by time of birth), or none. */
function newestMeta(dir: string): Head {
  let mtimeNs: bigint;
  try {
    mtimeNs = lstatSync(dir, { bigint: true }).mtimeNs;
  } catch {
    return undefined;
  }
  const memo = heads.get(dir);
  if (memo && memo.mtimeNs === mtimeNs) return memo.head;
  const head = readNewestMeta(dir);
  heads.set(dir, { mtimeNs, head });
  return head;
}

function readNewestMeta(dir: string): Head {
  let newest: string | undefined;
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.jsonl') || !SESSION_ID_RE.test(name.slice(0, -6))) continue;
      if (!newest || name > newest) newest = name;
    }
  } catch {
    return undefined;
  }
  if (!newest) return undefined;
  const buf = Buffer.alloc(64 * 1024);
  let n = 0;
  try {
    const { fd } = openRegularSync(join(dir, newest)); // never through a planted symlink
    try {
      n = readSync(fd, buf, 0, buf.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const end = buf.indexOf(10);
  if (end < 0 || end > n) return undefined;
  try {
    const m = JSON.parse(buf.subarray(0, end).toString('utf8')) as { project?: unknown; repo?: RepoIdentity };
    return typeof m.project === 'string' ? { project: m.project, ...(m.repo ? { repo: m.repo } : {}) } : undefined;
  } catch {
    return undefined;
  }
}
