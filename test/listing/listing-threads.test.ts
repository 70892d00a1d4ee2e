// The CLI's cold listing path (history.ts listSessions with `threads`): synchronous line reading
// (lines.ts forEachLineSync) must see exactly the lines forEachLine sees, and the listing
// must give the same rows, problems and index.json bytes as the sidecar's path.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, mkdir, readFile, writeFile, appendFile, rm, readdir } from 'node:fs/promises';
import { closeSync, openSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachLine, forEachLineSync, PREFIX, type Line } from '../../server/store/lines.js';
import { entryFromFile, type EntryJob } from '../../server/store/entries.js';
import { listSessions } from '../../server/listing/history.js';
// The compiled module, as the CLI runs it (`npx tsc -p .` runs first).
import * as compiled from '../../dist/listing/history.js';
import { projectCache } from '../../server/store/cache-dir.js';
import { at } from '../helpers/items.js';

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-threads-'));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A deterministic generator (mulberry32), so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const seen = (l: Line) => ({
  start: l.start,
  end: l.end,
  bytes: Buffer.from(l.bytes).toString('latin1'),
  full: l.full,
  terminated: l.terminated,
});

describe('forEachLineSync', () => {
  it('sees the lines, decisions, offsets and stops that forEachLine sees', async () => {
    const rand = rng(9);
    const file = join(tmp, 'lines');
    for (let round = 0; round < 120; round++) {
      // Lines around PREFIX and around the small read sizes below, empty ones, a torn end.
      const parts: string[] = [];
      const n = Math.floor(rand() * 12);
      for (let i = 0; i < n; i++) {
        const len = at([0, 1, PREFIX - 1, PREFIX, PREFIX + 1, 7, 300, 5000], Math.floor(rand() * 8));
        const c = String.fromCharCode(97 + Math.floor(rand() * 3));
        parts.push(c.repeat(len));
      }
      let text = parts.join('\n');
      if (rand() < 0.6 && n > 0) text += '\n';
      await writeFile(file, text, 'latin1');
      const size = statSync(file).size;
      const from = rand() < 0.3 ? Math.floor(rand() * (size + 1)) : 0;
      const to = rand() < 0.3 ? from + Math.floor(rand() * (size - from + 1)) : size;
      const want = rand() < 0.2 ? undefined : (p: Buffer) => p.length > 0 && p[0] !== 98; // skip lines of 'b'
      const stopAt = rand() < 0.3 ? Math.floor(rand() * 4) : -1;
      const run = () => {
        const got: ReturnType<typeof seen>[] = [];
        const wants: string[] = [];
        const w = want && ((p: Buffer) => (wants.push(p.toString('latin1')), want(p)));
        const onLine = (l: Line): void | false => {
          got.push(seen(l));
          if (got.length - 1 === stopAt) return false;
        };
        return { got, wants, w, onLine };
      };
      const a = run();
      const ra = await forEachLine(file, a.onLine, { from, to, want: a.w });
      for (const chunk of [1, 5, PREFIX, 200, 1 << 20]) {
        const b = run();
        const fd = openSync(file, 'r');
        let rb;
        try {
          rb = forEachLineSync(fd, b.onLine, { from, to, want: b.w, chunk });
        } finally {
          closeSync(fd);
        }
        const ctx = `round ${round}, chunk ${chunk}, from ${from}, to ${to}`;
        expect(b.got, ctx).toEqual(a.got);
        expect(b.wants, ctx).toEqual(a.wants);
        expect(rb, ctx).toEqual(ra);
      }
    }
  });

  it('reads lines longer than its 1 MiB buffer, kept or skipped', async () => {
    const file = join(tmp, 'long');
    const long = 'x'.repeat(3 * (1 << 20) + 17);
    await writeFile(file, `short\n${long}\ny${long}\nend`);
    const size = statSync(file).size;
    const collect = async (sync: boolean) => {
      const out: ReturnType<typeof seen>[] = [];
      const want = (p: Buffer) => p[0] !== 121; // skip the line starting with 'y'
      if (!sync) await forEachLine(file, (l) => void out.push(seen(l)), { want });
      else {
        const fd = openSync(file, 'r');
        forEachLineSync(fd, (l) => void out.push(seen(l)), { to: size, want });
        closeSync(fd);
      }
      return out;
    };
    const sync = await collect(true);
    expect(sync).toEqual(await collect(false));
    expect(sync.map((l) => [l.full, l.bytes.length])).toEqual([
      [true, 5],
      [true, long.length],
      [false, PREFIX],
      [true, 3],
    ]);
  });
});

// ---- Sessions on disk ------------------------------------------------------------------------

const meta = (id: string, project: string) =>
  JSON.stringify({ kind: 'meta', v: 1, id, project, createdAt: '2026-07-01T10:00:00.000Z', title: null, model: 'm' });
const ev = (kind: string, t: string, extra: Record<string, unknown>) => JSON.stringify({ kind, t, ...extra });

/** A store of `folders` projects with sessions of varied sizes, a grown one and two broken ones. */
async function makeStore(root: string): Promise<void> {
  const rand = rng(4);
  for (let f = 0; f < 5; f++) {
    const project = `/home/u/p${f}`;
    const dir = join(root, `-home-u-p${f}`);
    await mkdir(dir, { recursive: true });
    for (let s = 0; s < 8; s++) {
      const id = `2026-07-0${1 + f}T10-00-0${s}-ab${f}${s}`;
      const lines = [meta(id, project)];
      const turns = 1 + Math.floor(rand() * 6);
      for (let t = 0; t < turns; t++) {
        const at = `2026-07-0${1 + f}T1${t}:00:0${s}.000Z`;
        lines.push(ev('user', at, { content: `question ${t} of ${id}\nsecond line` }));
        // Some agent lines far longer than a read buffer, some around PREFIX.
        const big = s === 3 && t === 0 ? 'z'.repeat(1_300_000) : 'w'.repeat(Math.floor(rand() * 200));
        lines.push(ev('agent', at, { messages: [{ role: 'assistant', content: big }] }));
        if (t === 1) lines.push(ev('title', at, { title: `Title ${id}`, source: 'model' }));
      }
      if (s === 5) lines.push('not json at all');
      let text = lines.join('\n') + '\n';
      if (s === 6) text += '{"kind":"user","t":"2026-07-09T00:00:00.000Z","content":"torn'; // torn last line
      await writeFile(join(dir, `${id}.jsonl`), text);
    }
    // A file whose first line is not a meta line: a problem, not a row.
    await writeFile(join(dir, `2026-07-0${1 + f}T11-00-00-bad${f}.jsonl`), 'garbage\n');
  }
}

async function indexes(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const d of await readdir(root)) out[d] = await readFile(projectCache(join(root, d), 'index.json'), 'utf8');
  return out;
}

describe('listSessions with threads (the CLI)', () => {
  it('lists, reports and writes index.json exactly as the one-thread path, cold and after growth', async () => {
    const a = join(tmp, 'a');
    const b = join(tmp, 'b');
    await makeStore(a);
    await makeStore(b);
    const one = await listSessions(a, { all: true });
    const two = await listSessions(b, { all: true }, undefined, { threads: true });
    // Problems without the store's own path, in file order (the one-thread path reports them in
    // the order its concurrent reads end).
    const norm = (x: { file: string }[]) =>
      (JSON.parse(JSON.stringify(x).replaceAll(`${a}/`, '').replaceAll(`${b}/`, '')) as { file: string }[]).sort((p, q) =>
        p.file < q.file ? -1 : 1,
      );
    expect(two.sessions).toEqual(one.sessions);
    expect(one.sessions.length).toBe(40);
    expect(norm(two.problems)).toEqual(norm(one.problems));
    expect(two.problems.length).toBe(5);
    // The same bytes but for the mtimes (the two stores' files were written at other times).
    const strip = (s: string | undefined) => s?.replace(/"mtimeNs":"\d+"/g, '');
    const same = async () => {
      const [ia, ib] = [await indexes(a), await indexes(b)];
      expect(Object.keys(ib)).toEqual(Object.keys(ia));
      for (const k of Object.keys(ia)) expect(strip(ib[k]), k).toBe(strip(ia[k]));
    };
    await same();
    // A session grows in both stores: folded from where its entry stopped, by both paths.
    const id = '2026-07-02T10-00-01-ab11';
    for (const r of [a, b])
      await appendFile(join(r, '-home-u-p1', `${id}.jsonl`), ev('user', '2026-07-20T00:00:00.000Z', { content: 'later' }) + '\n');
    const one2 = await listSessions(a, { all: true });
    const two2 = await listSessions(b, { all: true }, undefined, { threads: true });
    expect(two2.sessions).toEqual(one2.sessions);
    expect(two2.sessions[0]).toMatchObject({ id, preview: 'later' });
    await same();
  });

  it('reads every job and gets the entries entryFromFile gets', async () => {
    const root = join(tmp, 's');
    await makeStore(root);
    const jobs: EntryJob[] = [];
    for (const d of await readdir(root))
      for (const n of await readdir(join(root, d))) {
        const file = join(root, d, n);
        const st = statSync(file, { bigint: true });
        jobs.push({ file, id: n.slice(0, -6), bytes: Number(st.size), mtimeNs: st.mtimeNs });
      }
    const got = await compiled.readEntries(jobs);
    expect(got.size).toBe(jobs.length);
    for (const j of jobs) {
      const want = await entryFromFile(j.file, j.id, j.bytes, j.mtimeNs).catch((e: Error) => e);
      const have = got.get(j) as unknown;
      if (want instanceof Error) expect((have as Error).message).toBe(want.message);
      else expect(have).toEqual(want);
    }
  });
});
