#!/usr/bin/env node
// The search figures of issue 39, each beside a baseline measured in the same run, as a ratio:
// the search cache's first build (time, peak memory, size against the corpus), a word and a
// phrase query in a running process with the cache open (the sidecar's case: p50, p95), and how
// soon an appended turn is found, each beside ripgrep over the same files; the CLI's whole
// process beside `node -e ''`. On the bench corpus (claude-scale, 2,700 sessions) and on one the
// size of deja-vu's benchmark (deja-vu-scale, 20,000 sessions), each written by bench/corpus.mjs
// when missing (never committed). Then the relevance table (precision at 5, MRR) before
// (bench/relevance-before.json) and now.
//
// Usage: node bench/search.mjs [--preset claude-scale,deja-vu-scale | --corpus DIR] [--word W]
//          [--phrase "A B"] [--runs N]
// Needs a build (node tools/build.mjs).

import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, rmSync, statSync, truncateSync, utimesSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: argv } = parseArgs({
  options: {
    corpus: { type: 'string' },
    preset: { type: 'string', default: 'claude-scale,deja-vu-scale' },
    word: { type: 'string', default: 'idempotency' },
    phrase: { type: 'string', default: 'failing idempotency' },
    runs: { type: 'string', default: '50' },
    child: { type: 'string' },
  },
});
const { SearchCache, cacheFile } = await import(join(REPO, 'dist', 'search', 'cache.js'));
const { buildCache, searchSessions, listSessionFiles, syncFolders } = await import(join(REPO, 'dist', 'search', 'search.js'));

// The first build, in a child of its own so that its peak memory is its own.
if (argv.child === 'build') {
  const ROOT = resolve(argv.corpus);
  const t = performance.now();
  const cache = SearchCache.open(ROOT);
  await buildCache(cache, ROOT);
  cache.close();
  process.stdout.write(JSON.stringify({ ms: performance.now() - t, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

const rg = spawnSync('rg', ['--version']).status === 0;
const ms = (x) => `${x < 10 ? x.toFixed(1) : Math.round(x)} ms`;
const timeRg = (args) => {
  if (!rg) return undefined;
  const t = performance.now();
  spawnSync('rg', args, { stdio: 'ignore' });
  return performance.now() - t;
};
/** rg's peak memory (GNU time's %M), MB; undefined without rg or /usr/bin/time. */
const rgPeakMb = (args) => {
  if (!rg || !existsSync('/usr/bin/time')) return undefined;
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'rg', ...args], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const kb = Number(r.stderr.trim().split('\n').at(-1));
  return Number.isFinite(kb) && kb > 0 ? kb / 1024 : undefined;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
async function measure(ROOT) {
  process.env.LEVELCODE_SESSIONS_CACHE = ROOT + '.cache';
  const rows = [];
  const row = (figure, ours, base, target, ratio = '') => rows.push({ figure, ours, base: base ?? (rg ? '' : 'rg absent'), ratio, target });
  const x = (a, b) => (a !== undefined && b ? `${(a / b).toFixed(2)}x` : '');

  const files = await listSessionFiles(ROOT);
  const corpusBytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const rgWord = timeRg(['-F', '-i', '-c', argv.word, ROOT]);
  const rgPhrase = timeRg(['-F', '-i', '-c', argv.phrase, ROOT]);

  // First build.
  for (const f of [cacheFile(ROOT), `${cacheFile(ROOT)}-wal`, `${cacheFile(ROOT)}-shm`]) rmSync(f, { force: true });
  const built = JSON.parse(
    execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--corpus', ROOT, '--child', 'build'], { encoding: 'utf8' }),
  );
  const dbBytes = ['', '-wal'].reduce((n, x) => n + (existsSync(cacheFile(ROOT) + x) ? statSync(cacheFile(ROOT) + x).size : 0), 0);
  row(
    `first build, ${files.length} sessions, ${(corpusBytes / 1e6).toFixed(0)} MB`,
    `${(built.ms / 1000).toFixed(1)} s`,
    rgWord && `rg ${ms(rgWord)}`,
    '≤ 20 s at 20,000 sessions',
    x(built.ms, rgWord),
  );
  const rgMb = rgPeakMb(['-F', '-i', '-c', argv.word, ROOT]);
  row(
    'first build, peak memory',
    `${Math.round(built.maxRssMb)} MB`,
    rgMb && `rg ${Math.round(rgMb)} MB`,
    '≤ 300 MB',
    x(built.maxRssMb, rgMb),
  );
  row(
    'search cache size / corpus',
    `${(dbBytes / corpusBytes).toFixed(2)}x (${(dbBytes / 1e6).toFixed(0)} MB)`,
    rgWord && 'rg keeps nothing (reads every file, every search)',
    '≤ 0.6x',
  );

  // Queries in a running process, the cache open and current (the sidecar's case).
  const cache = SearchCache.open(ROOT);
  const runs = Number(argv.runs);
  for (const [what, q, base] of [
    ['word', argv.word, rgWord],
    ['phrase', `"${argv.phrase}"`, rgPhrase],
  ]) {
    const times = [];
    for (let i = 0; i < runs + 3; i++) {
      const t = performance.now();
      await searchSessions(ROOT, q, { cache, fresh: true, limit: 20 });
      if (i >= 3) times.push(performance.now() - t);
    }
    row(
      `${what} query in a running sidecar (p50 / p95)`,
      `${ms(pct(times, 50))} / ${ms(pct(times, 95))}`,
      base && `rg ${ms(base)}`,
      what === 'word' ? '≤ 10 / ≤ 50 ms' : '≤ 2x the word',
      x(pct(times, 50), base),
    );
  }

  // An appended turn: how long until a search finds it (a sync of every file's stat, then the query).
  const target = files[Math.floor(files.length / 2)];
  const was = statSync(target);
  const marker = `zqxmarker${Date.now().toString(36)}`;
  appendFileSync(target, JSON.stringify({ kind: 'user', t: new Date().toISOString(), content: `an appended turn ${marker}` }) + '\n');
  // The sidecar: its store watcher names the folder touched (after a 40 ms debounce, not
  // counted here); that folder's files are synced, then the query.
  const t0 = performance.now();
  await syncFolders(cache, [dirname(target)]);
  const found = await searchSessions(ROOT, marker, { cache, fresh: true, limit: 1 });
  const appendMs = performance.now() - t0;
  const rgMarker = timeRg(['-F', '-c', marker, ROOT]);
  row(
    'an appended turn found in the sidecar (its folder synced + query)',
    found.total === 1 ? ms(appendMs) : 'NOT FOUND',
    rgMarker && `rg ${ms(rgMarker)}`,
    '≤ 100 ms',
    x(appendMs, rgMarker),
  );
  // Without a watcher (the CLI, a polling sidecar): every file stat'ed, then the query.
  appendFileSync(target, JSON.stringify({ kind: 'user', t: new Date().toISOString(), content: `one more ${marker}x` }) + '\n');
  const t1 = performance.now();
  const found2 = await searchSessions(ROOT, `${marker}x`, { cache, limit: 1 });
  const fullMs = performance.now() - t1;
  row(
    "an appended turn found, every file stat'ed (sync + query)",
    found2.total === 1 ? ms(fullMs) : 'NOT FOUND',
    rgMarker && `rg ${ms(rgMarker)}`,
    '',
    x(fullMs, rgMarker),
  );
  // The corpus as it was: the same bytes for the next run.
  truncateSync(target, was.size);
  utimesSync(target, was.atime, was.mtime);
  await searchSessions(ROOT, marker, { cache, limit: 1 });
  cache.close();

  // The CLI's whole process.
  const bin = join(REPO, 'bin', 'levelcode-sessions.js');
  const wall = (args) => {
    const t = performance.now();
    spawnSync(process.execPath, args, { stdio: 'ignore', env: process.env });
    return performance.now() - t;
  };
  const cli = [];
  const nodeE = [];
  for (let i = 0; i < 7; i++) {
    cli.push(wall([bin, 'search', argv.word, '--all', '--json', '--dir', ROOT]));
    nodeE.push(wall(['-e', '']));
  }
  row(
    'CLI `search WORD --all --json`, whole process (median)',
    ms(pct(cli, 50)),
    `node -e '' ${ms(pct(nodeE, 50))}${rgWord ? `; rg ${ms(rgWord)}` : ''}`,
    "≤ 1.5x node -e ''",
    x(pct(cli, 50), pct(nodeE, 50)),
  );

  console.log(`\nSearch (issue 39), corpus ${ROOT}${rg ? '' : ' — ripgrep is absent: no baseline (apt-get install -y ripgrep)'}\n`);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, ${cpus().length} cores, Node ${process.version}\n`,
  );
  console.log('| figure | ours | baseline, same run | ratio | target |\n| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.figure} | ${r.ours} | ${r.base ?? ''} | ${r.ratio} | ${r.target} |`);
}

const corpora = argv.corpus ? [resolve(argv.corpus)] : argv.preset.split(',').map((p) => join(REPO, 'bench', 'out', `corpus-${p}`));
for (const ROOT of corpora) {
  if (!existsSync(ROOT)) {
    const preset = ROOT.slice(ROOT.lastIndexOf('corpus-') + 7);
    const r = spawnSync(process.execPath, [join(REPO, 'bench', 'corpus.mjs'), '--preset', preset], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(2);
  }
  await measure(ROOT);
}

// Relevance: before (kept) and now (run by the test that asserts it).
const before = join(REPO, 'bench', 'relevance-before.json');
if (existsSync(before)) {
  const b = JSON.parse((await import('node:fs')).readFileSync(before, 'utf8'));
  console.log(
    `\nRelevance before (substring, newest first): P@5 ${b.p5.toFixed(3)}, MRR ${b.mrr.toFixed(3)} over ${b.rows.length} queries; now: npx vitest run test/search/search-relevance.test.ts`,
  );
}
