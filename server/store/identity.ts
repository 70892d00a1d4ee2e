// A project's identity beyond its path, so that History follows a folder that was moved or
// renamed: for a git repository, the root commits of HEAD and the URLs of its remotes (what
// survives a `mv`); for any other folder, nothing but its stored path. Recorded in the meta line
// of new sessions (`repo`); compared by sameRepo, the one rule protocol.md states ("When two
// folders are one project"). Never a guess: a folder that is not a git repository with at least
// one commit has no identity, and two folders without one are never one project.
//
// Asks the git command (two short calls, bounded by a timeout); no git, or a git that fails or
// is slow, means no identity, never an error. Remembered per folder for the process's life.
// A folder with no `.git` (nor a bare repository) in it or above it is not asked about at all:
// git would find no repository there either, and a first import meets hundreds of such folders
// (a process each is most of its cost). A folder inside a repository whose top is known (the
// folder above it holding `.git`, on the same file system, git agreeing that it is the top) is
// not asked about either: its prefix is its path below that top, and the roots and remotes are
// the repository's, asked once for all its folders (a first import meets hundreds of folders of
// a few repositories; three processes a folder were most of its time).
// Depends on node:child_process and node:fs (stat only).

import { execFile } from 'node:child_process';
import { lstatSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export interface RepoIdentity {
  roots: string[];
  /** The folder inside its repository ('' at the top, else `sub/dir/`): a subfolder is its own project. */
  prefix: string;
  remotes?: string[];
}

/** A git call that takes longer (a huge history walked for its root commits) gives no identity. */
const GIT_TIMEOUT_MS = 3000;
const known = new Map<string, Promise<RepoIdentity | undefined>>();

export function projectIdentity(folder: string): Promise<RepoIdentity | undefined> {
  let p = known.get(folder);
  if (!p) {
    p = readIdentity(folder);
    known.set(folder, p);
  }
  return p;
}

async function readIdentity(folder: string): Promise<RepoIdentity | undefined> {
  if (!mayBeInRepo(folder)) return undefined;
  const top = repoTop(folder);
  if (top !== undefined) {
    const repo = await topIdentity(top);
    if (repo === null) return undefined; // git finds no repository there with a commit
    if (repo) return { ...repo, prefix: folder === top ? '' : `${relative(top, folder).split(sep).join('/')}/` };
  }
  return askGit(folder);
}

/** Repository tops looked up (topIdentity): undefined where git said the top is elsewhere. */
const tops = new Map<string, Promise<RepoIdentity | null | undefined>>();

/**
 * The identity of the repository whose top is `top` (prefix ''), null when git finds none
 * there, undefined when git says the top is not there after all (a `.git` git does not take).
 */
function topIdentity(top: string): Promise<RepoIdentity | null | undefined> {
  let p = tops.get(top);
  if (!p) {
    p = askGit(top).then((r) => (r === undefined ? null : r.prefix === '' ? r : undefined));
    tops.set(top, p);
  }
  return p;
}

/**
 * The folder above `folder` (or itself) that holds `.git`, when git would surely stop there:
 * no environment that moves git's search, a real path (a symlink's parent is not the link's),
 * and the same file system all the way (git does not cross one). Undefined: ask git.
 */
function repoTop(folder: string): string | undefined {
  const env = process.env;
  if (env.GIT_DIR || env.GIT_WORK_TREE || env.GIT_CEILING_DIRECTORIES || env.GIT_DISCOVERY_ACROSS_FILESYSTEM) return undefined;
  if (!isAbsolute(folder) || folder !== resolve(folder)) return undefined;
  let dev: number | undefined;
  for (let dir = folder; ; dir = dirname(dir)) {
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory()) return undefined; // a symlink on the way: ask git
      if (dev !== undefined && st.dev !== dev) return undefined;
      dev = st.dev;
      if (lstatSync(join(dir, '.git'), { throwIfNoEntry: false })) return dir;
    } catch {
      return undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** The identity as git gives it for a folder: its prefix, the root commits, the remotes. */
async function askGit(folder: string): Promise<RepoIdentity | undefined> {
  const prefix = await git(folder, ['rev-parse', '--show-prefix']);
  if (prefix === undefined) return undefined;
  const roots = await git(folder, ['rev-list', '--max-parents=0', 'HEAD']);
  if (roots === undefined) return undefined;
  const list = [...new Set(roots.split('\n').map((l) => l.trim()))].filter((l) => /^[0-9a-f]{40,64}$/.test(l)).sort();
  if (list.length === 0) return undefined;
  const urls = (await git(folder, ['config', '--get-regexp', '^remote\\..*\\.url$'])) ?? '';
  const remotes = [
    ...new Set(
      urls
        .split('\n')
        .map((l) => l.trim().split(/\s+/)[1])
        .filter((u): u is string => !!u)
        .map(normalizeRemote),
    ),
  ].sort();
  return { roots: list, prefix: prefix.trim(), ...(remotes.length ? { remotes } : {}) };
}

/** Folders (and their parents) already looked at for a repository. */
const repoAbove = new Map<string, boolean>();

/**
 * Whether git could find a repository for `folder`: false only when neither it nor any folder
 * above it holds `.git` (a folder, or a worktree's file) or is itself a bare repository (HEAD,
 * objects/, refs/), and no GIT_DIR points elsewhere. Where in doubt, true (git is asked).
 */
export function mayBeInRepo(folder: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.GIT_DIR || env.GIT_WORK_TREE) return true;
  const chain: string[] = [];
  let verdict = false;
  for (let dir = folder; ; dir = dirname(dir)) {
    const known = repoAbove.get(dir);
    if (known !== undefined) {
      verdict = known;
      break;
    }
    chain.push(dir);
    if (looksLikeRepo(dir)) {
      verdict = true;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  // Each folder looked at shares the verdict of the first one found below or at a repository.
  for (const d of chain) repoAbove.set(d, verdict);
  return verdict;
}

function looksLikeRepo(dir: string): boolean {
  const at = (name: string) => {
    try {
      return statSync(join(dir, name), { throwIfNoEntry: false });
    } catch {
      return { isDirectory: () => true, isFile: () => true }; // unreadable: in doubt, ask git
    }
  };
  if (at('.git')) return true;
  const head = at('HEAD');
  return !!head?.isFile() && !!at('objects')?.isDirectory() && !!at('refs')?.isDirectory();
}

/** A remote URL without credentials, a trailing slash or `.git`: one repository, one spelling. */
export function normalizeRemote(url: string): string {
  return url
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}

/**
 * The rule: two identities are one project when they are the same folder of their repository
 * (prefix), share a root commit, and, where both name remotes, share a remote too. protocol.md
 * says when it applies (the recorded folder is gone).
 */
export function sameRepo(a: RepoIdentity | undefined, b: RepoIdentity | undefined): boolean {
  if (!a || !b || !Array.isArray(a.roots) || !Array.isArray(b.roots)) return false;
  if (typeof a.prefix !== 'string' || a.prefix !== b.prefix) return false;
  if (!a.roots.some((r) => b.roots.includes(r))) return false;
  if (a.remotes?.length && b.remotes?.length) return a.remotes.some((r) => b.remotes!.includes(r));
  return true;
}

function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    try {
      execFile(
        'git',
        ['-C', cwd, ...args],
        { timeout: GIT_TIMEOUT_MS, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' } },
        (err, stdout) => resolve(err ? undefined : stdout),
      );
    } catch {
      resolve(undefined);
    }
  });
}
