// Concurrency: several real writers on one project folder, and two writers for one session.
//   - Two sidecars and the CLI (`levelcode-sessions append ID`, events on stdin) append at the
//     same time to different sessions of one project, with lines up to 200 KB: every line of
//     every file is whole (nothing interleaved), every event is in its own session at the seq its
//     answer gave, byte-identical, and index.json afterwards equals a rebuild from the files.
//   - Two writers for one session: the second gets -33004 (SessionLocked) with data.heldBy, and
//     the CLI exits 4; a lock left by a SIGKILLed sidecar is taken over at once (its pid is
//     gone); a lock whose owner still runs is honoured until it is stale, then taken over; one
//     written on another host is "open on <host>" and never taken over by age alone (issue 41); when several writers race for a dead lock, exactly one wins.
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, readFileSync, writeFileSync, utimesSync, existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, type Sidecar, cleanup, startSidecar, ResponseError } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';
import { projectSlug } from '../../server/store/slug.js';
import { figures, printFigures } from './figures.js';
import { SideFile, checkFile, makeEvent, prng, readIndex, rebuildEntries, seedFromEnv, sha, type EventSpec } from './harness.js';
import { at } from '../helpers/items.js';

const seed = seedFromEnv();
let base: string;

beforeAll(() => {
  process.stdout.write(`\n[reliability] concurrency: seed=${seed}\n`);
  base = mkdtempSync(join(tmpdir(), 'lcs-conc-'));
});
afterEach(async () => {
  await cleanup();
});
afterAll(() => {
  printFigures('concurrency (two sidecars and the CLI; locks)');
  rmSync(base, { recursive: true, force: true });
});

const LOCKED = -33004;

function workspace(name: string) {
  const root = join(base, name, 'store');
  const project = join(base, name, 'project');
  mkdirSync(project, { recursive: true });
  return { root, project, dir: join(root, projectSlug(project)) };
}

/** `levelcode-sessions append ID` with events on stdin; resolves with its exit code and output. */
function cliAppend(root: string, id: string, events: unknown[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'append', id, '--json', '--dir', root], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  });
}

function cliNew(root: string, project: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'new', '--project', project, '--dir', root], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let errText = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (errText += d));
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`new failed (${code}): ${errText}`))));
  });
}

async function appendError(sc: Sidecar, id: string, events: unknown[]): Promise<ResponseError<any> | undefined> {
  try {
    await sc.conn.sendRequest('session/append', { id, events });
    return undefined;
  } catch (e) {
    if (e instanceof ResponseError) return e;
    throw e;
  }
}

describe('two sidecars and the CLI on one project', () => {
  it('interleave nothing, put every event where it belongs, and leave the index equal to a rebuild', async () => {
    const { root, project, dir } = workspace('three-writers');
    const side = new SideFile(join(base, 'three-writers', 'acknowledged.jsonl'));
    const sent = new Map<string, string>();
    const rng = prng(seed);
    const a = await startSidecar({ root });
    const b = await startSidecar({ root });
    const sessions: { writer: 'a' | 'b' | 'cli'; id: string }[] = [];
    for (const [w, sc] of [
      ['a', a],
      ['b', b],
    ] as const)
      for (let k = 0; k < 2; k++) sessions.push({ writer: w, id: (await sc.call(P.sessionNew, { project })).id });
    // The CLI's own sessions, created with the CLI too.
    for (let k = 0; k < 2; k++) sessions.push({ writer: 'cli', id: await cliNew(root, project) });
    // A session nobody writes, to be listed unchanged.
    sessions.push({ writer: 'a', id: (await a.call(P.sessionNew, { project })).id });

    let totalEvents = 0;
    const batchFor = (tag: string, n0: number) => {
      const count = rng.int(1, 8);
      const specs: EventSpec[] = [];
      for (let k = 0; k < count; k++)
        specs.push({ tag, n: n0 + k, size: rng.chance(0.2) ? rng.int(20_000, 200_000) : rng.int(10, 3000), shape: rng.int(0, 3) });
      const events = specs.map(makeEvent);
      const lines = events.map((e) => JSON.stringify(e));
      specs.forEach((s, k) => sent.set(`${s.tag}.${s.n}`, sha(at(lines, k))));
      return { specs, events, lines };
    };
    const viaSidecar = async (sc: Sidecar, id: string, rounds: number) => {
      let n = 0;
      for (let i = 0; i < rounds; i++) {
        const { specs, events, lines } = batchFor(id, n);
        n += specs.length;
        const res = (await sc.conn.sendRequest('session/append', { id, events })) as { firstSeq: number; lastSeq: number };
        side.record(id, res, specs, lines);
        totalEvents += specs.length;
      }
    };
    const viaCli = async (id: string, rounds: number) => {
      let n = 0;
      for (let i = 0; i < rounds; i++) {
        const { specs, events, lines } = batchFor(id, n);
        n += specs.length;
        const r = await cliAppend(root, id, events);
        expect(r.code, r.stderr).toBe(0);
        side.record(id, JSON.parse(r.stdout), specs, lines);
        totalEvents += specs.length;
      }
    };
    const idOf = (i: number) => at(sessions, i).id;
    const [a1, a2, b1, b2, c1, c2] = [idOf(0), idOf(1), idOf(2), idOf(3), idOf(4), idOf(5)];
    await Promise.all([
      viaSidecar(a, a1, 60),
      viaSidecar(a, a2, 60),
      viaSidecar(b, b1, 60),
      viaSidecar(b, b2, 60),
      viaCli(c1, 12),
      viaCli(c2, 12),
      // Listings while everyone writes (they rewrite the index too).
      (async () => {
        for (let i = 0; i < 20; i++) await b.call(P.sessionList, { project });
      })(),
    ]);
    expect((await a.stop()).code).toBe(0);
    expect((await b.stop()).code).toBe(0);

    for (const s of sessions) {
      const acked = side.acknowledged(s.id);
      const c = checkFile(join(dir, `${s.id}.jsonl`), acked, sent);
      expect(c.lost, `${s.writer} ${s.id}`).toEqual([]);
      expect(c.fragments, `${s.id}: interleaved or torn lines`).toEqual([]);
      expect(c.foreign).toEqual([]);
      expect(c.unacked).toBe(0);
      // Besides the acknowledged events, only lines the sidecar writes itself (automatic titles).
      if (c.positions !== acked.size + c.own) {
        const ls = readFileSync(join(dir, `${s.id}.jsonl`), 'utf8').split('\n');
        const extra = ls
          .slice(1)
          .map((l, i) => [i, l] as const)
          .filter(([i]) => !acked.has(i))
          .map(([i, l]) => `${i}: ${l.slice(0, 300)}`);
        throw new Error(`${s.writer} ${s.id}: lines nobody acknowledged:\n${extra.join('\n')}`);
      }
      // Every line of this file was sent for this session (tag = its id), nowhere else.
      const tags = readFileSync(join(dir, `${s.id}.jsonl`), 'utf8')
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { tag?: string }).tag)
        .filter((t) => t !== undefined);
      expect(new Set(tags).size <= 1 && (tags.length === 0 || tags[0] === s.id)).toBe(true);
    }
    figures.acknowledged += totalEvents;
    figures.trials++;
    // The index the writers left (nobody listed since they stopped) equals a rebuild.
    expect(readIndex(dir)?.entries).toEqual(await rebuildEntries(dir));
    expect(readFileSync(side.path, 'utf8').length).toBeGreaterThan(0);
  });
});

describe('two writers for one session', () => {
  it('the second is refused with SessionLocked and data.heldBy; the CLI exits 4; reads still work', async () => {
    const { root, project } = workspace('locked');
    const a = await startSidecar({ root });
    const b = await startSidecar({ root });
    const { id } = await a.call(P.sessionNew, { project });
    await a.call(P.sessionAppend, { id, events: [{ kind: 'user', content: 'mine' }] });
    const e = await appendError(b, id, [{ kind: 'user', content: 'theirs' }]);
    expect(e?.code).toBe(LOCKED);
    expect(e?.data.heldBy).toMatchObject({ pid: a.child.pid, host: hostname(), agent: 'sidecar' });
    expect(typeof e?.data.heldBy.since).toBe('string');
    const rename = await b.error('session/rename', { id, title: 'x' });
    expect(rename.code).toBe(LOCKED);
    const cli = await cliAppend(root, id, [{ kind: 'user', content: 'cli' }]);
    expect(cli.code).toBe(4);
    expect(cli.stderr).toMatch(/locked by another window \(sidecar \d+\)/);
    // Reads work for everyone, and nothing of the refused writers got in.
    const read = await b.call(P.sessionRead, { id });
    expect(read.events.map((x) => (x.event as Record<string, unknown>).content)).toEqual(['mine']);
    figures.faults++;
  });

  it('a lock left by a SIGKILLed sidecar is taken over at once (its pid is gone)', async () => {
    const { root, project, dir } = workspace('dead-owner');
    const a = await startSidecar({ root });
    const { id } = await a.call(P.sessionNew, { project });
    await a.call(P.sessionAppend, { id, events: [{ kind: 'user', content: 'before the kill' }] });
    a.child.kill('SIGKILL');
    await a.exited;
    expect(existsSync(join(dir, `${id}.jsonl.lock`))).toBe(true);
    const b = await startSidecar({ root });
    // The first try succeeds: no waiting for the 30 s stale timeout.
    const res = await b.call(P.sessionAppend, { id, events: [{ kind: 'user', content: 'after' }] });
    expect(res.firstSeq).toBe(1);
    const owner = JSON.parse(readFileSync(join(dir, `${id}.jsonl.lock`, 'owner.json'), 'utf8'));
    expect(owner.pid).toBe(b.child.pid);
    figures.faults++;
  });

  it('a lock whose owner still runs is honoured until stale, then taken over; another host’s is kept', async () => {
    const { root, project, dir } = workspace('live-owner');
    const b = await startSidecar({ root });
    for (const owner of [
      // A process that still runs (this test runner) on this host...
      { pid: process.pid, host: hostname(), since: new Date().toISOString(), agent: 'sidecar' },
      // ...and a process on another host (its pid means nothing here).
      { pid: 999_999, host: 'another-host.example', since: new Date().toISOString(), agent: 'sidecar' },
    ]) {
      // A sidecar creates a session and is killed; its lock is then made to name `owner`.
      const a = await startSidecar({ root });
      const { id } = await a.call(P.sessionNew, { project });
      a.child.kill('SIGKILL');
      await a.exited;
      const lock = join(dir, `${id}.jsonl.lock`);
      writeFileSync(join(lock, 'owner.json'), JSON.stringify(owner));
      const now = new Date();
      utimesSync(lock, now, now);
      const e = await appendError(b, id, [{ kind: 'user', content: 'too early' }]);
      expect(e?.code, JSON.stringify(owner)).toBe(LOCKED);
      expect(e?.data.heldBy).toMatchObject({ pid: owner.pid, host: owner.host });
      // The owner stops refreshing the lock: 31 s later it is stale (the default timeout is 30 s).
      const old = new Date(Date.now() - 31_000);
      utimesSync(lock, old, old);
      if (owner.host !== hostname()) {
        // Another device's lock (a store it shares): its age says nothing here (issue 41).
        const still = await appendError(b, id, [{ kind: 'user', content: 'still too early' }]);
        expect(still?.code).toBe(LOCKED);
        expect(still?.message).toContain(`open on ${owner.host}`);
        continue;
      }
      const ok = await b.call(P.sessionAppend, { id, events: [{ kind: 'user', content: `after ${owner.host}` }] });
      expect(ok.appended).toBe(1);
      expect(JSON.parse(readFileSync(join(lock, 'owner.json'), 'utf8')).pid).toBe(b.child.pid);
    }
    figures.faults += 2;
  });

  it('when several writers race for a dead lock, exactly one wins', async () => {
    const { root, project, dir } = workspace('race');
    const rounds = 12;
    const contenders = await Promise.all([startSidecar({ root }), startSidecar({ root }), startSidecar({ root })]);
    let wins = 0;
    for (let round = 0; round < rounds; round++) {
      const a = await startSidecar({ root });
      const { id } = await a.call(P.sessionNew, { project });
      a.child.kill('SIGKILL');
      await a.exited;
      const results = await Promise.all(contenders.map((c, i) => appendError(c, id, [{ kind: 'user', content: `contender ${i}` }])));
      const winners = results.filter((r) => r === undefined).length;
      expect(winners, `round ${round}: ${JSON.stringify(results.map((r) => r?.code ?? 'ok'))}`).toBe(1);
      for (const r of results) if (r) expect(r.code).toBe(LOCKED);
      const lines = readFileSync(join(dir, `${id}.jsonl`), 'utf8')
        .trim()
        .split('\n');
      expect(lines).toHaveLength(2);
      wins += winners;
      // The winner lets go (seal), so the process list stays short.
      const winner = at(contenders, results.indexOf(undefined), 'the one contender that won');
      await winner.call(P.sessionSeal, { id });
    }
    expect(wins).toBe(rounds);
    figures.faults += rounds;
  });
});
