// The first search of a store through the real binary (bin/ over dist/, where first-build.ts
// hands half the unindexed folders to a worker thread): the answer is the same as the answer
// from the indexes it wrote and as a scan with no index, and every folder's index is written.
// Real files in a temp dir: three projects of about 30 MB each, over first-build.ts's threshold.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { projectSlug } from '../server/store/slug.js';
import { searchIndexPath } from '../server/search/search-index.js';
import { searchSessions } from '../server/search/search.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;
let cache: string;

function writeStore(): void {
  const filler = 'lorem ipsum dolor sit amet consectetur '.repeat(1600); // ~62 KB a tool output
  for (let p = 0; p < 3; p++) {
    const project = join(tmp, `project-${p}`);
    const dir = join(root, projectSlug(project));
    mkdirSync(dir, { recursive: true });
    for (let s = 0; s < 5; s++) {
      const id = `2026-07-0${p + 1}T10-00-0${s}-ab${p}${s}`;
      const t = (n: number) => new Date(Date.UTC(2026, 6, p + 1, 10, s, n)).toISOString();
      const lines = [JSON.stringify({ kind: 'meta', v: 1, id, project, createdAt: t(0), title: null })];
      for (let n = 0; n < 100; n++) {
        const words = n % 17 === 0 ? `the idempotency key of turn ${n}` : `turn ${n}`;
        lines.push(JSON.stringify({ kind: 'user', t: t(n), content: words }));
        const result = { type: 'tool_result', tool_use_id: `t${n}`, content: `${filler} ${n % 23 === 0 ? 'idempotency' : ''}` };
        lines.push(JSON.stringify({ kind: 'agent', t: t(n), messages: [{ role: 'user', content: [result] }] }));
      }
      writeFileSync(join(dir, `${id}.jsonl`), `${lines.join('\n')}\n`, { mode: 0o600 });
    }
  }
}

function search(query: string) {
  const r = spawnSync(process.execPath, [bin, 'search', query, '--all', '--json', '--limit', '1000', '--dir', root], {
    env: { ...process.env, LEVELCODE_SESSIONS_CACHE: cache },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { hits: { sessionId: string; seq: number; snippet: string }[]; total: number; problems: unknown[] };
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-first-build-'));
  root = join(tmp, 'store');
  cache = join(tmp, 'cache');
  writeStore();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

it('builds every folder index on the first search and answers as the index and a scan do', async () => {
  const first = search('idempotency');
  const folders = [0, 1, 2].map((p) => join(root, projectSlug(join(tmp, `project-${p}`))));
  const was = process.env.LEVELCODE_SESSIONS_CACHE;
  process.env.LEVELCODE_SESSIONS_CACHE = cache;
  try {
    for (const dir of folders) expect(existsSync(searchIndexPath(dir))).toBe(true);
    const scan = await searchSessions(root, 'idempotency', { limit: 1000, index: false });
    const again = search('idempotency');
    expect(first.total).toBe(3 * 5 * (6 + 5)); // turns 0, 17, ..., 85 and tool outputs 0, 23, ..., 92 of each session
    expect(first.problems).toEqual([]);
    expect(again).toEqual(first);
    expect(first.hits.map((h) => [h.sessionId, h.seq, h.snippet])).toEqual(scan.hits.map((h) => [h.sessionId, h.seq, h.snippet]));
    expect(first.total).toBe(scan.total);
  } finally {
    if (was === undefined) delete process.env.LEVELCODE_SESSIONS_CACHE;
    else process.env.LEVELCODE_SESSIONS_CACHE = was;
  }
});
