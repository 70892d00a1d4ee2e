// Sessions that follow a moved or renamed folder. A project's listing shows, besides the
// sessions recorded under its path, those recorded under another path that is gone, when both
// folders are the same folder of the same git repository (identity.ts sameRepo: the rule
// protocol.md states). Each such row names the folder it was recorded under (`movedFrom`); the
// files stay where they are (relink moves them, by hand).
//
// Cost: a project listing reads the meta lines of each other project folder's newest sessions
// (a few small reads a folder, remembered while the folder is unchanged); git is asked about
// the listed folder only when one of those was a git repository whose folder is gone.
// Depends on node:fs, ./catalog, ../store/entries and ../store/identity.

import { closeSync, lstatSync, readdirSync, readSync } from 'node:fs';
import { openRegularSync } from '../store/files.js';
import { join } from 'node:path';
import { SESSION_ID_RE } from '../format/text.js';
import { projectIdentity, sameRepo, type RepoIdentity } from '../store/identity.js';
import { refreshIndex } from './catalog.js';
import type { IndexEntry } from '../store/entries.js';
import type { Problem } from '../store/reader.js';

/** Entries of other folders that belong to `project` because its folder moved there. */
export async function movedHere(
  project: string,
  folders: string[],
): Promise<{ moved: { entry: IndexEntry; dir: string }[]; problems: Problem[] }> {
  const candidates: { dir: string; project: string; repo: RepoIdentity }[] = [];
  for (const dir of folders)
    for (const h of folderHeads(dir)) if (h.project !== project && !exists(h.project)) candidates.push({ dir, ...h });
  if (candidates.length === 0) return { moved: [], problems: [] };
  const here = await projectIdentity(project);
  if (!here) return { moved: [], problems: [] };
  const moved: { entry: IndexEntry; dir: string }[] = [];
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    if (!sameRepo(c.repo, here) || seen.has(`${c.dir}\0${c.project}`)) continue;
    seen.add(`${c.dir}\0${c.project}`);
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

type Head = { project: string; repo: RepoIdentity };

/** Heads looked at per folder, newest first: imported sessions (no `repo`) may be the newest. */
const HEADS_PER_FOLDER = 16;

/** folderHeads by folder, while the folder's mtime is unchanged (no file came or went). */
const heads = new Map<string, { mtimeNs: bigint; heads: Head[] }>();

/** The meta lines with a `repo` among a folder's newest sessions (ids sort by time of birth). */
function folderHeads(dir: string): Head[] {
  let mtimeNs: bigint;
  try {
    mtimeNs = lstatSync(dir, { bigint: true }).mtimeNs;
  } catch {
    return [];
  }
  const memo = heads.get(dir);
  if (memo && memo.mtimeNs === mtimeNs) return memo.heads;
  const found = readHeads(dir);
  heads.set(dir, { mtimeNs, heads: found });
  return found;
}

function readHeads(dir: string): Head[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.jsonl') && SESSION_ID_RE.test(n.slice(0, -6)));
  } catch {
    return [];
  }
  names.sort().reverse();
  const out: Head[] = [];
  for (const name of names.slice(0, HEADS_PER_FOLDER)) {
    const m = metaOf(join(dir, name));
    if (m?.repo && !out.some((h) => h.project === m.project && JSON.stringify(h.repo) === JSON.stringify(m.repo))) out.push(m as Head);
  }
  return out;
}

const buf = Buffer.alloc(64 * 1024);

function metaOf(file: string): { project: string; repo?: RepoIdentity } | undefined {
  let n = 0;
  try {
    const { fd } = openRegularSync(file); // never through a planted symlink
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
