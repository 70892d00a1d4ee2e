#!/usr/bin/env node
// The import figures of `npm run bench` (issue 44): a heavy user's history written in Claude
// Code's and Codex's own formats (the corpus below), imported by the real binary, each figure
// printed beside its baseline measured in the same run: `cat` of the same files, a `stat` walk
// of them plus Node's start, `node -e ''` plus reading 50 sessions' heads. The cold History is
// timed to its 50th row on the child's stdout (what a user waits for: the CLI prints a cold
// page first), with the whole process's time beside it for information.
//
// The corpus (seeded, deterministic): HOME/.claude/projects/<slug>/<uuid>.jsonl and
// HOME/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, records shaped as the tools write them (user
// prompts, assistant text, tool_use / tool_result with Claude Code's duplicated toolUseResult,
// Codex's envelope with function calls and event_msg lines), every session's cwd a real folder
// so the project-identity lookup runs as it would on a user's machine.
//
// Usage: node bench/import.mjs [--out DIR] [--sessions N] [--total-mb N] [--big-mb N] [--bin PATH]
//          [--runs N] [--cpu-seconds N] [--only a,b] [--json FILE]
// --big-mb sets the largest session's size (40 MB; peak memory must not follow it).
// --bin runs another build (the "before" figures: a copy of main's bin/ and dist/).
// Also called by bench/run.mjs (`--only import` there runs these figures alone).

import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The corpus

function rng(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    f: next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (a) => a[Math.floor(next() * a.length)],
    logn: (median, sigma) => {
      const u = Math.max(next(), 1e-12);
      return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next()));
    },
  };
}

const WORDS = (
  'the a to of and in is that it for on with as this be are we was not but by at from or have an can will ' +
  'function return value error test file module import export const let type interface class method request ' +
  'response session store index cache list append read write lock stream buffer parse line event server client ' +
  'refund order payment service handler config build compile deploy release branch commit merge query database ' +
  'idempotency backpressure café naïve 日本語 🚀 → retry timeout latency memory heap fix bug failing passing'
).split(' ');

function uuid(r) {
  const h = () => r.int(0, 0xffff).toString(16).padStart(4, '0');
  return `${h()}${h()}-${h()}-4${h().slice(1)}-a${h().slice(1)}-${h()}${h()}${h()}`;
}

function text(r, words) {
  const w = [];
  for (let i = 0; i < words; i++) w.push(r.pick(WORDS));
  return w.join(' ');
}

function output(r, bytes) {
  const lines = [];
  let n = 0;
  while (n < bytes) {
    const l = `${r.int(1, 999)}\t${text(r, r.int(3, 14))}`;
    lines.push(l);
    n += l.length + 1;
  }
  return lines.join('\n');
}

/** One Claude Code session of about `target` bytes. */
function claudeSession(r, file, cwd, startMs, target) {
  const sid = file.slice(file.lastIndexOf('/') + 1, -'.jsonl'.length);
  const fd = openSync(file, 'w');
  let bytes = 0;
  let t = startMs;
  let parent = null;
  const base = () => ({
    parentUuid: parent,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId: sid,
    version: '2.0.14',
    gitBranch: 'main',
  });
  const put = (rec) => {
    const line = JSON.stringify(rec) + '\n';
    writeSync(fd, line);
    bytes += Buffer.byteLength(line);
    parent = rec.uuid ?? parent;
    t += r.int(500, 20_000);
  };
  const ts = () => new Date(t).toISOString();
  while (bytes < target) {
    put({ ...base(), type: 'user', message: { role: 'user', content: text(r, r.int(8, 60)) }, uuid: uuid(r), timestamp: ts() });
    const tools = r.int(0, 4);
    for (let k = 0; k < tools && bytes < target; k++) {
      const id = `toolu_${uuid(r).replace(/-/g, '').slice(0, 24)}`;
      const command = `rg -n ${r.pick(WORDS)} src/`;
      put({
        ...base(),
        message: {
          id: `msg_${uuid(r).replace(/-/g, '')}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'tool_use', id, name: 'Bash', input: { command, description: text(r, 5) } }],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: r.int(3, 9000), cache_read_input_tokens: r.int(0, 90000), output_tokens: r.int(10, 900) },
        },
        requestId: `req_${uuid(r).replace(/-/g, '').slice(0, 24)}`,
        type: 'assistant',
        uuid: uuid(r),
        timestamp: ts(),
      });
      const out = output(r, Math.min(200_000, Math.round(r.logn(1500, 1.2))));
      put({
        ...base(),
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: out, is_error: false }] },
        uuid: uuid(r),
        timestamp: ts(),
        toolUseResult: { stdout: out, stderr: '', interrupted: false, isImage: false },
      });
    }
    put({
      ...base(),
      message: {
        id: `msg_${uuid(r).replace(/-/g, '')}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [{ type: 'text', text: text(r, r.int(20, 300)) }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: r.int(3, 9000), output_tokens: r.int(10, 900) },
      },
      requestId: `req_${uuid(r).replace(/-/g, '').slice(0, 24)}`,
      type: 'assistant',
      uuid: uuid(r),
      timestamp: ts(),
    });
  }
  closeSync(fd);
  return bytes;
}

/** One Codex rollout of about `target` bytes. */
function codexSession(r, file, id, cwd, startMs, target) {
  const fd = openSync(file, 'w');
  let bytes = 0;
  let t = startMs;
  const put = (type, payload) => {
    const line = JSON.stringify({ timestamp: new Date(t).toISOString(), type, payload }) + '\n';
    writeSync(fd, line);
    bytes += Buffer.byteLength(line);
    t += r.int(300, 15_000);
  };
  put('session_meta', {
    id,
    timestamp: new Date(t).toISOString(),
    cwd,
    originator: 'codex_cli_rs',
    cli_version: '0.46.0',
    instructions: null,
    git: { commit_hash: uuid(r).replace(/-/g, ''), branch: 'main' },
  });
  while (bytes < target) {
    put('turn_context', {
      cwd,
      approval_policy: 'on-request',
      sandbox_policy: { mode: 'workspace-write' },
      model: 'gpt-5-codex',
      summary: 'auto',
    });
    const prompt = text(r, r.int(8, 60));
    put('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] });
    put('event_msg', { type: 'user_message', message: prompt, images: [] });
    const calls = r.int(0, 4);
    for (let k = 0; k < calls && bytes < target; k++) {
      const call_id = `call_${uuid(r).replace(/-/g, '').slice(0, 24)}`;
      put('response_item', {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', `rg ${r.pick(WORDS)}`] }),
        call_id,
      });
      const out = output(r, Math.min(200_000, Math.round(r.logn(1500, 1.2))));
      put('response_item', {
        type: 'function_call_output',
        call_id,
        output: JSON.stringify({ output: out, metadata: { exit_code: 0, duration_seconds: 0.1 } }),
      });
    }
    const answer = text(r, r.int(20, 300));
    put('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] });
    put('event_msg', { type: 'agent_message', message: answer });
    put('event_msg', {
      type: 'token_count',
      info: { total_token_usage: { input_tokens: r.int(1000, 90000), output_tokens: r.int(10, 9000) } },
    });
  }
  closeSync(fd);
  return bytes;
}

/** Writes the corpus under `out` (HOME-like); returns its manifest. Same options, same bytes. */
export function writeToolCorpus(out, o) {
  const r = rng(o.seed);
  rmSync(out, { recursive: true, force: true });
  const home = join(out, 'home');
  const work = join(out, 'work');
  const projects = Array.from({ length: o.projects }, (_, i) => join(work, `proj-${i}-${text(r, 1).replace(/[^a-z]/g, 'x') || 'p'}`));
  for (const p of projects) mkdirSync(p, { recursive: true });
  // Session sizes: log-normal around a median, scaled to the total, plus two large ones.
  const big = [(o.bigMb ?? 40) * MB, 18 * MB];
  const raw = Array.from({ length: o.sessions - big.length }, () => r.logn(120_000, 1.3));
  const scale = (o.totalMb * MB - big.reduce((a, b) => a + b, 0)) / raw.reduce((a, b) => a + b, 0);
  const sizes = [...raw.map((x) => Math.max(2000, Math.round(x * scale))), ...big];
  const from = Date.parse('2025-01-06T08:00:00Z');
  const manifest = { home, sessions: [], bytes: 0, projects: projects.length };
  sizes.forEach((target, i) => {
    const startMs = from + Math.floor((i / sizes.length) * 330 * 86400_000) + r.int(0, 3600_000);
    const cwd = projects[Math.min(projects.length - 1, Math.floor(projects.length * r.f() ** 1.6))];
    const id = uuid(r);
    let file;
    let bytes;
    if (i % 5 === 4) {
      const d = new Date(startMs).toISOString();
      const dir = join(home, '.codex', 'sessions', d.slice(0, 4), d.slice(5, 7), d.slice(8, 10));
      mkdirSync(dir, { recursive: true });
      file = join(dir, `rollout-${d.slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`);
      bytes = codexSession(r, file, id, cwd, startMs, target);
    } else {
      const dir = join(home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
      mkdirSync(dir, { recursive: true });
      file = join(dir, `${id}.jsonl`);
      bytes = claudeSession(r, file, cwd, startMs, target);
    }
    manifest.sessions.push({ file, bytes, tool: i % 5 === 4 ? 'codex' : 'claude-code' });
    manifest.bytes += bytes;
  });
  writeFileSync(join(out, 'manifest.json'), JSON.stringify({ options: o, ...manifest }) + '\n');
  return manifest;
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** `lines`: also the time (`linesMs`) until that many lines were on the child's stdout. */
function timedOnce(cmd, args, env = {}, o = {}) {
  const tf = join(tmpdir(), `lcs-bench-import-time-${process.pid}`);
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const child = spawn('/usr/bin/time', ['-v', '-o', tf, cmd, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let out = '';
    let linesMs;
    let nl = 0;
    child.stdout.on('data', (b) => {
      out += b.toString();
      if (o.lines && linesMs === undefined) {
        for (const c of b) if (c === 10) nl++;
        if (nl >= o.lines) linesMs = performance.now() - t0;
      }
    });
    child.stderr.on('data', (b) => (err += b.toString()));
    child.on('error', rej);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      const rep = existsSync(tf) ? readFileSync(tf, 'utf8') : '';
      rmSync(tf, { force: true });
      const num = (re) => Number(re.exec(rep)?.[1] ?? NaN);
      res({
        ms,
        linesMs: linesMs ?? ms,
        code,
        out,
        err,
        peakMb: num(/Maximum resident set size \(kbytes\): (\d+)/) / 1024,
        user: num(/User time \(seconds\): ([\d.]+)/),
        sys: num(/System time \(seconds\): ([\d.]+)/),
      });
    });
  });
}

async function median(n, fn) {
  const xs = [];
  for (let i = 0; i < n; i++) xs.push(await fn());
  xs.sort((a, b) => a.ms - b.ms);
  return { ...xs[xs.length >> 1], min: xs[0].ms, max: xs[xs.length - 1].ms, n };
}

function duBytes(dir) {
  const r = spawnSync('du', ['-sb', dir], { encoding: 'utf8' });
  return Number(r.stdout.split('\t')[0]);
}

const load = () => loadavg()[0].toFixed(2);

/** Appends one Claude Code turn (a prompt and an answer) to a session file. */
function appendClaudeTurn(file, tag) {
  const last = JSON.parse(readFileSync(file, 'utf8').trimEnd().split('\n').pop());
  const u1 = `bench-${tag}-u`;
  const now = new Date().toISOString();
  appendFileSync(
    file,
    JSON.stringify({
      ...last,
      parentUuid: last.uuid,
      type: 'user',
      message: { role: 'user', content: `appended ${tag}` },
      uuid: u1,
      timestamp: now,
      requestId: undefined,
    }) +
      '\n' +
      JSON.stringify({
        ...last,
        parentUuid: u1,
        type: 'assistant',
        message: {
          id: `msg_${tag}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: `answer ${tag}` }],
        },
        uuid: `bench-${tag}-a`,
        timestamp: now,
      }) +
      '\n',
  );
}

export async function importFigures(o) {
  const bin = o.bin ?? join(REPO, 'bin', 'levelcode-sessions.js');
  const out = o.out;
  let m;
  if (existsSync(join(out, 'manifest.json'))) m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  if (
    !m ||
    m.options.sessions !== o.sessions ||
    m.options.totalMb !== o.totalMb ||
    m.options.seed !== o.seed ||
    (m.options.bigMb ?? 40) !== (o.bigMb ?? 40)
  ) {
    process.stderr.write(`bench/import: writing ${o.sessions} sessions, ~${o.totalMb} MB in Claude Code's and Codex's formats to ${out}\n`);
    m = writeToolCorpus(out, { sessions: o.sessions, totalMb: o.totalMb, seed: o.seed, projects: o.projects, bigMb: o.bigMb });
  }
  const home = m.home;
  const store = join(out, 'store');
  const cache = join(out, 'cache');
  const env = { HOME: home, LEVELCODE_SESSIONS_CACHE: cache, XDG_CACHE_HOME: join(out, 'xdg'), LEVELCODE_SESSIONS_DIR: store };
  const want = (id) => !o.only || o.only.has(id);
  const rows = [];
  const row = (x) => {
    rows.push(x);
    process.stderr.write(`  ${x.figure}: ${x.ours} | ${x.baseline ?? ''} | ${x.ratio ?? ''} | load ${x.load}\n`);
  };
  const files = m.sessions.map((s) => s.file);
  const listFile = join(out, 'files.txt');
  writeFileSync(listFile, files.join('\n') + '\n');
  const runs = o.runs;
  const sh = (c) => ['sh', ['-c', c]];

  // Baselines.
  const cat = await median(runs, () => timedOnce(...sh(`xargs -d '\\n' cat < '${listFile}' > /dev/null`)));
  const statWalk = await median(runs, () => timedOnce(...sh(`find '${home}' -type f -name '*.jsonl' -printf '%s %T@\\n' > /dev/null`)));
  const nodeStart = await median(runs, () => timedOnce(process.execPath, ['-e', '']));
  const importCmd = () => timedOnce(process.execPath, [bin, 'import', '--dir', store], env);
  const fmt = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
  const ratio = (a, b) => `${(a / b).toFixed(2)}x`;

  if (want('first')) {
    rmSync(store, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
    const l = load();
    const r = await importCmd();
    if (r.code !== 0) process.stderr.write(`  first import exited ${r.code}: ${r.err.slice(-600)}\n`);
    row({
      figure: 'first import',
      ours: `${fmt(r.ms)}, ${r.peakMb.toFixed(0)} MB peak (${r.user}s user + ${r.sys}s sys), exit ${r.code}`,
      baseline: `cat ${fmt(cat.ms)}`,
      ratio: ratio(r.ms, cat.ms),
      target: '≤ 10x cat, ≤ 250 MB',
      ok: r.ms <= 10 * cat.ms && r.peakMb <= 250,
      load: l,
      raw: r,
    });
    // What a new user sees next: History right after that first import (its index written by
    // the import), before anything else has listed.
    const first = await timedOnce(process.execPath, [bin, 'list', '--all', '--limit', '50', '--dir', store], env);
    row({
      figure: 'History right after the first import, first 50 rows',
      ours: `${fmt(first.ms)}, ${first.peakMb.toFixed(0)} MB`,
      baseline: `node -e '' ${fmt(nodeStart.ms)}`,
      ratio: ratio(first.ms, nodeStart.ms),
      target: '(as a warm listing)',
      ok: true,
      load: load(),
    });
    const src = m.bytes;
    const st = duBytes(store);
    row({
      figure: 'store size',
      ours: `${(st / MB).toFixed(0)} MB`,
      baseline: `source ${(src / MB).toFixed(0)} MB`,
      ratio: ratio(st, src),
      target: '≤ 1.15x',
      ok: st <= 1.15 * src,
      load: load(),
    });
  }
  if (want('again')) {
    const l = load();
    const r = await median(runs, importCmd);
    const base = statWalk.ms + nodeStart.ms;
    row({
      figure: 'import again, nothing new',
      ours: `${fmt(r.ms)} (${fmt(r.min)}–${fmt(r.max)}), ${r.peakMb.toFixed(0)} MB`,
      baseline: `stat walk ${fmt(statWalk.ms)} + node ${fmt(nodeStart.ms)}`,
      ratio: ratio(r.ms, base),
      target: '≤ 3x',
      ok: r.ms <= 3 * base,
      load: l,
    });
  }
  if (want('grew')) {
    const claude = m.sessions.filter((s) => s.tool === 'claude-code' && s.bytes < 4 * MB).slice(-10);
    const l = load();
    let k = 0;
    const r = await median(runs, async () => {
      k++;
      for (const s of claude) appendClaudeTurn(s.file, `grew-${Date.now()}-${k}`);
      return importCmd();
    });
    row({
      figure: 'import after 10 files grew',
      ours: `${fmt(r.ms)} (${fmt(r.min)}–${fmt(r.max)})`,
      baseline: '',
      ratio: '',
      target: '≤ 1 s',
      ok: r.ms <= 1000,
      load: l,
    });
  }
  if (want('cold-list')) {
    const cacheRoot = cache;
    const heads = m.sessions.slice(-50).map((s) => s.file);
    const headsFile = join(out, 'heads.txt');
    writeFileSync(headsFile, heads.join('\n') + '\n');
    const headScript = `const fs=require('fs');for(const f of fs.readFileSync(${JSON.stringify(headsFile)},'utf8').trim().split('\\n')){const fd=fs.openSync(f,'r');const b=Buffer.alloc(8192);fs.readSync(fd,b,0,8192,0);fs.closeSync(fd)}`;
    const base = await median(runs, () => timedOnce(process.execPath, ['-e', headScript]));
    const l = load();
    // Cold: every listing cache deleted; the import ledger (imports.json) is kept, as it is
    // not History's.
    const coldCaches = () => {
      for (const d of existsSync(cacheRoot) ? readdirSync(cacheRoot) : [])
        for (const f of readdirSync(join(cacheRoot, d)))
          if (f !== 'imports.json') rmSync(join(cacheRoot, d, f), { recursive: true, force: true });
    };
    // The figure is the time until the 50th row is on the child's stdout: what the user waits
    // for (the CLI prints a cold page first, then completes every index in the same process).
    // The whole process's time follows, for information: that is the index being built.
    const runsOf = [];
    await median(runs, async () => {
      coldCaches();
      const x = await timedOnce(process.execPath, [bin, 'list', '--all', '--limit', '50', '--dir', store], env, { lines: 50 });
      runsOf.push(x);
      return x;
    });
    const med = (k) => runsOf.map((x) => x[k]).sort((a, b) => a - b)[runsOf.length >> 1];
    const rows50 = runsOf.map((x) => x.linesMs).sort((a, b) => a - b);
    const r = { ms: med('linesMs'), min: rows50[0], max: rows50.at(-1), whole: med('ms'), peakMb: med('peakMb') };
    row({
      figure: 'cold History, first 50 rows on stdout',
      ours: `${fmt(r.ms)} (${fmt(r.min)}–${fmt(r.max)})`,
      baseline: `node -e '' + 50 heads ${fmt(base.ms)}`,
      ratio: ratio(r.ms, base.ms),
      target: '≤ 1.5x',
      ok: r.ms <= 1.5 * base.ms,
      load: l,
    });
    row({
      figure: 'cold History, whole process (every index built)',
      ours: `${fmt(r.whole)}, ${r.peakMb.toFixed(0)} MB`,
      baseline: `node -e '' + 50 heads ${fmt(base.ms)}`,
      ratio: ratio(r.whole, base.ms),
      target: '(information)',
      ok: true,
      load: load(),
    });
    // Leave the caches warm again for what follows.
    await timedOnce(process.execPath, [bin, 'list', '--all', '--limit', '50', '--dir', store], env);
  }
  if (want('follow')) await followFigures(bin, env, store, m, o, row);
  return {
    rows,
    baselines: { cat: cat.ms, statWalk: statWalk.ms, nodeStart: nodeStart.ms },
    corpus: { sessions: m.sessions.length, bytes: m.bytes },
  };
}

async function followFigures(bin, env, store, m, o, row) {
  const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = await import('vscode-jsonrpc/node');
  const child = spawn(process.execPath, [bin, 'serve', '--stdio', '--dir', store], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const seen = [];
  conn.onNotification('session/didChange', (p) => seen.push({ p, at: performance.now() }));
  conn.onNotification(() => {});
  conn.listen();
  const CLK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  const cpu = () => {
    const s = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK;
  };
  try {
    await conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
      initializationOptions: { followImports: true },
    });
    await conn.sendNotification('initialized', {});
    await conn.sendRequest('session/list', { all: true });
    // The start-up work first: the import (nothing new), the first History, and the search
    // index, which the sidecar builds in the background when a run before deleted the caches
    // (the cold History figure does): "idle" is after it, with nothing changing. Waited for
    // until 5 s pass at under 2 % of a core (at most 5 minutes), and said.
    const started = performance.now();
    await sleep(15_000);
    for (let c = cpu(), t = performance.now(); performance.now() - started < 300_000; c = cpu(), t = performance.now()) {
      await sleep(5000);
      if ((100 * (cpu() - c)) / ((performance.now() - t) / 1000) < 2) break;
    }
    const settled = Math.round((performance.now() - started) / 1000);
    const l = load();
    const c0 = cpu();
    const t0 = performance.now();
    await sleep(o.cpuSeconds * 1000);
    const share = (100 * (cpu() - c0)) / ((performance.now() - t0) / 1000);
    row({
      figure: `follow: sidecar CPU, ${o.cpuSeconds} s idle`,
      ours: `${share.toFixed(2)} % (start-up work done after ${settled} s)`,
      baseline: '',
      ratio: '',
      target: '< 1 %',
      ok: share < 1,
      load: l,
    });
    const target = m.sessions.filter((s) => s.tool === 'claude-code' && s.bytes < 4 * MB).at(-20);
    const lat = [];
    for (let i = 0; i < 5; i++) {
      const n = seen.length;
      const t = performance.now();
      appendClaudeTurn(target.file, `follow-${Date.now()}-${i}`);
      while (performance.now() - t < 10_000 && !seen.slice(n).length) await sleep(10);
      lat.push(seen.length > n ? seen[n].at - t : Number.POSITIVE_INFINITY);
      await sleep(1500);
    }
    lat.sort((a, b) => a - b);
    row({
      figure: 'follow: appended turn in History',
      ours: `${Math.round(lat[2])} ms (${Math.round(lat[0])}–${Math.round(lat[4])})`,
      baseline: '',
      ratio: '',
      target: '≤ 1 s',
      ok: lat[2] <= 1000,
      load: load(),
    });
  } finally {
    child.kill('SIGKILL');
    conn.dispose();
  }
}

export function importTable(res) {
  const head = ['figure', 'ours', 'baseline (same run)', 'ratio', 'target', 'load', ''];
  const lines = res.rows.map((x) => [x.figure, x.ours, x.baseline ?? '', x.ratio ?? '', x.target, x.load, x.ok ? 'ok' : 'MISSED']);
  return [head, ...lines].map((l) => `| ${l.join(' | ')} |`).join('\n');
}

async function cli() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      sessions: { type: 'string', default: '2700' },
      'total-mb': { type: 'string', default: '1100' },
      projects: { type: 'string', default: '500' },
      seed: { type: 'string', default: '2663' },
      'big-mb': { type: 'string', default: '40' },
      bin: { type: 'string' },
      runs: { type: 'string', default: '3' },
      'cpu-seconds': { type: 'string', default: '60' },
      only: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const res = await importFigures({
    out: resolve(values.out ?? join(REPO, 'bench', 'out', 'corpus-tools')),
    sessions: Number(values.sessions),
    totalMb: Number(values['total-mb']),
    projects: Number(values.projects),
    seed: Number(values.seed),
    bigMb: Number(values['big-mb']),
    bin: values.bin && resolve(values.bin),
    runs: Number(values.runs),
    cpuSeconds: Number(values['cpu-seconds']),
    only: values.only ? new Set(values.only.split(',')) : undefined,
  });
  if (values.json) writeFileSync(values.json, JSON.stringify(res, null, 1) + '\n');
  process.stdout.write(importTable(res) + '\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  cli().catch((e) => {
    process.stderr.write(`bench/import: ${e.stack ?? e}\n`);
    process.exit(1);
  });
