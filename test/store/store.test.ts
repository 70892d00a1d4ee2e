// The store against real files in a temp dir: round trips, the index as a self-healing cache,
// locks, schema refusal, torn lines, the soft cap, permissions.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, mkdir, readFile, writeFile, appendFile, rm, stat, readdir, realpath, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { SessionStore, validateBatch } from '../../server/store/store.js';
import { History } from '../../server/listing/history.js';
import { setPinned } from '../../server/listing/lifecycle.js';
import { projectSlug } from '../../server/store/slug.js';
import { StoreError } from '../../server/store/errors.js';
import { INDEX_FILE, cachedEntry, writeIndex } from '../../server/store/entries.js';
import { elideToCap, elisionMarker } from '../../server/format/soft-cap.js';
import type { SeqEvent } from '../../server/format/events.js';
import { readSession, readTail } from '../../server/store/reader.js';
import { projectCache } from '../../server/store/cache-dir.js';
import { at, nonEmpty } from '../helpers/items.js';

let tmp: string;
let root: string;
let project: string;
const stores: SessionStore[] = [];
function mkStore(extra: Partial<ConstructorParameters<typeof SessionStore>[0]> = {}) {
  const s = new SessionStore({ root, ...extra });
  stores.push(s);
  return s;
}

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-store-'));
  root = join(tmp, 'store');
  project = join(tmp, 'proj.ly');
  await mkdir(project);
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.releaseAll();
  await rm(tmp, { recursive: true, force: true });
});

const user = (content: unknown, t = '2026-07-28T09:00:00.000Z') => ({ kind: 'user', t, content });
const assistant = (content: unknown, t = '2026-07-28T09:00:01.000Z') => ({ kind: 'assistant', t, content });

describe('create and append', () => {
  it('writes the meta line at birth, 0600 in a 0700 folder named by the slug', async () => {
    const s = mkStore();
    const meta = await s.create({ project, model: 'claude-x' });
    const file = join(root, projectSlug(project), `${meta.id}.jsonl`);
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const line = JSON.parse(text.trim());
    // `device`: where it was created (its host name, or LEVELCODE_SESSIONS_DEVICE; issue 41).
    expect(line).toEqual({
      kind: 'meta',
      v: 1,
      id: meta.id,
      project,
      createdAt: meta.createdAt,
      title: null,
      model: 'claude-x',
      device: process.env.LEVELCODE_SESSIONS_DEVICE || (await import('node:os')).hostname(),
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, projectSlug(project)))).mode & 0o777).toBe(0o700);
    expect((await stat(root)).mode & 0o777).toBe(0o700);
    const { sessions } = await new History(s).list({ project });
    expect(sessions.map((x) => x.id)).toEqual([meta.id]);
  });

  it('round-trips provider content byte-identically', async () => {
    const s = mkStore();
    const { id } = await s.create({ project });
    const blocks = [
      { type: 'text', text: 'Here 🚀 \u2028 "quotes" \\ back\nslash' },
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { cmd: 'ls -la', nested: { a: [1, 2.5, null, true] } } },
    ];
    const agentMsgs = [
      { role: 'assistant', content: blocks },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
    ];
    const evs = [
      user('fix it', '2026-07-28T09:00:00.000Z'),
      assistant(blocks),
      { kind: 'agent', t: '2026-07-28T09:00:02.000Z', messages: agentMsgs, extraField: { keep: 1 } },
    ];
    const r = await s.append(id, evs);
    expect(r).toEqual({ appended: 3, firstSeq: 0, lastSeq: 2 });
    const read = await s.read(id);
    expect(read.problems).toEqual([]);
    expect(read.events.map((e) => e.event)).toEqual(evs);
    expect(JSON.stringify(at(read.events, 1).event.content)).toBe(JSON.stringify(blocks));
    // Lines on disk: kind and t first, the rest as given.
    const lines = (await readFile(await s.pathOf(id), 'utf8')).trim().split('\n');
    expect(at(lines, 3).startsWith('{"kind":"agent","t":"2026-07-28T09:00:02.000Z","messages":')).toBe(true);
  });

  it('stamps t when it is missing and rejects invalid batches whole', async () => {
    const s = mkStore();
    const { id } = await s.create({ project });
    await s.append(id, [{ kind: 'user', content: 'hi' }]);
    const before = await readFile(await s.pathOf(id));
    const bad = await s.append(id, [user('ok'), { kind: 'nope' }, { kind: 'title' }]).catch((e) => e);
    expect(bad).toBeInstanceOf(StoreError);
    expect(bad.code).toBe('invalid-events');
    expect((bad.data.issues as { path: unknown[] }[]).map((i) => i.path[0])).toEqual(expect.arrayContaining([1, 2]));
    expect(await readFile(await s.pathOf(id))).toEqual(before);
    const r = await s.read(id);
    expect(typeof at(r.events, 0).event.t).toBe('string');
    await expect(s.append(id, [{ kind: 'meta', t: '2026-01-01T00:00:00Z' }])).rejects.toMatchObject({ code: 'invalid-events' });
  });

  it('appendValid writes the lines validateBatch made as they are and refuses any other', async () => {
    const s = mkStore();
    const { id } = await s.create({ project });
    const lines = validateBatch([user('once'), assistant('checked')]);
    expect(Object.isFrozen(lines[0])).toBe(true);
    const r = await s.appendValid(id, lines);
    expect(r).toMatchObject({ appended: 2, firstSeq: 0, lastSeq: 1 });
    const onDisk = (await readFile(await s.pathOf(id), 'utf8')).trim().split('\n').slice(1);
    expect(onDisk).toEqual(lines.map((l) => l.text));
    const before = await readFile(await s.pathOf(id));
    // A look-alike (or a copy of a valid line with its text changed) is not trusted: nothing is written.
    const forged = [{ ...lines[0]!, text: '{"kind":"nope"' }] as unknown as typeof lines;
    await expect(s.appendValid(id, forged)).rejects.toMatchObject({ code: 'invalid-events' });
    await expect(s.appendValid(id, [...lines, ...forged])).rejects.toMatchObject({ code: 'invalid-events' });
    await expect(s.appendValid(id, 'x' as unknown as typeof lines)).rejects.toMatchObject({ code: 'invalid-events' });
    expect(await readFile(await s.pathOf(id))).toEqual(before);
    expect((await s.read(id)).events.map((e) => e.event.content)).toEqual(['once', 'checked']);
  });

  it('never overwrites: ids are unique even when created in the same second', async () => {
    const s = mkStore();
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) ids.add((await s.create({ project })).id);
    expect(ids.size).toBe(30);
  });

  it('refuses a project that is not an existing absolute folder', async () => {
    const s = mkStore();
    await expect(s.create({ project: 'relative/dir' })).rejects.toMatchObject({ code: 'invalid-project' });
    await expect(s.create({ project: join(tmp, 'missing') })).rejects.toMatchObject({ code: 'invalid-project' });
    await writeFile(join(tmp, 'file'), 'x');
    await expect(s.create({ project: join(tmp, 'file') })).rejects.toMatchObject({ code: 'invalid-project' });
  });

  it('refuses a source it could not read back, writing nothing', async () => {
    const s = mkStore();
    const source = { tool: 'claude-code', path: '', id: 'x', project } as never;
    await expect(s.create({ project, source })).rejects.toMatchObject({ code: 'invalid-events' });
    await expect(readdir(join(root, projectSlug(project)))).resolves.toEqual([]);
    const good = await s.create({ project, source: { tool: 'claude-code', path: '/a.jsonl', id: 'x', project } });
    expect((await s.load(good.id)).meta.source?.path).toBe('/a.jsonl');
  });
});

describe('listing', () => {
  it('orders by the last message: a rename or a seal-like event moves nothing, on a cold and a warm listing', async () => {
    const s = mkStore();
    const older = await s.create({ project });
    await s.append(older.id, [user('older chat', '2026-07-28T09:00:00.000Z'), assistant('ok', '2026-07-28T09:00:05.000Z')]);
    const newer = await s.create({ project });
    await s.append(newer.id, [user('newer chat', '2026-07-28T10:00:00.000Z')]);
    // Both written long after the messages (now): neither may move the older chat up.
    await s.rename(older.id, 'Renamed later');
    await s.append(older.id, [{ kind: 'event', t: new Date().toISOString(), type: 'sealed' }]);
    for (const store of [s, mkStore()]) {
      const { sessions } = await new History(store).list({ project });
      expect(sessions.map((x) => x.id)).toEqual([newer.id, older.id]);
      expect(sessions[1]).toMatchObject({ title: 'Renamed later', updatedAt: '2026-07-28T09:00:05.000Z' });
    }
  });

  it('lists newest first with title, turns, preview and model', async () => {
    const s = mkStore();
    const a = await s.create({ project, model: 'm1' });
    await s.append(a.id, [user('first question\nsecond line', '2026-07-28T09:00:00.000Z'), assistant('x', '2026-07-28T09:00:05.000Z')]);
    const b = await s.create({ project });
    await s.append(b.id, [user('b one', '2026-07-28T10:00:00.000Z'), user('b two', '2026-07-28T10:01:00.000Z')]);
    const { sessions } = await new History(s).list({ project });
    expect(sessions.map((x) => x.id)).toEqual([b.id, a.id]);
    expect(sessions[0]).toMatchObject({
      turns: 2,
      preview: 'b two',
      title: 'b one',
      titled: false,
      model: null,
      updatedAt: '2026-07-28T10:01:00.000Z',
    });
    expect(sessions[1]).toMatchObject({ turns: 1, title: 'first question', model: 'm1', updatedAt: '2026-07-28T09:00:05.000Z' });
    await s.rename(a.id, 'Idempotent refunds via Redis keys');
    const again = await new History(s).list({ project });
    expect(again.sessions.find((x) => x.id === a.id)).toMatchObject({ title: 'Idempotent refunds via Redis keys', titled: true });
  });

  it('cuts fallback titles to one line of at most 80 characters', async () => {
    const s = mkStore();
    const a = await s.create({ project });
    await s.append(a.id, [user('   \n' + 'w'.repeat(200) + '\nmore')]);
    const [e] = nonEmpty((await new History(s).list({ project })).sessions);
    expect(Array.from(e.title).length).toBeLessThanOrEqual(80);
    expect(e.title.endsWith('…')).toBe(true);
  });

  it('keeps colliding slugs apart by the real path in the meta line', async () => {
    const p1 = join(tmp, 'a', 'b-c');
    const p2 = join(tmp, 'a-b', 'c');
    await mkdir(p1, { recursive: true });
    await mkdir(p2, { recursive: true });
    expect(projectSlug(p1)).toBe(projectSlug(p2));
    const s = mkStore();
    const x = await s.create({ project: p1 });
    const y = await s.create({ project: p2 });
    expect((await new History(s).list({ project: p1 })).sessions.map((e) => e.id)).toEqual([x.id]);
    expect((await new History(s).list({ project: p2 })).sessions.map((e) => e.id)).toEqual([y.id]);
    expect((await new History(s).list({ all: true })).sessions).toHaveLength(2);
  });

  it('lists a session that crashed after one message (meta line plus a torn line)', async () => {
    const s = mkStore();
    const a = await s.create({ project });
    const file = await s.pathOf(a.id);
    await s.releaseAll();
    await appendFile(file, '{"kind":"user","t":"2026-07-28T09:00:00.000Z","content":"half wr');
    const fresh = mkStore();
    const { sessions } = await new History(fresh).list({ project });
    expect(sessions).toHaveLength(1);
    const r = await fresh.read(a.id);
    expect(r.events).toEqual([]);
    expect(at(r.problems, 0).message).toMatch(/torn last line/);
  });
});

describe('index.json is a cache that heals itself', () => {
  async function setup() {
    const s = mkStore();
    const a = await s.create({ project });
    await s.append(a.id, [user('alpha', '2026-07-28T09:00:00.000Z')]);
    const b = await s.create({ project });
    await s.append(b.id, [user('beta', '2026-07-28T10:00:00.000Z'), user('beta 2', '2026-07-28T10:00:01.000Z')]);
    await s.releaseAll();
    const dir = join(root, projectSlug(project));
    const truth = (await new History(mkStore()).list({ project })).sessions;
    return { dir, truth, a, b };
  }
  const corruptions: [string, (dir: string, ids: { a: string; b: string }) => Promise<void>][] = [
    [
      'truncated',
      async (dir) => {
        const t = await readFile(projectCache(dir, INDEX_FILE), 'utf8');
        await writeFile(projectCache(dir, INDEX_FILE), t.slice(0, t.length / 2));
      },
    ],
    ['not JSON', async (dir) => writeFile(projectCache(dir, INDEX_FILE), '\0\0garbage')],
    ['deleted', async (dir) => rm(projectCache(dir, INDEX_FILE))],
    [
      'wrong entries',
      async (dir) => {
        const j = JSON.parse(await readFile(projectCache(dir, INDEX_FILE), 'utf8'));
        for (const e of j.entries) {
          e.turns = 99;
          e.title = 'WRONG';
          e.mtimeNs = '1';
        }
        await writeFile(projectCache(dir, INDEX_FILE), JSON.stringify(j));
      },
    ],
    ['wrong shape', async (dir) => writeFile(projectCache(dir, INDEX_FILE), JSON.stringify({ format: 1, entries: [{ id: 5 }] }))],
    [
      'an entry for a file that is gone',
      async (dir, { a }) => {
        const j = JSON.parse(await readFile(projectCache(dir, INDEX_FILE), 'utf8'));
        j.entries.push({ ...j.entries[0], id: '2020-01-01T00-00-00-zzzz' });
        await writeFile(projectCache(dir, INDEX_FILE), JSON.stringify(j));
        void a;
      },
    ],
  ];
  for (const [name, corrupt] of corruptions) {
    it(`recovers from an index that is ${name}`, async () => {
      const { dir, truth, a, b } = await setup();
      await corrupt(dir, { a: a.id, b: b.id });
      const r = await new History(mkStore()).list({ project });
      expect(r.sessions).toEqual(truth);
      // And it was written back whole.
      const j = JSON.parse(await readFile(projectCache(dir, INDEX_FILE), 'utf8'));
      expect(j.entries.map((e: { id: string }) => e.id).sort()).toEqual(truth.map((e) => e.id).sort());
    });
  }

  it('picks up a file added and a file grown behind its back, re-reading only those', async () => {
    const { dir, truth } = await setup();
    // A session written by hand (another tool) and an append made without the store.
    const id = '2026-07-28T11-00-00-abcd';
    await writeFile(
      join(dir, `${id}.jsonl`),
      JSON.stringify({ kind: 'meta', v: 1, id, project, createdAt: '2026-07-28T11:00:00.000Z', title: null }) +
        '\n' +
        JSON.stringify({ t: '2026-07-28T11:00:01.000Z', kind: 'user', content: 'by hand' }) +
        '\n',
    );
    const grown = at(truth, 1);
    await appendFile(
      join(dir, `${grown.id}.jsonl`),
      JSON.stringify({ kind: 'user', t: '2026-07-28T12:00:00.000Z', content: 'later' }) + '\n',
    );
    const r = await new History(mkStore()).list({ project });
    expect(r.sessions.map((e) => e.id)).toEqual([grown.id, id, at(truth, 0).id]);
    expect(r.sessions[0]).toMatchObject({ turns: 2, preview: 'later' });
    expect(r.sessions[1]).toMatchObject({ turns: 1, title: 'by hand' });
  });

  it('notices a change in place with the same size (mtime in nanoseconds)', async () => {
    const { dir, truth } = await setup();
    const file = join(dir, `${at(truth, 1).id}.jsonl`);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('alpha', 'gamma'));
    const st = await stat(file);
    await utimes(file, st.atime, new Date(st.mtimeMs + 1));
    const r = await new History(mkStore()).list({ project });
    expect(at(r.sessions, 1).title).toBe('gamma');
  });

  it('cachedEntry keeps a parsed index only while index.json is unchanged, and hands out copies', async () => {
    const { dir, truth } = await setup();
    const id = at(truth, 0).id;
    const first = await cachedEntry(dir, id);
    expect(first).toMatchObject({ id, turns: at(truth, 0).turns });
    first!.turns = 99;
    expect((await cachedEntry(dir, id))!.turns).toBe(at(truth, 0).turns);
    // A new index.json (another process's write) is parsed again.
    const j = JSON.parse(await readFile(projectCache(dir, INDEX_FILE), 'utf8'));
    await writeIndex(
      dir,
      j.entries.map((e: { id: string; title: string }) => (e.id === id ? { ...e, title: 'retitled elsewhere' } : e)),
    );
    expect((await cachedEntry(dir, id))!.title).toBe('retitled elsewhere');
    await rm(projectCache(dir, INDEX_FILE));
    expect(await cachedEntry(dir, id)).toBeUndefined();
  });

  it("an append's entry update: a missing index becomes its one entry, a corrupt one is left to the listing", async () => {
    const { dir, truth, a } = await setup();
    const idx = projectCache(dir, INDEX_FILE);
    // Missing: the writer records only its own entry; the next listing reads the other file.
    await rm(idx);
    const s = mkStore();
    await s.append(a.id, [user('alpha again', '2026-07-28T11:00:00.000Z')]);
    await s.flushIndex();
    const only = JSON.parse(await readFile(idx, 'utf8'));
    expect(only.entries.map((e: { id: string }) => e.id)).toEqual([a.id]);
    expect(only.entries[0]).toMatchObject({ turns: 2, preview: 'alpha again' });
    const listed = await new History(mkStore()).list({ project });
    expect(listed.sessions.map((e) => e.id)).toEqual([a.id, at(truth, 0).id]);
    expect(listed.sessions[0]).toMatchObject({ turns: 2 });
    expect(JSON.parse(await readFile(idx, 'utf8')).entries).toHaveLength(2);
    // Corrupt: not overwritten by the writer (nothing the user has is behind it, but the listing
    // is the one that reports and rebuilds it).
    await writeFile(idx, '\0\0garbage');
    await s.append(a.id, [user('alpha thrice', '2026-07-28T12:00:00.000Z')]);
    await s.flushIndex();
    expect(await readFile(idx, 'utf8')).toBe('\0\0garbage');
    const healed = await new History(mkStore()).list({ project });
    expect(healed.sessions[0]).toMatchObject({ id: a.id, turns: 3, preview: 'alpha thrice' });
    expect(JSON.parse(await readFile(idx, 'utf8')).entries).toHaveLength(2);
  });

  it('still lists when the index cannot be written', async () => {
    const { dir, truth } = await setup();
    await rm(projectCache(dir, INDEX_FILE));
    await mkdir(projectCache(dir, INDEX_FILE)); // a folder where the file should be
    const r = await new History(mkStore()).list({ project });
    expect(r.sessions).toEqual(truth);
    expect(r.problems).toEqual([]); // a cache not written is not a problem of the user's files
  });
});

describe('torn lines', () => {
  it('reports a torn last line, and the next append starts on a fresh line', async () => {
    const s = mkStore();
    const a = await s.create({ project });
    await s.append(a.id, [user('one')]);
    const file = await s.pathOf(a.id);
    await s.releaseAll();
    await appendFile(file, '{"kind":"assistant","t":"2026-07-28T09:00:00.000Z","content":[{"ty');
    const s2 = mkStore();
    const r1 = await s2.read(a.id);
    expect(r1.events).toHaveLength(1);
    expect(r1.problems).toHaveLength(1);
    const res = await s2.append(a.id, [user('two')]);
    expect(res.firstSeq).toBe(2); // the torn fragment keeps its position
    const r2 = await s2.read(a.id);
    expect(r2.events.map((e) => [e.seq, e.event.kind === 'user' && e.event.content])).toEqual([
      [0, 'one'],
      [2, 'two'],
    ]);
    expect(r2.problems).toHaveLength(1);
    expect(at(r2.problems, 0).line).toBe(3);
    const { sessions } = await new History(s2).list({ project });
    expect(sessions[0]).toMatchObject({ turns: 2, preview: 'two' });
  });
});

describe('reading windows', () => {
  it('reads the last N events from the end and ranges by seq', async () => {
    const s = mkStore();
    const a = await s.create({ project });
    const evs = Array.from({ length: 50 }, (_, i) => user(`m${i}`));
    await s.append(a.id, evs);
    const tail = await s.read(a.id, { tail: 5 });
    expect(tail.events.map((e) => e.seq)).toEqual([45, 46, 47, 48, 49]);
    expect(tail.events.map((e) => (e.event as Record<string, unknown>).content)).toEqual(['m45', 'm46', 'm47', 'm48', 'm49']);
    expect(tail.totalEvents).toBe(50);
    const all = await s.read(a.id, { tail: 500 });
    expect(all.events).toHaveLength(50);
    const range = await s.read(a.id, { from: 10, to: 12 });
    expect(range.events.map((e) => e.seq)).toEqual([10, 11, 12]);
  });

  it('numbers a tail right when the file grew after its index entry was taken', async () => {
    // What a sidecar saw while an import appended to the session between its entry and its read:
    // the tail's seqs ran from the stale count and went negative.
    const s = mkStore();
    const a = await s.create({ project });
    await s.append(a.id, [user('m0'), user('m1')]);
    const stale = await s.entry(a.id);
    const file = await s.pathOf(a.id);
    await s.append(
      a.id,
      Array.from({ length: 8 }, (_, i) => user(`m${i + 2}`)),
    );
    await appendFile(file, '{"kind":"user","t":"2026-07-28T09:12:33Z","con'); // and a torn line
    const whole = await readSession(file);
    const seqOf = new Map(whole.events.map((e) => [(e.event as Record<string, unknown>).content, e.seq]));
    for (const n of [3, 9, 50]) {
      const r = await readTail(file, n, stale);
      expect(r.total, `tail ${n}`).toBe(11);
      for (const e of r.events) expect(e.seq, `tail ${n}`).toBe(seqOf.get((e.event as Record<string, unknown>).content));
      expect(r.events.at(-1)?.seq).toBe(9);
    }
    expect((await s.read(a.id, { tail: 4 })).totalEvents).toBe(11);
  });
});

describe('readSession reads a regular file at the name itself, and nothing else', () => {
  it('reads a regular file, refuses a symlink to one without following it, and a FIFO without waiting', async () => {
    const s = mkStore();
    const a = await s.create({ project });
    await s.append(a.id, [user('hello')]);
    const file = join(root, projectSlug(await realpath(project)), `${a.id}.jsonl`);
    expect((await readSession(file)).events).toHaveLength(1);
    const link = join(tmp, `${a.id}.jsonl`);
    await symlink(file, link);
    await expect(readSession(link)).rejects.toThrow(/is a symlink, not a regular file: not opened/);
    const fifo = join(tmp, 'fifo.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await expect(readSession(fifo)).rejects.toThrow(/is a FIFO, not a regular file: not opened/);
  });
});

describe('locks', () => {
  it('refuses a second writer with a clear error and lets it read', async () => {
    const s1 = mkStore({ agent: 'sidecar' });
    const s2 = mkStore();
    const a = await s1.create({ project });
    const e = await s2.append(a.id, [user('x')]).catch((x) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect(e.code).toBe('locked');
    expect(e.message).toMatch(/locked by another window/);
    expect((await s2.read(a.id)).meta.id).toBe(a.id);
    await s1.release(a.id);
    await expect(s2.append(a.id, [user('now')])).resolves.toMatchObject({ appended: 1 });
  });

  it("a borrowed lock is let go after its write, never a client's hold taken meanwhile", async () => {
    const s = mkStore();
    const a = await s.create({ project });
    await s.letGo(a.id);
    // The sidecar's own write (a background title) on a session nobody here holds.
    await s.rename(a.id, 'Background title', 'model', { borrow: true });
    expect(s.holds(a.id)).toBe(false);
    const other = mkStore();
    await expect(other.append(a.id, [user('another window')])).resolves.toMatchObject({ appended: 1 });
    await other.releaseAll();
    // A client's append queued behind the borrowed write claims the session: it stays held.
    await Promise.all([setPinned(s, a.id, true, { borrow: true }), s.append(a.id, [user('mine')])]);
    expect(s.holds(a.id)).toBe(true);
    // A borrow of a session a client holds keeps it held.
    await s.rename(a.id, 'Later title', 'model', { borrow: true });
    expect(s.holds(a.id)).toBe(true);
    await expect(mkStore().append(a.id, [user('x')])).rejects.toMatchObject({ code: 'locked' });
  });

  it('keeps a lock across its refreshes (held longer than the stale timeout)', async () => {
    const lost: string[] = [];
    const s1 = mkStore({ staleLockMs: 2000, onLockLost: (id) => lost.push(id) });
    const a = await s1.create({ project });
    // The holder refreshes the lock folder's mtime (every staleMs / 3, at least 1 s). Wait, on the
    // folder's change events, for a refresh that lands more than the stale timeout after the
    // lock was taken: without the refreshes it would be stale by then.
    const dir = `${await s1.pathOf(a.id)}.lock`;
    const taken = (await stat(dir)).mtimeMs;
    const { watch } = await import('node:fs');
    await new Promise<void>((resolve, reject) => {
      const watcher = watch(dir);
      const done = (e?: unknown) => (watcher.close(), e ? reject(e) : resolve());
      const check = () => stat(dir).then((st) => st.mtimeMs - taken > s1.staleLockMs && done(), done);
      watcher.on('change', check).on('error', done);
      void check();
    });
    expect(lost).toEqual([]);
    expect(s1.holds(a.id)).toBe(true);
    await expect(s1.append(a.id, [user('still mine')])).resolves.toMatchObject({ appended: 1 });
    await expect(mkStore({ staleLockMs: 2000 }).append(a.id, [user('x')])).rejects.toMatchObject({ code: 'locked' });
  });

  it('takes over at once a lock whose process is gone', async () => {
    const s1 = mkStore();
    const a = await s1.create({ project });
    const file = await s1.pathOf(a.id);
    await s1.releaseAll();
    // A process that took the lock and died without releasing it.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const pid = Number(dead.stdout.toString());
    await mkdir(`${file}.lock`);
    const host = (await import('node:os')).hostname();
    const { PID_NAMESPACE } = await import('../../server/store/lock.js');
    // Without the PID namespace it was in, its pid is no evidence (it may be another
    // namespace's): honoured until stale.
    await writeFile(join(`${file}.lock`, 'owner.json'), JSON.stringify({ pid, host, since: new Date().toISOString() }));
    await expect(mkStore().append(a.id, [user('unseen owner')])).rejects.toMatchObject({ code: 'locked', data: { heldBy: { pid } } });
    // In ours: gone, taken over at once.
    await writeFile(
      join(`${file}.lock`, 'owner.json'),
      JSON.stringify({ pid, host, since: new Date().toISOString(), pidns: PID_NAMESPACE }),
    );
    const s2 = mkStore();
    await expect(s2.append(a.id, [user('after crash')])).resolves.toMatchObject({ appended: 1 });
  });

  it('honours a live lock until it goes stale, then steals it', async () => {
    const s1 = mkStore();
    const a = await s1.create({ project });
    const file = await s1.pathOf(a.id);
    await s1.releaseAll();
    // Held by a live process (this one's parent, say) that stopped refreshing the lock.
    await mkdir(`${file}.lock`);
    await writeFile(
      join(`${file}.lock`, 'owner.json'),
      JSON.stringify({ pid: process.ppid, host: (await import('node:os')).hostname(), since: '' }),
    );
    const s2 = mkStore({ staleLockMs: 2000 });
    await expect(s2.append(a.id, [user('x')])).rejects.toMatchObject({ code: 'locked' });
    const old = new Date(Date.now() - 5000);
    await utimes(`${file}.lock`, old, old);
    await expect(s2.append(a.id, [user('x')])).resolves.toMatchObject({ appended: 1 });
  });
});

describe('schema versions', () => {
  it('lists and reads a newer schema but refuses to append, never rewriting it', async () => {
    const dir = join(root, projectSlug(project));
    await mkdir(dir, { recursive: true });
    const id = '2026-07-28T09-12-33-8f3k';
    const file = join(dir, `${id}.jsonl`);
    const body =
      JSON.stringify({ kind: 'meta', v: 2, id, project, createdAt: '2026-07-28T09:12:33.000Z', title: null, newThing: { x: 1 } }) +
      '\n' +
      JSON.stringify({ kind: 'user', t: '2026-07-28T09:12:34.000Z', content: 'hi' }) +
      '\n';
    await writeFile(file, body);
    const s = mkStore();
    const { sessions } = await new History(s).list({ project });
    expect(sessions[0]).toMatchObject({ id, v: 2, turns: 1 });
    expect((await s.read(id)).events).toHaveLength(1);
    const e = await s.append(id, [user('x')]).catch((x) => x);
    expect(e.code).toBe('schema-too-new');
    expect(e.message).toMatch(/v2/);
    await expect(s.rename(id, 'new name')).rejects.toMatchObject({ code: 'schema-too-new' });
    expect(await readFile(file, 'utf8')).toBe(body);
  });
});

describe('soft cap', () => {
  function agentWithResults(seq: number, sizes: number[]): SeqEvent {
    return {
      seq,
      event: {
        kind: 'agent',
        t: '2026-07-28T09:00:00.000Z',
        messages: sizes.map((n, i) => ({
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `t${seq}-${i}`, content: 'x'.repeat(n) }],
        })),
      },
    };
  }
  it('elides the oldest tool results first, deterministically, without touching the input', () => {
    const events = [
      agentWithResults(0, [1000, 1000]),
      agentWithResults(1, [1000]),
      {
        seq: 2,
        event: {
          kind: 'agent' as const,
          t: '2026-07-28T09:00:00.000Z',
          messages: [{ role: 'tool', tool_call_id: 'c', content: 'y'.repeat(1000) }],
        },
      },
    ];
    const snapshot = JSON.stringify(events);
    const a = elideToCap(events, 4000, 2500);
    const b = elideToCap(events, 4000, 2500);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.elided).toBe(2);
    const msgs0 = (at(a.events, 0).event as { messages: { content: { content: string }[] }[] }).messages;
    expect(at(msgs0, 0).content[0]?.content).toBe(elisionMarker(1000));
    expect(at(msgs0, 1).content[0]?.content).toBe(elisionMarker(1000));
    expect(a.events[1]).toBe(events[1]);
    expect(JSON.stringify(events)).toBe(snapshot);
  });
  it('applies on load above the cap, never on disk', async () => {
    const s = mkStore({ softCapBytes: 3000 });
    const a = await s.create({ project });
    await s.append(a.id, [
      user('go'),
      { kind: 'agent', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'z'.repeat(5000) }] }] },
    ]);
    const before = await readFile(await s.pathOf(a.id));
    const loaded = await s.load(a.id);
    expect(loaded.elided).toBe(1);
    expect(JSON.stringify(loaded.events)).toContain('elided on load');
    expect(await readFile(await s.pathOf(a.id))).toEqual(before);
    expect(JSON.stringify((await s.read(a.id)).events)).toContain('z'.repeat(5000));
  });
});

describe('delete', () => {
  it('moves the file to the trash and drops it from the list', async () => {
    process.env.XDG_DATA_HOME = join(tmp, 'xdg-data');
    const s = mkStore();
    const a = await s.create({ project });
    await s.append(a.id, [user('bye')]);
    await s.delete(a.id);
    expect((await new History(s).list({ project })).sessions).toEqual([]);
    const infoDir = join(tmp, 'xdg-data', 'Trash', 'info');
    const infos = await Promise.all((await readdir(infoDir)).map((f) => readFile(join(infoDir, f), 'utf8')));
    expect(infos.some((i) => i.includes(`${a.id}.jsonl`))).toBe(true);
    expect(await readdir(join(tmp, 'xdg-data', 'Trash', 'files'))).toHaveLength(1);
    await expect(s.read(a.id)).rejects.toMatchObject({ code: 'unknown-session' });
  });
});

describe('ids that try to escape the store', () => {
  it('are refused before any file is touched', async () => {
    const s = mkStore();
    for (const id of [
      '../../etc/passwd',
      '/etc/passwd',
      '2026-07-28T09-12-33-8f3k/../../x',
      '2026-07-28T09-12-33-8f3k\0',
      'x'.repeat(5000),
    ])
      await expect(s.read(id)).rejects.toMatchObject({ code: 'bad-id' });
  });
});
