// session/pin, session/archive, session/list's order and `archived`, session/retention and the
// start-up auto-archive, through the real sidecar process on real files. A session another
// sidecar holds is refused (its lock untouched); one this sidecar holds stays held after a pin.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startSidecar, workspace, fileOf, sessionWith } from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';

afterEach(cleanup);

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const USER_AT = (text: string, t: string) => ({ kind: 'user', t, content: text });
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
const lastLine = (file: string) => JSON.parse(readFileSync(file, 'utf8').trim().split('\n').pop()!);
const owner = (file: string) => JSON.parse(readFileSync(`${file}.lock/owner.json`, 'utf8'));

describe('session/pin and session/archive', () => {
  it('pinned first in session/list, pages kept in that order; archived apart', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const a = await sessionWith(s, project, [USER_AT('a', ago(3))]);
    const b = await sessionWith(s, project, [USER_AT('b', ago(2))]);
    const c = await sessionWith(s, project, [USER_AT('c', ago(1))]);
    expect(ids((await s.call(P.sessionList, { project })).sessions)).toEqual([c, b, a]);

    expect(await s.call(P.sessionPin, { id: a, pinned: true })).toEqual({ id: a, pinned: true, changed: true });
    expect(await s.call(P.sessionPin, { id: a, pinned: true })).toEqual({ id: a, pinned: true, changed: false });
    const listed = (await s.call(P.sessionList, { project })).sessions;
    expect(ids(listed)).toEqual([a, c, b]);
    expect(listed.map((r) => [r.pinned, r.archived])).toEqual([
      [true, false],
      [false, false],
      [false, false],
    ]);
    // Pages of one: the cursor carries the pin, so nothing is skipped or repeated.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.call(P.sessionList, { project, limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(page.sessions));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([a, c, b]);

    expect(await s.call(P.sessionArchive, { id: c, archived: true })).toEqual({ id: c, archived: true, changed: true });
    expect(lastLine(fileOf(root, c))).toMatchObject({ kind: 'event', type: 'archive' });
    expect(ids((await s.call(P.sessionList, { project })).sessions)).toEqual([a, b]);
    const archived = (await s.call(P.sessionList, { project, archived: true })).sessions;
    expect(archived).toMatchObject([{ id: c, archived: true }]);
    const hits = await s.call(P.sessionSearch, { query: 'c', project });
    expect(hits.hits.map((h) => h.sessionId)).toContain(c);

    await s.call(P.sessionArchive, { id: c, archived: false });
    await s.call(P.sessionPin, { id: a, pinned: false });
    expect(ids((await s.call(P.sessionList, { project })).sessions)).toEqual([c, b, a]);
    expect((await s.error('session/pin', { id: a })).code).toBe(RpcErrorCodes.InvalidParams);
    expect((await s.error('session/pin', { id: '2026-01-01T00-00-00-zzzz', pinned: true })).code).toBe(RpcErrorCodes.UnknownSession);
    await s.stop();
  });

  it('pins a session this sidecar holds under its own lock, and refuses one another sidecar holds, leaving that lock alone', async () => {
    const { root, project } = workspace();
    const holder = await startSidecar({ root });
    const other = await startSidecar({ root });
    const id = await sessionWith(holder, project, [USER_AT('held here', ago(40))]);
    const file = fileOf(root, id);
    const before = owner(file);

    const refused = await other.error('session/pin', { id, pinned: true });
    expect(refused.code).toBe(RpcErrorCodes.SessionLocked);
    expect(owner(file)).toEqual(before);
    expect(lastLine(file)).toMatchObject({ kind: 'user' });

    expect(await holder.call(P.sessionPin, { id, pinned: true })).toMatchObject({ pinned: true, changed: true });
    expect(owner(file)).toEqual(before); // still the holder's lock, not let go by the pin
    const r = await holder.call(P.sessionAppend, { id, events: [USER_AT('after the pin', ago(39))] });
    expect(r.appended).toBe(1);
    expect((await other.error('session/append', { id, events: [{ kind: 'user', content: 'x' }] })).code).toBe(RpcErrorCodes.SessionLocked);
    // Pinned: never falls out. Unpinned and idle 40 days, but live in a window: left alone, said so.
    expect((await other.call(P.sessionRetention, { project, dryRun: true })).skipped).toEqual([]);
    await holder.call(P.sessionPin, { id, pinned: false });
    for (const dryRun of [true, false]) {
      const r = await other.call(P.sessionRetention, { project, dryRun });
      expect(r.done).toEqual([]);
      expect(r.skipped).toMatchObject([{ id, action: 'archive', reason: 'idle', skipped: expect.stringMatching(/another window/) }]);
    }
    expect(owner(file)).toEqual(before);
    expect((await holder.call(P.sessionRetention, { project, dryRun: true })).skipped).toMatchObject([
      { id, skipped: 'open in this window' },
    ]);
    await holder.stop();
    await other.stop();
  });
});

describe('auto-archive and session/retention', () => {
  it('archives at start-up the sessions idle longer than autoArchiveDays, before the first list', async () => {
    const { root, project } = workspace();
    const writer = await startSidecar({ root });
    const old = await sessionWith(writer, project, [USER_AT('from long ago', ago(40))]);
    const fresh = await sessionWith(writer, project, [USER_AT('from yesterday', ago(1))]);
    await writer.stop();

    const off = await startSidecar({ root });
    expect(ids((await off.call(P.sessionList, { project })).sessions)).toEqual([fresh, old]); // not set: nothing archived
    await off.stop();

    const s = await startSidecar({ root, initializationOptions: { autoArchiveDays: 30 } });
    expect(ids((await s.call(P.sessionList, { project })).sessions)).toEqual([fresh]);
    expect((await s.call(P.sessionList, { project, archived: true })).sessions).toMatchObject([{ id: old, archived: true }]);
    expect(lastLine(fileOf(root, old))).toMatchObject({ kind: 'event', type: 'archive', auto: true, reason: 'idle' });
    // Reversible, and not archived again at once.
    await s.call(P.sessionArchive, { id: old, archived: false });
    expect((await s.call(P.sessionRetention, { project, dryRun: true })).done).toEqual([]);
    await s.stop();

    // autoArchiveDays 0 is the off switch, for session/retention's default as well.
    const s0 = await startSidecar({ root, initializationOptions: { autoArchiveDays: 0 } });
    expect((await s0.call(P.sessionRetention, { project, dryRun: true })).settings.idleDays).toBeNull();
    expect((await s0.call(P.sessionRetention, { project, dryRun: true, autoArchiveDays: 7 })).settings.idleDays).toBe(7);
    await s0.stop();
  });

  it('applies the rules again while it runs: a session that falls out later is archived then', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root, env: { LEVELCODE_SESSIONS_SWEEP_MS: '200' }, initializationOptions: { retention: { keep: 1 } } });
    const first = await sessionWith(s, project, [USER_AT('the first chat', ago(2))]);
    expect(ids((await s.call(P.sessionList, { project })).sessions)).toEqual([first]); // one kept
    await s.call(P.sessionRelease, { id: first }); // New Chat lets it go; the one held is skipped
    const second = await sessionWith(s, project, [USER_AT('the second chat', ago(1))]);
    // A later sweep (every 200 ms here, six hours by default) lets the older one go, archived:
    // its archive event is an append, which the sidecar announces (session/didChange). The
    // next change is listened for before the list is read, so none is missed in between.
    for (;;) {
      const changed = s.editor.didChange.next((c) => c.id === first);
      if (ids((await s.call(P.sessionList, { project, archived: true })).sessions).includes(first)) break;
      await changed;
    }
    expect(ids((await s.call(P.sessionList, { project })).sessions)).toEqual([second]);
    expect(lastLine(fileOf(root, first))).toMatchObject({ kind: 'event', type: 'archive', auto: true, reason: 'keep' });
    await s.stop();
  });

  it('a dry run names exactly what the real run then archives', async () => {
    const { root, project } = workspace();
    const w = await startSidecar({ root });
    const s4 = [4, 3, 2, 1].map((d) => ({ d }));
    const made: string[] = [];
    for (const { d } of s4) made.push(await sessionWith(w, project, [USER_AT(`${d} days ago`, ago(d))]));
    await w.stop();
    const s = await startSidecar({ root, initializationOptions: { retention: { keep: 0 } } });
    const dry = await s.call(P.sessionRetention, { project, dryRun: true, keep: 2 });
    expect(dry.settings).toEqual({ idleDays: 30, keep: 2, maxAgeDays: null, delete: false });
    expect(dry.done.map((i) => i.id)).toEqual([made[1], made[0]]);
    expect(ids((await s.call(P.sessionList, { project })).sessions)).toHaveLength(4);
    const run = await s.call(P.sessionRetention, { project, keep: 2 });
    expect(run.dryRun).toBe(false);
    expect(run.done).toEqual(dry.done);
    expect(ids((await s.call(P.sessionList, { project, archived: true })).sessions).sort()).toEqual([made[0], made[1]].sort());
    await s.stop();
  });
});
