// session/list on a cold store, through the real sidecar over stdio on real files: the first page
// of History (every project's or one's) is answered from the newest files before the rest is read; the
// rest is read in the background under a progress report while other requests are answered;
// a pinned session further back, which that page lacked, is announced by session/didChange
// `listed`; and the next session/list is the exact answer a warm sidecar gives.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startSidecar, workspace } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';
import { writeColdStore, type ColdSession } from '../listing/cold-store.js';

afterEach(cleanup);

const A = '/work/a';
const B = '/work/b';
const STORE: ColdSession[] = [
  { project: A, daysAgo: 0.1, text: 'archived newest', archived: true },
  { project: B, daysAgo: 1, text: 'one day' },
  { project: A, daysAgo: 2, text: 'two days' },
  { project: B, daysAgo: 3, text: 'three days' },
  { project: A, daysAgo: 4, text: 'four days' },
  { project: A, daysAgo: 30, text: 'pinned long ago', pinned: true },
  { project: B, daysAgo: 40, text: 'forty days' },
];

const ids = (r: { sessions: { id: string }[] }) => r.sessions.map((s) => s.id);
const shape = (r: { sessions: { id: string; pinned: boolean; archived: boolean; turns: number }[]; nextCursor?: string }) => ({
  rows: r.sessions.map((s) => [s.id, s.pinned, s.archived, s.turns]),
  more: !!r.nextCursor,
});

describe('a cold session/list', () => {
  it('answers the newest page, reads the rest in the background, then announces the pinned session it lacked', async () => {
    const { root } = workspace();
    const made = writeColdStore(root, STORE);
    const s = await startSidecar({ root, workDoneProgress: true });
    const first = await s.call(P.sessionList, { all: true, limit: 2 });
    // The newest two of the main list (the archived newest left out), and more to come.
    expect(ids(first)).toEqual([made[1], made[2]]);
    expect(first.nextCursor).toBeDefined();
    // Other requests are answered while the rest is read.
    const read = await s.call(P.sessionRead, { id: made[3] });
    expect(read.events.length).toBeGreaterThan(0);
    const listed = await s.editor.didChange.waitFor((c) => c.change === 'listed');
    expect(listed).toEqual({ id: made[5], project: A, change: 'listed' });
    await s.editor.progress.waitFor((p) => p.value.kind === 'begin' && p.value.title === 'Reading History');
    // Now the exact answer: the pinned session on top.
    const second = await s.call(P.sessionList, { all: true, limit: 2 });
    expect(ids(second)).toEqual([made[5], made[1]]);
    await s.stop();
    // A sidecar on the indexes the first one wrote (warm) answers the same.
    const warm = await startSidecar({ root });
    expect(shape(await warm.call(P.sessionList, { all: true, limit: 2 }))).toEqual(shape(second));
    expect(warm.editor.didChange.items.filter((c) => c.change === 'listed')).toEqual([]);
    await warm.stop();
  });

  it("answers a project's first page the same way", async () => {
    const { root } = workspace();
    const made = writeColdStore(root, STORE);
    const s = await startSidecar({ root });
    // Project A: the archived newest left out, the pinned one not known yet.
    expect(ids(await s.call(P.sessionList, { project: A, limit: 1 }))).toEqual([made[2]]);
    expect(await s.editor.didChange.waitFor((c) => c.change === 'listed')).toEqual({ id: made[5], project: A, change: 'listed' });
    expect(ids(await s.call(P.sessionList, { project: A, limit: 1 }))).toEqual([made[5]]);
    expect(ids(await s.call(P.sessionList, { project: A }))).toEqual([made[5], made[2], made[4]]);
    await s.stop();
  });

  it('answers a listing asked while the rest is read with the complete one', async () => {
    const { root } = workspace();
    const made = writeColdStore(root, STORE);
    const s = await startSidecar({ root });
    const [first, second, archived] = await Promise.all([
      s.call(P.sessionList, { all: true, limit: 2 }),
      s.call(P.sessionList, { all: true, limit: 100 }),
      s.call(P.sessionList, { all: true, archived: true }),
    ]);
    expect(ids(first)).toEqual([made[1], made[2]]);
    expect(ids(second)).toEqual([made[5], made[1], made[2], made[3], made[4], made[6]]);
    expect(ids(archived)).toEqual([made[0]]);
    await s.stop();
  });
});
