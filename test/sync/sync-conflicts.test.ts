// Syncthing's conflict copies made whole (server/sync/conflicts.ts), on real files: the copies
// are made here as Syncthing makes them (the old file renamed, the new one in its place), so
// every case runs in milliseconds; test/sync/syncthing (npm run test:sync) makes them with two real daemons.
// Also: the lock host rule (a lock of another host is never taken over by age alone), the
// device in the meta line and the listing, and the names the ignore file keeps local.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, copyFile, mkdir, mkdtemp, readdir, readFile, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../server/store/store.js';
import { History } from '../../server/listing/history.js';
import { forkIdOf, resolveAll, resolveConflict } from '../../server/sync/conflicts.js';
import { isConflictName, parseConflictName, STIGNORE } from '../../server/sync/names.js';
import { inspectLock, acquireLock, takeable } from '../../server/store/lock.js';
import { watchStore } from '../../server/store/watch.js';

let tmp: string;
let root: string;
let project: string;
const discarded: string[] = [];

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-sync-unit-'));
  root = join(tmp, 'store');
  project = join(tmp, 'proj');
  await mkdir(project);
  project = await realpath(project);
  discarded.length = 0;
  process.env.LEVELCODE_SESSIONS_DEVICE = 'laptop';
});
afterEach(async () => {
  delete process.env.LEVELCODE_SESSIONS_DEVICE;
  await rm(tmp, { recursive: true, force: true });
});

const mk = () => new SessionStore({ root, agent: 'test' });
const user = (text: string, t: string) => ({ kind: 'user', t, content: text });
const answer = (text: string, t: string) => ({ kind: 'assistant', t, content: [{ type: 'text', text }] });
const line = (e: unknown) => `${JSON.stringify(e)}\n`;
/** Resolves with the copy moved aside (a list) instead of the OS trash, and a fixed device label. */
const opts = { label: () => 'desktop', discard: async (f: string) => void discarded.push(f) };

/** A session with turns 1..n, released; answers its id and file. */
async function session(n: number): Promise<{ id: string; file: string }> {
  const s = mk();
  const meta = await s.create({ project });
  for (let i = 1; i <= n; i++)
    await s.append(meta.id, [user(`q${i}`, `2026-07-28T09:00:0${i}.000Z`), answer(`a${i}`, `2026-07-28T09:00:0${i}.500Z`)]);
  const file = await s.pathOf(meta.id);
  await s.releaseAll();
  return { id: meta.id, file };
}

/** What Syncthing leaves: the copy under a conflict name, holding `copyExtra` after the shared file. */
async function conflictOf(file: string, id: string, copyExtra: unknown[]): Promise<string> {
  const copy = join(file, '..', `${id}.sync-conflict-20260728-091500-ABCDEF7.jsonl`);
  await copyFile(file, copy);
  for (const e of copyExtra) await appendFile(copy, line(e));
  return copy;
}

async function texts(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l))
    .map((e) => (e.kind === 'title' ? `title:${e.title}` : typeof e.content === 'string' ? e.content : (e.content?.[0]?.text ?? e.type)));
}

describe('conflict copies of a session', () => {
  it('names: a conflict copy of a session is recognised, the device in its name read', () => {
    const c = parseConflictName('2026-07-28T09-12-33-8f3k.sync-conflict-20260728-091500-ABCDEF7.jsonl');
    expect(c).toEqual({ base: '2026-07-28T09-12-33-8f3k', device: 'ABCDEF7', when: '20260728-091500' });
    expect(
      isConflictName('2026-07-28T09-12-33-8f3k.sync-conflict-20260728-091500-ABCDEF7.sync-conflict-20260728-091501-XYZWVU2.jsonl'),
    ).toBe(true);
    expect(isConflictName('notes.sync-conflict-20260728-091500-ABCDEF7.jsonl')).toBe(false);
    expect(isConflictName('2026-07-28T09-12-33-8f3k.jsonl')).toBe(false);
    // The ignore file keeps locks, their leftovers and temp files on the device.
    for (const p of ['(?d)*.jsonl.lock', '(?d)*.jsonl.lock.*', '(?d)*.tmp']) expect(STIGNORE.split('\n')).toContain(p);
  });

  it('a copy that is a prefix of the session (or equal) adds nothing and is discarded', async () => {
    const { id, file } = await session(2);
    const copy = await conflictOf(file, id, []);
    const s = mk();
    await s.append(id, [user('q3', '2026-07-28T09:00:09.000Z')]);
    const before = await readFile(file, 'utf8');
    const out = await resolveConflict(s, copy, opts);
    expect(out.action).toBe('absorbed');
    expect(await readFile(file, 'utf8')).toBe(before);
    expect(discarded).toEqual([copy]);
    await s.releaseAll();
  });

  it('a session that is a prefix of the copy: the longer wins, by an append (nothing shown twice)', async () => {
    const { id, file } = await session(1);
    const copy = await conflictOf(file, id, [user('q2', '2026-07-28T09:00:05.000Z'), answer('a2', '2026-07-28T09:00:05.500Z')]);
    const before = await readFile(file, 'utf8');
    const s = mk();
    const out = await resolveConflict(s, copy, opts);
    expect(out).toMatchObject({ action: 'appended', events: 2 });
    const after = await readFile(file, 'utf8');
    expect(after.startsWith(before)).toBe(true); // appended, never rewritten
    expect(await texts(file)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(s.holds(id)).toBe(false); // opened only for this: let go
    expect((await new History(s).list({ project })).sessions).toHaveLength(1);
  });

  it('diverged copies: the session stays, the copy becomes a fork "continued on <device>", both complete', async () => {
    const { id, file } = await session(2);
    const copy = await conflictOf(file, id, [user('b3', '2026-07-28T09:10:00.000Z'), answer('b3!', '2026-07-28T09:10:00.500Z')]);
    const s = mk();
    await s.append(id, [user('a3', '2026-07-28T09:09:00.000Z')]);
    const before = await readFile(file, 'utf8');
    const out = await resolveConflict(s, copy, opts);
    expect(out.action).toBe('forked');
    expect(await readFile(file, 'utf8')).toBe(before); // the user's session file is never rewritten
    const list = (await new History(s).list({ project })).sessions;
    expect(list).toHaveLength(2);
    const fork = list.find((e) => e.id === out.fork)!;
    expect(fork.forkedFrom).toEqual({ id, turn: 2, device: 'desktop' });
    expect(fork.device).toBe('desktop');
    expect(fork.turns).toBe(3);
    const forkFile = await s.pathOf(out.fork!);
    expect(await texts(forkFile)).toEqual(['q1', 'a1', 'q2', 'a2', 'b3', 'b3!', 'forked']);
    expect(await texts(file)).toEqual(['q1', 'a1', 'q2', 'a2', 'a3']);
    expect(discarded).toEqual([copy]);
    // The fork is the copy's content: its id is the same wherever it is made.
    expect(out.fork).toBe(forkIdOf(id, (await readFile(copy, 'utf8')).trim().split('\n').slice(1), '2026-07-28T09:10:00.000Z'));
    expect(out.fork!.startsWith('2026-07-28T09-10-00-')).toBe(true);
  });

  it('two devices resolving the same conflict write the same fork; a copy of it is absorbed', async () => {
    const { id, file } = await session(1);
    const copy = await conflictOf(file, id, [user('b2', '2026-07-28T09:10:00.000Z')]);
    await appendFile(file, line(user('a2', '2026-07-28T09:09:00.000Z')));
    // Device 2: the same two files in another store.
    const root2 = join(tmp, 'store2');
    const dir2 = join(root2, file.split('/').at(-2)!);
    await mkdir(dir2, { recursive: true });
    await copyFile(file, join(dir2, `${id}.jsonl`));
    await copyFile(copy, join(dir2, copy.split('/').at(-1)!));
    const one = await resolveConflict(mk(), copy, opts);
    const s2 = new SessionStore({ root: root2, agent: 'test' });
    const two = await resolveConflict(s2, join(dir2, copy.split('/').at(-1)!), opts);
    expect(two.fork).toBe(one.fork);
    const f1 = await readFile(await mk().pathOf(one.fork!), 'utf8');
    const f2 = await readFile(await s2.pathOf(two.fork!), 'utf8');
    expect(f2).toBe(f1);
    // Syncthing then finds the two forks in conflict: the copy is equal, so it is absorbed.
    const forkFile = await mk().pathOf(one.fork!);
    const forkCopy = join(forkFile, '..', `${one.fork}.sync-conflict-20260728-091600-QRSTUV2.jsonl`);
    await writeFile(forkCopy, f2);
    expect((await resolveConflict(mk(), forkCopy, opts)).action).toBe('absorbed');
    expect((await new History(mk()).list({ project })).sessions).toHaveLength(2);
  });

  it('titles, pins and archive markers merge: appended, no fork', async () => {
    const { id, file } = await session(1);
    const copy = await conflictOf(file, id, [{ kind: 'title', t: '2026-07-28T09:10:00.000Z', title: 'Beta', source: 'user' }]);
    await appendFile(file, line({ kind: 'title', t: '2026-07-28T09:09:00.000Z', title: 'Alpha', source: 'user' }));
    await appendFile(file, line({ kind: 'event', t: '2026-07-28T09:09:01.000Z', type: 'pin' }));
    const s = mk();
    const out = await resolveConflict(s, copy, opts);
    expect(out).toMatchObject({ action: 'merged', events: 1 });
    expect(await texts(file)).toEqual(['q1', 'a1', 'title:Alpha', 'pin', 'title:Beta']);
    const list = (await new History(s).list({ project })).sessions;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ title: 'Beta', pinned: true });
  });

  it('a torn or bad line of a copy is not content; a copy without a meta line is left alone', async () => {
    const { id, file } = await session(1);
    const copy = await conflictOf(file, id, []);
    await appendFile(copy, '{"kind":"user","t":"2026-07-28T09:1');
    expect((await resolveConflict(mk(), copy, opts)).action).toBe('absorbed');
    const junk = join(file, '..', `${id}.sync-conflict-20260728-091700-ABCDEF7.jsonl`);
    await writeFile(junk, 'not a session\n');
    const out = await resolveConflict(mk(), junk, opts);
    expect(out.action).toBe('pending');
    expect(discarded).not.toContain(junk);
  });

  it('modified here, deleted elsewhere: the copy is linked back as the session (once it settled)', async () => {
    const { id, file } = await session(1);
    const copy = await conflictOf(file, id, [user('q2', '2026-07-28T09:00:05.000Z')]);
    await rm(file);
    // Just renamed by Syncthing: the new file may be on its way; left for now.
    expect((await resolveConflict(mk(), copy, opts)).action).toBe('pending');
    // ctime cannot be set back: a resolver that runs later sees an old copy. Simulated by time.
    const realNow = Date.now;
    Date.now = () => realNow() + 20_000;
    try {
      expect((await resolveConflict(mk(), copy, opts)).action).toBe('restored');
    } finally {
      Date.now = realNow;
    }
    expect(await texts(file)).toEqual(['q1', 'a1', 'q2']);
  });

  it('resolveAll finds the copies in every project folder; the watcher names them', async () => {
    const { id, file } = await session(1);
    const seen: string[] = [];
    let heard = () => {};
    const onConflict = (f: string) => (seen.push(f), heard());
    const w = await watchStore({ root, poll: true, pollMs: 50, onConflict }, () => undefined);
    const copy = await conflictOf(file, id, [user('q2', '2026-07-28T09:00:05.000Z')]);
    // The watcher names the copy: wait for its onConflict call.
    await new Promise<void>((resolve) => {
      heard = () => seen.includes(copy) && resolve();
      heard();
    });
    w.close();
    expect(seen).toContain(copy);
    const outs = await resolveAll(mk(), opts);
    expect(outs.map((o) => o.action)).toEqual(['appended']);
    expect((await readdir(join(file, '..'))).filter((n) => n.includes('sync-conflict'))).toEqual([copy.split('/').at(-1)]);
  });
});

describe('devices and locks', () => {
  it('a session records the device it was created on; the listing carries it', async () => {
    const { id, file } = await session(0);
    expect(JSON.parse((await readFile(file, 'utf8')).split('\n')[0]!).device).toBe('laptop');
    expect((await new History(mk()).get(id)).device).toBe('laptop');
  });

  it('a lock of another host is "open on <host>", never taken over by age alone', async () => {
    const { id, file } = await session(0);
    const lock = `${file}.lock`;
    await mkdir(lock);
    await writeFile(
      join(lock, 'owner.json'),
      JSON.stringify({ pid: 4242, host: 'desktop.example', since: new Date().toISOString(), agent: 'sidecar' }),
    );
    const old = new Date(Date.now() - 3_600_000);
    await utimes(lock, old, old);
    const st = await inspectLock(file);
    expect(st).toMatchObject({ locked: true, stale: true, foreign: true, dead: false });
    expect(takeable(st)).toBe(false);
    const s = mk();
    await expect(s.append(id, [user('x', '2026-07-28T09:00:00.000Z')])).rejects.toMatchObject({
      code: 'locked',
      message: expect.stringContaining('open on desktop.example'),
    });
    expect(await s.lockInfo(id)).toMatchObject({ locked: true, host: 'desktop.example' });
    // The same lock from this host (a crashed process whose pid cannot be judged) goes stale as before.
    await writeFile(
      join(lock, 'owner.json'),
      JSON.stringify({ pid: 4242, host: (await import('node:os')).hostname(), since: '', pidns: 'x' }),
    );
    await utimes(lock, old, old);
    const held = await acquireLock(file, { agent: 'test' });
    await held.release();
  });
});

describe('a conflict copy of relinks.jsonl', () => {
  it('the records it lacks are appended (a torn last record stepped over), then the copy discarded', async () => {
    const { file } = await session(0);
    const dir = join(file, '..');
    const r1 = JSON.stringify({ t: '2026-07-28T09:00:00.000Z', from: '/a', to: project, projects: ['/a'], sessions: [] });
    const r2 = JSON.stringify({ t: '2026-07-28T09:01:00.000Z', from: '/b', to: project, projects: ['/b'], sessions: [] });
    await writeFile(join(dir, 'relinks.jsonl'), `${r1}\n{"t":"torn`);
    const copy = join(dir, 'relinks.sync-conflict-20260728-091500-ABCDEF7.jsonl');
    await writeFile(copy, `${r1}\n${r2}\n`);
    const out = await resolveConflict(mk(), copy, opts);
    expect(out).toMatchObject({ action: 'merged', events: 1 });
    expect((await readFile(join(dir, 'relinks.jsonl'), 'utf8')).split('\n')).toEqual([r1, '{"t":"torn', r2, '']);
    expect(discarded).toEqual([copy]);
  });
});
