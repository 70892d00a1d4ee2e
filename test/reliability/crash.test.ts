// Crash: the real sidecar, appending through session/append (this test is its client), killed
// with SIGKILL at random moments, LCS_CRASH_TRIALS times (default 200), with batch sizes of 1 to
// 40 events and lines of 50 bytes to 2.5 MB. Every acknowledged append is recorded in a side file
// when its answer arrives. After each kill:
//   - every acknowledged event is in the file at the seq its answer gave, byte-identical to the
//     JSON that was sent (sha-256 of the line against the sha-256 of what was sent);
//   - nothing else is there but whole lines a writer sent (a batch whose answer never came) and
//     at most one new torn fragment;
//   - index.json is absent or parses (never half-written); leftover temp files of an interrupted
//     index write are reported by `doctor`;
// and when the next sidecar starts: it lists the session, its listing equals a fresh rebuild
// from the files (the index, stale or made stale on purpose, is repaired), the index it leaves
// equals that rebuild, it reports the torn line, and its first append steps over it.
// Real kills seldom cut a line (a batch is one write call), so in some trials the crash is also
// made to leave a torn line (the first bytes of a line, no newline), to prove that path each run.
// In a third of the trials session/list runs in a loop beside the appends, so that kills land
// in index rewrites too; the project folder holds 150 other sessions so the index is big.
//
// The seed is printed: LCS_SEED=<seed> replays the same trial plans (the kill moments still
// depend on timing). LCS_CRASH_TRIALS=<n> changes the number of trials.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  mkdtempSync,
  mkdirSync,
  writeFileSync,
  appendFileSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  copyFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sidecar, cleanup } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';
import { projectSlug } from '../../server/store/slug.js';
import { doctor } from '../../server/maintenance/doctor.js';
import { figures, printFigures } from './figures.js';
import {
  SideFile,
  checkFile,
  indexTemps,
  makeEvent,
  prng,
  readIndex,
  rebuildEntries,
  rebuildListing,
  seedFromEnv,
  sha,
  type EventSpec,
  type Rng,
} from './harness.js';
import { projectCache } from '../../server/store/cache-dir.js';
import { at } from '../helpers/items.js';

const TRIALS = Number(process.env.LCS_CRASH_TRIALS ?? 200);
const CROWD = Number(process.env.LCS_CRASH_CROWD ?? 150);
const seed = seedFromEnv();

let base: string;
let root: string;
let project: string;
let dir: string;
let side: SideFile;

beforeAll(() => {
  process.stdout.write(`\n[reliability] crash: seed=${seed} trials=${TRIALS} (replay with LCS_SEED=${seed})\n`);
  base = mkdtempSync(join(tmpdir(), 'lcs-crash-'));
  root = join(base, 'store');
  project = join(base, 'project');
  mkdirSync(project);
  dir = join(root, projectSlug(project));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  side = new SideFile(join(base, 'acknowledged.jsonl'));
  // Other sessions of the project, written as plain files, so that index.json is ~100 KB.
  for (let i = 0; i < CROWD; i++) {
    const id = `2026-07-01T00-00-00-${i.toString(36).padStart(4, '0')}`;
    const meta = { kind: 'meta', v: 1, id, project, createdAt: '2026-07-01T00:00:00.000Z', title: null };
    const u = { kind: 'user', t: `2026-07-01T00:${String(i % 60).padStart(2, '0')}:00.000Z`, content: `crowd session ${i}` };
    writeFileSync(join(dir, `${id}.jsonl`), JSON.stringify(meta) + '\n' + JSON.stringify(u) + '\n', { mode: 0o600 });
  }
});

afterAll(async () => {
  await cleanup();
  printFigures('crash (SIGKILL of the sidecar mid-append and mid-index-write)');
  process.stdout.write(
    `[reliability] crash detail: seed=${seed} trials=${stats.trials} acknowledged=${stats.acked} lost=${stats.lost} ` +
      `unacknowledged-whole-lines=${stats.unacked} torn-by-kill=${stats.torn} torn-simulated=${stats.simulatedTears} torn-reported-and-stepped-over=${stats.tornReported} index-checks=${stats.indexChecks} ` +
      `stale-index-repaired=${stats.staleRepaired} index-temps-left=${stats.temps} list-loop-trials=${stats.listTrials} ` +
      `sessions=${stats.sessions} bytes-acknowledged=${stats.bytes}\n`,
  );
  if (base) rmSync(base, { recursive: true, force: true });
});

const stats = {
  trials: 0,
  acked: 0,
  lost: 0,
  unacked: 0,
  torn: 0,
  simulatedTears: 0,
  tornReported: 0,
  indexChecks: 0,
  staleRepaired: 0,
  temps: 0,
  listTrials: 0,
  sessions: 0,
  bytes: 0,
};

const killedPids: number[] = [];

/** What a test failure needs to know about a session's lock. */
function lockDiagnosis(id: string, sc: Sidecar, killed: number[]): string {
  const lock = join(dir, `${id}.jsonl.lock`);
  const names = readdirSync(dir).filter((n) => n.includes('.lock'));
  let owner = '(none)';
  try {
    owner = readFileSync(join(lock, 'owner.json'), 'utf8');
  } catch {
    /* none */
  }
  return `this sidecar: ${sc.child.pid}; killed before: ${killed.slice(-5).join(', ')}; lock files: ${names.join(', ')}; owner: ${owner}\nstderr:\n${sc.stderr.slice(-3000)}`;
}

/** Every line sent, acknowledged or not: `${tag}.${n}` -> sha-256. */
const sent = new Map<string, string>();

interface Plan {
  lineSize: () => number;
  batch: () => number;
  /** Kill after this many acknowledged appends of this trial... */
  afterAcks: number;
  /** ...and this many milliseconds more. */
  delayMs: number;
  listLoop: boolean;
}

function planTrial(r: Rng): Plan {
  // Mostly small and medium lines; one trial in nine writes lines of 1 to 2.5 MB (the bytes are
  // fsync'd: the large ones are most of the suite's time).
  const cls = r.pick(['small', 'small', 'small', 'small', 'small', 'medium', 'medium', 'medium', 'large'] as const);
  const lineSize =
    cls === 'small' ? () => r.int(50, 2_000) : cls === 'medium' ? () => r.int(10_000, 150_000) : () => r.int(1_000_000, 2_500_000);
  const batch = cls === 'small' ? () => r.int(1, 40) : cls === 'medium' ? () => r.int(1, 10) : () => r.int(1, 2);
  return {
    lineSize,
    batch,
    afterAcks: r.int(0, 4),
    delayMs: r.int(0, cls === 'large' ? 80 : cls === 'medium' ? 30 : 15),
    listLoop: r.chance(1 / 3),
  };
}

/** Makes the index stale (or worse) behind every sidecar's back, the way other processes could. */
function spoilIndex(r: Rng, snapshot: string): string {
  const what = r.pick(['grow-other', 'old-copy', 'delete', 'garbage', 'truncated'] as const);
  const idx = projectCache(dir, 'index.json');
  if (what === 'grow-other') {
    // Another writer appends to a session nobody holds (the CLI would do the same).
    const i = r.int(0, CROWD - 1);
    const id = `2026-07-01T00-00-00-${i.toString(36).padStart(4, '0')}`;
    appendFileSync(
      join(dir, `${id}.jsonl`),
      JSON.stringify({ kind: 'user', t: new Date().toISOString(), content: `grown ${r.int(0, 1e9)}` }) + '\n',
    );
  } else if (what === 'old-copy') {
    if (existsSync(snapshot)) copyFileSync(snapshot, idx);
  } else if (what === 'delete') {
    rmSync(idx, { force: true });
  } else if (what === 'garbage') {
    writeFileSync(idx, '{"about":"x","format":1,"entries":[{"id":', { mode: 0o600 });
  } else {
    writeFileSync(idx, '', { mode: 0o600 });
  }
  return what;
}

describe('SIGKILL of the sidecar at random moments', () => {
  it(`loses no acknowledged event and never leaves a half-written index (${TRIALS} kills)`, async () => {
    const _rng = prng(seed);
    const snapshot = join(base, 'index-snapshot.json');
    let id: string | undefined;
    let trialsLeftOnSession = 0;
    let tornTail = false;
    let fragments = 0;
    let positions = 0;
    let spoiled: string | undefined;
    for (let trial = 0; trial < TRIALS; trial++) {
      const r = prng((seed ^ Math.imul(trial + 1, 0x9e3779b9)) >>> 0);
      const plan = planTrial(r);
      const tag = `t${trial}`;
      const sc = new Sidecar({ root, env: { LEVELCODE_SESSIONS_LOG: 'warn' } });
      let killed = false;
      try {
        await sc.initialize();
        // -- what the previous kill left, seen through a fresh sidecar ------------------------
        const listed = await sc.call(P.sessionList, { project, limit: 1000 });
        const rebuilt = await rebuildListing(dir);
        // `view` is what a row shows, made from these fields at answer time (listing/view.ts).
        expect(
          listed.sessions.map(({ view: _view, ...row }) => row),
          `trial ${trial}: the listing equals a rebuild from the files (index was ${spoiled ?? 'as the kill left it'})`,
        ).toEqual(rebuilt);
        expect(listed.problems.filter((p) => !/index\.json is corrupt/.test(p.message))).toEqual([]);
        if (spoiled) stats.staleRepaired++;
        // The index that list left behind is the rebuild, entry for entry.
        expect(readIndex(dir)?.entries, `trial ${trial}: index.json after the list`).toEqual(await rebuildEntries(dir));
        stats.indexChecks++;
        if (id) {
          expect(listed.sessions.map((s) => s.id)).toContain(id);
          const read = await sc.call(P.sessionRead, { id, tail: 3 });
          if (tornTail) {
            // The next open reports the torn line (1-based line number in the file).
            expect(read.problems.map((p) => p.message).join('\n'), `trial ${trial}: torn line reported`).toMatch(/torn last line/);
            expect(read.problems.find((p) => /torn last line/.test(p.message))?.line, 'its line number in the file').toBe(positions + 1);
            stats.tornReported++;
          }
          // What the sidecar reads back is the JSON that was sent.
          const acked = side.acknowledged(id);
          for (const { seq, event } of read.events) {
            const want = acked.get(seq);
            if (want) expect(sha(JSON.stringify(event)), `trial ${trial}: read back seq ${seq}`).toBe(want.sha);
          }
        }
        // -- a new session now and then (keeps files small enough to check every trial) ----
        if (!id || trialsLeftOnSession <= 0 || statSync(join(dir, `${id}.jsonl`)).size > 16 * 1024 * 1024) {
          const created = await sc.call(P.sessionNew, { project });
          id = created.id;
          trialsLeftOnSession = r.int(5, 15);
          tornTail = false;
          fragments = 0;
          positions = 0;
          stats.sessions++;
        }
        trialsLeftOnSession--;
        if (plan.listLoop) stats.listTrials++;
        // -- append until killed ---------------------------------------------------------------
        const sid = id;
        let acks = 0;
        let n = 0;
        let armed = false;
        let firstAppend = true;
        const arm = () => {
          if (armed) return;
          armed = true;
          setTimeout(() => {
            killed = true;
            sc.child.kill('SIGKILL');
          }, plan.delayMs);
        };
        const stdoutClosed = new Promise<void>((res) => sc.child.stdout!.once('close', () => res()));
        const appendLoop = async () => {
          while (!killed) {
            const count = plan.batch();
            const specs: EventSpec[] = [];
            for (let k = 0; k < count; k++) specs.push({ tag, n: n++, size: plan.lineSize(), shape: r.int(0, 3) });
            const events = specs.map(makeEvent);
            const lines = events.map((e) => JSON.stringify(e));
            specs.forEach((s, k) => sent.set(`${s.tag}.${s.n}`, sha(at(lines, k))));
            const pending = sc.conn.sendRequest('session/append', { id: sid, events });
            if (plan.afterAcks === 0) arm();
            let res: { appended: number; firstSeq: number; lastSeq: number };
            try {
              res = (await pending) as typeof res;
            } catch (e) {
              if (killed) return;
              throw new Error(`trial ${trial}: append failed: ${(e as Error).message}\n${lockDiagnosis(sid, sc, killedPids)}`);
            }
            // Acknowledged (even if the kill is already on its way: it was fsync'd first).
            expect(res.appended).toBe(count);
            expect(res.lastSeq - res.firstSeq + 1).toBe(count);
            side.record(sid, res, specs, lines);
            stats.bytes += lines.reduce((a, l) => a + Buffer.byteLength(l), 0);
            if (firstAppend) {
              // The first append of a trial starts right after every line the crash left, a torn
              // fragment included (it keeps its position: the append stepped over it).
              firstAppend = false;
              expect(res.firstSeq, `trial ${trial}: first seq after the crash`).toBe(positions);
            }
            if (++acks >= plan.afterAcks) arm();
          }
        };
        const listLoop = async () => {
          while (!killed) {
            try {
              await sc.conn.sendRequest('session/list', { project, limit: 1000 });
            } catch (e) {
              if (killed) return;
              throw e;
            }
          }
        };
        const loops = Promise.all([appendLoop(), plan.listLoop ? listLoop() : Promise.resolve()]).then(
          () => undefined,
          (e: unknown) => {
            killed = true;
            sc.child.kill('SIGKILL');
            return e;
          },
        );
        const exit = await sc.exited;
        killedPids.push(sc.child.pid!);
        // Answers already written before the kill are still read; then pending requests fail.
        await stdoutClosed;
        sc.conn.dispose();
        const failure = await loops;
        expect(exit.signal, `trial ${trial}: the sidecar died of the kill, not on its own:\n${sc.stderr}`).toBe('SIGKILL');
        if (failure) throw failure;
      } finally {
        if (!killed) sc.child.kill('SIGKILL');
        await sc.exited;
        sc.conn.dispose();
      }
      stats.trials++;
      figures.trials++;

      // -- after the kill: the files as the crash left them ------------------------------------
      // The index is never half-written: absent, or it parses.
      expect(() => readIndex(dir), `trial ${trial}: index.json parses`).not.toThrow();
      const temps = indexTemps(dir);
      if (temps.length > 0) {
        // Leftover temp files of an interrupted write are reported by doctor (and removed by --fix).
        stats.temps += temps.length;
        const report = await doctor(root);
        for (const t of temps)
          expect(
            report.findings.some((f) => f.path === join(dir, t) && /temporary index file/.test(f.message)),
            `doctor reports ${t}`,
          ).toBe(true);
        for (const t of temps) rmSync(join(dir, t), { force: true });
      }
      const acked = side.acknowledged(id!);
      const check = checkFile(join(dir, `${id}.jsonl`), acked, sent);
      expect(check.lost, `trial ${trial}: acknowledged events lost (seed ${seed})`).toEqual([]);
      expect(check.foreign, `trial ${trial}: lines nobody sent`).toEqual([]);
      expect(check.found).toBe(acked.size);
      // At most one torn line per crash.
      expect(check.fragments.length - fragments, `trial ${trial}: new torn lines`).toBeLessThanOrEqual(1);
      stats.torn += check.fragments.length - fragments;
      fragments = check.fragments.length;
      tornTail = check.tornTail;
      positions = check.positions;
      stats.lost += check.lost.length;
      figures.lost += check.lost.length;
      // Real kills almost never cut a line in two (one write() call per batch: the kernel copies
      // a few MB to the page cache in about a millisecond). So that the torn-line path is proven
      // every run, now and then the crash is made to have cut a line: the first bytes of a
      // line a writer sent, without its newline, as a power loss mid-write leaves it. The next
      // sidecar must report it and its first append must step over it (checked above).
      if (!tornTail && r.chance(0.15)) {
        const line = JSON.stringify(makeEvent({ tag: `${tag}-torn`, n: 0, size: r.int(10, 5000), shape: r.int(0, 3) }));
        appendFileSync(join(dir, `${id}.jsonl`), line.slice(0, r.int(1, line.length - 1)));
        tornTail = true;
        fragments++;
        positions++;
        stats.simulatedTears++;
      }
      // Spoil the index now and then: the next list must repair it.
      spoiled = undefined;
      if (r.chance(0.25)) spoiled = spoilIndex(r, snapshot);
      else if (r.chance(0.2) && existsSync(projectCache(dir, 'index.json'))) copyFileSync(projectCache(dir, 'index.json'), snapshot);
    }
    // Totals from the side file, over every session.
    const ids = readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl') && !f.startsWith('2026-07-01T00-00-00-'))
      .map((f) => f.slice(0, -6));
    let total = 0;
    let unacked = 0;
    for (const sid of ids) {
      const acked = side.acknowledged(sid);
      const c = checkFile(join(dir, `${sid}.jsonl`), acked, sent);
      expect(c.lost).toEqual([]);
      total += c.found;
      unacked += c.unacked;
    }
    expect(total).toBe(side.count());
    stats.acked = total;
    stats.unacked = unacked;
    figures.acknowledged += total;
    expect(stats.lost).toBe(0);
    expect(total).toBeGreaterThan(TRIALS);
    // Sanity of the plan: sizes up to megabytes were acknowledged.
    expect(statSync(join(base, 'acknowledged.jsonl')).size).toBeGreaterThan(0);
  }, 1_200_000);
});
