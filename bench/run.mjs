#!/usr/bin/env node
// `npm run bench`: the figures of issue 9, each beside its baseline measured in the same run, on
// the corpus that bench/corpus.mjs writes. Every figure is the median with min and max over
// several runs, its ratio to the baseline, and peak memory: child processes are measured with
// `/usr/bin/time -v` (maximum resident set size), the sidecar with VmHWM from /proc/<pid>/status.
// Prints a table and writes the raw figures to bench/out/results-<date>.json (ignored by git).
//
// Drives only the public doors: the real binary (bin/levelcode-sessions.js, from dist/) and the
// real sidecar over stdio with vscode-jsonrpc. Needs a build (`npx tsc -p .`), the corpus
// (`npm run bench:corpus`), /usr/bin/time (Debian `time`) and rg (Debian `ripgrep`).
//
// The append, didChange and CPU figures append to one small session of the corpus (in its
// busiest project, so the index rewrite an append costs is the real one) and cut it back to its
// original size and mtime afterwards; bench/out/restore.json remembers how if a run dies.
//
// The import figures (first import, nothing new, 10 grown, store size, cold History, follow)
// come from bench/import.mjs on its own corpus (`--only import` runs them alone).
//
// Usage: node bench/run.mjs [--preset claude-scale] [--corpus DIR] [--runs N] [--only a,b]
//          [--cpu-seconds 60] [--word WORD] [--phrase PHRASE]
// Depends on node built-ins and vscode-jsonrpc (a dependency of the package already).

import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  mkdirSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, freemem, loadavg, totalmem, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(REPO, 'bin', 'levelcode-sessions.js');
const OUT = join(REPO, 'bench', 'out');
const RESTORE = join(OUT, 'restore.json');
const MB = 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Options

const { values: argv } = parseArgs({
  options: {
    preset: { type: 'string', default: 'claude-scale' },
    corpus: { type: 'string' },
    runs: { type: 'string', default: '5' },
    only: { type: 'string' },
    'cpu-seconds': { type: 'string', default: '60' },
    word: { type: 'string' },
    phrase: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (argv.help) {
  process.stdout.write(
    'node bench/run.mjs [--preset claude-scale] [--corpus DIR] [--runs N] [--only a,b] [--cpu-seconds 60] [--word WORD] [--phrase PHRASE]\n',
  );
  process.exit(0);
}
const ROOT = resolve(argv.corpus ?? join(OUT, `corpus-${argv.preset}`));
// The corpus's caches (cache-dir.ts): beside the corpus, never the user's cache folder. Every
// process the bench starts inherits it.
process.env.LEVELCODE_SESSIONS_CACHE ??= ROOT + '.cache';
const cacheDir = existsSync(join(REPO, 'dist', 'store', 'cache-dir.js'))
  ? await import(join(REPO, 'dist', 'store', 'cache-dir.js'))
  : undefined;
/** Where the cache `name` of the project folder `dir` of the corpus lives. */
const cacheOf = (dir, name) => (cacheDir ? cacheDir.projectCache(dir, name) : join(dir, name));
const RUNS = Math.max(1, Number(argv.runs));
const ONLY = argv.only ? new Set(argv.only.split(',')) : undefined;
const CPU_SECONDS = Number(argv['cpu-seconds']);
const want = (id) => !ONLY || ONLY.has(id);

/**
 * The environment the clients start the sidecar with (protocol.md, "Starting the sidecar"):
 * NODE_EXTRA_CA_CERTS empty, since Node parses the bundle it names at every start and the sidecar
 * opens no connection. Every sidecar here, and the startup figure's `node -e ''`, start so.
 */
const SIDECAR_ENV = { NODE_EXTRA_CA_CERTS: '' };
/**
 * The bundle this machine's environment names, if any. The CLI figures run in the environment as
 * given, as a person's shell would; with one set, they are measured without it too (detail), since
 * Node's start, which their targets include, is then mostly that bundle.
 */
const EXTRA_CA = process.env.NODE_EXTRA_CA_CERTS || '';

// ---------------------------------------------------------------------------------------------
// Measuring

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return null;
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], n: s.length, all: xs };
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/** Runs a command under /usr/bin/time -v, draining its output; wall time from spawn to exit. */
function timedOnce(cmd, args, o = {}) {
  const tf = join(tmpdir(), `lcs-bench-time-${process.pid}`);
  return new Promise((resolveP, reject) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-v', '-o', tf, cmd, ...args], {
      cwd: o.cwd ?? REPO,
      env: { ...process.env, ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = 0;
    let err = '';
    child.stdout.on('data', (b) => (out += b.length));
    child.stderr.on('data', (b) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      let peakKb = NaN;
      try {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(tf, 'utf8'));
        if (m) peakKb = Number(m[1]);
        unlinkSync(tf);
      } catch {
        /* no report */
      }
      if (code !== 0 && !o.anyExit) reject(new Error(`${cmd} ${args.join(' ').slice(0, 200)} exited ${code}: ${err.slice(0, 500)}`));
      else resolveP({ ms, peakMb: peakKb / 1024, outBytes: out });
    });
  });
}

async function timed(cmd, args, o = {}) {
  const runs = o.runs ?? RUNS;
  if (o.warmup !== false) {
    o.before?.();
    await timedOnce(cmd, args, o);
  }
  const ms = [];
  const peak = [];
  for (let i = 0; i < runs; i++) {
    o.before?.();
    const r = await timedOnce(cmd, args, o);
    ms.push(r.ms);
    peak.push(r.peakMb);
  }
  return { ms: stats(ms), peakMb: Math.max(...peak), peakMbAll: peak };
}

// ---------------------------------------------------------------------------------------------
// The sidecar, over real stdio

let rpc;
async function loadRpc() {
  rpc ??= await import('vscode-jsonrpc/node');
  return rpc;
}

class Sidecar {
  /** `o.summarize`: answers session/summarize (the client then advertises the callback);
   *  `o.root`: another store than the corpus. */
  static async start(env = {}, o = {}) {
    const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = await loadRpc();
    const s = new Sidecar();
    s.t0 = performance.now();
    s.child = spawn(process.execPath, [BIN, 'serve', '--stdio', '--dir', o.root ?? ROOT], {
      cwd: REPO,
      env: { ...process.env, ...SIDECAR_ENV, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    s.stderr = '';
    s.child.stderr.on('data', (b) => (s.stderr += b.toString()));
    s.exited = new Promise((r) => s.child.once('exit', r));
    s.conn = createMessageConnection(new StreamMessageReader(s.child.stdout), new StreamMessageWriter(s.child.stdin));
    s.child.stdin.on('error', () => {});
    s.listeners = new Set();
    s.conn.onNotification('session/didChange', (p) => {
      const at = performance.now();
      for (const l of s.listeners) l(p, at);
    });
    s.conn.onNotification('window/logMessage', () => {});
    if (o.summarize) s.conn.onRequest('session/summarize', o.summarize);
    // `o.progress(value)`: the client shows work-done progress; every $/progress value is passed on.
    if (o.progress) {
      s.conn.onRequest('window/workDoneProgress/create', () => null);
      s.conn.onNotification('$/progress', (p) => o.progress(p.value));
    }
    s.conn.listen();
    s.init = await s.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {
        window: { workDoneProgress: !!o.progress },
        experimental: { levelcodeSessions: { callbacks: o.summarize ? ['summarize'] : [] } },
      },
    });
    s.readyMs = performance.now() - s.t0;
    await s.conn.sendNotification('initialized', {});
    return s;
  }

  get pid() {
    return this.child.pid;
  }

  async call(method, params) {
    const t = performance.now();
    const r = await this.conn.sendRequest(method, params);
    return { ms: performance.now() - t, r };
  }

  /** Peak resident memory of the sidecar so far, MB. */
  hwmMb() {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  }

  /** utime + stime of the sidecar, in seconds. */
  cpuSeconds() {
    const s = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  }

  waitChange(pred, timeoutMs) {
    return new Promise((resolveP) => {
      const timer = setTimeout(() => {
        this.listeners.delete(l);
        resolveP(null);
      }, timeoutMs);
      const l = (p, at) => {
        if (!pred(p)) return;
        clearTimeout(timer);
        this.listeners.delete(l);
        resolveP(at);
      };
      this.listeners.add(l);
    });
  }

  async stop() {
    try {
      await Promise.race([
        (async () => {
          await this.conn.sendRequest('shutdown');
          await this.conn.sendNotification('exit');
        })(),
        sleep(5000).then(() => {
          throw new Error('shutdown timed out');
        }),
      ]);
    } catch {
      this.child.kill('SIGKILL');
    }
    await Promise.race([this.exited, sleep(5000)]);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    this.conn.dispose();
  }
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

// ---------------------------------------------------------------------------------------------
// The corpus and the scratch session

function loadManifest() {
  const file = ROOT + '.manifest.json';
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8'));
}

function indexFiles() {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => cacheOf(join(ROOT, d.name), 'index.json'));
}

/** A cold store: no folder's index.json (rebuilt by the listing). */
function deleteIndexes() {
  for (const f of indexFiles()) rmSync(f, { force: true });
}

/** The search cache (search/cache.ts) of the corpus, with its -wal and -shm. */
const searchCacheModule = existsSync(join(REPO, 'dist', 'search', 'cache.js'))
  ? await import(join(REPO, 'dist', 'search', 'cache.js'))
  : undefined;
const searchCacheFile = () => searchCacheModule.cacheFile(ROOT);
function searchIndexFiles() {
  if (!searchCacheModule) return [];
  const f = searchCacheFile();
  return [f, `${f}-wal`, `${f}-shm`].filter((x) => existsSync(x));
}

function deleteSearchIndexes() {
  for (const f of searchIndexFiles()) rmSync(f, { force: true });
}

/** Bytes of the search cache on disk (the database and its -wal). */
function searchIndexSize() {
  const files = searchIndexFiles().filter((f) => !f.endsWith('-shm'));
  return { bytes: files.reduce((n, f) => n + statSync(f).size, 0), folders: files.length };
}

/** Cuts the scratch session back to what the corpus wrote (after a run, or a run that died). */
function restoreScratch() {
  if (!existsSync(RESTORE)) return;
  const j = JSON.parse(readFileSync(RESTORE, 'utf8'));
  if (existsSync(j.file) && statSync(j.file).size > j.size) truncateSync(j.file, j.size);
  if (existsSync(j.file)) utimesSync(j.file, j.atimeMs / 1000, j.mtimeMs / 1000);
  rmSync(j.file + '.lock', { recursive: true, force: true });
  unlinkSync(RESTORE);
}

function guardScratch(file) {
  const st = statSync(file);
  writeFileSync(RESTORE, JSON.stringify({ file, size: st.size, atimeMs: st.atimeMs, mtimeMs: st.mtimeMs }) + '\n');
}

// One turn as an editor appends it: a user message, the agent loop with two tool calls, the answer.
function oneTurn(i) {
  const code = Array.from(
    { length: 120 },
    (_, k) => `  const v${k} = await store.read(id, { tail: ${k} }); // turn ${i} línea ${k} ✓`,
  ).join('\n');
  return [
    { kind: 'user', content: `Turn ${i}: make the refund handler idempotent, and add a test 🚀` },
    {
      kind: 'agent',
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading the handler first.' },
            { type: 'tool_use', id: `toolu_01bench${i}a`, name: 'Read', input: { file_path: 'src/refund.ts' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_01bench${i}a`, content: code }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: `toolu_01bench${i}b`, name: 'Bash', input: { command: 'npx vitest run test/refund' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: `toolu_01bench${i}b`, content: ' ✓ test/refund.test.ts (3 tests) 41ms\n'.repeat(40) },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Done: a Redis `SET NX` key per refund request.' }] },
      ],
    },
    {
      kind: 'assistant',
      content: [
        {
          type: 'text',
          text: 'Done: a Redis `SET NX` key per refund request.\n\n```ts\nawait redis.set(key, 1, { NX: true, EX: 86400 });\n```',
        },
      ],
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Figures

const figures = [];
/** Lines printed under the table: what a figure's detail says about its baseline or target. */
const notes = [];
function note(s) {
  notes.push(s);
  process.stderr.write(`  note: ${s}\n`);
}
function record(f) {
  figures.push(f);
  const o = f.ours;
  process.stderr.write(
    `  ${f.id}: ${f.na ? `n/a (${f.na})` : f.unit === '%' ? fmtPct(o.median) : `${fmtMs(o?.median)} (${fmtMs(o?.min)}–${fmtMs(o?.max)})` + (f.baseline ? ` vs ${fmtMs(f.baseline.median)}` : '')}${f.verdict ? ' ' + f.verdict : ''}\n`,
  );
}

function fmtMs(ms) {
  if (ms === undefined || ms === null || Number.isNaN(ms)) return '–';
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(1)} ms`;
}

function fmtPct(x) {
  return x === undefined || Number.isNaN(x) ? '–' : `${x.toFixed(2)} %`;
}

function verdict(ok) {
  return ok ? 'met' : 'MISSED';
}

const haveRpc = () => existsSync(join(REPO, 'dist', 'rpc', 'server.js'));
const haveSearch = () => existsSync(join(REPO, 'dist', 'search', 'search.js'));
const haveSearchIndex = () => existsSync(join(REPO, 'dist', 'search', 'cache.js'));
const haveWatch = () => existsSync(join(REPO, 'dist', 'store', 'watch.js'));
const cli = (...a) => [BIN, ...a, '--dir', ROOT];

async function figListCold() {
  const files = readdirSync(ROOT, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(ROOT, d.name))
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => join(ROOT, d.name, f)),
    );
  // Baseline: every session file read once (page cache warm, as for our run).
  const base = await timed('sh', ['-c', `cat "${ROOT}"/*/*.jsonl > /dev/null`]);
  const ours = await timed(process.execPath, cli('list', '--all', '--json'), { before: deleteIndexes });
  const ok = ours.ms.median / base.ms.median <= 4 && ours.peakMb < 200;
  record({
    id: 'list-cold',
    what: `History list, cold (no index.json anywhere), ${files.length} sessions`,
    baselineWhat: 'cat of every file to /dev/null',
    target: 'within 4x the baseline, peak under 200 MB',
    ours: ours.ms,
    peakMb: ours.peakMb,
    baseline: base.ms,
    baselinePeakMb: base.peakMb,
    ratio: ours.ms.median / base.ms.median,
    verdict: verdict(ok),
  });
}

async function figListWarm() {
  await timedOnce(process.execPath, cli('list', '--all', '--json')); // indexes up to date
  const base = await timed(process.execPath, ['-e', '']);
  const ours = await timed(process.execPath, cli('list', '--all', '--json'), { runs: Math.max(RUNS, 10) });
  const ok = ours.ms.median / base.ms.median <= 2;
  let without;
  if (EXTRA_CA) {
    const b = await timed(process.execPath, ['-e', ''], { env: SIDECAR_ENV });
    const o = await timed(process.execPath, cli('list', '--all', '--json'), { runs: Math.max(RUNS, 10), env: SIDECAR_ENV });
    without = { ours: o.ms, baseline: b.ms };
    note(
      `list-warm without NODE_EXTRA_CA_CERTS: ${fmtMs(o.ms.median)} (${fmtMs(o.ms.min)}–${fmtMs(o.ms.max)}), node -e '' ${fmtMs(b.ms.median)}`,
    );
  }
  record({
    id: 'list-warm',
    what: 'History list, warm, the whole list (`list --all --json`)',
    baselineWhat: "node -e ''",
    target: 'within 2x the baseline',
    ours: ours.ms,
    peakMb: ours.peakMb,
    baseline: base.ms,
    baselinePeakMb: base.peakMb,
    ratio: ours.ms.median / base.ms.median,
    ...(without && { detail: { withoutNodeExtraCaCerts: without } }),
    verdict: verdict(ok),
  });
}

async function withSidecar(env, fn, o = {}) {
  const s = await Sidecar.start(env, o);
  try {
    return await fn(s);
  } finally {
    await s.stop();
  }
}

async function figRpcList() {
  if (!haveRpc()) return record({ id: 'rpc-list', what: 'session/list in a running sidecar, warm', na: 'no sidecar in this build' });
  await withSidecar({}, async (s) => {
    for (let i = 0; i < 3; i++) await s.call('session/list', { all: true });
    const page = [];
    const whole = [];
    let rows = 0;
    for (let i = 0; i < Math.max(RUNS, 20); i++) {
      const a = await s.call('session/list', { all: true });
      page.push(a.ms);
      const b = await s.call('session/list', { all: true, limit: 1000 });
      whole.push(b.ms);
      rows = b.r.sessions.length;
    }
    const ours = stats(page);
    record({
      id: 'rpc-list',
      what: 'session/list inside a running sidecar, warm (first page, 100 rows; all projects)',
      target: 'under 10 ms',
      ours,
      peakMb: s.hwmMb(),
      detail: { limit1000: stats(whole), rowsOfLimit1000: rows },
      verdict: verdict(ours.median < 10),
    });
  });
}

/**
 * session/list while the sidecar builds its search cache for the first time (the cache removed
 * before it starts), against the same sidecar's list once the build is over: one call every
 * 100 ms, as a person scrolling History, for the whole build and then as many again.
 */
async function figRpcListBuild() {
  const id = 'rpc-list-build';
  if (!haveRpc() || !searchCacheModule)
    return record({ id, what: 'session/list during a first search build', na: 'no search cache in this build' });
  await timedOnce(process.execPath, cli('list', '--all', '--json')); // the listing's own caches warm
  deleteSearchIndexes();
  let phase = 'starting';
  const progress = (v) => {
    if (v.kind === 'begin' && /search/i.test(v.title ?? '')) phase = 'building';
    else if (v.kind === 'end' && phase === 'building') phase = 'built';
  };
  const during = [];
  const after = [];
  await withSidecar(
    {},
    async (s) => {
      const t0 = performance.now();
      await s.call('session/list', { all: true }); // the core loads; the build starts
      while (phase === 'starting' && performance.now() - t0 < 30_000) await sleep(10);
      const built0 = performance.now();
      while (phase === 'building') {
        during.push((await s.call('session/list', { all: true })).ms);
        await sleep(100);
      }
      const buildMs = performance.now() - built0;
      for (let i = 0; i < Math.max(20, Math.min(during.length, 100)); i++) {
        after.push((await s.call('session/list', { all: true })).ms);
        await sleep(100);
      }
      if (!during.length) throw new Error(`no build seen (${phase})`);
      const ours = stats(during);
      const base = stats(after);
      record({
        id,
        what: `session/list (first page, all projects) while the sidecar builds its search cache (${(buildMs / 1000).toFixed(0)} s, ${during.length} calls)`,
        baselineWhat: 'the same sidecar, the same call once the build is over',
        target: 'median within 2x the baseline (issue 39)',
        ours,
        p95: pct(during, 95),
        peakMb: s.hwmMb(),
        baseline: base,
        ratio: ours.median / base.median,
        detail: { buildMs, p95Baseline: pct(after, 95) },
        verdict: verdict(ours.median <= 2 * base.median),
      });
    },
    { progress },
  );
}

/**
 * The floor of any ack over JSON-RPC on this machine: the round trip of `params` to a second
 * Node process that runs vscode-jsonrpc alone and answers at once, with the append figure's
 * pause between requests (both processes idle, then woken, as an editor's sidecar is).
 */
/** `n` timed calls of `send` after one untimed, each followed by the append figure's 100 ms pause. */
async function pausedRoundTrips(send, n) {
  await send();
  const xs = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await send();
    xs.push(performance.now() - t0);
    await sleep(100);
  }
  return xs;
}

async function echoRoundTrips(params, n) {
  const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = await loadRpc();
  const server =
    "const r=require('vscode-jsonrpc/node');" +
    'const c=r.createMessageConnection(new r.StreamMessageReader(process.stdin),new r.StreamMessageWriter(process.stdout));' +
    "c.onRequest('echo',()=>({appended:3,firstSeq:0,lastSeq:2}));c.listen();";
  const child = spawn(process.execPath, ['-e', server], {
    cwd: REPO,
    env: { ...process.env, ...SIDECAR_ENV },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  conn.listen();
  try {
    return await pausedRoundTrips(() => conn.sendRequest('echo', { id: 'x', events: params }), n);
  } finally {
    conn.dispose();
    child.kill();
  }
}

/**
 * The floor of any ack over a pipe, with no library on either side: the round trip of the same
 * frame to a second Node process that finds the frame's end and writes a fixed answer, read the
 * same way here, with the same pauses.
 */
async function rawPipeRoundTrips(params, n) {
  const server =
    "let b=Buffer.alloc(0);process.stdin.on('data',(d)=>{b=Buffer.concat([b,d]);for(;;){const h=b.indexOf('\\r\\n\\r\\n');if(h<0)return;" +
    "const len=Number(/Content-Length: (\\d+)/.exec(b.toString('latin1',0,h))[1]);if(b.length<h+4+len)return;const m=JSON.parse(b.toString('utf8',h+4,h+4+len));" +
    "b=b.subarray(h+4+len);const o=JSON.stringify({jsonrpc:'2.0',id:m.id,result:{appended:3,firstSeq:0,lastSeq:2}});process.stdout.write('Content-Length: '+Buffer.byteLength(o)+'\\r\\n\\r\\n'+o)}});";
  const child = spawn(process.execPath, ['-e', server], {
    cwd: REPO,
    env: { ...process.env, ...SIDECAR_ENV },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let buf = Buffer.alloc(0);
  let waiting = null;
  child.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    const h = buf.indexOf('\r\n\r\n');
    if (h < 0) return;
    const len = Number(/Content-Length: (\d+)/.exec(buf.toString('latin1', 0, h))[1]);
    if (buf.length < h + 4 + len) return;
    const msg = JSON.parse(buf.toString('utf8', h + 4, h + 4 + len));
    buf = buf.subarray(h + 4 + len);
    waiting?.(msg);
  });
  let id = 0;
  const send = () =>
    new Promise((r) => {
      waiting = r;
      const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'session/append', params: { id: 'x', events: params } });
      child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  try {
    return await pausedRoundTrips(send, n);
  } finally {
    child.kill();
  }
}

function scratchSession(m) {
  // A small session in the busiest project folder: its index.json is the biggest to rewrite.
  const busiest = m.sessions.find((x) => x.huge).project;
  const c = m.sessions.filter((x) => x.project === busiest && !x.huge && x.bytes > 20_000 && x.bytes < 200_000);
  return c[0] ?? m.sessions.find((x) => !x.huge);
}

async function figAppend(m) {
  if (!haveRpc()) return record({ id: 'append', what: 'append: ack of one turn, fsync included', na: 'no sidecar in this build' });
  const scratch = scratchSession(m);
  const { serializeLine } = await import(join(REPO, 'dist', 'format', 'events.js'));
  guardScratch(scratch.file);
  try {
    await withSidecar({}, async (s) => {
      await s.call('session/append', { id: scratch.id, events: oneTurn(0) }); // takes ownership
      const ours = [];
      let bytes = 0;
      // A turn, then a pause (the editor waits for the model): both sides get the same pause.
      for (let i = 1; i <= Math.max(RUNS, 20); i++) {
        ours.push((await s.call('session/append', { id: scratch.id, events: oneTurn(i) })).ms);
        await sleep(100);
      }
      // For the reading of the ratio: the round trip of a request the sidecar refuses at once
      // (invalid params: no store work), which the in-process baseline does not pay.
      const noop = [];
      for (let i = 0; i < Math.max(RUNS, 20); i++) {
        const t0 = performance.now();
        await s.conn.sendRequest('session/read', { id: 'not-an-id' }).catch(() => {});
        noop.push(performance.now() - t0);
        await sleep(100);
      }
      // Baseline: the same bytes appended raw to a file beside it, then fsync.
      const raw = join(dirname(scratch.file), '.bench-raw-append');
      const base = [];
      try {
        for (let i = 0; i <= Math.max(RUNS, 20); i++) {
          const t = new Date().toISOString();
          const text = oneTurn(i)
            .map((e) => serializeLine({ ...e, t }) + '\n')
            .join('');
          bytes = Buffer.byteLength(text);
          const t0 = performance.now();
          const fh = await open(raw, 'a', 0o600);
          await fh.appendFile(text);
          await fh.sync();
          await fh.close();
          if (i > 0) base.push(performance.now() - t0);
          await sleep(100);
        }
      } finally {
        rmSync(raw, { force: true });
      }
      const o = stats(ours);
      const b = stats(base);
      const n = stats(noop);
      const echo = stats(await echoRoundTrips(oneTurn(0), Math.max(RUNS, 20)));
      const pipe = stats(await rawPipeRoundTrips(oneTurn(0), Math.max(RUNS, 20)));
      process.stderr.write(
        `  append: round trip of a refused request on the same sidecar: ${n.median.toFixed(2)} ms (${n.min.toFixed(2)}–${n.max.toFixed(2)} ms)\n`,
      );
      process.stderr.write(
        `  append: round trip of the same params to a bare vscode-jsonrpc echo process: ${echo.median.toFixed(2)} ms (${echo.min.toFixed(2)}–${echo.max.toFixed(2)} ms)\n`,
      );
      process.stderr.write(
        `  append: the same over a raw pipe, no library on either side: ${pipe.median.toFixed(2)} ms (${pipe.min.toFixed(2)}–${pipe.max.toFixed(2)} ms)\n`,
      );
      note(
        `append: an ack over a pipe cannot come before a round trip and the write: the raw pipe's ${fmtMs(pipe.median)} + the raw write's ${fmtMs(b.median)} = ${((pipe.median + b.median) / b.median).toFixed(2)}x the raw write; with vscode-jsonrpc's echo (${fmtMs(echo.median)}), ${((echo.median + b.median) / b.median).toFixed(2)}x`,
      );
      record({
        id: 'append',
        what: `append: ack of one turn (3 events, ${(bytes / 1024).toFixed(1)} KB) over session/append, fsync included`,
        baselineWhat: 'raw appendFile + fsync of the same bytes',
        target: 'at most 1.5x the baseline',
        ours: o,
        peakMb: s.hwmMb(),
        baseline: b,
        ratio: o.median / b.median,
        detail: { rpcRoundTripOfARefusedRequest: n, rpcRoundTripOfABareEcho: echo, roundTripOfARawPipe: pipe },
        verdict: verdict(o.median / b.median <= 1.5),
      });
    });
  } finally {
    restoreScratch();
  }
}

async function figResume(m) {
  const huge = [...m.sessions].sort((a, b) => b.bytes - a.bytes)[0];
  // Baseline: read the file and JSON.parse each line, keeping the events (what any loader must do).
  const script =
    "const fs=require('fs');const b=fs.readFileSync(process.argv[1]);const ev=[];let s=0;" +
    "for(;;){const n=b.indexOf(10,s);if(n<0)break;ev.push(JSON.parse(b.toString('utf8',s,n)));s=n+1}" +
    'if(ev.length<2)process.exit(1)';
  const base = await timed(process.execPath, ['-e', script, huge.file], { runs: Math.min(RUNS, 5) });
  if (!haveRpc()) {
    record({ id: 'resume', what: 'resume of the largest session', na: 'no sidecar in this build', baseline: base.ms });
    return;
  }
  // A fresh sidecar each time (nothing of the session read or cached), timed from the request
  // once the sidecar is ready: an editor starts it long before the user resumes, and its own
  // start is the `startup` figure. Ready = it has loaded what serves requests, which a request
  // refused at validation (no store work) waits for.
  const runOnce = async (contextWindow) =>
    withSidecar({}, async (s) => {
      await s.conn.sendRequest('session/read', { id: 'not-an-id' }).catch(() => {});
      const a = await s.call('session/resume', { id: huge.id, contextWindow });
      return {
        ms: a.ms,
        tier: a.r.tier,
        peakMb: s.hwmMb(),
        conv: a.r.conversation.length,
        agent: a.r.agentMessages.length,
        tokens: a.r.tokens,
      };
    });
  const full = [];
  let last;
  for (let i = 0; i < Math.min(RUNS, 5); i++) full.push((last = await runOnce(1_000_000_000)));
  const fo = stats(full.map((x) => x.ms));
  const fPeak = Math.max(...full.map((x) => x.peakMb));
  record({
    id: 'resume',
    what: `resume of the ${(huge.bytes / MB).toFixed(0)} MiB session, first time (fresh sidecar once ready, session/resume, tier ${last.tier})`,
    baselineWhat: 'read + JSON.parse of each line',
    target: 'within 1.3x the baseline and under 300 MB',
    ours: fo,
    peakMb: fPeak,
    baseline: base.ms,
    baselinePeakMb: base.peakMb,
    ratio: fo.median / base.ms.median,
    detail: { tier: last.tier, conversation: last.conv, agentMessages: last.agent, tokens: last.tokens },
    verdict: verdict(fo.median / base.ms.median <= 1.3 && fPeak < 300),
  });
  // From a compact event: a window whose budget holds the last briefing and what follows it.
  let w = 0;
  let probe;
  for (const cand of [500_000, 1_000_000, 2_000_000, 4_000_000, 8_000_000]) {
    try {
      probe = await runOnce(cand);
    } catch {
      continue;
    }
    if (probe.tier === 2) {
      w = cand;
      break;
    }
  }
  if (!w) {
    record({ id: 'resume-compact', what: 'resume from a compact event', na: 'no context window gave a tier-2 plan' });
    return;
  }
  const comp = [probe];
  for (let i = 1; i < Math.min(RUNS, 5); i++) comp.push(await runOnce(w));
  const co = stats(comp.map((x) => x.ms));
  const cPeak = Math.max(...comp.map((x) => x.peakMb));
  record({
    id: 'resume-compact',
    what: `resume of the same session from its last compact event (contextWindow ${w}, tier 2)`,
    baselineWhat: 'read + JSON.parse of each line',
    target: 'under 0.3 s',
    ours: co,
    peakMb: cPeak,
    baseline: base.ms,
    baselinePeakMb: base.peakMb,
    ratio: co.median / base.ms.median,
    detail: { contextWindow: w, tokens: probe.tokens },
    verdict: verdict(co.median < 300),
  });
}

/**
 * Compact-on-resume of the largest session into a 200k window (issue 29), through the summarize
 * callback with a summariser that answers at once: what the sidecar itself spends reading,
 * planning, cutting the head into pieces that fit, sending them and appending one compact event
 * a piece. The session is a copy of the largest one without its compact events, in a store of
 * its own (bench/out/pieces-store), so that the head is the whole session, as for a session
 * never compacted; the copy is cut back to its length after every run (appends only add bytes).
 */
async function figResumePieces(m) {
  const huge = [...m.sessions].sort((a, b) => b.bytes - a.bytes)[0];
  const store = join(OUT, 'pieces-store');
  rmSync(store, { recursive: true, force: true });
  const dir = join(store, basename(dirname(huge.file)));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, basename(huge.file));
  const lines = readFileSync(huge.file, 'utf8')
    .split('\n')
    .filter((l) => !l.startsWith('{"kind":"compact"'));
  writeFileSync(file, lines.join('\n'));
  lines.length = 0;
  const script =
    "const fs=require('fs');const b=fs.readFileSync(process.argv[1]);const ev=[];let s=0;" +
    "for(;;){const n=b.indexOf(10,s);if(n<0)break;ev.push(JSON.parse(b.toString('utf8',s,n)));s=n+1}" +
    'if(ev.length<2)process.exit(1)';
  const base = await timed(process.execPath, ['-e', script, file], { runs: Math.min(RUNS, 5) });
  if (!haveRpc()) return record({ id: 'resume-pieces', what: 'compact-on-resume in pieces', na: 'no sidecar in this build' });
  const size = statSync(file).size;
  const contextWindow = 200_000;
  const runOnce = async () => {
    let calls = 0;
    let largest = 0;
    let inputTokens = 0;
    const summarize = (p) => {
      calls++;
      largest = Math.max(largest, p.inputTokens ?? 0);
      inputTokens += p.inputTokens ?? 0;
      return { briefing: `Briefing through seq ${p.coversThrough}: the work so far, in a few lines.` };
    };
    try {
      return await withSidecar(
        {},
        async (s) => {
          await s.conn.sendRequest('session/read', { id: 'not-an-id' }).catch(() => {});
          const cpu0 = s.cpuSeconds();
          const a = await s.call('session/resume', { id: huge.id, contextWindow, confirm: true });
          return {
            ms: a.ms,
            cpuMs: (s.cpuSeconds() - cpu0) * 1000,
            tier: a.r.tier,
            peakMb: s.hwmMb(),
            calls,
            largest,
            inputTokens,
            tokens: a.r.tokens,
          };
        },
        { summarize, root: store },
      );
    } finally {
      truncateSync(file, size);
    }
  };
  const runs = [];
  for (let i = 0; i < Math.min(RUNS, 3); i++) runs.push(await runOnce());
  const last = runs.at(-1);
  const o = stats(runs.map((x) => x.ms));
  const peak = Math.max(...runs.map((x) => x.peakMb));
  record({
    id: 'resume-pieces',
    what: `compact-on-resume of the ${(size / MB).toFixed(0)} MiB session (no compact event) into a ${contextWindow / 1000}k window: ${last.calls} summarise calls answered at once (fresh sidecar once ready, tier ${last.tier})`,
    baselineWhat: 'read + JSON.parse of each line',
    target: 'within 1.5x the baseline and under 300 MB',
    ours: o,
    peakMb: peak,
    baseline: base.ms,
    baselinePeakMb: base.peakMb,
    ratio: o.median / base.ms.median,
    detail: {
      calls: last.calls,
      largestRequestTokens: last.largest,
      inputTokens: last.inputTokens,
      sidecarCpuMs: stats(runs.map((x) => x.cpuMs)),
      tokens: last.tokens,
    },
    verdict: verdict(o.median / base.ms.median <= 1.5 && peak < 300),
  });
}

async function figTail(m) {
  if (!haveRpc()) return record({ id: 'tail50', what: 'last 50 events (session/read tail 50)', na: 'no sidecar in this build' });
  const huge = [...m.sessions].sort((a, b) => b.bytes - a.bytes)[0];
  await withSidecar({}, async (s) => {
    // The baseline session: of the dozen sessions nearest 1 MiB, the one whose last 50 events
    // are nearest in size to the huge session's. The cost of a tail is that of the events it
    // answers (decoded, encoded, sent); comparing two sessions with tails of equal size asks
    // whether it grows with the session's size, which is the question.
    const answerBytes = async (id) => JSON.stringify((await s.call('session/read', { id, tail: 50 })).r).length;
    const hugeTail = await answerBytes(huge.id);
    const near = [...m.sessions]
      .filter((x) => x.id !== huge.id)
      .sort((a, b) => Math.abs(a.bytes - MB) - Math.abs(b.bytes - MB))
      .slice(0, 12);
    let small;
    let smallTail = 0;
    for (const c of near) {
      const n = await answerBytes(c.id);
      if (!small || Math.abs(n - hugeTail) < Math.abs(smallTail - hugeTail)) [small, smallTail] = [c, n];
    }
    const measure = async (id) => {
      for (let i = 0; i < 3; i++) await s.call('session/read', { id, tail: 50 });
      const xs = [];
      for (let i = 0; i < Math.max(RUNS, 20); i++) xs.push((await s.call('session/read', { id, tail: 50 })).ms);
      return stats(xs);
    };
    const o = await measure(huge.id);
    const b = await measure(small.id);
    const ratio = o.median / b.median;
    // The time per KB of answer, beside the plain ratio: a 1 MiB session's last 50 events
    // cannot weigh what the 134 MiB session's do, and the cost is that of the events answered.
    const perKb = o.median / hugeTail / (b.median / smallTail);
    process.stderr.write(
      `  tail50: answers of ${(hugeTail / 1024).toFixed(0)} and ${(smallTail / 1024).toFixed(0)} KB; per KB answered ${perKb.toFixed(2)}x\n`,
    );
    record({
      id: 'tail50',
      what: `last 50 events (session/read {tail: 50}) of the ${(huge.bytes / MB).toFixed(0)} MiB session`,
      baselineWhat: `the same on a ${(small.bytes / MB).toFixed(2)} MiB session (answers of ${(hugeTail / 1024).toFixed(0)} and ${(smallTail / 1024).toFixed(0)} KB)`,
      target: 'the same time: flat in session size',
      ours: o,
      peakMb: s.hwmMb(),
      baseline: b,
      ratio,
      detail: { answerBytes: hugeTail, baselineAnswerBytes: smallTail, baselineSession: small.id, ratioPerAnswerKb: perKb },
      // "The same": within 1.5x (per KB answered), or within 2 ms when both are tiny.
      verdict: verdict(ratio <= 1.5 || perKb <= 1.5 || o.median - b.median < 2),
    });
  });
}

const searchWord = (m) => argv.word ?? m.searchWord ?? 'idempotency';
const searchArgs = (word) => cli('search', word, '--all', '--json');

// One rg measurement for both search figures (search-cold and search), whichever runs first.
// rg reads the whole root: the sessions only (the caches live in the cache folder).
let searchBase;
function searchBaseline(word) {
  searchBase ??= timed('rg', ['-F', '-i', '-c', word, ROOT], { anyExit: true });
  return searchBase;
}

async function figSearchCold(m) {
  const word = searchWord(m);
  const base = await searchBaseline(word);
  if (!haveSearchIndex()) {
    record({ id: 'search-cold', what: `first search "${word}", no search cache`, na: 'no search index in this build', baseline: base.ms });
    return;
  }
  try {
    // Each run (the warm-up too) starts from a store whose folders have no search cache: the CLI
    // builds every folder's index, writes it, and answers.
    const ours = await timed(process.execPath, searchArgs(word), { runs: Math.min(RUNS, 5), before: deleteSearchIndexes });
    const ix = searchIndexSize();
    record({
      id: 'search-cold',
      what: `first search of a word ("${word}") across every session, no search cache anywhere (built and written by the run)`,
      baselineWhat: `rg -F -i -c ${word} over the same files`,
      target: 'within 45x the baseline, with progress (issue 26)',
      ours: ours.ms,
      peakMb: ours.peakMb,
      baseline: base.ms,
      baselinePeakMb: base.peakMb,
      ratio: ours.ms.median / base.ms.median,
      detail: { indexBytes: ix.bytes, indexFolders: ix.folders },
      verdict: verdict(ours.ms.median <= 45 * base.ms.median),
    });
  } finally {
    // Leave the index built, whatever happened above (the figure `search` measures it built).
    await timedOnce(process.execPath, searchArgs(word)).catch(() => {});
  }
}

async function figSearch(m) {
  const word = searchWord(m);
  const base = await searchBaseline(word);
  if (!haveSearch()) {
    record({ id: 'search', what: `search "${word}"`, na: 'no search core in this build', baseline: base.ms });
    return;
  }
  // Untimed: builds the search cache, or brings it up to date, so that the runs below
  // (timed() warms up once more) measure the search a user makes after the first.
  await timedOnce(process.execPath, searchArgs(word));
  const ours = await timed(process.execPath, searchArgs(word), { runs: Math.min(RUNS, 5) });
  const ix = haveSearchIndex() ? searchIndexSize() : undefined;
  const without = EXTRA_CA
    ? (await timed(process.execPath, searchArgs(word), { runs: Math.min(RUNS, 5), env: SIDECAR_ENV })).ms
    : undefined;
  if (without)
    note(
      `search without NODE_EXTRA_CA_CERTS: ${fmtMs(without.median)} (${fmtMs(without.min)}–${fmtMs(without.max)}), ${(without.median / base.ms.median).toFixed(2)}x rg`,
    );
  record({
    id: 'search',
    what: `search a word ("${word}") across every session (\`search WORD --all --json\`), the search cache built and current`,
    baselineWhat: `rg -F -i -c ${word} over the same files`,
    target: 'within 1.5x the baseline (issue 26)',
    ours: ours.ms,
    peakMb: ours.peakMb,
    baseline: base.ms,
    baselinePeakMb: base.peakMb,
    ratio: ours.ms.median / base.ms.median,
    ...((ix || without) && {
      detail: { ...(ix && { indexBytes: ix.bytes, indexFolders: ix.folders }), ...(without && { withoutNodeExtraCaCerts: without }) },
    }),
    verdict: verdict(ours.ms.median <= 1.5 * base.ms.median),
  });
}

/**
 * A two-word phrase from the search word's neighbourhood in the corpus (bench/corpus.mjs writes
 * the word into sentences), the search cache current: its words are looked up in the
 * index and the candidates checked for the phrase. Baseline: rg over the same files.
 */
async function figSearchPhrase(m) {
  const phrase = argv.phrase ?? `failing ${searchWord(m)}`;
  const base = await timed('rg', ['-F', '-i', '-c', phrase, ROOT], { anyExit: true });
  const args = cli('search', `"${phrase}"`, '--all', '--json');
  await timedOnce(process.execPath, args); // untimed: every index built and current
  const ours = await timed(process.execPath, args, { runs: Math.min(RUNS, 5) });
  record({
    id: 'search-phrase',
    what: `search a two-word phrase ("${phrase}") across every session, the search cache current`,
    baselineWhat: `rg -F -i -c "${phrase}" over the same files`,
    target: 'within 2x the baseline (issue 26)',
    ours: ours.ms,
    peakMb: ours.peakMb,
    baseline: base.ms,
    baselinePeakMb: base.peakMb,
    ratio: ours.ms.median / base.ms.median,
    verdict: verdict(ours.ms.median <= 2 * base.ms.median),
  });
}

/**
 * The MCP server's search tool beside the sidecar's session/search, on the same query: each in
 * its running server (warm: indexes built, the first calls untimed), the same word over every
 * project, 10 hits. The MCP answer also reads the hits' meta lines and renders the text.
 */
async function figMcpSearch(m) {
  const word = searchWord(m);
  const n = Math.max(RUNS, 10);
  const rpcMs = await withSidecar({}, async (s) => {
    for (let i = 0; i < 3; i++) await s.call('session/search', { query: word, all: true, limit: 10 });
    const ms = [];
    for (let i = 0; i < n; i++) ms.push((await s.call('session/search', { query: word, all: true, limit: 10 })).ms);
    return stats(ms);
  });
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--dir', ROOT],
    env: { ...process.env, ...SIDECAR_ENV },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'levelcode-bench', version: '1' });
  await client.connect(transport);
  try {
    const args = { query: word, project: 'all', limit: 10 };
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'search_sessions', arguments: args });
    const ms = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const r = await client.callTool({ name: 'search_sessions', arguments: args });
      ms.push(performance.now() - t);
      if (r.isError) throw new Error(`search_sessions: ${r.content[0]?.text}`);
    }
    const ours = stats(ms);
    record({
      id: 'mcp-search',
      what: `MCP tool search_sessions "${word}" over every project, 10 hits, in a running \`mcp\` server (warm)`,
      baselineWhat: 'session/search, same query and limit, in a running sidecar (warm)',
      target: 'none (reported beside session/search)',
      ours,
      baseline: rpcMs,
      ratio: ours.median / rpcMs.median,
    });
  } finally {
    await client.close();
  }
}

async function figStartup() {
  if (!haveRpc()) return record({ id: 'startup', what: 'sidecar start to initialize answered', na: 'no sidecar in this build' });
  // Node started as the sidecar is (SIDECAR_ENV), and, with a bundle set, as given.
  const base = await timed(process.execPath, ['-e', ''], { env: SIDECAR_ENV });
  const asGiven = EXTRA_CA ? await timed(process.execPath, ['-e', '']) : undefined;
  if (asGiven)
    note(
      `startup: node -e '' as this machine's environment starts it (NODE_EXTRA_CA_CERTS=${EXTRA_CA}): ${fmtMs(asGiven.ms.median)}; the clients start the sidecar with it empty`,
    );
  const xs = [];
  let peak = 0;
  for (let i = 0; i <= Math.max(RUNS, 10); i++) {
    const s = await Sidecar.start();
    if (i > 0) xs.push(s.readyMs);
    peak = Math.max(peak, s.hwmMb());
    await s.stop();
  }
  const o = stats(xs);
  record({
    id: 'startup',
    what: `sidecar start to initialize answered (store of ${m_sessions} sessions), started as the clients start it`,
    baselineWhat: "node -e '' (started the same way)",
    target: 'within 4x the baseline',
    ours: o,
    peakMb: peak,
    baseline: base.ms,
    baselinePeakMb: base.peakMb,
    ratio: o.median / base.ms.median,
    ...(asGiven && { detail: { nodeStartAsGiven: asGiven.ms } }),
    verdict: verdict(o.median / base.ms.median <= 4),
  });
}

async function appendRaw(file, line) {
  const fh = await open(file, 'a');
  try {
    await fh.appendFile(line);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function figDidChange(m, poll) {
  const id = poll ? 'didchange-poll' : 'didchange-watch';
  if (!haveRpc() || !haveWatch())
    return record({ id, what: 'didChange after another process appends', na: 'no sidecar or watcher in this build' });
  const scratch = scratchSession(m);
  const { serializeLine } = await import(join(REPO, 'dist', 'format', 'events.js'));
  guardScratch(scratch.file);
  try {
    await withSidecar(poll ? { LEVELCODE_SESSIONS_POLL: '1' } : {}, async (s) => {
      const mode = s.init?.capabilities?.experimental?.levelcodeSessions?.didChange;
      const n = poll ? Math.max(RUNS * 4, 20) : Math.max(RUNS * 8, 40);
      const lat = [];
      let missed = 0;
      await sleep(500);
      for (let i = 0; i < n; i++) {
        const line = serializeLine({ kind: 'event', t: new Date().toISOString(), type: 'checkpoint', n: i }) + '\n';
        const arrived = s.waitChange((p) => p.id === scratch.id, 5000);
        const t0 = performance.now(); // from the start of the other process's write
        await appendRaw(scratch.file, line);
        const at = await arrived;
        if (at === null) missed++;
        else lat.push(at - t0);
        await sleep(150 + ((i * 97) % 350)); // spread over the poll period
      }
      const o = stats(lat);
      const p95 = pct(lat, 95);
      const limit = poll ? 1000 : 100;
      record({
        id,
        what: `another process appends; didChange arrives (${poll ? 'polling fallback, LEVELCODE_SESSIONS_POLL=1' : 'fs.watch'}; mode ${mode ?? '?'}), p95`,
        target: poll ? 'p95 under 1 s' : 'p95 under 100 ms',
        ours: o,
        p95,
        missed,
        peakMb: s.hwmMb(),
        verdict: verdict(p95 < limit && missed === 0),
      });
    });
  } finally {
    restoreScratch();
  }
}

/**
 * Polling fallback, an append to a random (mostly idle) session each time: the poller stats
 * recently changed files every period but the others only once per sweep (a few periods), so
 * this is its worst case. Each session is cut back to its size and mtime right after.
 */
async function figDidChangePollRandom(m) {
  const id = 'didchange-poll-random';
  if (!haveRpc() || !haveWatch())
    return record({ id, what: 'didChange, polling, random sessions', na: 'no sidecar or watcher in this build' });
  const { serializeLine } = await import(join(REPO, 'dist', 'format', 'events.js'));
  const pool = m.sessions.filter((x) => !x.huge && x.bytes < 2_000_000);
  await withSidecar({ LEVELCODE_SESSIONS_POLL: '1' }, async (s) => {
    const n = Math.max(RUNS * 4, 20);
    const lat = [];
    let missed = 0;
    await sleep(500);
    for (let i = 0; i < n; i++) {
      const target = pool[(i * 7919 + 13) % pool.length];
      guardScratch(target.file);
      try {
        const line = serializeLine({ kind: 'event', t: new Date().toISOString(), type: 'checkpoint', n: i }) + '\n';
        const arrived = s.waitChange((p) => p.id === target.id, 5000);
        const t0 = performance.now();
        await appendRaw(target.file, line);
        const at = await arrived;
        if (at === null) missed++;
        else lat.push(at - t0);
      } finally {
        restoreScratch();
      }
      await sleep(150 + ((i * 97) % 350));
    }
    const o = stats(lat);
    const p95 = pct(lat, 95);
    record({
      id,
      what: 'another process appends to a random session; didChange arrives (polling fallback), p95',
      target: 'p95 under 1 s',
      ours: o,
      p95,
      missed,
      peakMb: s.hwmMb(),
      verdict: verdict(p95 < 1000 && missed === 0),
    });
  });
}

async function figCpu(m, poll) {
  const id = poll ? 'cpu-typing-poll' : 'cpu-typing';
  if (!haveRpc()) return record({ id, what: 'CPU while another process appends', na: 'no sidecar in this build' });
  const scratch = scratchSession(m);
  const { serializeLine } = await import(join(REPO, 'dist', 'format', 'events.js'));
  guardScratch(scratch.file);
  try {
    await withSidecar(poll ? { LEVELCODE_SESSIONS_POLL: '1' } : {}, async (s) => {
      await s.call('session/list', { all: true }); // an editor lists once when it opens History
      await sleep(1000);
      let changes = 0;
      s.listeners.add(() => changes++);
      const c0 = s.cpuSeconds();
      const t0 = performance.now();
      let i = 0;
      // Typing speed: one small append every 200 ms (5 a second), from this process.
      while (performance.now() - t0 < CPU_SECONDS * 1000) {
        await appendRaw(scratch.file, serializeLine({ kind: 'event', t: new Date().toISOString(), type: 'keystroke', n: i++ }) + '\n');
        await sleep(200);
      }
      const wall = (performance.now() - t0) / 1000;
      const cpu = s.cpuSeconds() - c0;
      const share = (100 * cpu) / wall;
      record({
        id,
        what: `sidecar CPU while another process appends 5 times a second for ${CPU_SECONDS} s (${poll ? 'polling' : 'fs.watch'})`,
        target: 'under 2% of a core',
        ours: { median: share, min: share, max: share, n: 1 },
        unit: '%',
        detail: { appends: i, didChange: changes, cpuSeconds: cpu, wallSeconds: wall },
        peakMb: s.hwmMb(),
        verdict: verdict(share < 2),
      });
    });
  } finally {
    restoreScratch();
  }
}

// ---------------------------------------------------------------------------------------------
// Machine, table, output

function machine() {
  const sh = (c) => spawnSync('sh', ['-c', c], { encoding: 'utf8' }).stdout.trim();
  return {
    date: new Date().toISOString(),
    nproc: Number(sh('nproc')),
    cpu: cpus()[0]?.model ?? sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"),
    memory: sh("free -h | sed -n 2p | awk '{print $2}'"),
    memoryBytes: totalmem(),
    freeBytes: freemem(),
    disk: sh(`df -h "${ROOT}" | tail -1 | awk '{print $1" "$2" ("$5" used)"}'`) + ` ${sh(`df -T "${ROOT}" | tail -1 | awk '{print $2}'`)}`,
    rotational: sh(
      'cat /sys/block/$(lsblk -no pkname $(df --output=source "' +
        ROOT +
        '" | tail -1) 2>/dev/null || echo vda)/queue/rotational 2>/dev/null',
    ),
    node: process.version,
    nodeExtraCaCerts: EXTRA_CA || null,
    kernel: sh('uname -r'),
    rg: sh('rg --version | head -1'),
    loadavgStart: loadavg(),
  };
}

function table(rows) {
  const head = ['figure', 'ours: median (min–max)', 'peak', 'baseline: median (min–max)', 'ratio', 'target', ''];
  const lines = rows.map((f) => {
    if (f.na) return [f.id, `n/a (${f.na})`, '', f.baseline ? `${fmtMs(f.baseline.median)}` : '', '', f.target ?? '', ''];
    const o = f.ours;
    const ours =
      f.unit === '%'
        ? fmtPct(o.median)
        : f.p95 !== undefined
          ? `p95 ${fmtMs(f.p95)}, median ${fmtMs(o.median)} (${fmtMs(o.min)}–${fmtMs(o.max)})`
          : `${fmtMs(o.median)} (${fmtMs(o.min)}–${fmtMs(o.max)})`;
    const base = f.baseline
      ? `${fmtMs(f.baseline.median)} (${fmtMs(f.baseline.min)}–${fmtMs(f.baseline.max)})${f.baselinePeakMb ? `, ${f.baselinePeakMb.toFixed(0)} MB` : ''}`
      : '';
    return [
      f.id,
      ours,
      Number.isFinite(f.peakMb) ? `${f.peakMb.toFixed(0)} MB` : '',
      base,
      f.ratio ? `${f.ratio.toFixed(2)}x` : '',
      f.target ?? '',
      f.verdict ?? '',
    ];
  });
  const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const fmt = (l) =>
    l
      .map((c, i) => String(c).padEnd(w[i]))
      .join('  ')
      .trimEnd();
  return [fmt(head), fmt(w.map((n) => '-'.repeat(n))), ...lines.map(fmt)].join('\n');
}

let m_sessions = 0;

/** The import figures (bench/import.mjs, issue 44), on their own corpus in the tools' formats. */
async function importFigures() {
  const { importFigures: run, importTable } = await import('./import.mjs');
  const res = await run({
    out: join(OUT, 'corpus-tools'),
    sessions: 2700,
    totalMb: 1100,
    projects: 500,
    seed: 2663,
    runs: Math.min(RUNS, 3),
    cpuSeconds: CPU_SECONDS,
  });
  process.stdout.write('\nimport (a Claude Code + Codex history in their own formats):\n' + importTable(res) + '\n');
}

async function main() {
  if (!existsSync(join(REPO, 'dist', 'cli', 'main.js'))) throw new Error('no build: run `npx tsc -p .` first');
  if (ONLY && ONLY.size === 1 && ONLY.has('import')) {
    await importFigures();
    return 0;
  }
  const m = loadManifest();
  if (!m || !existsSync(ROOT)) throw new Error(`no corpus at ${ROOT}: run \`npm run bench:corpus\` first`);
  for (const [tool, pkg] of [
    ['/usr/bin/time', 'time'],
    ['rg', 'ripgrep'],
  ])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      throw new Error(`${tool} is missing (Debian: apt-get install -y ${pkg})`);
  mkdirSync(OUT, { recursive: true });
  restoreScratch();
  m_sessions = m.sessions.length;
  const mach = machine();
  process.stderr.write(
    `bench: ${m.sessions.length} sessions, ${(m.bytes / MB).toFixed(0)} MiB at ${ROOT}; ${RUNS} runs a figure; load ${mach.loadavgStart.map((x) => x.toFixed(2)).join(' ')}\n`,
  );
  const t0 = performance.now();
  const steps = [
    ['list-cold', () => figListCold()],
    ['list-warm', () => figListWarm()],
    ['rpc-list', () => figRpcList()],
    ['rpc-list-build', () => figRpcListBuild()],
    ['append', () => figAppend(m)],
    ['resume', () => figResume(m)],
    ['resume-pieces', () => figResumePieces(m)],
    ['tail50', () => figTail(m)],
    ['search-cold', () => figSearchCold(m)],
    ['search', () => figSearch(m)],
    ['search-phrase', () => figSearchPhrase(m)],
    ['mcp-search', () => figMcpSearch(m)],
    ['startup', () => figStartup()],
    ['didchange-watch', () => figDidChange(m, false)],
    ['didchange-poll', () => figDidChange(m, true)],
    ['didchange-poll-random', () => figDidChangePollRandom(m)],
    ['cpu-typing', () => figCpu(m, false)],
    ['cpu-typing-poll', () => figCpu(m, true)],
  ];
  for (const [id, fn] of steps) {
    if (!want(id) && !(id === 'resume' && want('resume-compact'))) continue;
    try {
      await fn();
    } catch (e) {
      record({ id, what: id, na: `failed: ${(e.message ?? String(e)).split('\n')[0].slice(0, 160)}` });
    }
  }
  if (want('import')) await importFigures();
  // Leave every index warm, as a user's store would be.
  await timedOnce(process.execPath, cli('list', '--all', '--json')).catch(() => {});
  mach.loadavgEnd = loadavg();
  const result = {
    machine: mach,
    corpus: {
      root: ROOT,
      preset: m.preset,
      seed: m.seed,
      generator: m.generator,
      sessions: m.sessions.length,
      bytes: m.bytes,
      largest: Math.max(...m.sessions.map((s) => s.bytes)),
    },
    runs: RUNS,
    elapsedSeconds: (performance.now() - t0) / 1000,
    figures,
    notes,
  };
  const file = join(OUT, `results-${mach.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(result, null, 1) + '\n');
  process.stdout.write('\n' + table(figures) + '\n\n');
  if (notes.length) process.stdout.write(notes.map((n) => `- ${n}`).join('\n') + '\n\n');
  process.stdout.write(
    `${mach.nproc} cores (${mach.cpu}), ${mach.memory} RAM, ${mach.disk}, Node ${mach.node}${EXTRA_CA ? ` (NODE_EXTRA_CA_CERTS=${EXTRA_CA})` : ''}; load average ${mach.loadavgStart[0].toFixed(2)} at start, ${mach.loadavgEnd[0].toFixed(2)} at end\nraw figures: ${file}\n`,
  );
  return 0;
}

main().then(
  (c) => process.exit(c),
  (e) => {
    try {
      restoreScratch();
    } catch {
      /* reported below */
    }
    process.stderr.write(`bench: ${e.message}\n`);
    process.exit(1);
  },
);
