// Hostile sources, fuzzed (issue 43): random trees of symlinks (to outside folders and files
// carrying a marker, to loops, dangling), FIFOs, unreadable folders and huge files planted among
// real tools' folders (Claude Code, Qwen, opencode, Codex), then a real `import TOOL` run as an
// unprivileged user (so that an unreadable folder is unreadable; CI runs as root) and bounded in
// time. Each trial imports the clean tree first, plants, and imports the planted tree into a
// fresh store; it asserts:
//   - escapes: no byte from outside the tool's root (the marker) reaches the store or a cache;
//   - hangs: no run exceeds HANG_MS (a generous bound that detects a wait on a FIFO, not speed);
//   - empty sessions: no session file of the store holds a meta line and no event;
//   - lost events: every session of the clean import has at least its events in the planted one.
// Prints `[reliability] hostile sources: trials=N escapes=N hangs=N empty=N lost=N seed=S`.
// LCS_SEED replays a run; LCS_FUZZ_TRIALS sets how many trials (default 24).
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng, seedFromEnv, type Rng } from './harness.js';
import { cli, copyFixture, escapes, filesUnder, FIXTURES, markTree, MARKER, sandbox, type Sandbox } from './door.js';

const seed = seedFromEnv();
const TRIALS = Number(process.env.LCS_FUZZ_TRIALS ?? 24);
const NOBODY = 65534;
const counts = { trials: 0, escapes: 0, hangs: 0, empty: 0, lost: 0, planted: 0 };
const boxes: Sandbox[] = [];
afterAll(() => {
  process.stdout.write(
    `\n[reliability] hostile sources: trials=${counts.trials} escapes=${counts.escapes} hangs=${counts.hangs} ` +
      `empty=${counts.empty} lost=${counts.lost} planted=${counts.planted} seed=${seed}\n`,
  );
  for (const b of boxes) {
    execFileSync('chmod', ['-R', 'u+rwx', b.dir]);
    rmSync(b.dir, { recursive: true, force: true });
  }
});

interface Tool {
  name: string;
  /** Lays out the tool's folder under home; returns its root. */
  layout(home: string): string;
}

const TOOLS: Tool[] = [
  {
    name: 'claude-code',
    layout(home) {
      const folder = join(home, '.claude', 'projects', '-tmp-demo');
      mkdirSync(folder, { recursive: true });
      cpSync(join(FIXTURES, 'claude-code', 'as_subagent_layout'), folder, { recursive: true });
      cpSync(join(FIXTURES, 'claude-code', 'real-2.0.77', 'projects', '-tmp-levelcode-fixture-demo'), folder, { recursive: true });
      return join(home, '.claude');
    },
  },
  {
    name: 'qwen',
    layout(home) {
      const root = join(home, '.qwen');
      copyFixture(join('qwen', 'real-0.15.10', 'projects'), join(root, 'projects'));
      return root;
    },
  },
  {
    name: 'opencode',
    layout(home) {
      const root = join(home, '.local', 'share', 'opencode');
      copyFixture(join('opencode', 'as_storage_v2_small'), join(root, 'storage'));
      return root;
    },
  },
  {
    name: 'codex',
    layout(home) {
      const root = join(home, '.codex');
      const day = join(root, 'sessions', '2026', '01', '01');
      mkdirSync(day, { recursive: true });
      for (const f of ['localpush_rollout_short.jsonl', 'localpush_rollout_interrupted_small.jsonl'])
        cpSync(join(FIXTURES, 'codex', f), join(day, `rollout-2026-01-01T00-00-0${f.length % 10}-${f.length}.jsonl`));
      return root;
    },
  },
];

/** Every folder under `dir` (links not followed), `dir` included. */
function folders(dir: string, out: string[] = []): string[] {
  out.push(dir);
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (lstatSync(p).isDirectory()) folders(p, out);
  }
  return out;
}

const NAMES = ['subagents', 'chats', 'part', 'message', 'session', 'storage', 'projects', '2026', 'sessions', '-tmp-x'];
const uuid = (r: Rng) => [8, 4, 4, 4, 12].map((n) => Array.from({ length: n }, () => '0123456789abcdef'[r.int(0, 15)]).join('')).join('-');
/** Names the tree already uses (its files without extension, its folders): where importers look by name. */
function namesOf(root: string): string[] {
  return filesUnder(root)
    .map((f) => f.path.slice(f.path.lastIndexOf('/') + 1).replace(/\.[a-z]+$/, ''))
    .concat(folders(root).map((d) => d.slice(d.lastIndexOf('/') + 1)));
}

/** A name an importer of the tool would pick up: a session file, a folder it descends into (often one named after a file of the tree). */
function plantName(r: Rng, file: boolean, known: string[] = []): string {
  if (!file) return r.chance(0.5) && known.length ? r.pick(known)! : r.chance(0.5) ? r.pick(NAMES)! : uuid(r);
  return r.pick([
    `${uuid(r)}.jsonl`,
    `rollout-2026-01-01T00-00-00-${uuid(r)}.jsonl`,
    `msg_${r.int(0, 99)}.json`,
    `ses_${r.int(0, 99)}.json`,
  ])!;
}

/** Plants 3 to 10 hostile things in random folders of the tool's tree; the outside folder holds marked copies. */
function plant(r: Rng, s: Sandbox, root: string): void {
  const outside = join(s.outside, `o${r.int(0, 1e9)}`);
  cpSync(root, outside, { recursive: true });
  markTree(outside);
  writeFileSync(join(outside, 'secret.jsonl'), `{"type":"user","marker":"${MARKER}"}\n`);
  const outsideFolders = folders(outside);
  const here = folders(root);
  const known = namesOf(root);
  const n = r.int(3, 10);
  for (let i = 0; i < n; i++) {
    let at = r.pick(here)!;
    const kind = r.int(0, 7);
    const name = plantName(r, kind !== 0 && kind !== 3 && kind !== 7, known);
    if (kind === 7) {
      at = join(at, r.chance(0.5) ? uuid(r) : r.pick(known)!); // a new folder holding a link by a name the tool reads
      try {
        mkdirSync(at);
      } catch {
        continue;
      }
    }
    const p = join(at, name);
    try {
      if (kind === 0 || kind === 7)
        symlinkSync(r.pick(outsideFolders)!, p); // a sub-folder leading outside
      else if (kind === 1)
        symlinkSync(join(outside, 'secret.jsonl'), p); // a file leading outside
      else if (kind === 2)
        execFileSync('mkfifo', [p]); // a FIFO where a file is read
      else if (kind === 3) {
        mkdirSync(p); // an unreadable folder
        writeFileSync(join(p, plantName(r, true)), '{}\n');
        chmodSync(p, 0o000);
      } else if (kind === 4) {
        // a huge file: many lines of a plausible record, 8 to 40 MB
        const line = `{"type":"user","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"${'x'.repeat(1000)}"}}\n`;
        writeFileSync(p, line.repeat(r.int(8, 40) * 1000));
      } else if (kind === 5)
        symlinkSync(at, p); // a loop
      else symlinkSync(join(s.dir, 'nowhere', name), p); // dangling
      counts.planted++;
    } catch {
      /* the name exists already: planted nothing */
    }
  }
}

/** Events of each session file of a store, by the session's source (tool path and id). */
function eventsBySource(store: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of filesUnder(store).filter((x) => x.path.endsWith('.jsonl') && !x.path.endsWith('relinks.jsonl'))) {
    const lines = f.bytes.toString('utf8').split('\n').filter(Boolean);
    let meta: { source?: { path?: string; id?: string; variant?: string } } = {};
    try {
      meta = JSON.parse(lines[0]!);
    } catch {
      /* a torn meta line: counted as empty below */
    }
    const key = `${meta.source?.path}#${meta.source?.id}#${meta.source?.variant ?? ''}`;
    out.set(key, lines.length - 1);
  }
  return out;
}

function forNobody(dir: string): void {
  chmodSync(dir, 0o755);
  execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
}

async function trial(r: Rng, t: number): Promise<void> {
  const s = sandbox('lcs-fuzz-');
  boxes.push(s);
  const tool = r.pick(TOOLS)!;
  const root = tool.layout(s.home);
  forNobody(s.dir);
  const run = (env: NodeJS.ProcessEnv) => cli(['import', tool.name, '--json'], env, { uid: NOBODY, gid: NOBODY, cwd: s.dir });
  const clean = await run(s.env);
  if (clean.hung) counts.hangs++;
  const before = eventsBySource(s.store);
  expect(before.size, `trial ${t} (${tool.name}): the clean tree imported nothing: ${clean.stderr}`).toBeGreaterThan(0);
  plant(r, s, root);
  const store = join(s.dir, 'store-planted');
  const cache = join(s.dir, 'cache-planted');
  mkdirSync(store);
  mkdirSync(cache);
  forNobody(store);
  forNobody(cache);
  const planted = await run({ ...s.env, LEVELCODE_SESSIONS_DIR: store, LEVELCODE_SESSIONS_CACHE: cache });
  if (planted.hung) counts.hangs++;
  const found = escapes({ ...s, store, cache });
  counts.escapes += found.length;
  const after = eventsBySource(store);
  for (const n of after.values()) if (n === 0) counts.empty++;
  for (const [k, n] of before) {
    const lost = Math.max(0, n - (after.get(k) ?? 0));
    if (lost && process.env.LCS_FUZZ_DEBUG) process.stdout.write(`lost ${lost} of ${k} (${tool.name}): ${planted.stdout.slice(0, 600)}\n`);
    counts.lost += lost;
  }
  counts.trials++;
  expect(found, `trial ${t} (${tool.name}) seed=${seed}: bytes from outside in ${found.join(', ')}`).toEqual([]);
  expect(planted.hung || clean.hung, `trial ${t} (${tool.name}) seed=${seed}: a run hung`).toBe(false);
}

describe('hostile sources (fuzz)', () => {
  it(`${TRIALS} random trees of links, FIFOs, unreadable folders and huge files: nothing from outside, no hang`, async () => {
    const r = prng(seed);
    for (let t = 0; t < TRIALS; t++) await trial(r, t);
    expect(counts.empty, `seed=${seed}`).toBe(0);
    expect(counts.lost, `seed=${seed}`).toBe(0);
  });
});
