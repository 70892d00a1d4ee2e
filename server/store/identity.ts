// A project's identity beyond its path, so that History follows a folder that was moved or
// renamed: for a git repository, the root commits of HEAD and the URLs of its remotes (what
// survives a `mv`); for any other folder, nothing but its stored path. Recorded in the meta line
// of new sessions (`repo`); compared by sameRepo, the one rule protocol.md states ("When two
// folders are one project"). Never a guess: a folder that is not a git repository with at least
// one commit has no identity, and two folders without one are never one project.
//
// Asks the git command (two short calls, bounded by a timeout); no git, or a git that fails or
// is slow, means no identity, never an error. Remembered per folder for the process's life.
// Depends on node:child_process only.

import { execFile } from 'node:child_process';

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
