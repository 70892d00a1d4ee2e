// The repository's commit-msg hook (.githooks/commit-msg), run as git runs it: on a real commit in
// a temporary repository whose core.hooksPath points at it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

const hooks = resolve('.githooks');
let repo: string;

const git = (...args: string[]) =>
  spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', `core.hooksPath=${hooks}`, ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
const commit = (message: string) => git('commit', '--allow-empty', '-q', '-m', message);

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'lcs-hook-'));
  expect(git('init', '-q').status).toBe(0);
});
afterAll(() => rm(repo, { recursive: true, force: true }));

describe('commit-msg hook', () => {
  it('takes a subject of 72 characters, counted as characters, with a long body', () => {
    expect(commit(`${'é'.repeat(72)}\n\n${'body '.repeat(40)}`).status).toBe(0);
    expect(commit('Merge issue-39: ranked search answers in milliseconds').status).toBe(0);
  });

  it('refuses a subject of 73 characters and says why', () => {
    const r = commit('x'.repeat(73));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('the subject is 73 characters; at most 72');
  });

  it("refuses a merge titled only by git's default", () => {
    const r = commit("Merge branch 'issue-39'");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('say what it merges');
  });
});
