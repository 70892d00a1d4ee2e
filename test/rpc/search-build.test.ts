// The search cache's first build on a worker thread, in the real sidecar over stdio, on a store
// big enough (bench/corpus.mjs, 40 MB) that the build takes a while: session/list answers while
// it runs (before its $/progress end), session/search answers meanwhile by scanning (ranked:
// false) with the matches the built cache gives afterwards, and a build cut short by shutdown
// leaves a cache whose `built` marker is set only if the build had finished; the next start goes
// on with it and ends with the same answer; a built cache that suddenly has 40 MB more to index
// (an import) catches up on the worker too, lists answering meanwhile and the search waiting for
// it; a client that cancels the build's progress stops it. Ordered by events only: no clock is
// read.

import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, cleanup, startSidecar, tempDir, workspace, type Sidecar } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';
import { FORMAT } from '../../server/search/cache.js';
import { cachePaths } from '../../server/store/cache-dir.js';

const TITLE = 'Indexing sessions for search';
const WORD = 'idempotency'; // bench/corpus.mjs SEARCH_WORD: in a few hundred events

let root: string;
let base: string;
let sessions: number;
/** How many sessions hold WORD (the first test's answer, which the others compare with). */
let wordTotal = 0;

beforeAll(() => {
  base = tempDir('lcs-build-');
  root = join(base, 'store');
  const r = spawnSync(
    process.execPath,
    [join(REPO, 'bench', 'corpus.mjs'), '--out', root, '--sessions', '400', '--total-mb', '40', '--huge', '', '--projects', '6'],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  sessions = 400;
}, 120_000);
afterAll(cleanup);

/** A sidecar on the corpus with its own cache folder (none yet: the first build starts). */
async function sidecar(cache: string): Promise<Sidecar> {
  const s = await startSidecar({ root, env: { LEVELCODE_SESSIONS_CACHE: cache }, workDoneProgress: true });
  void s.call(P.sessionList, { limit: 1 }); // loads the core, which starts the build
  return s;
}

/** The progress of the first build: its begin, and a promise of its end. */
async function buildProgress(s: Sidecar) {
  const begin = await s.editor.progress.waitFor((p) => p.value.kind === 'begin' && p.value.title === TITLE);
  const end = s.editor.progress.waitFor((p) => p.token === begin.token && p.value.kind === 'end');
  let ended = false;
  void end.then(() => (ended = true));
  return { begin, end, ended: () => ended };
}

/** The search cache's `built` marker, read with the same SQLite the sidecar uses here. */
function builtMarker(cache: string): string | undefined {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (p: string, o: object) => any;
  const db = new Database(join(cachePaths(root, { LEVELCODE_SESSIONS_CACHE: cache }).dir, `search-${FORMAT}.sqlite`), { readonly: true });
  try {
    return (db.prepare("SELECT value FROM about WHERE key='built'").get() as { value: string } | undefined)?.value;
  } finally {
    db.close();
  }
}

describe('the search cache built on a worker thread', () => {
  it('answers session/list and session/search while the first build runs, and searches ranked after it', async () => {
    const s = await sidecar(join(base, 'cache-a'));
    const build = await buildProgress(s);
    const list = await s.call(P.sessionList, { all: true, limit: 1000 });
    expect(build.ended()).toBe(false); // answered while the build ran
    expect(list.sessions.length).toBe(sessions);
    const scanned = await s.call(P.sessionSearch, { query: WORD, limit: 1000 });
    expect(scanned.ranked).toBe(false); // sent before the end: answered by scanning
    expect(scanned.total).toBeGreaterThan(0);

    await build.end;
    const reports = s.editor.progress.items.filter((p) => p.token === build.begin.token && p.value.kind === 'report');
    expect(reports.at(-1)?.value.message).toBe(`${sessions}/${sessions} sessions`);
    const ranked = await s.call(P.sessionSearch, { query: WORD, limit: 1000 });
    expect(ranked.ranked).toBe(true);
    expect(ranked.total).toBe(scanned.total);
    wordTotal = ranked.total;
    expect(new Set(ranked.sessions.map((x) => x.sessionId))).toEqual(new Set(scanned.sessions.map((x) => x.sessionId)));
    await s.stop();
    expect(s.stderr).toMatch(/search cache built on a worker thread/);
    expect(builtMarker(join(base, 'cache-a'))).toBe('1');
  }, 180_000);

  it('stops the build at shutdown without a cache taken as built, and the next start finishes it', async () => {
    const cache = join(base, 'cache-b');
    const s = await sidecar(cache);
    const build = await buildProgress(s);
    await s.editor.progress.waitFor((p) => p.token === build.begin.token && p.value.kind === 'report');
    expect((await s.stop()).code).toBe(0);
    // Built only when the worker had finished before the shutdown reached it (a fast machine).
    const finished = /search cache built on a worker thread/.test(s.stderr);
    expect(builtMarker(cache)).toBe(finished ? '1' : undefined);

    const again = await sidecar(cache);
    if (!finished) await (await buildProgress(again)).end;
    const r = await again.call(P.sessionSearch, { query: WORD, limit: 1000 });
    expect(r.ranked).toBe(true);
    const clean = await startSidecar({ root, env: { LEVELCODE_SESSIONS_CACHE: join(base, 'cache-a') } });
    const want = await clean.call(P.sessionSearch, { query: WORD, limit: 1000 });
    expect(r.total).toBe(want.total);
    expect(r.hits.map((h) => h.cite).sort()).toEqual(want.hits.map((h) => h.cite).sort());
    await Promise.all([again.stop(), clean.stop()]);
  }, 180_000);

  it('brings a built cache up to date on the worker when much is new (an import): lists answer, the search waits for it', async () => {
    const { root: other, base: otherBase } = workspace();
    const s = await startSidecar({ root: other, env: { LEVELCODE_SESSIONS_CACHE: join(otherBase, 'cache') }, workDoneProgress: true });
    expect((await s.call(P.sessionSearch, { query: WORD })).total).toBe(0); // an empty store: built at once
    cpSync(root, other, { recursive: true }); // 40 MB of sessions arrive at once
    const searched = s.call(P.sessionSearch, { query: WORD, limit: 1000 });
    const begin = await s.editor.progress.waitFor((p) => p.value.kind === 'begin' && p.value.title === 'Indexing new sessions for search');
    let ended = false;
    void s.editor.progress.waitFor((p) => p.token === begin.token && p.value.kind === 'end').then(() => (ended = true));
    const list = await s.call(P.sessionList, { all: true, limit: 1000 });
    expect(ended).toBe(false); // answered while the worker indexed
    expect(list.sessions.length).toBe(sessions);
    const r = await searched;
    expect(ended).toBe(true); // the search waited for the catch-up (its end comes first on the stream)
    expect(r.ranked).toBe(true);
    expect(r.total).toBe(wordTotal);
    await s.stop();
    expect(s.stderr).toMatch(/search cache brought up to date on a worker thread/);
  }, 180_000);

  it('stops the first build when the client cancels its progress; searches then scan', async () => {
    const cache = join(base, 'cache-c');
    const s = await startSidecar({ root, env: { LEVELCODE_SESSIONS_CACHE: cache }, workDoneProgress: true, trace: 'messages' });
    void s.call(P.sessionList, { limit: 1 });
    const build = await buildProgress(s);
    await s.conn.sendNotification('window/workDoneProgress/cancel', { token: build.begin.token });
    await build.end;
    // Logged before the end is sent: which of the two happened (a fast machine may finish first).
    const cancelled = s.editor.logs.items.some((l) => /search cache build cancelled/.test(l.message));
    const r = await s.call(P.sessionSearch, { query: WORD, limit: 1000 });
    expect(r.ranked).toBe(!cancelled);
    expect(r.total).toBe(wordTotal);
    await s.stop();
    expect(builtMarker(cache)).toBe(cancelled ? undefined : '1');
  }, 180_000);
});
