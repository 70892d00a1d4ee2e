#!/usr/bin/env node
// The search figures of issue 39, each beside ripgrep over the same files in the same run:
// the search cache's first build (time, peak memory, size against the corpus), a word and a
// phrase query in a running process with the cache open (the sidecar's case: p50, p95), the
// CLI's whole process against `node -e ''`, and how soon an appended turn is found. Then the
// relevance table (precision at 5, MRR) before (bench/relevance-before.json) and now.
//
// Usage: node bench/search.mjs [--corpus DIR] [--word W] [--phrase "A B"] [--runs N]
// Needs a build (node tools/build.mjs) and a corpus (node bench/corpus.mjs).

import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: argv } = parseArgs({
  options: {
    corpus: { type: 'string', default: join(REPO, 'bench', 'out', 'corpus-claude-scale') },
    word: { type: 'string', default: 'idempotency' },
    phrase: { type: 'string', default: 'idempotency key' },
    runs: { type: 'string', default: '50' },
    child: { type: 'string' },
  },
});
const ROOT = resolve(argv.corpus);
process.env.LEVELCODE_SESSIONS_CACHE ??= ROOT + '.cache';
const { SearchCache, cacheFile } = await import(join(REPO, 'dist', 'search', 'cache.js'));
const { buildCache, searchSessions, listSessionFiles } = await import(join(REPO, 'dist', 'search', 'search.js'));

// The first build, in a child of its own so that its peak memory is its own.
if (argv.child === 'build') {
  const t = performance.now();
  const cache = SearchCache.open(ROOT);
  await buildCache(cache, ROOT);
  cache.close();
  process.stdout.write(JSON.stringify({ ms: performance.now() - t, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

if (!existsSync(ROOT)) {
  console.error(`no corpus at ${ROOT}: node bench/corpus.mjs first`);
  process.exit(2);
}
const rg = spawnSync('rg', ['--version']).status === 0;
const ms = (x) => `${x < 10 ? x.toFixed(1) : Math.round(x)} ms`;
const timeRg = (args) => {
  if (!rg) return undefined;
  const t = performance.now();
  spawnSync('rg', args, { stdio: 'ignore' });
  return performance.now() - t;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const rows = [];
const row = (figure, ours, base, target) => rows.push({ figure, ours, base: base ?? (rg ? '' : 'rg absent'), target });

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
);
row('first build, peak memory', `${Math.round(built.maxRssMb)} MB`, '', '≤ 300 MB');
row('search cache size / corpus', `${(dbBytes / corpusBytes).toFixed(2)}x (${(dbBytes / 1e6).toFixed(0)} MB)`, '', '≤ 0.6x');

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
  );
}

// An appended turn: how long until a search finds it (a sync of every file's stat, then the query).
const target = files[Math.floor(files.length / 2)];
const marker = `zqxmarker${Date.now().toString(36)}`;
appendFileSync(target, JSON.stringify({ kind: 'user', t: new Date().toISOString(), content: `an appended turn ${marker}` }) + '\n');
const t0 = performance.now();
const found = await searchSessions(ROOT, marker, { cache, limit: 1 });
const appendMs = performance.now() - t0;
row(
  'an appended turn found (sync + query)',
  found.total === 1 ? ms(appendMs) : 'NOT FOUND',
  timeRg(['-F', '-c', marker, ROOT]) && `rg ${ms(timeRg(['-F', '-c', marker, ROOT]))}`,
  '≤ 100 ms',
);
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
  `node -e '' ${ms(pct(nodeE, 50))} (${(pct(cli, 50) / pct(nodeE, 50)).toFixed(2)}x)`,
  "≤ 1.5x node -e ''",
);

console.log(`\nSearch (issue 39), corpus ${ROOT}${rg ? '' : ' — ripgrep is absent: no baseline (apt-get install -y ripgrep)'}\n`);
console.log('| figure | ours | baseline, same run | target |\n| --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.figure} | ${r.ours} | ${r.base ?? ''} | ${r.target} |`);

// Relevance: before (kept) and now (run by the test that asserts it).
const before = join(REPO, 'bench', 'relevance-before.json');
if (existsSync(before)) {
  const b = JSON.parse((await import('node:fs')).readFileSync(before, 'utf8'));
  console.log(
    `\nRelevance before (substring, newest first): P@5 ${b.p5.toFixed(3)}, MRR ${b.mrr.toFixed(3)} over ${b.rows.length} queries; now: npx vitest run test/search-relevance.test.ts`,
  );
}
