// Shared pieces of the import-door tests (issue 43): a sandbox HOME with a store and a cache of
// its own, the real CLI run with a time bound (a run past it is killed and reported as hung, so a
// hang fails a test instead of freezing the suite), tools' folders laid out from the fixtures,
// an outside folder carrying a marker, and a scan of everything the store and caches hold for it.

import { spawn } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN } from '../helpers/sidecar.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/import/', import.meta.url));
/** Bytes no tool's folder holds: found in the store, they came from outside a tool's root. */
export const MARKER = 'OUTSIDE-THE-TOOL-ROOT-7c1e';
/** A run that takes longer waits on something (a FIFO): generous, it detects hangs, not slowness. */
export const HANG_MS = 30_000;

export interface Sandbox {
  dir: string;
  home: string;
  store: string;
  cache: string;
  outside: string;
  env: NodeJS.ProcessEnv;
}

export function sandbox(prefix = 'lcs-door-'): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const home = join(dir, 'home');
  const store = join(dir, 'store');
  const cache = join(dir, 'cache');
  const outside = join(dir, 'outside');
  for (const d of [home, store, cache, outside]) mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    LEVELCODE_SESSIONS_DIR: store,
    LEVELCODE_SESSIONS_CACHE: cache,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  return { dir, home, store, cache, outside, env };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  hung: boolean;
  ms: number;
}

/** The real CLI, killed after `bound` ms (hung: true). */
export function cli(
  args: string[],
  env: NodeJS.ProcessEnv,
  o: { cwd?: string; bound?: number; input?: string; uid?: number; gid?: number } = {},
): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, cwd: o.cwd, uid: o.uid, gid: o.gid, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hung = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, o.bound ?? HANG_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, hung, ms: Date.now() - started });
    });
    // A run may end before it reads its input (a usage error, a refusal): the pipe's EPIPE is
    // no failure of the test, whose answer is the exit code and what the run printed.
    child.stdin.on('error', () => {});
    child.stdin.end(o.input ?? '');
  });
}

/** Every regular file under `dir` (links not followed), with its bytes. */
export function filesUnder(dir: string, out: { path: string; bytes: Buffer }[] = []): { path: string; bytes: Buffer }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    const st = lstatSync(p);
    if (st.isDirectory()) filesUnder(p, out);
    else if (st.isFile()) out.push({ path: p, bytes: readFileSync(p) });
  }
  return out;
}

/** The files of the store and the caches that hold the marker (bytes from outside a tool's root). */
export function escapes(s: Sandbox): string[] {
  return [...filesUnder(s.store), ...filesUnder(s.cache)].filter((f) => f.bytes.includes(MARKER)).map((f) => f.path);
}

/** Copies a fixture folder to `dst`; with `mark`, every JSON record in it gains the marker. */
export function copyFixture(src: string, dst: string, mark = false): void {
  cpSync(join(FIXTURES, src), dst, { recursive: true });
  if (mark) markTree(dst);
}

/** Adds the marker to every JSON object of every .json/.jsonl file under `dir`. */
export function markTree(dir: string): void {
  for (const f of filesUnder(dir)) {
    const text = f.bytes.toString('utf8');
    if (f.path.endsWith('.jsonl'))
      writeFileSync(
        f.path,
        text
          .split('\n')
          .map((l) => (l.trim().startsWith('{') ? `{"marker":"${MARKER}",${l.trim().slice(1)}` : l))
          .join('\n'),
      );
    else if (f.path.endsWith('.json') && text.trim().startsWith('{'))
      writeFileSync(f.path, `{"marker":"${MARKER}",${text.trim().slice(1)}`);
  }
}
