// The imported sessions the user deleted, remembered in the store itself so that an import (or
// the sidecar following a tool's folder) does not bring them back, even after the caches are
// wiped: <root>/trashed-imports.jsonl, one line an event, appended to, never rewritten:
//   {"t":"…","id":"<our id>","source":{"tool":"codex","id":"<its id>"},"trashed":true}
//   {"t":"…","id":"<our id>","trashed":false}          (restore: import may follow it again)
// The latest line of an id wins. The file is plain data a person can read; it is not a session
// (no meta line) and lives at the store's top, where listing looks only at project folders.
// A torn or foreign line is ignored: losing this memory brings a deleted session back, which is
// what happened before it existed; it never loses a session.
// Depends on node:fs only.

import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readRegularText } from './files.js';

export const TRASHED_IMPORTS_FILE = 'trashed-imports.jsonl';

export interface TrashedImport {
  /** Our id of the deleted session. */
  id: string;
  /** Its source: the importer's tool and the tool's own id (and variant). */
  source?: { tool: string; id: string; variant?: string };
}

export function trashedImportsPath(root: string): string {
  return join(root, TRASHED_IMPORTS_FILE);
}

/** Records that an imported session was deleted (trashed: true) or restored (false). */
export async function rememberTrashed(root: string, e: TrashedImport, trashed: boolean): Promise<void> {
  const line = { t: new Date().toISOString(), id: e.id, ...(e.source ? { source: e.source } : {}), trashed };
  await appendFile(trashedImportsPath(root), JSON.stringify(line) + '\n', { mode: 0o600 });
}

/** Our ids of the imported sessions deleted and not restored since. A missing file: none. */
export async function trashedImportIds(root: string): Promise<Set<string>> {
  let text: string;
  try {
    text = await readRegularText(trashedImportsPath(root));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Set();
    throw e;
  }
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    let x: unknown;
    try {
      x = JSON.parse(line);
    } catch {
      continue;
    }
    if (!x || typeof x !== 'object') continue;
    const { id, trashed } = x as { id?: unknown; trashed?: unknown };
    if (typeof id !== 'string') continue;
    if (trashed === true) out.add(id);
    else if (trashed === false) out.delete(id);
  }
  return out;
}
