// The CLI as the build bundles it (tools/bundle.mjs): dist/cli/main.cjs, run by the bin through
// dist/cli/boot.cjs (server/cli/boot.ts) with its trained code cache. The bin must run the
// bundle only while it is as new as every module it was made from, else what tsc wrote; both
// must answer the same; and what the bundled modules find by their own URL (the helper thread's
// module, dist/vendor) must be where tsc's modules find it.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectCache } from '../../server/core/cache-dir.js';

const repo = join(import.meta.dirname, '..', '..');
const dist = join(repo, 'dist', 'cli');
const line = (o: unknown) => `${JSON.stringify(o)}\n`;

let tmp: string;
let root: string;
const ids: string[] = [];

/** The bin of `pkg` (the repo, or a copy of its bin and dist), run in a plain Node. */
function run(pkg: string, args: string[], extra: { env?: Record<string, string>; node?: string[] } = {}) {
  const r = spawnSync(process.execPath, [...(extra.node ?? []), join(pkg, 'bin', 'levelcode-sessions.js'), ...args], {
    encoding: 'utf8',
    cwd: tmp,
    env: { ...process.env, NODE_OPTIONS: '', ...extra.env },
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-bundle-'));
  root = join(tmp, 'store');
  for (const [i, project] of ['/home/ada/code/app', '/home/ada/code/app', '/home/ada/code/site'].entries()) {
    const id = `2026-07-0${i + 1}T10-00-00-bu${i}n`;
    const t = `2026-07-0${i + 1}T10:00:00.000Z`;
    const dir = join(root, project.replaceAll('/', '-'));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(
      join(dir, `${id}.jsonl`),
      line({ kind: 'meta', v: 1, id, project, createdAt: t, title: i === 2 ? 'the site' : null }) +
        line({ kind: 'user', t, content: `where is the idempotency key checked? (${i})` }) +
        line({ kind: 'assistant', t, content: [{ type: 'tool_use', id: `tu${i}`, name: 'grep', input: { q: 'idempotency' } }] }) +
        line({ kind: 'user', t, content: [{ type: 'tool_result', tool_use_id: `tu${i}`, content: 'server/pay.ts:12: checkIdempotency(key)' }] }) +
        line({ kind: 'assistant', t, content: [{ type: 'text', text: 'In `checkIdempotency`.' }] }),
      { mode: 0o600 },
    );
    ids.push(id);
  }
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the bundle the build made', () => {
  it('is there with its list of modules, and a plain Node takes its code cache', () => {
    for (const f of ['boot.cjs', 'main.cjs', 'main.cjs.v8cache', 'main.cjs.inputs']) expect(existsSync(join(dist, f)), f).toBe(true);
    const inputs = JSON.parse(readFileSync(join(dist, 'main.cjs.inputs'), 'utf8')) as string[];
    expect(inputs).toContain('main.js');
    expect(inputs).toContain('../core/search.js');
    expect(inputs).toContain('../rpc/server.js');
    for (const i of inputs) expect(existsSync(join(dist, i)), i).toBe(true);
    const r = spawnSync(
      process.execPath,
      ['-e', `const b = require(${JSON.stringify(join(dist, 'boot.cjs'))}).loadBundle(${JSON.stringify(dist)}); process.stdout.write(String(b && b.cache))`],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('accepted');
  });

  it('holds no import() that code-cache.ts could not run, and leaves the packages outside', () => {
    const src = readFileSync(join(dist, 'main.cjs'), 'utf8');
    // The one import( left is inside the helper thread's source, a string run by the worker.
    expect(src.match(/\bimport\(/g)).toHaveLength(1);
    expect(src).toContain('worker = new Worker(`import(');
    expect(src).toContain('require("proper-lockfile")');
    expect(src).toContain('require("./boot.cjs")');
    expect(src).not.toContain('ZodError');
  });
});

describe('what a listing and a search load', () => {
  it('neither loads node:crypto once the caches are built (code-cache.ts keys a cache without a digest for this)', () => {
    // node:crypto alone took 4-6 ms to load in a fresh CLI process (bench/PERFORMANCE.md).
    const record = join(tmp, 'modules.json');
    const preload = join(tmp, 'modules.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));\n`,
    );
    for (const args of [
      ['list', '--all', '--json'],
      ['search', 'idempotency', '--all', '--json'],
    ]) {
      // Twice untimed first: the first builds index.json and search.idx, and both load
      // proper-lockfile (the index's lock).
      for (let i = 0; i < 2; i++) expect(run(repo, [...args, '--dir', root]).code, args[0]).toBe(0);
      const r = run(repo, [...args, '--dir', root], { node: ['--require', preload] });
      expect(r.code, args[0]).toBe(0);
      const loaded = JSON.parse(readFileSync(record, 'utf8')) as string[];
      expect(loaded, args[0]).toContain('NativeModule vm'); // the bundle was run with its cache
      expect(loaded.filter((m) => /^NativeModule (crypto|internal\/crypto\/)/.test(m)), args[0]).toEqual([]);
    }
  });
});

describe('the bin', () => {
  let pkg: string;
  const MARK = 'levelcode-sessions (from the bundle)';
  beforeAll(() => {
    // A copy of the package with the bundle marked, its files' times kept as the build left them.
    pkg = join(tmp, 'pkg');
    mkdirSync(pkg);
    cpSync(join(repo, 'bin'), join(pkg, 'bin'), { recursive: true, preserveTimestamps: true });
    cpSync(join(repo, 'dist'), join(pkg, 'dist'), { recursive: true, preserveTimestamps: true });
    cpSync(join(repo, 'package.json'), join(pkg, 'package.json'));
    symlinkSync(join(repo, 'node_modules'), join(pkg, 'node_modules'));
    const bundle = join(pkg, 'dist', 'cli', 'main.cjs');
    const src = readFileSync(bundle, 'utf8');
    expect(src).toContain('chat sessions that survive New Chat');
    writeFileSync(bundle, src.replace('chat sessions that survive New Chat', MARK));
  });
  const help = () => run(pkg, ['--help']);

  it('runs the bundle while no module it was made from is newer, and what tsc wrote once one is', () => {
    expect(help().out).toContain(MARK);
    const search = join(pkg, 'dist', 'core', 'search.js');
    const later = new Date(Date.now() + 60_000);
    utimesSync(search, later, later);
    const r = help();
    expect(r.code).toBe(0);
    expect(r.out).not.toContain(MARK);
    expect(r.out).toContain('chat sessions that survive New Chat');
    const earlier = new Date(Date.now() - 3_600_000);
    utimesSync(search, earlier, earlier);
    expect(help().out).toContain(MARK);
  });

  it('runs what tsc wrote when the list of modules is missing or not a list', () => {
    const list = join(pkg, 'dist', 'cli', 'main.cjs.inputs');
    const kept = readFileSync(list);
    try {
      rmSync(list);
      expect(help().out).not.toContain(MARK);
      writeFileSync(list, '{"not": "a list"}');
      expect(help().out).not.toContain(MARK);
    } finally {
      writeFileSync(list, kept);
    }
    // Rewriting the list made it newer than the bundle: still up to date (only modules count).
    expect(help().out).toContain(MARK);
  });

  it('answers the same from the bundle and from what tsc wrote', () => {
    const commands = [
      ['list', '--all', '--json'],
      ['list', '--project', '/home/ada/code/app'],
      ['search', 'idempotency', '--all', '--json'],
      ['show', ids[0]!, '--json'],
      ['show', ids[2]!],
      ['export', ids[1]!, '--format', 'markdown'],
      ['doctor', '--json'],
      ['show', 'no-such-session'],
      ['list', '--limit', 'x'],
    ];
    const answers = (label: string) =>
      commands.map((c) => {
        // The same state before each: no caches or indexes written by an earlier run.
        for (const d of ['-home-ada-code-app', '-home-ada-code-site']) for (const f of ['index.json', 'search.idx']) rmSync(projectCache(join(root, d), f), { force: true });
        const r = run(pkg, [...c, '--dir', root]);
        return { label, command: c.join(' '), ...r };
      });
    expect(help().out).toContain(MARK);
    const bundled = answers('bundle');
    const bundle = join(pkg, 'dist', 'cli', 'main.cjs');
    const old = new Date(0);
    utimesSync(bundle, old, old);
    expect(help().out).not.toContain(MARK);
    const esm = answers('tsc');
    for (const [i, b] of bundled.entries()) {
      const e = esm[i]!;
      expect({ command: b.command, code: b.code, out: b.out, err: b.err }).toEqual({ command: e.command, code: e.code, out: e.out, err: e.err });
    }
    // doctor: 1, the indexes removed above are missing; then not found, and a usage error.
    expect(bundled.map((b) => b.code)).toEqual([0, 0, 0, 0, 0, 0, 1, 3, 2]);
  });
});

describe('the bundled CLI finds what its modules find by their own URL', () => {
  it("starts the cold listing's helper thread on history.js where tsc wrote it, and the thread does not fail", () => {
    // Enough to read for a helper thread (history.ts: HELPER_MIN_COST, 64 MB): 12 sessions of 6 MB.
    const big = join(tmp, 'big');
    const dir = join(big, '-home-ada-code-big');
    mkdirSync(dir, { recursive: true });
    const filler = line({ kind: 'assistant', t: '2026-07-01T10:00:00.000Z', content: [{ type: 'text', text: 'x'.repeat(64 << 10) }] });
    for (let i = 0; i < 12; i++) {
      const id = `2026-07-01T10-00-${String(i).padStart(2, '0')}-big${i % 10}`;
      writeFileSync(
        join(dir, `${id}.jsonl`),
        line({ kind: 'meta', v: 1, id, project: '/home/ada/code/big', createdAt: '2026-07-01T10:00:00.000Z', title: null }) +
          line({ kind: 'user', t: '2026-07-01T10:00:00.000Z', content: `big ${i}` }) +
          filler.repeat(96),
      );
    }
    // Records each worker the process starts: its source, and whether it came up or failed.
    const record = join(tmp, 'workers.jsonl');
    const preload = join(tmp, 'workers.cjs');
    writeFileSync(
      preload,
      "const wt = require('node:worker_threads');\n" +
        "const fs = require('node:fs');\n" +
        `const out = ${JSON.stringify(record)};\n` +
        'const Base = wt.Worker;\n' +
        'wt.Worker = class extends Base {\n' +
        '  constructor(src, opts) {\n' +
        '    super(src, opts);\n' +
        "    fs.appendFileSync(out, JSON.stringify({ src: String(src) }) + '\\n');\n" +
        "    this.on('message', () => fs.appendFileSync(out, JSON.stringify({ message: true }) + '\\n'));\n" +
        "    this.on('error', (e) => fs.appendFileSync(out, JSON.stringify({ error: String(e) }) + '\\n'));\n" +
        '  }\n' +
        '};\n',
    );
    const r = run(repo, ['list', '--all', '--json', '--dir', big], { node: ['--require', preload] });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).sessions).toHaveLength(12);
    const events = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { src?: string; error?: string; message?: boolean });
    expect(events[0]!.src).toContain(JSON.stringify(pathToFileURL(join(repo, 'dist', 'core', 'history.js')).href));
    expect(events.filter((e) => e.error)).toEqual([]);
  });
});
