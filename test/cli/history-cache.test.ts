// history.cache's own rules (server/listing/history-cache.ts), beside the contract every cache
// keeps (test/store/cache-contract.test.ts): a `list --all --json` prints the cached text while
// nothing it was made from changed, and lists again after any change that could change the
// answer. A hit is told from a listing by a marked cache: a valid one whose text says "marked".
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, fileOf } from '../helpers/sidecar.js';
import { cacheCli, twoSessions } from '../helpers/cache-store.js';
import { cachePaths, projectCache } from '../../server/store/cache-dir.js';

afterEach(cleanup);

const MARK = '{"sessions":"marked"}\n';

const cli = cacheCli;

/** A store of two sessions in one project, listed twice: every cache written. */
function fixture() {
  const f = twoSessions('lcs-hcache-');
  const list = () => cli(f.root, f.cache, ['list', '--all', '--json']);
  list();
  list();
  return { ...f, list, file: join(cachePaths(f.root, { LEVELCODE_SESSIONS_CACHE: f.cache }).dir, 'history.cache') };
}

/** Replaces the cached text with MARK, header kept true (length and sum), so that a hit shows. */
function mark(file: string, header: (h: Record<string, unknown>) => void = () => {}): void {
  const b = readFileSync(file);
  const h = JSON.parse(b.toString('utf8', 0, b.indexOf(10))) as Record<string, unknown>;
  const body = Buffer.from(MARK);
  Object.assign(h, { bytes: body.length, sum: crc32(body) });
  header(h);
  writeFileSync(file, Buffer.concat([Buffer.from(`${JSON.stringify(h)}\n`), body]));
}

describe('history.cache', () => {
  it('prints the cached text while nothing changed, the same bytes as a listing', () => {
    const f = fixture();
    const listed = f.list();
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out).sessions).toHaveLength(2);
    expect(readFileSync(f.file, 'utf8').endsWith(listed.out)).toBe(true);
    mark(f.file);
    expect(f.list().out).toBe(MARK);
    expect(f.list().out).toBe(MARK);
  });

  const changes: [string, (f: ReturnType<typeof fixture>) => void][] = [
    [
      'a session appended to',
      (f) => appendFileSync(fileOf(f.root, f.ids[0]!), `${JSON.stringify({ kind: 'user', content: 'one more' })}\n`),
    ],
    [
      'a session rewritten in place, its size and mtime kept',
      (f) => {
        // touch -r keeps the mtime to the nanosecond (utimes from JavaScript rounds it).
        const path = fileOf(f.root, f.ids[0]!);
        const ref = join(f.base, 'ref');
        expect(spawnSync('cp', ['--preserve=timestamps', path, ref]).status).toBe(0);
        writeFileSync(path, readFileSync(path, 'utf8').replace('RefundService', 'RefundServicf'));
        expect(spawnSync('touch', ['-r', ref, path]).status).toBe(0);
        expect(statSync(path, { bigint: true }).mtimeNs).toBe(statSync(ref, { bigint: true }).mtimeNs);
      },
    ],
    ['a session added', (f) => cli(f.root, f.cache, ['new', '--project', f.project])],
    ['a session removed', (f) => rmSync(fileOf(f.root, f.ids[1]!))],
    [
      'a session file swapped for a symlink to it',
      (f) => {
        const path = fileOf(f.root, f.ids[1]!);
        renameSync(path, join(f.base, 'moved.jsonl'));
        symlinkSync(join(f.base, 'moved.jsonl'), path);
      },
    ],
    ['a project folder added', (f) => mkdirSync(join(f.root, '-another-project'))],
    ['a folder index.json removed', (f) => rmSync(projectCache(f.dir, 'index.json', { LEVELCODE_SESSIONS_CACHE: f.cache }))],
  ];
  for (const [what, change] of changes) {
    it(`lists again after ${what}`, () => {
      const f = fixture();
      mark(f.file);
      change(f);
      const got = f.list();
      expect(got.out).not.toBe(MARK);
      // A rewrite that kept size and mtime is one index.json trusts too (its entries are checked
      // by those two): the listing is then index.json's, and only the miss is this cache's rule.
      if (!what.includes('mtime kept')) expect(got.out).toBe(cli(f.root, join(f.base, 'no-cache'), ['list', '--all', '--json']).out);
    });
  }

  it('is not used by a cache of another format or build, nor by any other listing', () => {
    const f = fixture();
    // The format names the build (tools/build.mjs's stamp of every source): a rebuild is a miss.
    const stamp = JSON.parse(readFileSync(join(dirname(BIN), '..', 'dist', '.build-stamp'), 'utf8')) as { sources: string };
    const header = readFileSync(f.file, 'utf8').split('\n')[0]!;
    expect((JSON.parse(header) as { format: string }).format).toContain(stamp.sources);
    mark(f.file, (h) => (h.format = `${h.format}x`));
    expect(f.list().out).not.toBe(MARK);
    mark(f.file);
    for (const args of [['--limit', '1'], ['--archived'], []]) {
      const out = cli(f.root, f.cache, ['list', '--all', ...args, ...(args.length ? ['--json'] : [])]).out;
      expect(out).not.toBe(MARK);
    }
    expect(cli(f.root, f.cache, ['list', '--all']).out).not.toContain('marked');
    expect(cli(f.root, f.cache, ['list', '--project', f.project, '--json']).out).not.toBe(MARK);
    expect(f.list().out).toBe(MARK); // none of them wrote over it
  });

  it('is written only by a listing that changed no index.json, with no problem to report', () => {
    const f = fixture();
    rmSync(f.file);
    appendFileSync(fileOf(f.root, f.ids[0]!), `${JSON.stringify({ kind: 'user', content: 'grown' })}\n`);
    f.list(); // writes the folder's index.json: not the cache
    expect(() => statSync(f.file)).toThrow();
    f.list();
    expect(statSync(f.file).isFile()).toBe(true);
    rmSync(f.file);
    writeFileSync(join(f.dir, '2026-01-01T00-00-00-bad0.jsonl'), 'not a session\n');
    const r = f.list();
    expect(JSON.parse(r.out).problems.length).toBeGreaterThan(0);
    f.list();
    expect(() => statSync(f.file)).toThrow();
  });
});
