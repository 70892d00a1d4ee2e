// A cold History through the real CLI (bin/ over dist/) on real files: every listing cache
// deleted, `list --all --limit N` prints the newest rows first (read newest mtime first), skips
// an archived newest session, names on stderr a pinned session further back that the page could
// not know, and leaves every index complete (the next listing is the exact one).
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { appendFileSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { coldCaches, writeColdStore, type ColdSession } from '../listing/cold-store.js';
import { cachePaths } from '../../server/store/cache-dir.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: tmp,
    env: { ...process.env, LEVELCODE_SESSIONS_DIR: root, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The ids of History lines, in order (the id is the column after the model). */
const idsOf = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => /\s(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[a-z0-9]{4})\s/.exec(l)?.[1]);

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-cold-list-'));
  root = join(tmp, 'store');
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const A = '/work/a';
const B = '/work/b';
/** Newest first: an archived one, five plain ones over two projects, a pinned one long ago, an older one. */
const STORE: ColdSession[] = [
  { project: A, daysAgo: 0.1, text: 'archived newest', archived: true },
  { project: B, daysAgo: 1, text: 'one day' },
  { project: A, daysAgo: 2, text: 'two days' },
  { project: B, daysAgo: 3, text: 'three days' },
  { project: A, daysAgo: 4, text: 'four days' },
  { project: B, daysAgo: 5, text: 'five days' },
  { project: A, daysAgo: 30, text: 'pinned long ago', pinned: true },
  { project: B, daysAgo: 40, text: 'forty days' },
];

describe('a cold list --all --limit N', () => {
  it('prints the newest rows in order, skips an archived one, and names a pinned one found after the page', () => {
    const ids = writeColdStore(root, STORE);
    const cold = cli(['list', '--all', '--limit', '3']);
    expect(cold.code, cold.err).toBe(0);
    expect(idsOf(cold.out)).toEqual([ids[1], ids[2], ids[3]]);
    expect(cold.err).toMatch(
      /1 row of this page was found only after it was printed .*run 'levelcode-sessions list --all --limit 3' again/,
    );
    expect(cold.err.trim().split('\n')).toHaveLength(1);
    // The next listing is warm and exact: the pinned session on top.
    const warm = cli(['list', '--all', '--limit', '3']);
    expect(warm.err).toBe('');
    expect(idsOf(warm.out)).toEqual([ids[6], ids[1], ids[2]]);
    expect(warm.out.split('\n')[0]).toMatch(/\(pinned\)$/);
  });

  it('says nothing more when the page it printed is the exact one', () => {
    const ids = writeColdStore(
      root,
      STORE.filter((s) => !s.pinned),
    );
    const cold = cli(['list', '--all', '--limit', '2']);
    expect(cold.code).toBe(0);
    expect(cold.err).toBe('');
    expect(idsOf(cold.out)).toEqual([ids[1], ids[2]]);
    expect(cli(['list', '--all', '--limit', '2']).out).toBe(cold.out);
  });

  it('names a row the checked read gives otherwise: a line the first look took for a turn', () => {
    const ids = writeColdStore(
      root,
      STORE.filter((s) => !s.pinned),
    );
    // The newest listed session gets a user line that is not JSON, its mtime kept.
    const file = join(root, readdirSync(root).find((d) => readdirSync(join(root, d)).includes(`${ids[1]}.jsonl`))!, `${ids[1]}.jsonl`);
    const { mtime } = statSync(file);
    appendFileSync(file, `{"kind":"user","t":"${new Date(mtime).toISOString()}","content":"not json\n`);
    utimesSync(file, mtime, mtime);
    const cold = cli(['list', '--all', '--limit', '2']);
    expect(cold.code, cold.err).toBe(0);
    expect(idsOf(cold.out)).toEqual([ids[1], ids[2]]);
    expect(cold.out.split('\n')[0]).toMatch(/\b2 turns\b/);
    expect(cold.err).toMatch(
      /1 row of this page was read otherwise once every file was checked .*run 'levelcode-sessions list --all --limit 2' again/,
    );
    const warm = cli(['list', '--all', '--limit', '2']);
    expect(warm.out.split('\n')[0]).toMatch(/\b1 turn\b/);
  });

  it('lists the archived page the same way', () => {
    const ids = writeColdStore(root, STORE);
    const r = cli(['list', '--all', '--archived', '--limit', '1']);
    expect(r.code).toBe(0);
    expect(idsOf(r.out)).toEqual([ids[0]]);
  });

  it('leaves every index complete: the next listing equals a rebuild from the files', () => {
    writeColdStore(root, STORE);
    expect(cli(['list', '--all', '--limit', '2']).code).toBe(0);
    const warm = cli(['list', '--all', '--json']);
    expect(warm.code).toBe(0);
    // Every folder's index.json holds every session of its folder.
    const indexed = readdirSync(join(cachePaths(root).dir, 'projects')).flatMap((d) =>
      JSON.parse(readFileSync(join(cachePaths(root).dir, 'projects', d, 'index.json'), 'utf8')).entries.map((e: { id: string }) => e.id),
    );
    expect(indexed).toHaveLength(STORE.length);
    coldCaches(root);
    const rebuilt = cli(['list', '--all', '--json']);
    expect(JSON.parse(warm.out)).toEqual(JSON.parse(rebuilt.out));
    expect(JSON.parse(warm.out).sessions).toHaveLength(STORE.length - 1); // the main list: the archived one left out
  });

  it('--json is the complete listing, pinned first, from a cold store too', () => {
    const ids = writeColdStore(root, STORE);
    const r = cli(['list', '--all', '--limit', '2', '--json']);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out).sessions.map((s: { id: string }) => s.id)).toEqual([ids[6], ids[1]]);
  });
});
