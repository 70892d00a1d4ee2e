// The import door under crashes and faults (issues 43 and 44): the real binary importing Claude
// Code sessions written in the tool's own format, killed with SIGKILL at random moments and
// between a batch's write and the ledger's update (strace injects the signal at the ledger's
// rename), into a full tmpfs, and fed a record nested 100,000 deep. A session is visible only
// with its events; the next run converges to the store an uninterrupted import writes; a full
// store is an error exit. Needs root (tmpfs) and strace; CI runs as root and installs strace.
// Prints the seed; replay with LCS_SEED=...

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerPath } from '../../server/import/ledger.js';
import { BIN } from '../helpers/sidecar.js';
import { prng, seedFromEnv } from './harness.js';

const SEED = seedFromEnv();
const base = mkdtempSync(join(tmpdir(), 'lcs-rel-import-'));

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('the reliability suite needs root (tmpfs mounts); CI runs as root');
  process.stderr.write(`import reliability: LCS_SEED=${SEED}\n`);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A Claude Code data folder with `n` sessions of about `bytes` each, in `projects` project folders. */
function claudeHome(dir: string, n: number, bytes: number, seed: number, projects = 4): string {
  const r = prng(seed);
  const home = join(dir, 'home');
  for (let i = 0; i < n; i++) {
    const cwd = join(dir, 'work', `p${i % projects}`);
    mkdirSync(cwd, { recursive: true });
    const folder = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(folder, { recursive: true });
    const sid = `${(0x10000000 + i).toString(16)}-0000-4000-8000-${String(seed).padStart(12, '0').slice(-12)}`;
    const lines: string[] = [];
    let parent: string | null = null;
    let t = Date.parse('2025-03-01T00:00:00Z') + i * 3_600_000;
    let size = 0;
    for (let k = 0; size < bytes; k++) {
      const uuid = `${sid.slice(0, 8)}-${k}`;
      const user = k % 2 === 0;
      const rec = {
        parentUuid: parent,
        isSidechain: false,
        userType: 'external',
        cwd,
        sessionId: sid,
        version: '2.0.14',
        type: user ? 'user' : 'assistant',
        message: user
          ? { role: 'user', content: `question ${k} ${'x'.repeat(r.int(20, 2000))}` }
          : {
              role: 'assistant',
              model: 'claude-sonnet-4-5',
              content: [{ type: 'text', text: `answer ${k} ${'y'.repeat(r.int(20, 4000))}` }],
            },
        uuid,
        timestamp: new Date((t += 1000)).toISOString(),
      };
      const line = JSON.stringify(rec);
      lines.push(line);
      size += line.length + 1;
      parent = uuid;
    }
    writeFileSync(join(folder, `${sid}.jsonl`), lines.join('\n') + '\n');
  }
  return home;
}

function importEnv(home: string, cache: string) {
  return { ...process.env, HOME: home, LEVELCODE_SESSIONS_CACHE: cache, XDG_CACHE_HOME: cache };
}

function runImport(home: string, store: string, cache: string) {
  return spawnSync(process.execPath, [BIN, 'import', 'claude-code', '--dir', store], { env: importEnv(home, cache), encoding: 'utf8' });
}

/**
 * Every visible session file of a store, by name, with its bytes; the meta line's `importedAt`
 * (when that import ran: the one thing two runs write differently) is masked.
 */
function snapshot(store: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(store)) return out;
  for (const d of readdirSync(store, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    for (const f of readdirSync(join(store, d.name)))
      if (f.endsWith('.jsonl') && !f.startsWith('.'))
        out.set(`${d.name}/${f}`, readFileSync(join(store, d.name, f), 'utf8').replace(/"importedAt":"[^"]*"/, '"importedAt":"…"'));
  }
  return out;
}

/** Files of the store that a listing would show without an event (a 0-turn row). */
function withoutEvents(snap: Map<string, string>): string[] {
  return [...snap].filter(([, text]) => text.split('\n').filter(Boolean).length < 2).map(([k]) => k);
}

function hidden(store: string): string[] {
  if (!existsSync(store)) return [];
  return readdirSync(store, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(store, d.name)).filter((f) => f.includes('.importing-')));
}

describe('import under SIGKILL', () => {
  it('a session is visible only with its events, and the next run converges to an uninterrupted import', async () => {
    const dir = join(base, 'kill');
    const home = claudeHome(dir, 60, 60_000, SEED);
    const reference = join(dir, 'reference');
    const ref = runImport(home, reference, join(dir, 'ref-cache'));
    expect(ref.status, ref.stderr).toBe(0);
    const want = snapshot(reference);
    expect(want.size).toBe(60);
    const r = prng(SEED);
    const trials = Number(process.env.LCS_IMPORT_TRIALS ?? 8);
    let partial = 0;
    for (let i = 0; i < trials; i++) {
      const store = join(dir, `store-${i}`);
      const cache = join(dir, `cache-${i}`);
      const child = spawn(process.execPath, [BIN, 'import', 'claude-code', '--dir', store], {
        env: importEnv(home, cache),
        stdio: 'ignore',
      });
      const exited = new Promise((res) => child.once('exit', res));
      await Promise.race([exited, new Promise((res) => setTimeout(res, r.int(150, 1500)))]);
      child.kill('SIGKILL');
      await exited;
      const killed = snapshot(store);
      if (killed.size < want.size) partial++;
      expect(withoutEvents(killed), `trial ${i}: sessions without events after the kill`).toEqual([]);
      for (const [k, text] of killed) expect(text, `trial ${i}: ${k} is a prefix of the uninterrupted import`).toBe(want.get(k));
      const again = runImport(home, store, cache);
      expect(again.status, again.stderr).toBe(0);
      expect(snapshot(store)).toEqual(want);
      expect(hidden(store), 'hidden files of the killed run are swept').toEqual([]);
    }
    process.stderr.write(`import reliability: ${trials} kills, ${partial} mid-import\n`);
  });

  it('SIGKILL between a batch written and the ledger updated costs a re-read, never a duplicate', () => {
    if (spawnSync('strace', ['-V']).status !== 0) throw new Error('strace is missing (Debian: apt-get install -y strace)');
    const dir = join(base, 'ledger-kill');
    const home = claudeHome(dir, 20, 20_000, SEED + 1);
    const reference = join(dir, 'reference');
    expect(runImport(home, reference, join(dir, 'ref-cache')).status).toBe(0);
    const want = snapshot(reference);
    const store = join(dir, 'store');
    const cache = join(dir, 'cache');
    // The kill comes at the ledger's rename over imports.json, when the batch and History's
    // index entries are on disk and the ledger not yet written. strace (without -f: Node's main
    // thread only, where the ledger and the index files are renamed; the lock files are renamed
    // on other threads) counts renames, so the main thread's renames up to the ledger's are
    // counted first on another store from the same files (the same in every run: the index
    // writes all end before the ledger is saved).
    const ledgerFile = ledgerPath(store, importEnv(home, cache));
    const renames = ['-e', 'trace=rename,renameat,renameat2'];
    const strace = (extra: string[], out: string, s: string, c: string) =>
      spawnSync('strace', ['-qq', '-o', out, ...renames, ...extra, process.execPath, BIN, 'import', 'claude-code', '--dir', s], {
        env: importEnv(home, c),
        encoding: 'utf8',
      });
    const counted = join(dir, 'renames.txt');
    expect(strace([], counted, join(dir, 'count-store'), join(dir, 'count-cache')).status).toBe(0);
    const calls = readFileSync(counted, 'utf8')
      .split('\n')
      .filter((l) => /^rename/.test(l));
    const nth = calls.findIndex((l) => l.includes('imports.json"')) + 1;
    expect(nth, calls.join('\n')).toBeGreaterThan(0);
    const traced = strace([`-e`, `inject=rename,renameat,renameat2:signal=KILL:when=${nth}`], '/dev/null', store, cache);
    expect(traced.signal ?? traced.status).not.toBe(0);
    expect(existsSync(ledgerFile), 'no ledger yet').toBe(false);
    expect(
      readdirSync(dirname(ledgerFile)).some((f) => f.startsWith('imports.json.')),
      'its temp file is there',
    ).toBe(true);
    expect(snapshot(store)).toEqual(want);
    const again = runImport(home, store, cache);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/imported 0, updated 0, unchanged 20/);
    expect(snapshot(store)).toEqual(want);
  });
});

describe('import into a full store', () => {
  it('exits non-zero with an error, and leaves no session without its events', () => {
    const dir = join(base, 'full');
    const home = claudeHome(dir, 90, 100_000, SEED + 2);
    const store = join(dir, 'store');
    mkdirSync(store, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m,mode=0755', 'tmpfs', store]);
    try {
      const r = runImport(home, store, join(dir, 'cache'));
      expect(r.status, r.stdout + r.stderr).not.toBe(0);
      expect(r.stderr).toMatch(/error: .*(disk is full|ENOSPC)/);
      const snap = snapshot(store);
      expect(withoutEvents(snap)).toEqual([]);
      expect(hidden(store)).toEqual([]);
      for (const [k, text] of snap) expect(text.endsWith('\n'), `${k} ends with a whole line`).toBe(true);
    } finally {
      spawnSync('umount', ['-l', store]);
    }
  });
});

describe('any size, streamed', () => {
  it('a 600 MB line in a file over 512 MB is kept truncated with its size; the session is imported', async () => {
    const dir = join(base, 'huge');
    const home = claudeHome(dir, 1, 3000, SEED + 4);
    const folder = join(home, '.claude', 'projects');
    const sub = readdirSync(folder)[0]!;
    const file = join(folder, sub, readdirSync(join(folder, sub))[0]!);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    // Generated on the fly: a user record whose text is 600 MB, between the session's lines.
    const fd = openSync(file, 'w');
    writeSync(fd, lines[0] + '\n');
    const head = '{"type":"user","message":{"role":"user","content":"';
    writeSync(fd, head);
    const block = Buffer.alloc(8 << 20, 'z');
    const size = 600 << 20;
    for (let n = 0; n < size; n += block.length) writeSync(fd, block);
    writeSync(fd, '"}}\n');
    writeSync(fd, lines.slice(1).join('\n') + '\n');
    closeSync(fd);
    const store = join(dir, 'store');
    const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, BIN, 'import', 'claude-code', '--dir', store], {
      env: importEnv(home, join(dir, 'cache')),
      encoding: 'utf8',
    });
    rmSync(file);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/over the cap of \d+ bytes: kept truncated/);
    const peakKb = Number(r.stderr.trim().split('\n').pop());
    expect(peakKb, 'peak memory (KiB) far below the line').toBeLessThan(400 * 1024);
    const [text] = [...snapshot(store).values()];
    const events = text!
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l));
    expect(events.length).toBe(lines.length + 1);
    const marked = events.find((e) => e.raw?.$truncated);
    expect(marked.raw.$truncated.bytes).toBe(head.length + size + 3);
    expect(marked.raw.head.startsWith(head)).toBe(true);
  });
});

describe('a bad record', () => {
  it('nested 100,000 deep is reported and left out; the rest of the file is imported', () => {
    const dir = join(base, 'deep');
    const home = claudeHome(dir, 1, 3000, SEED + 3);
    const folder = join(home, '.claude', 'projects');
    const sub = readdirSync(folder)[0]!;
    const file = join(folder, sub, readdirSync(join(folder, sub))[0]!);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const deep = `{"type":"user","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    writeFileSync(file, [lines[0], deep, ...lines.slice(1)].join('\n') + '\n');
    const store = join(dir, 'store');
    const r = runImport(home, store, join(dir, 'cache'));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/left out .*nested deeper/);
    const [text] = [...snapshot(store).values()];
    expect(text!.trimEnd().split('\n').length).toBe(1 + lines.length);
  });
});
