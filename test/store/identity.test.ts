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

it("gives each folder of a repository git's own prefix, roots and remotes, a nested or broken .git included", async () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'lcs-identity-')));
  try {
    const repo = join(tmp, 'mono');
    for (const d of ['a/b', 'c', 'inner/x', 'broken/y']) mkdirSync(join(repo, d), { recursive: true });
    git(repo, 'init', '-q');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'root');
    git(repo, 'remote', 'add', 'origin', 'https://example.com/mono.git');
    const inner = join(repo, 'inner');
    git(inner, 'init', '-q');
    git(inner, 'commit', '-q', '--allow-empty', '-m', 'inner root');
    mkdirSync(join(repo, 'broken', '.git')); // a .git git does not take: it looks further up
    const rootOf = (dir: string) => git(dir, 'rev-list', '--max-parents=0', 'HEAD').stdout.trim();
    const cases: [string, string, string][] = [
      [repo, '', rootOf(repo)],
      [join(repo, 'a', 'b'), 'a/b/', rootOf(repo)],
      [join(repo, 'c'), 'c/', rootOf(repo)],
      [inner, '', rootOf(inner)],
      [join(inner, 'x'), 'x/', rootOf(inner)],
      [join(repo, 'broken', 'y'), 'broken/y/', rootOf(repo)],
    ];
    for (const [dir, prefix, root] of cases) {
      expect(git(dir, 'rev-parse', '--show-prefix').stdout.trim()).toBe(prefix); // what git says, for the record
      const id = await projectIdentity(dir);
      expect(id, dir).toMatchObject({ prefix, roots: [root] });
      expect(id?.remotes, dir).toEqual(dir.startsWith(inner) ? undefined : ['https://example.com/mono']);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
