// What a store synced by Syncthing holds besides sessions, by name: the conflict copies
// Syncthing makes (`<id>.sync-conflict-<date>-<time>-<device>.jsonl`), and the device-local
// names the ignore file keeps from travelling (locks and their leftovers, temp files).
// Pure: no fs. server/store/watch.ts and the CLI ask `isConflictName` before anything else.

import { SESSION_ID_RE } from '../format/text.js';

/** The folder id `sync init` gives the store in Syncthing (the same on every device). */
export const FOLDER_ID = 'levelcode-sessions';

/** The ignore file `sync init` writes at the store's root. */
export const STIGNORE_NAME = '.stignore';

/**
 * Every device-local name of the store (lock.ts, files.ts), one pattern a kind, so that the
 * store is safe to sync as it is: a lock says "this process, on this host, writes here" and
 * means nothing on another device; its leftovers (`.new-`, `.gone-`, `.takeover`) and temp files
 * are half-done work of one machine. `(?d)` lets Syncthing delete them when it removes a folder.
 */
export const STIGNORE = `// LevelCode Sessions (levelcode-sessions sync init): what stays on this device.
// Session locks and the leftovers of interrupted lock work (server/store/lock.ts).
(?d)*.jsonl.lock
(?d)*.jsonl.lock.*
(?d)index.lock
(?d)index.lock.*
// Temp files of a write in progress (replaced by a rename when done).
(?d)*.tmp
// Caches never live in the store (they are in ~/.cache/levelcode-sessions); an old version's:
(?d)index.json
(?d)search.idx
`;

export interface ConflictName {
  /** The session id (or `relinks` for a folder's relinks.jsonl). */
  base: string;
  /** Syncthing's short id in the name: the device whose version won and holds the file's name. */
  device: string;
  /** When Syncthing made the copy, as the name says (that device's local time). */
  when: string;
}

// <base>.sync-conflict-YYYYMMDD-HHMMSS-DEVICE<more>.jsonl; a conflict of a conflict copy nests
// a second marker before the extension, and belongs to the same base.
const CONFLICT_RE = /^(.+?)\.sync-conflict-(\d{8})-(\d{6})-([A-Z0-9]{7})(?:\.sync-conflict-\d{8}-\d{6}-[A-Z0-9]{7})*\.jsonl$/;

/** Whether a file name is a Syncthing conflict copy of a session (or of relinks.jsonl). */
export function parseConflictName(name: string): ConflictName | undefined {
  const m = CONFLICT_RE.exec(name);
  if (!m) return undefined;
  const base = m[1]!;
  if (base !== 'relinks' && !SESSION_ID_RE.test(base)) return undefined;
  return { base, device: m[4]!, when: `${m[2]}-${m[3]}` };
}

export function isConflictName(name: string): boolean {
  return name.includes('.sync-conflict-') && parseConflictName(name) !== undefined;
}
