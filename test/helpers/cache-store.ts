// A store of two sessions in one project with a cache folder of its own, and the CLI run on it:
// what the cache suites (store/cache-contract, cli/history-cache) damage, change and compare.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BIN, fileOf, tempDir } from './sidecar.js';

/** The real CLI on `root`, its caches in `cache`. */
export function cacheCli(root: string, cache: string, args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args, '--dir', root], {
    input,
    encoding: 'utf8',
    env: { ...process.env, LEVELCODE_SESSIONS_CACHE: cache, NO_COLOR: '1' },
    timeout: 20_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Two sessions about refunds in one project, made by the CLI (no cache read yet). */
export function twoSessions(prefix: string) {
  const base = tempDir(prefix);
  const root = join(base, 'store');
  const project = join(base, 'project');
  mkdirSync(project);
  const cache = join(base, 'cache');
  const ids: string[] = [];
  for (const text of ['Add idempotency to RefundService', 'Why does the refund test flake?']) {
    const id = cacheCli(root, cache, ['new', '--project', project]).out.trim();
    const lines = [
      { kind: 'user', content: text },
      { kind: 'assistant', content: 'Use a refund key.' },
    ];
    cacheCli(root, cache, ['append', id], lines.map((l) => JSON.stringify(l) + '\n').join(''));
    ids.push(id);
  }
  return { base, root, project, cache, ids, dir: dirname(fileOf(root, ids[0]!)) };
}
