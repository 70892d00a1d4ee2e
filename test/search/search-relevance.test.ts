// The ranked search's quality over the relevance set (test/helpers/relevance-set.ts: 30+ judged
// queries over every importer's fixtures and sessions of our own), as precision at 5 and mean
// reciprocal rank: floors the search must stay above, from the cache and by scanning (what a
// search answers while the cache's first build runs). The figures before the ranked search
// (today's substring search, newest first) are in bench/relevance-before.json; `npm run bench`
// prints both.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRelevanceStore } from '../helpers/relevance-store.js';
import { RELEVANCE, score, sessionKey } from '../helpers/relevance-set.js';
import { searchSessions } from '../../server/search/search.js';
import { callText, connect } from '../mcp/harness.js';

let dir: string;
let root: string;
const env = process.env.LEVELCODE_SESSIONS_CACHE;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lcs-relevance-'));
  process.env.LEVELCODE_SESSIONS_CACHE = join(dir, 'cache');
  root = await buildRelevanceStore(dir);
}, 120_000);
afterAll(async () => {
  if (env === undefined) delete process.env.LEVELCODE_SESSIONS_CACHE;
  else process.env.LEVELCODE_SESSIONS_CACHE = env;
  await rm(dir, { recursive: true, force: true });
});

describe('relevance', () => {
  it('has at least 30 judged queries, each with a reason', () => {
    expect(RELEVANCE.length).toBeGreaterThanOrEqual(30);
    for (const j of RELEVANCE) expect(j.why.length, j.query).toBeGreaterThan(10);
  });

  for (const mode of ['ranked', 'scanning'] as const)
    it(`${mode}: precision at 5 and MRR stay above their floors`, async () => {
      const s = await score(async (q) => {
        const r = await searchSessions(root, q, { limit: 10, cache: mode === 'scanning' ? null : undefined });
        expect(r.ranked).toBe(mode === 'ranked');
        return r.sessions.map((m) => m.file);
      });
      const misses = s.rows.filter((r) => r.rr < 1).map((r) => `${r.query}: ${r.top.join(', ')}`);
      expect(s.p5, misses.join('\n')).toBeGreaterThanOrEqual(0.95);
      expect(s.mrr, misses.join('\n')).toBeGreaterThanOrEqual(0.95);
    }, 120_000);

  it('"docstring util.py" starts with the session about that, before newer ones naming both in passing', async () => {
    const r = await searchSessions(root, 'docstring util.py', { limit: 5 });
    expect(sessionKey(r.sessions[0]!.file)).toBe('title:Add a docstring to util.py');
    expect(r.sessions.map((m) => sessionKey(m.file))).toContain('title:Lint the whole repo');
  });

  it('MCP recall for "docstring util.py" starts with the session about that (the real MCP server over stdio)', async () => {
    const c = await connect(root, [], { LEVELCODE_SESSIONS_CACHE: join(dir, 'cache') });
    try {
      const r = await callText(c.client, 'recall', { query: 'docstring util.py' });
      expect(r.isError).toBe(false);
      expect(r.text.split('\n').find((l) => l.startsWith('## '))).toMatch(/^## Add a docstring to util\.py — /);
      expect(r.text).toContain('Please add a docstring to parse_args in util.py');
    } finally {
      await c.close();
    }
  });
});
