// The project identity's shortcut (store/identity.ts mayBeInRepo): git is asked only where it
// could find a repository; a folder with none in it or above it gets no identity unasked, and
// every kind of repository git finds still gets one.
import { expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mayBeInRepo, projectIdentity } from '../../server/store/identity.js';

const git = (cwd: string, ...args: string[]) =>
  spawnSync('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { encoding: 'utf8' });

it('asks git only where a .git, a worktree file or a bare repository is at or above the folder', async () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'lcs-identity-')));
  try {
    const plain = join(tmp, 'plain', 'deep');
    mkdirSync(plain, { recursive: true });
    expect(mayBeInRepo(plain, {})).toBe(false);
    expect(await projectIdentity(plain)).toBeUndefined();
    expect(mayBeInRepo(plain, { GIT_DIR: '/elsewhere' })).toBe(true); // git would look there: ask it

    const repo = join(tmp, 'repo');
    mkdirSync(join(repo, 'sub', 'dir'), { recursive: true });
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'root');
    expect(mayBeInRepo(join(repo, 'sub', 'dir'), {})).toBe(true);
    expect(await projectIdentity(join(repo, 'sub', 'dir'))).toMatchObject({ prefix: 'sub/dir/' });

    const linked = join(tmp, 'linked');
    mkdirSync(linked);
    writeFileSync(join(linked, '.git'), `gitdir: ${join(repo, '.git')}\n`); // a worktree's .git is a file
    expect(mayBeInRepo(linked, {})).toBe(true);

    const bare = join(tmp, 'bare.git');
    git(tmp, 'init', '-q', '--bare', bare);
    expect(mayBeInRepo(bare, {})).toBe(true);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
