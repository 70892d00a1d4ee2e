#!/usr/bin/env node
// The benchmark corpus: a deterministic (seeded) session store shaped like a heavy user's real
// history, for `npm run bench`. Many short sessions, some long ones, a few huge ones (20, 60 and
// 134 MB at claude-scale), agent turns with Anthropic tool_use/tool_result blocks and large tool
// outputs (files, test logs, diffs, greps), code blocks, compact events, titles, markers, unicode.
//
// Lines are made with the store's own serialisation (`serializeLine` from dist/format/events.js,
// the meta line as the store writes it) but written straight to the files in large buffered
// writes: going through SessionStore.append (one fsync a batch) would take hours for 1.1 GB.
// Same seed and flags, same bytes. Never committed: the output lives under bench/out/ (ignored).
//
// Usage: node bench/corpus.mjs [--preset claude-scale|code-server-scale|deja-vu-scale] [--out DIR]
//          [--sessions N] [--total-mb N] [--huge 20,60,134] [--projects N] [--seed N] [--force]
// Needs a build (`npx tsc -p .`). Depends on node built-ins and dist/format only.

import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statfsSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;
/** Bumped whenever the shape of the output changes, so bench/run.mjs can spot a stale corpus. */
export const GENERATOR_VERSION = 1;

export const PRESETS = {
  'claude-scale': { sessions: 2700, totalMb: 1100, huge: [134, 60, 20], projects: 48, seed: 2663 },
  'code-server-scale': { sessions: 560, totalMb: 200, huge: [20], projects: 14, seed: 560 },
  // The size of deja-vu's benchmark (19,195 sessions): many sessions, the heavy-tailed sizes of
  // the others (median about 12 KB), one huge one. For the search cache's first build.
  'deja-vu-scale': { sessions: 20000, totalMb: 1000, huge: [60], projects: 120, seed: 19195 },
};

/** The word the search figure looks for: rare, but present in a few hundred events. */
export const SEARCH_WORD = 'idempotency';

// ---------------------------------------------------------------------------------------------
// Seeded randomness (sfc32 seeded through splitmix32): fast, and the same on every machine.

function rng(seed) {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = split(),
    b = split(),
    c = split(),
    d = split();
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  const r = {
    f: next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // inclusive
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
    /** Log-normal with the given median and sigma. */
    logn: (median, sigma) => {
      const u = Math.max(next(), 1e-12),
        v = next();
      return median * Math.exp(sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
    },
  };
  return r;
}

// ---------------------------------------------------------------------------------------------
// Material: pools of lines (prose, code, logs, diffs, unicode) built once from the seed. Tool
// outputs and messages are slices of these pools, which keeps generation fast.

const WORDS = (
  'the a to of and in is that it for on with as this be are we was not but by at from or have an can will ' +
  'function return value error test file module import export const let type interface class method ' +
  'request response session store index cache list append read write lock stream buffer parse line event ' +
  'server client sidecar editor window model token context resume summary history project folder path ' +
  'refund order payment service handler config build compile bundle deploy release branch commit merge ' +
  'query database table column migration schema redis queue worker retry timeout latency memory heap ' +
  'because should would could maybe first then after before when while until every each other some ' +
  'fix bug issue failing passing check verify update change rename delete create move copy keep drop ' +
  'user assistant agent tool result output input command shell terminal process signal exit status code'
).split(' ');
const RARE = [SEARCH_WORD, 'Idempotency', 'serializable', 'backpressure', 'monotonic', 'quiescent'];
const UNICODE = [
  'café',
  'naïve',
  'façade',
  'Grüße',
  'smörgåsbord',
  'déjà vu',
  '日本語のテキスト',
  '中文注释',
  '한국어',
  'Привет, мир',
  'Ελληνικά',
  'مرحبا بالعالم',
  'שלום',
  'हिन्दी',
  '🚀',
  '✅',
  '❌',
  '🔥',
  '👍',
  '→',
  '…',
  '—',
  'λ',
  '∑',
  '≤',
  '\u00a0',
  'e\u0301',
  '👩‍💻',
  '🇫🇷',
];
const LANGS = ['ts', 'python', 'rust', 'go', 'bash', 'json', 'sql', 'ruby'];
const TOOLS = ['Read', 'Bash', 'Edit', 'Grep', 'Glob', 'Write', 'WebFetch', 'TodoWrite'];
const MODELS = ['claude-sonnet-4', 'claude-opus-4', 'claude-sonnet-4-5', 'claude-3-7-sonnet', 'claude-haiku-4'];
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function makePools(r) {
  const word = () => (r.chance(0.004) ? r.pick(RARE) : r.chance(0.01) ? r.pick(UNICODE) : r.pick(WORDS));
  const sentence = (n = r.int(5, 18)) => {
    const w = [];
    for (let i = 0; i < n; i++) w.push(word());
    const s = w.join(' ');
    return s[0].toUpperCase() + s.slice(1) + r.pick(['.', '.', '.', '?', ':', '!']);
  };
  const ident = () =>
    r.pick(WORDS.slice(20, 140)) + (r.chance(0.5) ? r.pick(['Id', 'Store', 'List', 'Map', 'Count', '_v2', 'Handler', '']) : '');
  const prose = [];
  for (let i = 0; i < 6000; i++) prose.push(sentence());
  const code = [];
  for (let i = 0; i < 12000; i++) {
    const ind = '  '.repeat(r.int(0, 3));
    code.push(
      ind +
        r.pick([
          () => `const ${ident()} = await ${ident()}.${ident()}(${ident()}, { ${ident()}: ${r.int(0, 9999)} });`,
          () => `if (${ident()} === undefined || ${ident()}.length > ${r.int(1, 512)}) return null;`,
          () => `export function ${ident()}(${ident()}: string, ${ident()}?: number): Promise<void> {`,
          () => `def ${ident()}(self, ${ident()}, ${ident()}=None):`,
          () => `    raise ValueError(f"bad ${ident()}: {${ident()}!r}")`,
          () => `fn ${ident()}(&mut self, ${ident()}: &str) -> Result<(), Error> {`,
          () => `// ${sentence(r.int(4, 10))}`,
          () => `# ${sentence(r.int(4, 10))}`,
          () => `}`,
          () => `SELECT ${ident()}, ${ident()} FROM ${ident()} WHERE ${ident()} = $1 AND "${ident()}" <> '${ident()}';`,
          () => `${ident()}.push(\`\${${ident()}}\\t${ident()}\\n\`); // "quoted" \\ back\\slash`,
          () => `    return {"${ident()}": ${r.int(0, 99)}, "${ident()}": [${r.int(0, 9)}, ${r.int(0, 9)}]}`,
        ])(),
    );
  }
  const logs = [];
  for (let i = 0; i < 6000; i++) {
    logs.push(
      r.pick([
        () => ` ✓ test/${ident()}.test.ts > ${sentence(r.int(3, 7))} ${r.int(0, 300)}ms`,
        () => ` × test/${ident()}.test.ts > ${sentence(r.int(3, 7))}`,
        () => `    at ${ident()} (/home/ada/code/${ident()}/src/${ident()}.ts:${r.int(1, 900)}:${r.int(1, 80)})`,
        () => `src/${ident()}/${ident()}.ts:${r.int(1, 999)}:      ${code[r.int(0, code.length - 1)].trim()}`,
        () => `npm warn deprecated ${ident()}@${r.int(0, 9)}.${r.int(0, 20)}.${r.int(0, 9)}: ${sentence(6)}`,
        () => `${r.pick(['+', '-', ' '])}${code[r.int(0, code.length - 1)]}`,
        () => `@@ -${r.int(1, 500)},${r.int(1, 40)} +${r.int(1, 500)},${r.int(1, 40)} @@ ${ident()}`,
        () =>
          `[${r.pick(['INFO', 'WARN', 'DEBUG', 'ERROR'])}] 2026-0${r.int(1, 7)}-1${r.int(0, 9)}T1${r.int(0, 9)}:${r.int(10, 59)}:${r.int(10, 59)}Z ${sentence(r.int(4, 12))}`,
        () => `${r.int(100, 99999).toString().padStart(6)}\t${code[r.int(0, code.length - 1)]}`,
      ])(),
    );
  }
  return { prose, code, logs, sentence, ident };
}

/** `n` bytes (about) of lines from a pool, starting anywhere. */
function slice(r, pool, bytes) {
  const out = [];
  let len = 0;
  let i = r.int(0, pool.length - 1);
  while (len < bytes) {
    const l = pool[i];
    out.push(l);
    len += l.length + 1;
    i = i + 1 === pool.length ? 0 : i + 1;
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Sessions.

function toolId(r) {
  let s = 'toolu_01';
  for (let i = 0; i < 22; i++) s += B62[Math.floor(r.f() * 62)];
  return s;
}

function iso(ms) {
  return new Date(ms).toISOString();
}

function sessionId(ms, r) {
  let suffix = '';
  for (let i = 0; i < 4; i++) suffix += ALNUM[Math.floor(r.f() * 36)];
  return `${iso(ms).slice(0, 19).replace(/:/g, '-')}-${suffix}`;
}

function userText(r, P) {
  const kind = r.f();
  if (kind < 0.45) return P.sentence();
  if (kind < 0.7) return `${P.sentence()} ${P.sentence()}\n\n${P.prose[r.int(0, P.prose.length - 1)]}`;
  if (kind < 0.85) {
    const lang = r.pick(LANGS);
    return `${P.sentence()}\n\n\`\`\`${lang}\n${slice(r, P.code, r.int(200, 3000))}\n\`\`\`\n${P.sentence()}`;
  }
  if (kind < 0.95) return `${P.sentence()}\n\n${slice(r, P.logs, r.int(300, 4000))}`;
  return `${r.pick(UNICODE)} ${P.sentence()} ${r.pick(UNICODE)}`;
}

function answerText(r, P) {
  const parts = [P.sentence(), P.sentence()];
  if (r.chance(0.5)) parts.push(`\`\`\`${r.pick(LANGS)}\n${slice(r, P.code, r.int(150, 2500))}\n\`\`\``);
  if (r.chance(0.4)) parts.push(Array.from({ length: r.int(2, 6) }, () => `- ${P.sentence(r.int(4, 12))}`).join('\n'));
  if (r.chance(0.6)) parts.push(`${P.sentence()} ${P.sentence()}`);
  return parts.join('\n\n');
}

function toolCall(r, P, outBytes) {
  const name = r.pick(TOOLS);
  const id = toolId(r);
  const path = `/home/ada/code/${P.ident()}/src/${P.ident()}.${r.pick(['ts', 'py', 'rs', 'go', 'rb'])}`;
  let input, output;
  switch (name) {
    case 'Read':
      input = { file_path: path };
      output = slice(r, P.code, outBytes)
        .split('\n')
        .map((l, i) => `${String(i + 1).padStart(6)}\t${l}`)
        .join('\n');
      break;
    case 'Bash':
      input = {
        command: r.pick(['npm test', 'npx vitest run', 'git diff', 'cargo build', 'pytest -q', 'ls -la', 'git log --stat']),
        description: P.sentence(5),
      };
      output = slice(r, P.logs, outBytes);
      break;
    case 'Grep':
      input = { pattern: P.ident(), path: '/home/ada/code', output_mode: 'content' };
      output = slice(r, P.logs, outBytes);
      break;
    case 'Edit':
      input = { file_path: path, old_string: slice(r, P.code, r.int(40, 600)), new_string: slice(r, P.code, r.int(40, 800)) };
      output = `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet:\n${slice(r, P.code, Math.min(outBytes, 4000))}`;
      break;
    case 'Write':
      input = { file_path: path, content: slice(r, P.code, outBytes) };
      output = `File created successfully at: ${path}`;
      break;
    default:
      input = { query: P.sentence(6) };
      output = slice(r, P.prose, outBytes);
  }
  const use = { type: 'tool_use', id, name, input };
  const result = { type: 'tool_result', tool_use_id: id, content: output };
  if (r.chance(0.03)) result.is_error = true;
  return { use, result };
}

/**
 * Writes one session of about `target` bytes. Returns what the manifest keeps of it.
 * `compactEvery` (bytes) makes compact events; `finalCompactAt` forces one near the end.
 */
function writeSession(file, o) {
  const { r, P, id, project, model, startMs, target } = o;
  const fd = openSync(file, 'wx', 0o600);
  let chunk = [];
  let chunkLen = 0;
  let bytes = 0;
  const flush = () => {
    if (chunkLen === 0) return;
    writeSync(fd, chunk.join(''));
    chunk = [];
    chunkLen = 0;
  };
  const put = (line) => {
    chunk.push(line, '\n');
    // UTF-16 length: close enough for pacing; file bytes are counted on the encoded text below.
    chunkLen += line.length + 1;
    bytes += Buffer.byteLength(line) + 1;
    if (chunkLen >= 4 * MB) flush();
  };
  // The meta line exactly as SessionStore.create writes it.
  put(JSON.stringify({ kind: 'meta', v: 1, id, project, createdAt: iso(startMs), title: null, model }));
  let t = startMs;
  let seq = 0;
  let turns = 0;
  let compacts = 0;
  let lastCompactBytes = 0;
  let lastCompactSeq = -1;
  const userSeqs = [];
  const ev = (obj) => {
    put(o.serializeLine(obj));
    return seq++;
  };
  const tick = (lo, hi) => (t += r.int(lo, hi) * 1000 + r.int(0, 999));
  const titleAt = r.chance(0.85) ? r.int(1, 2) : Infinity;
  while (bytes < target) {
    const left = target - bytes;
    tick(5, 600);
    const u = { kind: 'user', t: iso(t), content: userText(r, P) };
    if (r.chance(0.15)) u.contextFiles = [`src/${P.ident()}.ts`, `test/${P.ident()}.test.ts`].slice(0, r.int(1, 2));
    userSeqs.push(ev(u));
    turns++;
    // The agent loop: rounds of tool calls, each answered by its results.
    const rounds = left < 4000 ? 0 : Math.min(r.int(0, 6), Math.floor(left / 2500));
    const messages = [];
    let spent = 0;
    for (let k = 0; k < rounds; k++) {
      const n = r.chance(0.2) ? r.int(2, 4) : 1;
      const uses = [];
      const results = [];
      for (let j = 0; j < n; j++) {
        const cap = Math.max(200, Math.min(o.maxTool, left - spent - 1500));
        const want = Math.min(cap, Math.round(r.logn(o.toolMedian, 1.6)));
        const c = toolCall(r, P, want);
        spent += want;
        uses.push(c.use);
        results.push(c.result);
      }
      const said = r.chance(0.7) ? [{ type: 'text', text: P.sentence() }] : [];
      messages.push({ role: 'assistant', content: [...said, ...uses] }, { role: 'user', content: results });
    }
    tick(3, 240);
    const answer = answerText(r, P);
    if (messages.length) {
      messages.push({ role: 'assistant', content: [{ type: 'text', text: answer }] });
      ev({ kind: 'agent', t: iso(t), messages });
    }
    ev({ kind: 'assistant', t: iso(t), content: [{ type: 'text', text: answer }], model });
    if (turns === titleAt) {
      tick(1, 5);
      ev({ kind: 'title', t: iso(t), title: P.sentence(r.int(3, 7)).slice(0, -1), source: r.chance(0.9) ? 'model' : 'user' });
    }
    if (r.chance(0.04)) ev({ kind: 'event', t: iso(t), type: 'checkpoint', n: turns });
    if (r.chance(0.01)) ev({ kind: 'event', t: iso(tick(1, 30)), type: r.pick(['interrupted', 'reload']), reason: 'new chat' });
    const sinceCompact = bytes - lastCompactBytes;
    const forced = o.finalCompactAt !== undefined && bytes >= o.finalCompactAt && lastCompactBytes < o.finalCompactAt;
    if ((o.compactEvery && sinceCompact >= o.compactEvery) || forced) {
      // Keep the last few turns verbatim, as the resume planner does.
      const keep = userSeqs[Math.max(0, userSeqs.length - 4)];
      const covers = Math.max(lastCompactSeq, keep - 1);
      if (covers > lastCompactSeq) {
        tick(1, 20);
        ev({ kind: 'compact', t: iso(t), briefing: `${P.sentence()}\n\n${slice(r, P.prose, r.int(2000, 6000))}`, coversThrough: covers });
        lastCompactSeq = covers;
        compacts++;
      }
      lastCompactBytes = bytes;
    }
  }
  if (r.chance(0.3)) ev({ kind: 'event', t: iso(tick(1, 60)), type: 'sealed' });
  flush();
  closeSync(fd);
  const mtime = new Date(t);
  utimesSync(file, mtime, mtime);
  return { id, project, bytes, events: seq, turns, compacts, updatedAt: iso(t) };
}

// ---------------------------------------------------------------------------------------------
// The store.

function sizes(r, n, totalBytes, huge) {
  const hugeBytes = huge.map((m) => Math.round(m * MB));
  const rest = Math.max(0, totalBytes - hugeBytes.reduce((a, b) => a + b, 0));
  const k = n - huge.length;
  // Heavy-tailed: most sessions are short, a few are long (log-normal, median about 50 KB).
  const raw = Array.from({ length: k }, () => Math.min(12 * MB, Math.max(1500, r.logn(50_000, 1.9))));
  const sum = raw.reduce((a, b) => a + b, 0);
  const scale = rest / sum;
  return { normal: raw.map((b) => Math.max(1200, Math.min(15 * MB, Math.round(b * scale)))), huge: hugeBytes };
}

export async function generate(opts) {
  const { serializeLine } = await import(join(REPO, 'dist/format/events.js'));
  const { projectSlug } = await import(join(REPO, 'dist/store/slug.js'));
  const r = rng(opts.seed);
  const P = makePools(rng(opts.seed ^ 0x5bd1e995));
  const out = resolve(opts.out);
  if (existsSync(out)) {
    if (!opts.force && readdirSync(out).length) throw new Error(`${out} exists and is not empty (use --force to replace it)`);
    rmSync(out, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true, mode: 0o700 });

  // Projects, with a Zipf-like share of the sessions (a few busy repos, a long tail).
  const projects = Array.from(
    { length: opts.projects },
    (_, i) => `/home/ada/code/${i % 7 === 3 ? 'clients/' : ''}${P.ident()}-${i}${i % 11 === 5 ? '.io' : ''}`,
  );
  const weights = projects.map((_, i) => 1 / (i + 1));
  const wsum = weights.reduce((a, b) => a + b, 0);
  const pickProject = () => {
    let x = r.f() * wsum;
    for (let i = 0; i < projects.length; i++) if ((x -= weights[i]) <= 0) return projects[i];
    return projects[projects.length - 1];
  };
  for (const p of projects) mkdirSync(join(out, projectSlug(p)), { mode: 0o700 });

  const sz = sizes(r, opts.sessions, opts.totalMb * MB, opts.huge);
  // Birth times over 18 months, sorted so ids are in time order like a real history.
  const from = Date.parse('2025-01-06T08:00:00Z');
  const span = 540 * 86400_000;
  const births = Array.from({ length: opts.sessions }, () => from + Math.floor(r.f() * span)).sort((a, b) => a - b);
  // Huge sessions land late in the history (the long-running work of the last months).
  const order = Array.from({ length: opts.sessions }, (_, i) => i);
  const hugeSlots = new Map(sz.huge.map((b, j) => [opts.sessions - 1 - j * 7, b]));
  let ni = 0;
  const manifest = {
    generator: GENERATOR_VERSION,
    preset: opts.preset,
    seed: opts.seed,
    searchWord: SEARCH_WORD,
    root: out,
    projects: projects.length,
    sessions: [],
    bytes: 0,
    elapsedMs: 0,
  };
  const started = performance.now();
  const seen = new Set();
  for (const i of order) {
    const hugeTarget = hugeSlots.get(i);
    const target = hugeTarget ?? sz.normal[ni++];
    const project = hugeTarget ? projects[0] : pickProject();
    let id;
    do id = sessionId(births[i], r);
    while (seen.has(id));
    seen.add(id);
    const file = join(out, projectSlug(project), `${id}.jsonl`);
    const isHuge = hugeTarget !== undefined;
    const s = writeSession(file, {
      r,
      P,
      id,
      project,
      model: r.pick(MODELS),
      startMs: births[i],
      target,
      serializeLine,
      toolMedian: isHuge ? 6000 : 1800,
      maxTool: isHuge ? 400_000 : 200_000,
      compactEvery: target > 6 * MB ? 8 * MB : undefined,
      finalCompactAt: isHuge ? target - 1.5 * MB : undefined,
    });
    manifest.sessions.push({ ...s, file, huge: isHuge });
    manifest.bytes += s.bytes;
    if (opts.progress && manifest.sessions.length % 250 === 0)
      process.stderr.write(`  ${manifest.sessions.length}/${opts.sessions} sessions, ${(manifest.bytes / MB).toFixed(0)} MB\n`);
  }
  manifest.elapsedMs = Math.round(performance.now() - started);
  return manifest;
}

export function manifestPath(out) {
  return resolve(out) + '.manifest.json';
}

// ---------------------------------------------------------------------------------------------

async function cli() {
  const { values } = parseArgs({
    options: {
      preset: { type: 'string', default: 'claude-scale' },
      out: { type: 'string' },
      sessions: { type: 'string' },
      'total-mb': { type: 'string' },
      huge: { type: 'string' },
      projects: { type: 'string' },
      seed: { type: 'string' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'node bench/corpus.mjs [--preset claude-scale|code-server-scale|deja-vu-scale] [--out DIR] [--sessions N] [--total-mb N] [--huge 20,60,134] [--projects N] [--seed N] [--force]\n',
    );
    return 0;
  }
  const preset = PRESETS[values.preset];
  if (!preset) throw new Error(`unknown preset ${values.preset} (${Object.keys(PRESETS).join(', ')})`);
  const num = (v, d) => (v === undefined ? d : Number(v));
  const opts = {
    preset: values.preset,
    out: values.out ?? join(REPO, 'bench', 'out', `corpus-${values.preset}`),
    sessions: num(values.sessions, preset.sessions),
    totalMb: num(values['total-mb'], preset.totalMb),
    huge: values.huge !== undefined ? values.huge.split(',').filter(Boolean).map(Number) : preset.huge,
    projects: num(values.projects, preset.projects),
    seed: num(values.seed, preset.seed),
    force: !!values.force,
    progress: true,
  };
  if (!existsSync(join(REPO, 'dist/format/events.js'))) throw new Error('no build: run `npx tsc -p .` first');
  // Disk space: the corpus plus 10% headroom.
  const parent = dirname(resolve(opts.out));
  mkdirSync(parent, { recursive: true });
  const fs = statfsSync(parent);
  const free = fs.bavail * fs.bsize;
  if (free < opts.totalMb * MB * 1.1)
    throw new Error(`not enough disk space in ${parent}: ${(free / MB).toFixed(0)} MB free, ${(opts.totalMb * 1.1).toFixed(0)} MB needed`);
  process.stderr.write(`writing ${opts.preset} (${opts.sessions} sessions, ~${opts.totalMb} MB, seed ${opts.seed}) to ${opts.out}\n`);
  const m = await generate(opts);
  const { sessions, ...head } = m;
  writeFileSync(manifestPath(opts.out), JSON.stringify({ ...head, options: opts, sessions }, null, 1) + '\n');
  const largest = [...sessions].sort((a, b) => b.bytes - a.bytes).slice(0, 3);
  process.stderr.write(
    `done: ${sessions.length} sessions, ${(m.bytes / MB).toFixed(1)} MB in ${(m.elapsedMs / 1000).toFixed(1)} s; largest ${largest.map((s) => (s.bytes / MB).toFixed(1) + ' MB').join(', ')}\n` +
      `manifest: ${manifestPath(opts.out)}\n`,
  );
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli().then(
    (c) => process.exit(c),
    (e) => {
      process.stderr.write(`bench/corpus: ${e.message}\n`);
      process.exit(1);
    },
  );
}
