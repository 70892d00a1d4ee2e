// Test helper: a store written as files on disk, each session file's mtime its last message
// (what our writers and the import leave), for the cold-listing tests of the CLI and the
// sidecar. Sessions are given newest last or in any order; `pinned` and `archived` add the
// events that make them so, dated at the session's last message (a pin made long ago).
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectSlug } from '../../server/store/slug.js';
import { cachePaths } from '../../server/store/cache-dir.js';

export interface ColdSession {
  project: string;
  /** Days before `now` of its one message. */
  daysAgo: number;
  text: string;
  pinned?: boolean;
  archived?: boolean;
}

const DAY = 86_400_000;

/** Writes the sessions under `root`; returns their ids in the order given. */
export function writeColdStore(root: string, sessions: ColdSession[], now = Date.now()): string[] {
  return sessions.map((s, i) => {
    const t = new Date(now - s.daysAgo * DAY);
    const stamp = t.toISOString().slice(0, 19).replace(/:/g, '-');
    const id = `${stamp}-${i.toString(36).padStart(4, '0')}`;
    const dir = join(root, projectSlug(s.project));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const at = t.toISOString();
    const lines = [
      { kind: 'meta', v: 1, id, project: s.project, createdAt: at, title: null },
      { kind: 'user', t: at, content: s.text },
      ...(s.pinned ? [{ kind: 'event', t: at, type: 'pin' }] : []),
      ...(s.archived ? [{ kind: 'event', t: at, type: 'archive' }] : []),
    ];
    const file = join(dir, `${id}.jsonl`);
    writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''), { mode: 0o600 });
    utimesSync(file, t, t);
    return id;
  });
}

/** Every listing cache of the store deleted (index.json, history.cache): a cold History. */
export function coldCaches(root: string): void {
  rmSync(cachePaths(root).dir, { recursive: true, force: true });
}
