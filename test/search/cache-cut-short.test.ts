// A search cache build cut short between two commits of one file (the sidecar's build worker is
// terminated at shutdown; its commits come every half second, between the slices of a big file):
// the next process that opens the cache indexes that file again, whole, rather than trusting
// a row written before the file was done.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SearchCache } from '../../server/search/cache.js';
import { searchSessions } from '../../server/search/search.js';

const dir = mkdtempSync(join(tmpdir(), 'lcs-cut-short-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a file whose build was cut short between two of its slices is indexed again, whole', async () => {
  const root = join(dir, 'store');
  const folder = join(root, '-work-big');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, '2026-11-01T10-00-00-bigg.jsonl');
  const meta = { kind: 'meta', v: 1, id: '2026-11-01T10-00-00-bigg', project: '/work/big', createdAt: '2026-11-01T10:00:00.000Z' };
  // About 9 MB: more than two of the build's slices (cache.ts SLICE); the word only at the end.
  const filler = 'lorem ipsum dolor sit amet '.repeat(400);
  const lines = [meta, ...Array.from({ length: 800 }, () => ({ kind: 'user', t: '2026-11-01T10:01:00.000Z', content: filler }))];
  lines.push({ kind: 'user', t: '2026-11-01T10:02:00.000Z', content: 'the last line says zeppelin' });
  writeFileSync(file, lines.map((l) => JSON.stringify(l) + '\n').join(''));
  const path = join(dir, 'search.sqlite');

  const first = SearchCache.open(root, path);
  const stop = new AbortController();
  // Runs in the pause after the first slice, once that slice is committed: the build stops there.
  setImmediate(() => stop.abort());
  await expect(first.sync([file], { signal: stop.signal, yieldMs: 0 })).rejects.toThrow();
  first.close();

  const again = SearchCache.open(root, path);
  try {
    await again.sync([file]);
    again.markBuilt();
    const r = await searchSessions(root, 'zeppelin', { cache: again });
    expect(r.ranked).toBe(true);
    expect(r.total).toBe(1);
  } finally {
    again.close();
  }
});
