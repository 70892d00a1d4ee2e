// history.cache (server/core/history-cache.ts) through the real binary, against a temp store:
// `list --all` printed from the cache shows exactly what the ordinary listing shows, and any
// change to the store (a file appended to, touched, added, removed; a folder added; an index
// deleted or rewritten; the cache itself torn) is a miss that shows the change and writes the
// cache again. A hit is told from a miss by the cache file's inode: a miss writes a new file.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;
let cache: string;

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args, '--dir', root], { encoding: 'utf8', cwd: tmp });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The cache's inode, or undefined when there is none. */
const inode = () => (existsSync(cache) ? statSync(cache).ino : undefined);

/** Runs `list --all` with `args` and says whether it was served from the cache. */
function list(args: string[] = ['--json']) {
  const before = inode();
  const r = cli(['list', '--all', ...args]);
  return { ...r, hit: before !== undefined && inode() === before };
}

/** The ordinary listing's output (no cache to read; it writes one). */
function ordinary(args: string[] = ['--json']) {
  rmSync(cache, { force: true });
  const r = list(args);
  expect(r.hit).toBe(false);
  return r;
}

let n = 0;
/** A session file in `folder` (created if needed) with a meta line and `turns` user turns. */
function session(folder: string, turns: string[], opts: { title?: string; day?: number } = {}): string {
  const id = `2026-07-${String(opts.day ?? 10 + (n % 15)).padStart(2, '0')}T09-12-33-${(1000 + n++).toString(36).padStart(4, '0')}`;
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const createdAt = `${id.slice(0, 10)}T09:12:33.000Z`;
  const lines = [{ kind: 'meta', v: 1, id, project: `/home/ada/${folder}`, createdAt, title: opts.title ?? null, model: 'claude-sonnet-4' }];
  turns.forEach((t, i) => lines.push({ kind: 'user', t: `${id.slice(0, 10)}T10:${String(i).padStart(2, '0')}:00.000Z`, content: t } as never));
  writeFileSync(join(dir, `${id}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n') + '\n', { mode: 0o600 });
  return id;
}

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-hcache-'));
  root = join(tmp, 'store');
  cache = join(root, 'history.cache');
  mkdirSync(root, { mode: 0o700 });
  session('code-a', ['Add idempotency to RefundService', 'and the tests?'], { title: 'Café — 日本語 🎉 refunds' });
  session('code-a', ['Fix the "quoted" \\ path\nsecond line']);
  session('code-b', ['Why is the build red?'], { day: 28 });
  session('code-b', ['😀 emoji first', 'then more']);
  session('code-c', ['Only one']);
});
afterEach(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('history.cache', () => {
  it('prints exactly what the ordinary listing prints, as JSON and as text, at every limit', () => {
    for (const args of [['--json'], [], ...[1, 2, 4, 5, 9].flatMap((k) => [['--json', '--limit', String(k)], ['--limit', String(k)]])]) {
      const want = ordinary(args);
      expect(want.code).toBe(0);
      expect(want.err).toBe('');
      const got = list(args);
      expect(got.hit, args.join(' ')).toBe(true);
      expect(got.code).toBe(0);
      expect(got.out, args.join(' ')).toBe(want.out);
      expect(got.err).toBe('');
    }
    const all = JSON.parse(list().out);
    expect(all.sessions).toHaveLength(5);
    expect(all.sessions[0].title).toBe('Why is the build red?');
    expect(all.sessions.map((s: { title: string }) => s.title)).toContain('Café — 日本語 🎉 refunds');
    // Only the whole store's listing is cached: one project's listing neither reads nor writes it.
    const before = readFileSync(cache);
    expect(JSON.parse(cli(['list', '--project', '/home/ada/code-a', '--json']).out).sessions).toEqual([]);
    expect(readFileSync(cache)).toEqual(before);
  });

  it('is written with mode 0600, and a store with no session lists as empty from it too', () => {
    expect(ordinary().code).toBe(0);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    rmSync(root, { recursive: true });
    mkdirSync(root, { mode: 0o700 });
    const want = ordinary();
    expect(JSON.parse(want.out)).toEqual({ sessions: [], problems: [] });
    const got = list();
    expect(got.hit).toBe(true);
    expect(got.out).toBe(want.out);
    expect(list([]).out).toMatch(/^No sessions in .* yet\.\n$/);
  });

  /** The one session file of a folder that holds one. */
  const only = (folder: string) => readdirSync(join(root, folder)).find((f) => f.endsWith('.jsonl'))!;

  const changes: [string, () => void, (out: { sessions: { id: string; turns: number; preview: string }[] }) => void][] = [
    [
      'a session appended to',
      () => appendFileSync(join(root, 'code-c', only('code-c')), JSON.stringify({ kind: 'user', t: '2026-08-01T00:00:00.000Z', content: 'a later turn' }) + '\n'),
      (o) => expect(o.sessions[0]).toMatchObject({ turns: 2, preview: 'a later turn' }),
    ],
    ['a session touched (same size, another mtime)', () => utimesSync(join(root, 'code-c', only('code-c')), new Date(), new Date(Date.now() - 3600_000)), () => {}],
    ['a session added', () => session('code-a', ['A new one'], { day: 29 }), (o) => expect(o.sessions[0].preview).toBe('A new one')],
    ['a session removed', () => unlinkSync(join(root, 'code-c', only('code-c'))), (o) => expect(o.sessions).toHaveLength(4)],
    ['a project folder added', () => session('code-d', ['Elsewhere'], { day: 29 }), (o) => expect(o.sessions[0].preview).toBe('Elsewhere')],
    ['an empty project folder added', () => mkdirSync(join(root, 'code-e')), (o) => expect(o.sessions).toHaveLength(5)],
    ['a project folder removed', () => rmSync(join(root, 'code-c'), { recursive: true }), (o) => expect(o.sessions).toHaveLength(4)],
    ['an index.json deleted', () => unlinkSync(join(root, 'code-b', 'index.json')), () => expect(existsSync(join(root, 'code-b', 'index.json'))).toBe(true)],
    [
      'an index.json rewritten',
      () => {
        const f = join(root, 'code-b', 'index.json');
        const text = readFileSync(f);
        unlinkSync(f);
        writeFileSync(f, text, { mode: 0o600 });
      },
      () => {},
    ],
  ];
  for (const [what, change, check] of changes) {
    it(`misses after ${what}, shows it, and hits again`, () => {
      expect(list().hit).toBe(false);
      expect(list().hit).toBe(true);
      change();
      const after = list();
      expect(after.hit).toBe(false);
      expect(after.code).toBe(0);
      expect(after.err).toBe('');
      check(JSON.parse(after.out));
      expect(after.out).toBe(ordinary().out);
      const again = list();
      expect(again.hit).toBe(true);
      expect(again.out).toBe(after.out);
    });
  }

  const torn: [string, (text: Buffer) => Buffer | string][] = [
    ['empty', () => ''],
    ['not JSON', () => 'not a cache at all\n'],
    ['the header only', (t) => t.subarray(0, t.indexOf(10) + 1)],
    ['cut short', (t) => t.subarray(0, t.length - 7)],
    ['one byte longer', (t) => Buffer.concat([t, Buffer.from(' ')])],
    ['of another format', (t) => Buffer.from(t.toString().replace('"format":1', '"format":2'))],
    ['with a row end out of place', (t) => Buffer.from(t.toString().replace(/"ends":\[(\d+)/, (_m, a) => `"ends":[${Number(a) - 1}`))],
    ['with a row end past the rows', (t) => Buffer.from(t.toString().replace(/,(\d+)\]\}\n/, (_m, a) => `,${Number(a) + 9}]}\n`))],
    ['with a row end that is no number', (t) => Buffer.from(t.toString().replace(/"ends":\[(\d+)/, '"ends":["x"'))],
    ['with a folder record of the wrong shape', (t) => Buffer.from(t.toString().replace(/"folders":\[\["/, '"folders":[[7,"'))],
    [
      // Inside a row each field ends with ",\n" too: only the row's closing brace tells them apart.
      'with a row end at a field end inside the row',
      (t) => {
        const nl = t.indexOf(10);
        const h = JSON.parse(t.subarray(0, nl).toString());
        h.ends[0] = t.indexOf(',\n', nl + 1) - nl - 1;
        return Buffer.concat([Buffer.from(JSON.stringify(h) + '\n'), t.subarray(nl + 1)]);
      },
    ],
    [
      'with its last row cut off, and the header to match',
      (t) => {
        const nl = t.indexOf(10);
        const h = JSON.parse(t.subarray(0, nl).toString());
        h.ends.pop();
        return Buffer.concat([Buffer.from(JSON.stringify(h) + '\n'), t.subarray(nl + 1, nl + 1 + h.ends.at(-1))]);
      },
    ],
    // What a crash can leave of a file renamed before its data reached the disk (it is not fsync'ed).
    ['with its rows zeroed', (t) => Buffer.concat([t.subarray(0, t.indexOf(10) + 1), Buffer.alloc(t.length - t.indexOf(10) - 1)])],
    ['zeroed whole', (t) => Buffer.alloc(t.length)],
    ['naming a file with another size', (t) => Buffer.from(t.toString().replace(/( \d+)( \d{19})/, (_m, size, time) => ` ${Number(size) + 1}${time}`))],
  ];
  for (const [what, tear] of torn) {
    it(`a cache ${what} is a miss: the ordinary listing, and the cache written again`, () => {
      const want = ordinary();
      writeFileSync(cache, tear(readFileSync(cache)), { mode: 0o600 });
      const got = list();
      expect(got.hit).toBe(false);
      expect(got.code).toBe(0);
      expect(got.err).toBe('');
      expect(got.out).toBe(want.out);
      expect(list().hit).toBe(true);
    });
  }

  it('a listing with a problem is not cached, and the problem is reported every time', () => {
    const want = ordinary();
    // A session file that is a symlink: skipped with a warning by the ordinary listing.
    const outside = join(tmp, 'outside.jsonl');
    writeFileSync(outside, readFileSync(join(root, 'code-c', only('code-c'))));
    symlinkSync(outside, join(root, 'code-c', '2026-07-01T00-00-00-syml.jsonl'));
    const before = readFileSync(cache);
    for (let i = 0; i < 2; i++) {
      // A hit would show no problem; the cache is left as it was.
      const r = list();
      const o = JSON.parse(r.out);
      expect(o.sessions).toEqual(JSON.parse(want.out).sessions);
      expect(o.problems).toEqual([{ file: join(root, 'code-c', '2026-07-01T00-00-00-syml.jsonl'), message: 'a symlink, not a session file: skipped' }]);
      const text = list([]);
      expect(text.err).toMatch(/warning: .*syml\.jsonl: a symlink/);
      expect(readFileSync(cache)).toEqual(before);
    }
    // Without the symlink the store is again what the cache was made from.
    unlinkSync(join(root, 'code-c', '2026-07-01T00-00-00-syml.jsonl'));
    const back = list();
    expect(back.hit).toBe(true);
    expect(back.out).toBe(want.out);
  });

  it('doctor checks its mode and removes its leftover temp files with --fix; it is no stray file', () => {
    ordinary();
    type F = { kind: string; path: string; message: string; fixed?: string };
    const findings = (args: string[] = []): F[] => JSON.parse(cli(['doctor', '--json', ...args]).out).findings;
    expect(findings()).toEqual([]);
    chmodSync(cache, 0o644);
    const temp = `${cache}.5f3a9c`;
    writeFileSync(temp, 'half a cache');
    expect(findings()).toEqual([
      { kind: 'permissions', path: cache, message: 'mode 644 lets others read it; expected 600' },
      { kind: 'stray-file', path: temp, message: 'leftover temporary history cache file' },
    ]);
    const fixed = findings(['--fix']);
    expect(fixed.map((f) => f.fixed)).toEqual(['chmod 600', 'removed']);
    expect(existsSync(temp)).toBe(false);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(findings()).toEqual([]);
    writeFileSync(join(root, 'notes.txt'), 'mine');
    expect(findings()).toEqual([{ kind: 'stray-file', path: join(root, 'notes.txt'), message: 'not a project folder (left alone)' }]);
  });
});
