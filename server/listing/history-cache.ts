// history.cache: the text of the last `list --all --json`, kept in the store's cache folder
// (cache-dir.ts) with what it was made from, so that the next one prints it without listing.
//
// Kept for one guardrail: a warm `list --all --json`, whole process, against `node -e ''`.
// Without it the listing reads and parses every folder's index.json, makes a row of each entry
// and serializes them, which misses that guardrail (bench/PERFORMANCE.md).
//
// It is trusted only while everything its text was made from is as it was: the same project
// folders, each folder's index.json with the same identity (inode, size, mtime and ctime: a
// chmod that would make the listing report it is a miss), and in each folder the same session
// files with the same size, mtime and ctime (what index.json's entries are checked by, and the
// ctime for a copy that kept the mtime), all taken before the listing that wrote it.
// Anything else (a file appended to, added or removed, a folder added, a planted symlink, this
// file torn, damaged or not a regular file) is a miss: the ordinary listing runs, and writes the
// cache again. It is written only after a listing with no problem to report, during which no
// index.json changed (the listing after a change writes the indexes, the next one this file).
// The sidecar does not use it (it keeps its listing in memory: history.ts ListingCache).
//
// Layout: one line of JSON (the header: its format, the folders as found, the text's length and
// CRC-32), then the text, exactly as the CLI printed it.
// Depends on node:fs and the store's file helpers only: a hit loads nothing else.

import { lstatSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, sep } from 'node:path';
import { crc32 } from 'node:zlib';
import { cachePaths, ensureCacheFolder } from '../store/cache-dir.js';
import { projectFolderNames, readRegularSync, readRegularTextSync, replaceFileSync } from '../store/files.js';
import { SESSION_ID_RE } from '../format/text.js';

export const HISTORY_CACHE_FILE = 'history.cache';
/** Bumped whenever the header or what the text is made from changes. */
const FORMAT = 2;
const ABOUT =
  'Cache of `list --all --json`. Safe to delete: the listing is made again from the session ' +
  'files. Used only while every folder, index.json and session file it names is unchanged.';

/** A project folder as the cache saw it: its name, its index.json's identity, its session files. */
type Folder = [name: string, index: string, files: string];

interface Header {
  about: string;
  format: string;
  folders: Folder[];
  bytes: number;
  sum: number;
}

/** The cache's path for the store at `root`. */
export const historyCachePath = (root: string): string => join(cachePaths(root).dir, HISTORY_CACHE_FILE);

/** What the cache's format names: ours, the program's version, and the build (no code change prints old rows). */
export function cacheFormat(version: string): string {
  let build = '';
  try {
    // What tools/build.mjs says dist/ was built from (every source, by content).
    build = readRegularTextSync(fileURLToPath(new URL('../.build-stamp', import.meta.url))).trim();
  } catch {
    /* bundled, or built otherwise: the version says it */
  }
  return `${FORMAT}/${version}/${build}`;
}

/** The text the last listing printed, when nothing it was made from changed since; else null. */
export function cachedHistory(root: string, format: string): Buffer | null {
  let buf: Buffer;
  try {
    buf = readRegularSync(historyCachePath(root));
  } catch {
    return null;
  }
  const nl = buf.indexOf(10);
  if (nl < 0) return null;
  let h: Header;
  try {
    h = JSON.parse(buf.toString('utf8', 0, nl)) as Header;
  } catch {
    return null;
  }
  if (!h || h.format !== format || !Array.isArray(h.folders)) return null;
  const text = buf.subarray(nl + 1);
  if (text.length !== h.bytes || crc32(text) !== h.sum) return null;
  return unchanged(root, h.folders) ? text : null;
}

/** Whether the store's folders, their index.json and their session files are the ones recorded. */
function unchanged(root: string, folders: Folder[]): boolean {
  let names: string[];
  try {
    names = projectFolderNames(root);
  } catch {
    return false;
  }
  if (names.length !== folders.length) return false;
  const recorded = new Map(folders.map((f) => [f[0], f]));
  for (const name of names) {
    const f = recorded.get(name);
    if (!f || indexKey(root, name) !== f[1] || filesKey(join(root, name)) !== f[2]) return false;
  }
  return true;
}

/** The identity of a file as this cache compares it: size, mtime and ctime (a chmod, a copy that kept the mtime). */
const identity = (st: { size: number; mtimeMs: number; ctimeMs: number }): string => `${st.size} ${st.mtimeMs} ${st.ctimeMs}`;

/**
 * A folder's session files as one text, in the order the folder lists them; null when one is
 * not a regular file or the folder cannot be read (the listing then has a problem to report).
 */
function filesKey(dir: string): string | null {
  let key = '';
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.jsonl') || !SESSION_ID_RE.test(name.slice(0, -6))) continue;
      const st = lstatSync(`${dir}${sep}${name}`);
      if (!st.isFile()) return null;
      key += `${name} ${identity(st)}\n`;
    }
  } catch {
    return null;
  }
  return key;
}

/** The identity of a project folder's index.json ('' when there is none, or it cannot be stat'ed). */
function indexKey(root: string, name: string): string {
  try {
    return identity(lstatSync(join(cachePaths(root).project(name), 'index.json')));
  } catch {
    return '';
  }
}

/**
 * What a listing is made from, taken before it: the folders, their index.json and their session
 * files. A change during the listing then makes the next check a miss, never a stale hit.
 */
export interface Snapshot {
  root: string;
  folders: Folder[] | null;
}

export function snapshot(root: string): Snapshot {
  try {
    const folders: Folder[] = [];
    for (const name of projectFolderNames(root)) {
      const files = filesKey(join(root, name));
      if (files === null) return { root, folders: null };
      folders.push([name, indexKey(root, name), files]);
    }
    return { root, folders };
  } catch {
    return { root, folders: null }; // no store yet, or unreadable: the listing says so
  }
}

/**
 * Keeps `text`, what `list --all --json` printed from a listing that began at `snap`, when that
 * listing changed no index.json; a cache that cannot be written is only a missed cache.
 */
export function keepHistory(snap: Snapshot, format: string, text: string): void {
  if (!snap.folders || snap.folders.some(([name, index]) => indexKey(snap.root, name) !== index)) return;
  const body = Buffer.from(text);
  const header: Header = { about: ABOUT, format, folders: snap.folders, bytes: body.length, sum: crc32(body) };
  const path = historyCachePath(snap.root);
  try {
    ensureCacheFolder(path);
    replaceFileSync(path, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]), { mode: 0o600 });
  } catch {
    /* a cache: the answer does not depend on it */
  }
}
