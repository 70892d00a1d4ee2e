// The contract every cache keeps (cache-dir.ts): whatever is found where a cache should be
// (nothing, a truncated or garbage file, a stale one, a symlink, a FIFO, an unreadable file,
// a cache folder that cannot be made) gives the same answer as no cache, through the real CLI
// and the real sidecar; the cache is rebuilt where it can be; a planted symlink is never
// followed nor written through. One suite over every cache, instead of one bespoke set each.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, lstatSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fileOf, startSidecar } from '../helpers/sidecar.js';
import { cacheCli, twoSessions } from '../helpers/cache-store.js';
import * as P from '../../server/rpc/protocol.js';
import { cachePaths, projectCache } from '../../server/store/cache-dir.js';
import { FORMAT } from '../../server/search/cache.js';

afterEach(cleanup);

/**
 * Every cache, by where it lives, and how many rounds of answers make it: history.cache is
 * written by the listing after the one that wrote the folders' index.json (history-cache.ts).
 */
const CACHES: [name: string, path: (f: ReturnType<typeof fixture>) => string, rounds: number][] = [
  ['index.json', (f) => projectCache(f.dir, 'index.json', { LEVELCODE_SESSIONS_CACHE: f.cache }), 1],
  ['the search cache', (f) => join(cachePaths(f.root, { LEVELCODE_SESSIONS_CACHE: f.cache }).dir, `search-${FORMAT}.sqlite`), 1],
  ['history.cache', (f) => join(cachePaths(f.root, { LEVELCODE_SESSIONS_CACHE: f.cache }).dir, 'history.cache'), 2],
];

const cli = cacheCli;
const fixture = () => twoSessions('lcs-contract-');

/** What a user sees: the CLI's listing and search, the sidecar's listing and search. */
async function answers(f: ReturnType<typeof fixture>, cache: string) {
  const list = cli(f.root, cache, ['list', '--all', '--json']);
  const search = cli(f.root, cache, ['search', 'refund', '--all', '--json']);
  const s = await startSidecar({ root: f.root, env: { LEVELCODE_SESSIONS_CACHE: cache } });
  const rpcList = await s.call(P.sessionList, { all: true });
  const rpcSearch = await s.call(P.sessionSearch, { query: 'refund', all: true });
  await s.stop();
  return { codes: [list.code, search.code], list: JSON.parse(list.out), search: JSON.parse(search.out), rpcList, rpcSearch };
}

type Damage = (file: string, f: ReturnType<typeof fixture>) => void;
const damages: [string, Damage][] = [
  ['deleted', (file) => rmSync(file, { force: true })],
  ['truncated', (file) => writeFileSync(file, readFileSync(file).subarray(0, Math.floor(readFileSync(file).length / 2)))],
  ['garbage', (file) => writeFileSync(file, Buffer.from('\0\0not a cache\xff'))],
  [
    'a byte changed near its end',
    (file) => {
      const b = readFileSync(file);
      b.writeUInt8(b.readUInt8(b.length - 10) ^ 0x01, b.length - 10);
      writeFileSync(file, b);
    },
  ],
  [
    'stale (a session grew since)',
    (_file, f) =>
      appendFileSync(
        fileOf(f.root, f.ids[0]!),
        JSON.stringify({ kind: 'user', t: '2026-09-01T10:00:00.000Z', content: 'one more refund' }) + '\n',
      ),
  ],
  [
    'a FIFO in its place',
    (file) => {
      rmSync(file, { force: true });
      expect(spawnSync('mkfifo', [file]).status).toBe(0);
    },
  ],
  ['unreadable', (file) => chmodSync(file, 0o000)],
];

describe('every cache answers as no cache', () => {
  for (const [name, pathOf, rounds] of CACHES) {
    for (const [what, damage] of damages) {
      it(`${name}: ${what}`, async () => {
        const f = fixture();
        for (let i = 0; i < rounds; i++) await answers(f, f.cache); // builds every cache
        const file = pathOf(f);
        expect(lstatSync(file).isFile()).toBe(true);
        damage(file, f);
        const got = await answers(f, f.cache);
        const fresh = await answers(f, join(f.base, 'no-cache'));
        expect(got).toEqual(fresh);
        expect(got.codes).toEqual([0, 0]);
        if (what !== 'unreadable') expect(lstatSync(file).isFile()).toBe(true); // rebuilt
      });
    }

    it(`${name}: a symlink in its place is never followed nor written through`, async () => {
      const f = fixture();
      for (let i = 0; i < rounds; i++) await answers(f, f.cache);
      const file = pathOf(f);
      const outside = join(f.base, 'outside');
      writeFileSync(outside, 'not yours');
      rmSync(file);
      symlinkSync(outside, file);
      const got = await answers(f, f.cache);
      expect(got).toEqual(await answers(f, join(f.base, 'no-cache')));
      expect(readFileSync(outside, 'utf8')).toBe('not yours');
      expect(lstatSync(file).isSymbolicLink() || lstatSync(file).isFile()).toBe(true);
    });
  }

  it('a cache folder that cannot be made: the same answers, and nothing written in the store', async () => {
    const f = fixture();
    const blocked = join(f.base, 'a-file');
    writeFileSync(blocked, '');
    const got = await answers(f, join(blocked, 'cache')); // its parent is a file: ENOTDIR
    expect(got).toEqual(await answers(f, join(f.base, 'no-cache')));
    expect(readdirSync(f.dir).sort()).toEqual(f.ids.map((id) => `${id}.jsonl`).sort());
  });

  it("the store holds only sessions; an old store's caches are ignored, named by doctor and removed by --fix", async () => {
    const f = fixture();
    await answers(f, f.cache);
    expect(readdirSync(f.dir).sort()).toEqual(f.ids.map((id) => `${id}.jsonl`).sort());
    expect(readdirSync(f.root)).toEqual([f.dir.slice(f.root.length + 1)]);
    const before = await answers(f, f.cache);
    // What an older version left: caches that lie about the sessions.
    writeFileSync(join(f.dir, 'index.json'), JSON.stringify({ format: 3, entries: [] }));
    writeFileSync(join(f.dir, 'search.idx'), 'old');
    writeFileSync(join(f.root, 'history.cache'), '{"format":3}');
    expect(await answers(f, f.cache)).toEqual(before);
    const report = JSON.parse(cli(f.root, f.cache, ['doctor', '--json']).out) as {
      findings: { kind: string; path: string; fixed?: string }[];
    };
    const old = report.findings
      .filter((x) => x.kind === 'old-cache')
      .map((x) => x.path)
      .sort();
    expect(old).toEqual([join(f.dir, 'index.json'), join(f.dir, 'search.idx'), join(f.root, 'history.cache')].sort());
    const sessions = f.ids.map((id) => readFileSync(fileOf(f.root, id)));
    const fixed = JSON.parse(cli(f.root, f.cache, ['doctor', '--fix', '--json']).out) as { findings: { kind: string; fixed?: string }[] };
    expect(fixed.findings.filter((x) => x.kind === 'old-cache').every((x) => x.fixed === 'removed')).toBe(true);
    expect(readdirSync(f.dir).sort()).toEqual(f.ids.map((id) => `${id}.jsonl`).sort());
    expect(existsSync(join(f.root, 'history.cache'))).toBe(false);
    expect(f.ids.map((id) => readFileSync(fileOf(f.root, id)))).toEqual(sessions);
  });
});
