// history.cache (server/core/history-cache.ts) through the real binary, against a temp store:
// `list --all` printed from the cache shows exactly what the ordinary listing shows, and any
// change to the store (a file appended to, touched, added, removed; a folder added; an index
// deleted or rewritten; the cache itself torn) is a miss that shows the change and writes the
// cache again. A hit is told from a miss by marking the cache (mark()): only a hit prints the
// mark.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { appendFileSync, chmodSync, existsSync, lstatSync, lutimesSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HISTORY_CACHE_FORMAT, rowsSum } from '../../server/core/history-cache.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;
let cache: string;

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args, '--dir', root], { encoding: 'utf8', cwd: tmp, timeout: 20_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const MODEL = 'claude-sonnet-4';
const MARK = 'claude-SONNET-4';

/**
 * Marks the cache as it is: every row's model becomes MARK (as long), its sum made again, so
 * that it is still a whole cache and what printed it shows (in JSON and in text).
 */
function mark(): void {
  const t = readFileSync(cache);
  const nl = t.indexOf(10);
  const rows = Buffer.from(t.subarray(nl + 1).toString('utf8').replaceAll(MODEL, MARK), 'utf8');
  const h = JSON.parse(t.subarray(0, nl).toString('utf8'));
  h.sum = rowsSum(rows);
  writeFileSync(cache, Buffer.concat([Buffer.from(JSON.stringify(h) + '\n'), rows]));
}

/** Runs `list --all` with `args`; `hit`: it was printed from a marked cache. */
function list(args: string[] = ['--json']) {
  const r = cli(['list', '--all', ...args]);
  return { ...r, hit: r.out.includes(MARK) };
}

/** The ordinary listing's output (no cache to read; it writes one when the indexes are current). */
function ordinary(args: string[] = ['--json']) {
  rmSync(cache, { force: true });
  const r = list(args);
  expect(r.hit).toBe(false);
  return r;
}

/** The cache is written by the listing that finds the indexes current: it is a fresh one. */
function written(): boolean {
  return existsSync(cache) && !readFileSync(cache, 'utf8').includes(MARK);
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
  // The first listing writes every index.json; a listing that rewrites an index does not write
  // the cache (test below).
  expect(cli(['list', '--all']).code).toBe(0);
  expect(existsSync(cache)).toBe(false);
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
      expect(written()).toBe(true);
      const got = list(args);
      expect(got.code).toBe(0);
      expect(got.out, args.join(' ')).toBe(want.out);
      expect(got.err).toBe('');
      // Nothing changed in between: that was a hit, as the mark shows.
      mark();
      const marked = list(args);
      expect(marked.hit, args.join(' ')).toBe(true);
      expect(marked.out).toBe(want.out.replaceAll(MODEL, MARK));
    }
    const all = JSON.parse(ordinary().out);
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
    expect(written()).toBe(true);
    // No row to mark: a hit is told by the cache read (an empty store's listing writes no index).
    const got = list();
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
      // A symlinked folder is no project folder, but the path through it still reaches the same
      // index and files, and an empty folder keeps the count: only the folder names recorded
      // in the header tell the two stores apart.
      'a project folder swapped for a symlink to it, and an empty folder added',
      () => {
        renameSync(join(root, 'code-c'), join(tmp, 'moved-c'));
        symlinkSync(join(tmp, 'moved-c'), join(root, 'code-c'));
        mkdirSync(join(root, 'code-0'));
      },
      (o) => expect(o.sessions).toHaveLength(4),
    ],
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
      ordinary();
      mark();
      expect(list().hit).toBe(true);
      change();
      const after = list();
      expect(after.hit).toBe(false);
      expect(after.code).toBe(0);
      expect(after.err).toBe('');
      check(JSON.parse(after.out));
      const want = ordinary();
      expect(after.out).toBe(want.out);
      expect(written()).toBe(true);
      mark();
      const again = list();
      expect(again.hit).toBe(true);
      expect(again.out).toBe(after.out.replaceAll(MODEL, MARK));
    });
  }

  const torn: [string, (text: Buffer) => Buffer | string][] = [
    ['empty', () => ''],
    ['not JSON', () => 'not a cache at all\n'],
    ['the header only', (t) => t.subarray(0, t.indexOf(10) + 1)],
    ['cut short', (t) => t.subarray(0, t.length - 7)],
    ['one byte longer', (t) => Buffer.concat([t, Buffer.from(' ')])],
    ['of another format', (t) => Buffer.from(t.toString().replace(`"format":${HISTORY_CACHE_FORMAT}`, `"format":${HISTORY_CACHE_FORMAT + 1}`))],
    ['with a row end out of place', (t) => Buffer.from(t.toString().replace(/"ends":\[(\d+)/, (_m, a) => `"ends":[${Number(a) - 1}`))],
    ['with a row end past the rows', (t) => Buffer.from(t.toString().replace(/,(\d+)\],"sum"/, (_m, a) => `,${Number(a) + 9}],"sum"`))],
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
      'with its last row cut off, and the header (ends and sum) to match',
      (t) => {
        const nl = t.indexOf(10);
        const h = JSON.parse(t.subarray(0, nl).toString());
        h.ends.pop();
        const rows = t.subarray(nl + 1, nl + 1 + h.ends.at(-1));
        h.sum = rowsSum(rows);
        return Buffer.concat([Buffer.from(JSON.stringify(h) + '\n'), rows]);
      },
    ],
    [
      // The offsets' checks look at a row's braces, the sum at every byte: this one is made again.
      'with two rows joined by another separator, and the sum to match',
      (t) => {
        const nl = t.indexOf(10);
        const h = JSON.parse(t.subarray(0, nl).toString());
        const rows = Buffer.from(t.subarray(nl + 1));
        expect(rows.toString('latin1', h.ends[0], h.ends[0] + 2)).toBe(',\n');
        rows[h.ends[0]] = 0x3b; // ';'
        h.sum = rowsSum(rows);
        return Buffer.concat([Buffer.from(JSON.stringify(h) + '\n'), rows]);
      },
    ],
    // What a crash can leave of a file renamed before its data reached the disk (it is not fsync'ed).
    ['with its rows zeroed', (t) => Buffer.concat([t.subarray(0, t.indexOf(10) + 1), Buffer.alloc(t.length - t.indexOf(10) - 1)])],
    ['zeroed whole', (t) => Buffer.alloc(t.length)],
    [
      'with a byte changed inside a row',
      (t) => {
        const at = t.indexOf('"turns": ', t.indexOf(10)) + 9;
        return Buffer.concat([t.subarray(0, at), Buffer.from(t[at] === 0x39 ? '8' : '9'), t.subarray(at + 1)]);
      },
    ],
    ['with eight bytes zeroed inside a row', (t) => ((t = Buffer.from(t)), t.fill(0, t.indexOf('"title": ', t.indexOf(10)), t.indexOf('"title": ', t.indexOf(10)) + 8), t)],
    ['naming a file with another size', (t) => Buffer.from(t.toString().replace(/( \d+)( \d{19})/, (_m, size, time) => ` ${Number(size) + 1}${time}`))],
  ];
  for (const [what, tear] of torn) {
    it(`a cache ${what} is a miss: the ordinary listing, and the cache written again`, () => {
      const want = ordinary();
      mark();
      writeFileSync(cache, tear(readFileSync(cache)), { mode: 0o600 });
      for (const args of [['--json'], ['--json', '--limit', '2'], []]) {
        const got = list(args);
        expect(got.hit, args.join(' ')).toBe(false);
        expect(got.code).toBe(0);
        expect(got.err).toBe('');
        if (args.length === 1) expect(got.out).toBe(want.out);
      }
      expect(written()).toBe(true);
      mark();
      expect(list().hit).toBe(true);
    });
  }

  it('a listing with a problem is not cached, and the problem is reported every time', () => {
    const want = ordinary();
    mark();
    // A session file that is a symlink: skipped with a warning by the ordinary listing.
    const outside = join(tmp, 'outside.jsonl');
    writeFileSync(outside, readFileSync(join(root, 'code-c', only('code-c'))));
    symlinkSync(outside, join(root, 'code-c', '2026-07-01T00-00-00-syml.jsonl'));
    const before = readFileSync(cache);
    for (let i = 0; i < 2; i++) {
      // Never a hit; and the cache is left as it was.
      const r = list();
      expect(r.hit).toBe(false);
      const o = JSON.parse(r.out);
      expect(o.sessions).toEqual(JSON.parse(want.out).sessions);
      expect(o.problems).toEqual([{ file: join(root, 'code-c', '2026-07-01T00-00-00-syml.jsonl'), message: 'a symlink, not a session file: skipped' }]);
      const text = list([]);
      expect(text.hit).toBe(false);
      expect(text.err).toMatch(/warning: .*syml\.jsonl: a symlink/);
      expect(readFileSync(cache)).toEqual(before);
    }
    // Without the symlink the store is again what the cache was made from.
    unlinkSync(join(root, 'code-c', '2026-07-01T00-00-00-syml.jsonl'));
    const back = list();
    expect(back.hit).toBe(true);
    expect(back.out).toBe(want.out.replaceAll(MODEL, MARK));
  });

  it('the listing that rewrites an index writes no cache; the next listing, finding the indexes current, does', () => {
    ordinary();
    mark();
    appendFileSync(join(root, 'code-a', readdirSync(join(root, 'code-a')).find((f) => f.endsWith('.jsonl'))!), JSON.stringify({ kind: 'user', t: '2026-08-02T00:00:00.000Z', content: 'more' }) + '\n');
    const indexBefore = statSync(join(root, 'code-a', 'index.json')).ino;
    const first = list();
    expect(first.hit).toBe(false);
    expect(statSync(join(root, 'code-a', 'index.json')).ino).not.toBe(indexBefore); // the index was written
    expect(readFileSync(cache, 'utf8')).toContain(MARK); // and the cache was not
    const second = list();
    expect(second.hit).toBe(false);
    expect(second.out).toBe(first.out);
    expect(written()).toBe(true);
    mark();
    expect(list().hit).toBe(true);
  });

  it('a session file replaced by a symlink of the same size and mtime is a miss', () => {
    // A whole second, so that the link can be given the very mtime, to the nanosecond.
    const file = join(root, 'code-c', only('code-c'));
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    ordinary(); // rewrites the folder's index; the next listing writes the cache
    const want = ordinary();
    mark();
    expect(list().hit).toBe(true);
    const size = statSync(file).size;
    unlinkSync(file);
    symlinkSync('x'.repeat(size), file);
    lutimesSync(file, 1_700_000_000, 1_700_000_000);
    const st = lstatSync(file, { bigint: true });
    expect([st.size, st.mtimeNs]).toEqual([BigInt(size), 1_700_000_000_000_000_000n]);
    const r = list();
    expect(r.hit).toBe(false);
    expect(r.out).not.toBe(want.out.replaceAll(MODEL, MARK));
    expect(r.out).toBe(ordinary().out);
  });

  it("an index.json's mode changed is a miss (a listing that cannot read an index reports it)", () => {
    ordinary();
    mark();
    chmodSync(join(root, 'code-b', 'index.json'), 0o640);
    const r = list();
    expect(r.hit).toBe(false);
    expect(r.out).toBe(ordinary().out);
  });

  it('a FIFO under its name is not waited on, nor replaced', () => {
    const want = ordinary();
    rmSync(cache);
    expect(spawnSync('mkfifo', [cache]).status).toBe(0);
    for (const args of [['--json'], []]) {
      const r = list(args);
      expect(r.code, 'the listing returned').toBe(0);
      if (args.length) expect(r.out).toBe(want.out);
    }
    expect(lstatSync(cache).isFIFO()).toBe(true);
    expect(JSON.parse(cli(['doctor', '--json']).out).findings).toEqual([
      { kind: 'stray-file', path: cache, message: 'not a regular file: the History cache is never read or written through it (left alone)' },
    ]);
  });

  it('a symlink under its name is neither followed nor written through, by list or by doctor', () => {
    const want = ordinary();
    rmSync(cache);
    const outside = join(tmp, 'outside.txt');
    writeFileSync(outside, 'mine', { mode: 0o644 });
    chmodSync(outside, 0o644);
    symlinkSync(outside, cache);
    for (let i = 0; i < 2; i++) expect(list().out).toBe(want.out);
    expect(lstatSync(cache).isSymbolicLink()).toBe(true);
    // Not read through either: a whole, current cache at the link's other end is no hit.
    writeFileSync(join(tmp, 'elsewhere.cache'), (rmSync(cache), ordinary(), mark(), readFileSync(cache)));
    rmSync(cache);
    symlinkSync(join(tmp, 'elsewhere.cache'), cache);
    expect(list().hit).toBe(false);
    rmSync(cache);
    symlinkSync(outside, cache);
    expect(readFileSync(outside, 'utf8')).toBe('mine');
    const fixed = JSON.parse(cli(['doctor', '--json', '--fix']).out).findings;
    expect(fixed).toEqual([{ kind: 'stray-file', path: cache, message: 'not a regular file: the History cache is never read or written through it (left alone)' }]);
    expect(statSync(outside).mode & 0o777).toBe(0o644);
    expect(readFileSync(outside, 'utf8')).toBe('mine');
  });

  it('doctor never changes a mode through a symlink planted in a project folder', () => {
    ordinary();
    const outside = join(tmp, 'outside-index.json');
    writeFileSync(outside, readFileSync(join(root, 'code-b', 'index.json')));
    chmodSync(outside, 0o644);
    rmSync(join(root, 'code-b', 'index.json'));
    symlinkSync(outside, join(root, 'code-b', 'index.json'));
    const r = cli(['doctor', '--json', '--fix']);
    expect(JSON.parse(r.out).findings.filter((f: { kind: string }) => f.kind === 'permissions')).toEqual([]);
    expect(statSync(outside).mode & 0o777).toBe(0o644);
  });

  it('doctor checks its mode and removes its leftover temp files with --fix; it is no stray file', () => {
    ordinary();
    expect(written()).toBe(true);
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
