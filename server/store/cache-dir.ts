// Where the derived caches of a store live: the only module that knows. The store folder holds
// only what the user owns (the session files, and lock folders while a writer holds them), so
// that backup and sync tools copy only sessions; every cache (each project's index.json and
// the search cache, the import ledger) lives in the user's cache folder, one folder a store:
//
//   $LEVELCODE_SESSIONS_CACHE (default $XDG_CACHE_HOME/levelcode-sessions, $XDG_CACHE_HOME
//   defaulting to ~/.cache; ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows)
//     <name>-<hash>/               a store: its folder's name, and a hash of its real path
//       imports.json               the import ledger (server/import/engine.ts)
//       history.cache              the last `list --all --json` (listing/history-cache.ts)
//       projects/<slug>/index.json the listing cache of one project folder (store/entries.ts)
//       search-<format>.sqlite     the search cache (search/cache.ts)
//
// A cache can be deleted at any time; whatever is found in its place that is not a regular file
// is never followed nor written through (files.ts openRegularSync, replaceFileSync).

import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/** The caches of one store. */
export interface CachePaths {
  /** The store's cache folder. */
  dir: string;
  /** The import ledger. */
  ledger: string;
  /** The cache folder of one project folder (its slug, the folder's name in the store). */
  project(slug: string): string;
}

/** The folder holding every store's caches. */
export function cacheBase(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.LEVELCODE_SESSIONS_CACHE;
  if (own && isAbsolute(own)) return own;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'levelcode-sessions');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'levelcode-sessions');
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'levelcode-sessions');
  return join(homedir(), '.cache', 'levelcode-sessions');
}

const known = new Map<string, CachePaths>();

/** The cache paths of the store at `storeRoot` (keyed by its real path, so a symlinked store shares them). */
export function cachePaths(storeRoot: string, env: NodeJS.ProcessEnv = process.env): CachePaths {
  const base = cacheBase(env);
  const memo = `${base}\0${storeRoot}`;
  const had = known.get(memo);
  if (had) return had;
  let real: string;
  try {
    real = realpathSync(storeRoot);
  } catch {
    real = resolve(storeRoot); // not made yet: its path, as it will be
  }
  const name =
    basename(real)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'store';
  const dir = join(base, `${name}-${pathKey(real)}`);
  const paths: CachePaths = { dir, ledger: join(dir, 'imports.json'), project: (slug) => join(dir, 'projects', slug) };
  // Memoized only once the store exists: its real path may differ from the path before.
  if (real !== resolve(storeRoot) || lstatOk(storeRoot)) known.set(memo, paths);
  return paths;
}

/**
 * A short key of a path: two 32-bit FNV-1a hashes of its UTF-16 units, in hex. Not a digest
 * (nothing depends on it being hard to collide with on purpose), and no node:crypto loaded.
 */
function pathKey(p: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
    b = (b ^ (b >>> 13)) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

function lstatOk(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The cache file `name` (index.json, search.idx) of the project folder `projectDir` of a store. */
export function projectCache(projectDir: string, name: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cachePaths(dirname(projectDir), env).project(basename(projectDir)), name);
}

/**
 * Makes the folder a cache file is written into (0700). Throws when it cannot be made, or when
 * something that is not a folder (a planted symlink) is in its place: a cache not written.
 */
export function ensureCacheFolder(file: string, env: NodeJS.ProcessEnv = process.env): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Every folder below the base is ours: one that is a symlink was planted, and is not followed.
  const base = cacheBase(env);
  for (let d = dir; d.length > base.length && d.startsWith(base); d = dirname(d))
    if (!lstatSync(d).isDirectory()) throw Object.assign(new Error(`cache folder ${d} is not a folder`), { code: 'ENOTDIR' });
}
