// relinks.jsonl: the record, in a project's folder of the store, of the folders whose sessions
// `levelcode-sessions relink OLD NEW` moved into it. Session files are moved between project
// folders as they are (not one byte appended: their meta line keeps the path they were recorded
// under); this file says that sessions recorded under those paths now belong to this folder's
// project, and the listing of that project shows them ("moved from OLD"). Append-only, one JSON
// object a line: {"t", "from", "to", "projects", "sessions"}. Small and read whole, through
// files.ts readRegularText (a regular file only: never a symlink followed nor a FIFO waited on);
// kept apart from maintenance/relink.ts so that the listing loads no more than this.
// Depends on files.ts only.

import { readRegularText } from './files.js';
import { join } from 'node:path';

export const RELINKS_FILE = 'relinks.jsonl';

export interface RelinkRecord {
  t: string;
  /** The path given as OLD, and NEW's real path. */
  from: string;
  to: string;
  /** The meta-line projects of the sessions moved (OLD, and folders relinked into OLD before). */
  projects: string[];
  sessions: string[];
}

/** The records of a project folder, oldest first; none when it has no relinks.jsonl. */
export async function readRelinks(dir: string): Promise<RelinkRecord[]> {
  let text: string;
  try {
    text = await readRegularText(join(dir, RELINKS_FILE)); // never a FIFO waited on, nor a symlink followed
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A folder that cannot be read is reported by the listing of its sessions, which fails the same way.
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM') return [];
    throw e;
  }
  const out: RelinkRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as RelinkRecord;
      if (typeof r.to === 'string' && Array.isArray(r.projects) && r.projects.every((p) => typeof p === 'string')) out.push(r);
    } catch {
      /* a torn last line: the record was not acknowledged */
    }
  }
  return out;
}

/** The meta-line projects whose sessions in `dir` belong to `project` (relinked into it). */
export async function relinkedInto(dir: string, project: string): Promise<Set<string>> {
  const from = new Set<string>();
  for (const r of await readRelinks(dir)) if (r.to === project) for (const p of r.projects) if (p !== project) from.add(p);
  return from;
}
