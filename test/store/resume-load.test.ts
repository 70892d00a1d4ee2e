// store.loadForResume: what a resume reads. With a compact event, only the events from its
// coversThrough + 1 on (found walking back from the end of the file), numbered as load()
// numbers them; without one, the whole session. Real files in a temp store.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore, type ReadResult, type ResumeLoad } from '../../server/store/store.js';

let dir: string;
let store: SessionStore;
let project: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lc-resume-load-'));
  project = join(dir, 'proj');
  await mkdir(project);
  store = new SessionStore({ root: join(dir, 'store') });
});

afterEach(async () => {
  await store.releaseAll();
  await rm(dir, { recursive: true, force: true });
});

const user = (i: number) => ({ kind: 'user', content: `question ${i} ${'x'.repeat(i * 37)}` });
const assistant = (i: number) => ({ kind: 'assistant', content: `answer ${i}` });

describe('loadForResume', () => {
  it('reads a session without a compact event whole, as load() does', async () => {
    const { id } = await store.create({ project });
    await store.append(id, [user(1), assistant(1), user(2)]);
    const r = await store.loadForResume(id);
    const full = await store.load(id);
    expect(r.fromSeq).toBe(0);
    expect(r.compact).toBeUndefined();
    expect(r.events).toEqual(full.events);
    expect(r.totalEvents).toBe(3);
  });

  it("starts after the last compact event's coversThrough, with the seqs load() gives", async () => {
    const { id } = await store.create({ project });
    const head = Array.from({ length: 10 }, (_, i) => (i % 2 ? assistant(i) : user(i)));
    await store.append(id, head); // seqs 0-9
    await store.append(id, [{ kind: 'compact', briefing: 'first briefing', coversThrough: 5 }]); // seq 10
    await store.append(id, [user(11), assistant(12)]); // 11, 12
    await store.append(id, [{ kind: 'compact', briefing: 'second briefing', coversThrough: 9 }]); // seq 13
    await store.append(id, [user(14), assistant(15)]); // 14, 15
    const r = await store.loadForResume(id);
    const full = await store.load(id);
    expect(r.fromSeq).toBe(10);
    expect(r.compact?.seq).toBe(13);
    expect(r.compact?.event).toMatchObject({ kind: 'compact', briefing: 'second briefing', coversThrough: 9 });
    expect(r.events).toEqual(full.events.filter((e) => e.seq >= 10));
    expect(r.totalEvents).toBe(16);
  });

  it('steps over a torn last line and a compact line that does not parse', async () => {
    const { id } = await store.create({ project });
    await store.append(id, [user(0), assistant(1), { kind: 'compact', briefing: 'b', coversThrough: 0 }, user(3)]);
    const file = await store.pathOf(id);
    await store.release(id);
    await appendFile(file, '{"kind":"compact","t":"2026-01-01T00:00:00.000Z","briefing":\n{"kind":"user","t":"2026-01-01T00:00:0');
    const r = await store.loadForResume(id);
    const full = await store.load(id);
    expect(r.fromSeq).toBe(1);
    expect(r.compact?.seq).toBe(2);
    expect(r.events).toEqual(full.events.filter((e) => e.seq >= 1));
    expect(r.problems.map((p) => p.line)).toEqual(full.problems.map((p) => p.line));
    expect(r.totalEvents).toBe(full.totalEvents);
  });

  it("earlier(): the lines before fromSeq newest first, with load()'s seqs, only the kinds wanted, stopping when told", async () => {
    const { id } = await store.create({ project });
    const agent = (i: number) => ({ kind: 'agent', messages: [{ role: 'assistant', content: `step ${i}` }] });
    await store.append(id, [user(0), agent(1), assistant(2), agent(3), user(4)]); // 0-4
    await store.append(id, [{ kind: 'compact', briefing: 'b', coversThrough: 4 }, user(6)]); // 5, 6
    const r = await store.loadForResume(id);
    const full = await store.load(id);
    expect(r.fromSeq).toBe(5);
    expect(r.earlierBytes).toBe(full.events.slice(0, 5).reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e.event)) + 1, 0));
    const all: { seq: number; kind: string | null }[] = [];
    await r.earlier!((l) => {
      all.push({ seq: l.seq, kind: l.kind });
      expect(l.event).toEqual(full.events[l.seq]?.event);
      return true;
    });
    expect(all).toEqual([
      { seq: 4, kind: 'user' },
      { seq: 3, kind: 'agent' },
      { seq: 2, kind: 'assistant' },
      { seq: 1, kind: 'agent' },
      { seq: 0, kind: 'user' },
    ]);
    const agents: number[] = [];
    await r.earlier!((l) => (agents.push(l.seq), true), { want: (kind) => kind === 'agent' });
    expect(agents).toEqual([3, 1]);
    const stopped: number[] = [];
    await r.earlier!((l) => (stopped.push(l.seq), stopped.length < 2));
    expect(stopped).toEqual([4, 3]);
  });

  it('earlier(): a line that does not parse is visited without an event, and its kind is null when its head is not ours', async () => {
    const { id } = await store.create({ project });
    await store.append(id, [user(0)]);
    const file = await store.pathOf(id);
    await store.release(id);
    await appendFile(file, 'not json at all\n{"kind":"user","t":"2026-01-01T00:00:00.000Z","content":\n');
    const s2 = new SessionStore({ root: join(dir, 'store') });
    await s2.append(id, [{ kind: 'compact', briefing: 'b', coversThrough: 2 }, user(4)]);
    const r = await s2.loadForResume(id);
    expect(r.fromSeq).toBe(3);
    const seen: { seq: number; kind: string | null; parsed: boolean }[] = [];
    await r.earlier!((l) => (seen.push({ seq: l.seq, kind: l.kind, parsed: !!l.event }), true));
    expect(seen).toEqual([
      { seq: 2, kind: 'user', parsed: false },
      { seq: 1, kind: null, parsed: false },
      { seq: 0, kind: 'user', parsed: true },
    ]);
    await s2.releaseAll();
  });

  it('whole(): the session load() reads, capped alike, with the tail it read reused', async () => {
    // Tool outputs before and after the resume point; caps that elide none, some of the head,
    // all of the head and some of the tail, and the tail on its own (read again whole).
    const agent = (i: number) => ({
      kind: 'agent',
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `output ${i} `.repeat(300 + i * 40) }] }],
    });
    const { id } = await store.create({ project });
    await store.append(id, [user(0), agent(1), agent(2), assistant(3), agent(4)]); // 0-4
    await store.append(id, [{ kind: 'compact', briefing: 'b', coversThrough: 4 }, user(6), agent(7), agent(8)]); // 5-8
    const file = await store.pathOf(id);
    await store.release(id);
    await appendFile(file, '{"kind":"user","t":"2026-01-01T00:00:0'); // a torn last line: a problem
    const bytes = await readFile(file);
    const size = bytes.length;
    const tail = size - (bytes.indexOf(10) + 1) - (await store.loadForResume(id)).earlierBytes; // the bytes from the resume point
    const reused = (w: ReadResult, f: ResumeLoad) => w.events.find((e) => e.seq === 6) === f.events.find((e) => e.seq === 6);
    for (const [cap, reuse] of [
      [size * 2, true],
      [size - 3000, true],
      [tail, true],
      [2000, false],
    ] as const) {
      const capped = new SessionStore({ root: join(dir, 'store'), softCapBytes: cap });
      const fast = await capped.loadForResume(id);
      expect(fast.fromSeq).toBe(5);
      const whole = await fast.whole();
      const load = await capped.load(id);
      expect(whole.events, `cap ${cap}`).toEqual(load.events);
      expect(whole.elided, `cap ${cap}`).toBe(load.elided);
      expect(whole.problems).toEqual(load.problems);
      expect(whole.totalEvents).toBe(load.totalEvents);
      expect(reused(whole, fast), `cap ${cap}`).toBe(reuse);
      const elidedInTail = whole.events.filter((e) => e.seq > 5 && JSON.stringify(e.event).includes('elided on load')).length;
      if (cap === size - 3000) expect([(load.elided ?? 0) > 0, elidedInTail]).toEqual([true, 0]);
      if (cap === tail) expect(elidedInTail).toBeGreaterThan(0);
      await capped.releaseAll();
    }
  });
});
