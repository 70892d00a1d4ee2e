// History on every device (issue 41), proven on two real Syncthing daemons from Debian on
// 127.0.0.1 (devices.ts), each with a real sidecar on its store (test/helpers/sidecar.ts) and
// the real CLI. Nothing is mocked: the conflicts are the ones Syncthing makes.
//   - a session created on A appears in B's session/list (the time it took is printed);
//   - partition (B's daemon stopped), both devices append to one session, reconnect: every
//     acknowledged event of both sides is present, as one chat and a fork "continued on
//     <device>" (printed: acked=… present=… lost=0); repeated with seeded random timings;
//   - the same with a SIGKILL of the sidecar mid-append on each side, and with the CLI as a
//     third writer; modify against delete; a rename on both sides; a trash carried and a
//     restore carried back;
//   - nothing of the caches (or the locks) travels.
// No timed assertion: `until` is a hang guard; the figures are printed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Sidecar, startSidecar, ResponseError } from '../../helpers/sidecar.js';
import * as P from '../../../server/rpc/protocol.js';
import { prng, seedFromEnv } from '../../reliability/harness.js';
import { Device, conflictCopies, converged, ignoredHere, pair, sleep, storeSessions, until } from './devices.js';
import { at } from '../../helpers/items.js';

const base = mkdtempSync(join(tmpdir(), 'lcs-sync-'));
const project = join(base, 'project');
const A = new Device('device-a', join(base, 'A'));
const B = new Device('device-b', join(base, 'B'));
/** Every pid a sidecar of A ever had: B's store must hold no lock of theirs. */
const pidsOfA = new Set<number>();
let sa: Sidecar;
let sb: Sidecar;
const seed = seedFromEnv('LCS_SYNC_SEED');
const rnd = prng(seed);
const totals = { trials: 0, acked: 0, present: 0, lost: 0, forks: 0, conflicts: 0 };

const sidecar = async (d: Device) => {
  const s = await startSidecar({ root: d.store, env: d.env });
  if (d === A && s.child.pid) pidsOfA.add(s.child.pid);
  return s;
};

beforeAll(async () => {
  process.stdout.write(`sync suite: seed ${seed} (LCS_SYNC_SEED=${seed} repeats it)\n`);
  const { mkdirSync } = await import('node:fs');
  mkdirSync(project, { recursive: true });
  await A.generate();
  await B.generate();
  await Promise.all([A.start(), B.start()]);
  await pair(A, B);
  [sa, sb] = await Promise.all([sidecar(A), sidecar(B)]);
}, 180_000);

afterAll(async () => {
  for (const s of [sa, sb]) {
    if (!s) continue;
    s.child.kill('SIGKILL');
    await s.exited;
  }
  await Promise.all([A.stop(), B.stop()]);
  process.stdout.write(
    `sync suite totals (seed ${seed}): trials=${totals.trials} acked=${totals.acked} present=${totals.present} lost=${totals.lost} forks=${totals.forks}\n`,
  );
  if (!process.env.LCS_KEEP) rmSync(base, { recursive: true, force: true });
});

/** A user message whose text is its mark: how an acknowledged event is found again. */
const msg = (mark: string) => ({ kind: 'user', content: `mark ${mark}` });
const reply = (mark: string) => ({ kind: 'assistant', content: [{ type: 'text', text: `mark ${mark}` }] });

/** The marks present in a store: in the session `id` and its forks. */
function marksOf(store: string, id: string): { marks: Set<string>; sessions: string[]; forks: any[] } {
  const all = storeSessions(store);
  const marks = new Set<string>();
  const sessions: string[] = [];
  const forks: any[] = [];
  for (const [sid, s] of all) {
    if (sid !== id && s.meta?.forkedFrom?.id !== id) continue;
    sessions.push(sid);
    if (sid !== id) forks.push(s.meta);
    for (const e of s.events) {
      const text =
        typeof e.content === 'string' ? e.content : Array.isArray(e.content) ? e.content.map((c: any) => c.text ?? '').join('') : '';
      const m = /^mark (.+)$/.exec(text);
      if (m) marks.add(m[1]!);
    }
  }
  return { marks, sessions: sessions.sort(), forks };
}

/** Appends `n` turns through a sidecar, one at a time with random pauses; answers the acked marks. */
async function writer(s: Sidecar, id: string, tag: string, n: number, pauseMs: number, o: { release?: boolean } = {}): Promise<string[]> {
  const acked: string[] = [];
  for (let i = 0; i < n; i++) {
    const m = `${tag}-${i}`;
    try {
      await s.call(P.sessionAppend, { id, events: [msg(`${m}u`), reply(`${m}a`)] as never, ...(o.release ? { release: true } : {}) });
      acked.push(`${m}u`, `${m}a`);
    } catch (e) {
      if (!(e instanceof ResponseError)) throw e;
      // Not acknowledged (locked by the CLI for a moment): nothing to find later.
    }
    if (pauseMs) await sleep(rnd.int(0, pauseMs));
  }
  return acked;
}

/** A session made on A with `turns` turns, and seen whole on B. */
async function sharedSession(turns: number, tag: string): Promise<{ id: string; acked: string[] }> {
  const { id } = await sa.call(P.sessionNew, { project });
  const acked = await writer(sa, id, `${tag}-base`, turns, 0);
  await until(`${id} on B`, () => {
    const s = storeSessions(B.store).get(id);
    return s && s.events.length >= turns * 2;
  });
  return { id, acked };
}

function check(id: string, acked: string[], label: string): { present: number; lost: string[] } {
  const a = marksOf(A.store, id);
  const b = marksOf(B.store, id);
  expect(b.sessions, `${label}: both stores hold the same sessions`).toEqual(a.sessions);
  const lost = acked.filter((m) => !a.marks.has(m) || !b.marks.has(m));
  const present = acked.length - lost.length;
  process.stdout.write(`${label}: acked=${acked.length} present=${present} lost=${lost.length} sessions=${a.sessions.length}\n`);
  return { present, lost };
}

/** One partition trial: B's daemon stopped, both append, B back; every acked event kept. */
async function partitionTrial(n: number, o: { killA?: boolean; killB?: boolean; cli?: boolean } = {}) {
  const tag = `t${n}`;
  const { id, acked } = await sharedSession(rnd.int(1, 3), tag);
  await B.stop();
  const nA = rnd.int(1, 5);
  const nB = rnd.int(1, 5);
  const pause = rnd.int(0, 120);
  const jobs: Promise<string[]>[] = [];
  let killedA: Sidecar | undefined;
  let killedB: Sidecar | undefined;
  const killer = (s: Sidecar, which: 'A' | 'B') => async (): Promise<string[]> => {
    // Appends until the sidecar is killed at a random moment; what was answered was acked.
    const out: string[] = [];
    let i = 0;
    const stopAt = rnd.int(20, 400);
    const kill = sleep(stopAt).then(() => s.child.kill('SIGKILL'));
    for (;;) {
      const m = `${tag}-${which}k-${i++}`;
      try {
        await s.call(P.sessionAppend, { id, events: [msg(`${m}u`), reply(`${m}a`)] as never });
        out.push(`${m}u`, `${m}a`);
      } catch {
        break; // the sidecar died: this append was never answered
      }
    }
    await kill;
    return out;
  };
  if (o.killA) {
    killedA = sa;
    jobs.push(killer(sa, 'A')());
  } else jobs.push(writer(sa, id, `${tag}-A`, nA, pause, { release: o.cli }));
  if (o.killB) {
    killedB = sb;
    jobs.push(killer(sb, 'B')());
  } else jobs.push(writer(sb, id, `${tag}-B`, nB, pause));
  if (o.cli)
    jobs.push(
      (async () => {
        // The third writer: the CLI on A, between the sidecar's writes (which give the lock back).
        const out: string[] = [];
        for (let i = 0; i < 3; i++) {
          const m = `${tag}-cli-${i}`;
          const r = A.cli(['append', id], `${JSON.stringify(msg(`${m}u`))}\n`);
          if (r.status === 0) out.push(`${m}u`);
          await sleep(rnd.int(0, 100));
        }
        return out;
      })(),
    );
  for (const more of await Promise.all(jobs)) acked.push(...more);
  if (killedA) {
    await killedA.exited;
    sa = await sidecar(A);
  }
  if (killedB) {
    await killedB.exited;
    sb = await sidecar(B);
  }
  const t0 = Date.now();
  await B.start();
  await until('the devices to reconnect', async () => (await A.connected(B)) && (await B.connected(A)));
  const took = await converged(A, B);
  const { present, lost } = check(
    id,
    acked,
    `trial ${n}${o.killA ? ' (kill A)' : ''}${o.killB ? ' (kill B)' : ''}${o.cli ? ' (+CLI)' : ''}`,
  );
  const forks = marksOf(A.store, id).forks;
  process.stdout.write(`  reconnect to converged: ${Date.now() - t0} ms (stable after ${took} ms); forks=${forks.length}\n`);
  totals.trials++;
  totals.acked += acked.length;
  totals.present += present;
  totals.lost += lost.length;
  totals.forks += forks.length;
  expect(lost, `trial ${n}: acknowledged events lost`).toEqual([]);
  // One chat and at most one fork of it, "continued on" the device whose copy it is.
  expect(forks.length).toBeLessThanOrEqual(1);
  const all = storeSessions(A.store);
  const mainMarks = new Set(all.get(id)!.events.map((e) => JSON.stringify(e.content)));
  for (const f of forks) {
    // "continued on <device>": the device whose turns only the fork holds.
    const own = all
      .get(f.id)!
      .events.filter((e) => e.kind === 'user' && !mainMarks.has(JSON.stringify(e.content)))
      .map((e) => String(e.content));
    const side = own.some((t) => /-(A|Ak|cli)-/.test(t)) ? 'device-a' : 'device-b';
    expect(own.length).toBeGreaterThan(0);
    expect(f.forkedFrom.device, own.join(', ')).toBe(side);
  }
  return { id, forks };
}

describe('two real Syncthing devices', () => {
  it('a session created on A appears in B’s session/list', async () => {
    const t0 = Date.now();
    const { id } = await sa.call(P.sessionNew, { project });
    await sa.call(P.sessionAppend, { id, events: [msg('first')] as never });
    const seen = await until(`${id} in B's session/list`, async () => {
      const r = await sb.call(P.sessionList, { project });
      return r.sessions.find((s: any) => s.id === id);
    });
    process.stdout.write(`created on A to listed on B: ${Date.now() - t0} ms\n`);
    expect(seen.device).toBe('device-a');
  });

  it('sync status says, in words, the folder, its device and the conflicts', async () => {
    const r = await until('sync status to show B connected', () => {
      const x = A.cli(['sync', 'status']);
      return x.status === 0 && /device-b \([A-Z0-9]{7}\): connected/.test(x.stdout) ? x : undefined;
    });
    expect(r.stdout).toMatch(/Syncthing folder "LevelCode Sessions" \(levelcode-sessions\): /);
    expect(r.stdout).toContain('Ignore file: present');
    expect(r.stdout).toContain('Conflicts: none waiting');
    const j = JSON.parse(A.cli(['sync', 'status', '--json']).stdout);
    expect(j.syncthing.devices).toEqual([expect.objectContaining({ name: 'device-b', connected: true })]);
  });

  it('a partition: both append, every acknowledged event present as one chat and a fork', async () => {
    const { id, forks } = await partitionTrial(0);
    expect(forks.length).toBe(1);
    const r = await sb.call(P.sessionList, { project });
    const fork = r.sessions.find((s: any) => s.forkedFrom?.id === id);
    expect(fork?.forkedFrom?.device).toMatch(/^device-[ab]$/);
    // Nothing shown twice: the session once, its fork once.
    expect(r.sessions.filter((s: any) => s.id === id)).toHaveLength(1);
  });

  it('SIGKILL of the sidecar mid-append on each side, then reconnect', async () => {
    await partitionTrial(1, { killA: true });
    await partitionTrial(2, { killB: true });
  });

  it('a third writer: the CLI appends on A between the sidecar’s writes', async () => {
    await partitionTrial(3, { cli: true });
  });

  it('modify against delete: the session comes back with what was appended', async () => {
    const { id, acked } = await sharedSession(2, 'mad');
    await B.stop();
    await sa.call(P.sessionDelete, { id });
    acked.push(...(await writer(sb, id, 'mad-B', 3, 30)));
    await B.start();
    await converged(A, B);
    const { lost } = check(id, acked, 'modify against delete');
    expect(lost).toEqual([]);
    const r = await sa.call(P.sessionList, { project });
    expect(r.sessions.some((s: any) => s.id === id)).toBe(true);
  });

  it('a rename on both sides merges: one title on both, no fork', async () => {
    const { id } = await sharedSession(1, 'ren');
    await sb.call(P.sessionRelease, { id }).catch(() => undefined);
    await B.stop();
    await sa.call(P.sessionRename, { id, title: 'Alpha from A' });
    await sleep(50);
    await sb.call(P.sessionRename, { id, title: 'Beta from B' });
    await B.start();
    await converged(A, B);
    const ta = (await sa.call(P.sessionList, { project })).sessions.filter((s: any) => s.id === id || s.forkedFrom?.id === id);
    const tb = (await sb.call(P.sessionList, { project })).sessions.filter((s: any) => s.id === id || s.forkedFrom?.id === id);
    expect(ta).toHaveLength(1);
    expect(tb).toHaveLength(1);
    expect(at(ta, 0).title).toBe(at(tb, 0).title);
    expect(['Alpha from A', 'Beta from B']).toContain(at(ta, 0).title);
    // Both titles are in the file: the rename travelled as data.
    const titles = storeSessions(A.store)
      .get(id)!
      .events.filter((e) => e.kind === 'title')
      .map((e) => e.title);
    expect(titles).toEqual(expect.arrayContaining(['Alpha from A', 'Beta from B']));
  });

  it('a trash on A is carried to B; restore on A brings it back on B', async () => {
    const { id } = await sharedSession(1, 'trash');
    await sb.call(P.sessionRelease, { id }).catch(() => undefined);
    await sa.call(P.sessionDelete, { id });
    await until(`${id} gone from B`, () => !storeSessions(B.store).has(id));
    const r = A.cli(['restore', id]);
    expect(r.status, r.stderr).toBe(0);
    await until(`${id} back on B`, async () => (await sb.call(P.sessionList, { project })).sessions.some((s: any) => s.id === id));
  });

  it(`the partition, repeated with random timings (seeded)`, async () => {
    const n = Number(process.env.LCS_SYNC_TRIALS ?? 20);
    for (let i = 0; i < n; i++) await partitionTrial(100 + i, { killA: i % 7 === 3, killB: i % 7 === 5, cli: i % 5 === 4 });
    process.stdout.write(
      `partition trials: ${totals.trials} acked=${totals.acked} present=${totals.present} lost=${totals.lost} forks=${totals.forks}\n`,
    );
  });

  it('nothing of the caches or the locks travels', async () => {
    // Caches made on A: a listing, a search (index.json, search.idx live in A's cache folder).
    A.cli(['list', '--all', '--json']);
    A.cli(['search', 'mark', '--all']);
    expect(readdirSync(A.cache).length).toBeGreaterThan(0);
    await converged(A, B);
    // Every name in B's store: sessions (and relinks.jsonl), Syncthing's own files, or what the
    // ignore file keeps home, which then must be B's own (no lock of one of A's processes).
    const foreign: string[] = [];
    const lockOwners: number[] = [];
    const walk = (dir: string) => {
      for (const n of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, n.name);
        const rel = p.slice(B.store.length + 1);
        if (n.isDirectory() && !ignoredHere(rel)) {
          if (n.name !== '.stfolder') walk(p);
          continue;
        }
        if (/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[a-z0-9]{4}\.jsonl$/.test(n.name) || n.name === 'relinks.jsonl' || rel === '.stignore')
          continue;
        // Syncthing's own temp files of an abandoned pull: its business, never carried.
        if (/^\.syncthing\..*\.tmp$/.test(n.name)) continue;
        if (ignoredHere(rel) && !/^(index\.json|search\.idx)$/.test(n.name)) {
          // A lock in place (`<file>.lock`); one being built (`.lock.new-*`, its note still
          // being written) or taken away (`.lock.gone-*`) is B's own too, and holds no final note.
          if (n.isDirectory() && n.name.endsWith('.lock') && existsSync(join(p, 'owner.json')))
            lockOwners.push(JSON.parse(readFileSync(join(p, 'owner.json'), 'utf8')).pid);
          continue;
        }
        foreign.push(rel);
      }
    };
    walk(B.store);
    expect(foreign, 'only sessions and this device’s own locks in B’s store').toEqual([]);
    // B's locks are B's: none names a process of A's.
    expect(lockOwners.length).toBeGreaterThan(0);
    expect(lockOwners.filter((p) => pidsOfA.has(p))).toEqual([]);
    expect(conflictCopies(B.store)).toEqual([]);
    expect(existsSync(join(B.store, 'index.json'))).toBe(false);
  });
});
