// The one listing query (server/listing/query.ts) that session/list and the MCP server's
// list_sessions share, in-process over a real store in a temp dir: which list and in which
// order, every filter, cursor and offset paging (a session made between two pages shifts
// nothing), a cursor we did not make, and the dressing of a page (labels and the continue-in
// command, who holds a row, its view in a zone).

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorError, type HistoryQuery, OWN_TOOL, originOf, queryHistory } from '../../server/listing/query.js';
import { History } from '../../server/listing/history.js';
import { setArchived, setPinned } from '../../server/listing/lifecycle.js';
import { parseZone } from '../../server/listing/view.js';
import { SessionStore } from '../../server/store/store.js';

let tmp: string;
let store: SessionStore;
let projA: string;
let projB: string;
/** Ids by name: a1..a4 in project A (a1 oldest), b1 in B, and cc, a Claude Code import in A. */
const ids: Record<string, string> = {};

const day = (n: number) => `2026-03-${String(n).padStart(2, '0')}T10:00:00.000Z`;

async function session(name: string, project: string, at: string, o: { source?: Record<string, string> } = {}): Promise<void> {
  const meta = await store.create({ project, ...(o.source ? { source: o.source as never } : {}) });
  await store.append(meta.id, [
    { kind: 'user', t: at, content: `question of ${name}` },
    { kind: 'assistant', t: at, content: `answer of ${name}` },
  ]);
  await store.release(meta.id);
  ids[name] = meta.id;
}

const names = (rows: { id: string }[]) => rows.map((r) => Object.keys(ids).find((k) => ids[k] === r.id) ?? r.id);
const query = (q: Partial<HistoryQuery>) => queryHistory(new History(store), { project: projA, limit: 100, ...q });

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-query-'));
  projA = join(tmp, 'a');
  projB = join(tmp, 'b');
  await mkdir(projA);
  await mkdir(projB);
  store = new SessionStore({ root: join(tmp, 'store'), agent: 'test' });
  await session('a1', projA, day(1));
  await session('a2', projA, day(2));
  await session('a3', projA, day(3));
  await session('a4', projA, day(4));
  await session('b1', projB, day(5));
  await session('cc', projA, day(6), {
    source: { tool: 'claude-code', id: 'c0ffee00-1111-2222-3333-444455556666', path: join(tmp, 'cc.jsonl'), project: projA },
  });
  await setPinned(store, ids.a1!, true, { borrow: true });
  await setArchived(store, ids.a3!, true, { borrow: true });
});
afterAll(async () => {
  await store.releaseAll();
  await rm(tmp, { recursive: true, force: true });
});

describe('which rows, in which order', () => {
  it("History's main list: pinned first, then newest; archived rows left out; a project's own rows", async () => {
    const r = await query({});
    expect(names(r.rows)).toEqual(['a1', 'cc', 'a4', 'a2']);
    expect(r.total).toBe(4);
    expect(r.nextCursor).toBeUndefined();
    expect(r.problems).toEqual([]);
  });

  it('the archived list, both lists, most recent first, and every project', async () => {
    expect(names((await query({ list: 'archived' })).rows)).toEqual(['a3']);
    expect(names((await query({ list: 'both', order: 'recent' })).rows)).toEqual(['cc', 'a4', 'a3', 'a2', 'a1']);
    expect(names((await query({ project: undefined, all: true, list: 'both', order: 'recent' })).rows)).toEqual([
      'cc',
      'b1',
      'a4',
      'a3',
      'a2',
      'a1',
    ]);
    // No project is every project, as `all` is (which wins over a project).
    const everyProject = names((await query({ project: undefined })).rows);
    expect(everyProject).toEqual(['a1', 'cc', 'b1', 'a4', 'a2']);
    expect(names((await query({ all: true })).rows)).toEqual(everyProject);
  });

  it('filters: source tool (ours by name), last activity since/until, a session left out by its id or its source id', async () => {
    const both = { list: 'both' as const, order: 'recent' as const };
    expect(names((await query({ ...both, source: 'claude-code' })).rows)).toEqual(['cc']);
    expect(names((await query({ ...both, source: OWN_TOOL })).rows)).toEqual(['a4', 'a3', 'a2', 'a1']);
    const inTime = await query({ ...both, since: day(2), until: day(4) });
    expect(names(inTime.rows)).toEqual(['a4', 'a3', 'a2']);
    expect(inTime.total).toBe(3);
    expect(names((await query({ ...both, exclude: ids.a4 })).rows)).toEqual(['cc', 'a3', 'a2', 'a1']);
    expect(names((await query({ ...both, exclude: 'c0ffee00-1111-2222-3333-444455556666' })).rows)).toEqual(['a4', 'a3', 'a2', 'a1']);
    expect(originOf((await query({ source: 'claude-code' })).rows[0]!)).toEqual({
      tool: 'claude-code',
      id: 'c0ffee00-1111-2222-3333-444455556666',
    });
  });
});

describe('paging', () => {
  it('by cursor: every row once, in order; a session made between pages does not shift the next one', async () => {
    const first = await query({ limit: 2 });
    expect(names(first.rows)).toEqual(['a1', 'cc']);
    expect(first.total).toBe(4);
    expect(first.nextCursor).toBeDefined();
    await session('new', projA, day(7)); // newest: it sorts before the cursor, on a page already seen
    const second = await query({ limit: 2, cursor: first.nextCursor });
    expect(names(second.rows)).toEqual(['a4', 'a2']);
    expect(second.nextCursor).toBeUndefined();
    expect(names((await query({})).rows)).toEqual(['a1', 'new', 'cc', 'a4', 'a2']);
  });

  it('by offset, with the total for "more"', async () => {
    const r = await query({ list: 'both', order: 'recent', offset: 2, limit: 2 });
    expect(names(r.rows)).toEqual(['a4', 'a3']);
    expect(r.total).toBe(6);
    expect(r.nextCursor).toBeDefined();
  });

  it('a cursor this server did not make is a CursorError (a RangeError), before anything is awaited', async () => {
    let waited = false;
    const waitFor = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      waited = true;
    });
    const err = await queryHistory(new History(store), { project: projA, limit: 10, cursor: 'not-ours' }, { waitFor }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CursorError);
    expect(err).toBeInstanceOf(RangeError);
    expect((err as Error).message).toBe('not a cursor this server made');
    expect(waited).toBe(false);
  });
});

describe('the rows of a page, dressed', () => {
  it("labels: an imported row gets its tool's name and the command that continues it; ours get neither", async () => {
    expect((await query({})).rows.every((x) => x.sourceLabel === undefined)).toBe(true);
    const dressed = await queryHistory(new History(store), { project: projA, limit: 100 }, { labels: true });
    const cc = dressed.rows.find((x) => x.id === ids.cc)!;
    expect(cc.sourceLabel).toBe('Claude Code');
    expect(cc.continueIn).toEqual({ argv: ['claude', '--resume', 'c0ffee00-1111-2222-3333-444455556666'], cwd: projA });
    expect(dressed.rows.filter((x) => x.id !== ids.cc).every((x) => x.sourceLabel === undefined && x.continueIn === undefined)).toBe(true);
  });

  it('holders: a row another owner holds gets heldBy; one this store holds does not', async () => {
    const other = new SessionStore({ root: join(tmp, 'store'), agent: 'other' });
    await other.acquire(ids.a2!);
    await store.acquire(ids.a4!);
    try {
      const r = await queryHistory(new History(store), { project: projA, limit: 100 }, { holders: true });
      const byName = Object.fromEntries(r.rows.map((x) => [names([x])[0], x]));
      expect(byName.a2!.heldBy).toMatchObject({ pid: process.pid });
      expect(byName.a4!.heldBy).toBeUndefined();
      expect(byName.a1!.heldBy).toBeUndefined();
      expect((await query({})).rows.every((x) => x.heldBy === undefined)).toBe(true);
    } finally {
      await other.releaseAll();
      await store.release(ids.a4!);
    }
  });

  it("view: each row's group and time as seen at `now` in the zone", async () => {
    const zone = parseZone('UTC')!;
    const r = await queryHistory(new History(store), { project: projA, limit: 100 }, { zone, now: Date.parse(day(4)) + 3_600_000 });
    const a4 = r.rows.find((x) => x.id === ids.a4)!;
    expect(a4.view).toMatchObject({ group: 'today' });
    expect(r.rows.find((x) => x.id === ids.a2)!.view!.group).not.toBe('today');
    expect((await query({})).rows.every((x) => x.view === undefined)).toBe(true);
  });
});
