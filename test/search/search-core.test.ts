// The ranked search's core over real files in a temp store: the query language, paging with a
// total independent of the page, the cache kept current by appends and rewrites, a hit that no
// longer checks out dropped (and its file indexed again), long texts, and the same answers
// from the cache and by scanning; a session written a turn at a time, a phrase apart, and the
// conversation ranked before tool output.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { QueryError, buildCache, searchSessions, syncFolders } from '../../server/search/search.js';
import { DOC_SPAN, SearchCache, rowidRange } from '../../server/search/cache.js';
import { parseQuery } from '../../server/search/query.js';

let dir: string;
let root: string;
const env = process.env.LEVELCODE_SESSIONS_CACHE;
const line = (o: unknown) => JSON.stringify(o) + '\n';

/** A session file as the store writes it: a meta line, then events. */
function session(id: string, project: string, events: unknown[], tool?: string): string {
  const folder = join(root, project.replace(/\//g, '-'));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${id}.jsonl`);
  const meta = {
    kind: 'meta',
    v: 1,
    id,
    project,
    createdAt: '2026-11-01T10:00:00.000Z',
    ...(tool ? { source: { tool, id: `x-${id}` } } : {}),
  };
  writeFileSync(file, line(meta) + events.map(line).join(''));
  return file;
}
const user = (text: string, t = '2026-11-01T10:01:00.000Z') => ({ kind: 'user', t, content: text });
const said = (text: string, t = '2026-11-01T10:02:00.000Z') => ({ kind: 'assistant', t, content: [{ type: 'text', text }] });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lcs-search-core-'));
  root = join(dir, 'store');
  process.env.LEVELCODE_SESSIONS_CACHE = join(dir, 'cache');
  for (let i = 0; i < 12; i++) session(`2026-11-01T10-00-00-p${String(i).padStart(3, '0')}`, '/w/paging', [user(`paging word ${i}`)]);
  session('2026-11-02T10-00-00-tool', '/w/app', [user('deploy fails'), said('the deploy script needs a build')], 'codex');
  session('2026-11-04T10-00-00-frac', '/w/units', [user('a ½ cup, the ŀ of Catalan and the Ĳ of Dutch')]);
  session('2026-11-05T10-00-00-scripts', '/w/scripts', [user('йод и 한국 и Ελλάδα и がっこう')]);
  session('2026-11-03T10-00-00-long', '/w/app', [
    {
      kind: 'agent',
      t: '2026-11-03T10:00:00.000Z',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'a', content: `${'filler '.repeat(20_000)}needle-in-haystack ${'tail '.repeat(5000)}` },
          ],
        },
      ],
    },
  ]);
});
afterAll(() => {
  if (env === undefined) delete process.env.LEVELCODE_SESSIONS_CACHE;
  else process.env.LEVELCODE_SESSIONS_CACHE = env;
  rmSync(dir, { recursive: true, force: true });
});

describe('the query language', () => {
  it('reads words, prefixes, phrases, exclusions and filters; a bad filter is an error in words', () => {
    const q = parseQuery(
      'redis idempot* "exact phrase" -skip -"not this" tool:codex project:app role:user since:2026-11-01 until:2026-11-30T00:00Z util.py',
    );
    expect(q.terms.map((t) => [t.words, t.prefix])).toEqual([
      [['redis'], false],
      [['idempot'], true],
      [['exact', 'phrase'], false],
      [['util', 'py'], false],
    ]);
    expect(q.excluded.map((t) => t.words)).toEqual([['skip'], ['not', 'this']]);
    expect(q).toMatchObject({ tool: 'codex', project: 'app', role: 'user', since: '2026-11-01T00:00:00.000Z', errors: [] });
    expect(parseQuery('x role:robot since:tuesday').errors).toHaveLength(2);
  });

  it('a query that does not read, or has no word, is a QueryError', async () => {
    await expect(searchSessions(root, 'x role:robot')).rejects.toBeInstanceOf(QueryError);
    await expect(searchSessions(root, 'tool:codex')).rejects.toBeInstanceOf(QueryError);
    await expect(searchSessions(root, 'paging', { cursor: 'nonsense' })).rejects.toBeInstanceOf(QueryError);
  });
});

describe('ranked search', () => {
  it('pages sessions with a cursor; total is the same whatever the page size', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await searchSessions(root, 'paging', { limit: 5, cursor });
      expect(r.total).toBe(12);
      expect(r.ranked).toBe(true);
      seen.push(...r.sessions.map((s) => s.sessionId));
      cursor = r.cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(12);
    expect((await searchSessions(root, 'paging', { limit: 100 })).total).toBe(12);
  });

  it('filters by tool, project and role, leaves out -excluded sessions, and cites id#seq', async () => {
    const r = await searchSessions(root, 'deploy tool:codex project:app');
    expect(r.sessions.map((s) => s.sessionId)).toEqual(['2026-11-02T10-00-00-tool']);
    expect(r.hits[0]!.cite).toMatch(/^2026-11-02T10-00-00-tool#\d$/);
    expect((await searchSessions(root, 'deploy tool:levelcode')).total).toBe(0);
    expect((await searchSessions(root, 'build role:user')).total).toBe(0);
    expect((await searchSessions(root, 'build role:assistant')).total).toBe(1);
    expect((await searchSessions(root, 'deploy -script')).total).toBe(0);
  });

  it('finds a word deep in a long tool output, the snippet around it and bounded', async () => {
    const r = await searchSessions(root, 'haystack');
    expect(r.hits[0]!.snippet).toContain('needle-in-haystack');
    expect(r.hits[0]!.snippet.length).toBeLessThan(200);
    const [a, b] = r.hits[0]!.ranges[0]!;
    expect(r.hits[0]!.snippet.slice(a, b).toLowerCase()).toBe('haystack');
  });

  it('an append is found by the next search; a rewritten file is indexed again', async () => {
    const file = session('2026-11-04T10-00-00-grow', '/w/app', [user('first words')]);
    expect((await searchSessions(root, 'zeppelin')).total).toBe(0);
    appendFileSync(file, line(user('a zeppelin appears', '2026-11-04T10:05:00.000Z')));
    const r = await searchSessions(root, 'zeppelin');
    expect(r.hits.map((h) => h.cite)).toEqual(['2026-11-04T10-00-00-grow#1']);
    // Rewritten in place, shorter (never done by us; another tool might): read anew.
    writeFileSync(
      file,
      line({ kind: 'meta', v: 1, id: '2026-11-04T10-00-00-grow', project: '/w/app', createdAt: '2026-11-04T10:00:00.000Z' }) +
        line(user('only a blimp now')),
    );
    expect((await searchSessions(root, 'zeppelin')).total).toBe(0);
    expect((await searchSessions(root, 'blimp')).total).toBe(1);
  });

  it('a sync of the folders a watcher saw touched: their files indexed or dropped, other folders kept', async () => {
    const cache = SearchCache.open(root);
    try {
      await buildCache(cache, root);
      const here = session('2026-11-05T10-00-00-fold', '/w/folder', [user('a marmot here')]);
      const there = session('2026-11-05T10-00-00-else', '/w/elsewhere', [user('a marmot there')]);
      await syncFolders(cache, [dirname(here)]);
      const found = await searchSessions(root, 'marmot', { cache, fresh: true });
      // Only the touched folder was looked at: the other folder's new file is not known yet.
      expect(found.sessions.map((m) => m.sessionId)).toEqual(['2026-11-05T10-00-00-fold']);
      rmSync(here);
      await syncFolders(cache, [dirname(here)]);
      expect((await searchSessions(root, 'marmot', { cache, fresh: true })).total).toBe(0);
      await syncFolders(cache, [dirname(there)]);
      expect((await searchSessions(root, 'marmot', { cache, fresh: true })).sessions.map((m) => m.sessionId)).toEqual([
        '2026-11-05T10-00-00-else',
      ]);
      // The paging folder, not touched, is still searched.
      expect((await searchSessions(root, 'paging', { cache, fresh: true })).total).toBe(12);
      rmSync(there);
    } finally {
      cache.close();
    }
  });

  it('a hit whose line no longer holds the word (same size and mtime) is dropped, and its file indexed again', async () => {
    const file = session('2026-11-05T10-00-00-swap', '/w/app', [user('walrus sighting')]);
    expect((await searchSessions(root, 'walrus')).total).toBe(1);
    const { statSync, utimesSync } = await import('node:fs');
    const st = statSync(file);
    // The same bytes count, another word: the cache cannot tell by size and mtime.
    writeFileSync(
      file,
      line({ kind: 'meta', v: 1, id: '2026-11-05T10-00-00-swap', project: '/w/app', createdAt: '2026-11-01T10:00:00.000Z' }) +
        line(user('beaver sighting')),
    );
    utimesSync(file, st.atime, st.mtime);
    expect(statSync(file).size).toBe(st.size);
    const r = await searchSessions(root, 'walrus');
    expect(r.sessions).toEqual([]); // checked against the file, and dropped
    expect((await searchSessions(root, 'beaver')).total).toBe(1); // indexed again
  });

  it('a session written a turn at a time stays a few documents, every turn found', async () => {
    const file = session('2026-11-06T10-00-00-turns', '/w/turns', [user('turn zero ocelot')]);
    const cache = SearchCache.open(root);
    try {
      await buildCache(cache, root);
      for (let i = 1; i <= 12; i++) {
        appendFileSync(file, line(user(`turn ${i} ocelot${i}`, `2026-11-06T10:${String(i).padStart(2, '0')}:00.000Z`)));
        await syncFolders(cache, [dirname(file)]);
      }
      const f = [...cache.files.values()].find((x) => x.path === file)!;
      const parts = cache.db
        .prepare('SELECT count(*) AS n FROM docs WHERE rowid >= ? AND rowid < ?')
        .get(...rowidRange(f.id, DOC_SPAN)) as { n: number };
      expect(parts.n).toBe(1);
      for (const w of ['ocelot', 'ocelot1', 'ocelot7', 'ocelot12'])
        expect(
          (await searchSessions(root, w, { cache, fresh: true })).sessions.map((m) => m.sessionId),
          w,
        ).toEqual(['2026-11-06T10-00-00-turns']);
    } finally {
      cache.close();
    }
  });

  it('a phrase whose words are apart in an event is no hit there, and leaves the file trusted', async () => {
    const file = session('2026-11-07T10-00-00-apart', '/w/apart', [
      user('kettle and black'),
      user('a kettle black as night', '2026-11-01T10:03:00.000Z'),
    ]);
    expect((await searchSessions(root, '"kettle black"')).hits.map((h) => h.cite)).toEqual(['2026-11-07T10-00-00-apart#1']);
    const cache = SearchCache.open(root);
    try {
      expect([...cache.files.values()].find((x) => x.path === file)!.size).toBeGreaterThan(0);
    } finally {
      cache.close();
    }
    expect((await searchSessions(root, '"black kettle"')).total).toBe(0);
  });

  it('a word the conversation holds ranks before one only in tool output', async () => {
    session('2026-11-08T10-00-00-talk', '/w/rank', [user('why does the gazebo leak?')]);
    session('2026-11-08T10-00-01-tool', '/w/rank', [
      {
        kind: 'agent',
        t: '2026-11-01T10:02:00.000Z',
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'gazebo.txt written' }] }],
      },
    ]);
    const r = await searchSessions(root, 'gazebo');
    expect(r.sessions.map((m) => m.sessionId)).toEqual(['2026-11-08T10-00-00-talk', '2026-11-08T10-00-01-tool']);
    expect(r.sessions[1]!.hits[0]!.where).toBe('tool-output');
  });

  it('a word found only folded (crème for creme) is a hit, its place highlighted in the text as written', async () => {
    session('2026-11-09T10-00-00-fold', '/w/fold', [user('the Crème brûlée and the creme anglaise')]);
    for (const cache of [undefined, null]) {
      const r = await searchSessions(root, 'brulee', { cache });
      expect(r.sessions.map((s) => s.sessionId)).toEqual(['2026-11-09T10-00-00-fold']);
      const [a, b] = r.hits[0]!.ranges[0]!;
      expect(r.hits[0]!.snippet.slice(a, b)).toBe('brûlée');
    }
  });

  it('a prefix highlights the whole word it begins, from the cache and by scanning', async () => {
    for (const cache of [undefined, null]) {
      const r = await searchSessions(root, 'depl* tool:codex', { limit: 5, ...(cache === null ? { cache } : {}) });
      const hit = r.hits[0]!;
      expect(hit.ranges.map(([a, b]) => hit.snippet.slice(a, b))).toContain('deploy');
    }
  });

  it('a word whose compatibility form is two words (½, ŀ, Ĳ) is found, ranked and scanned', async () => {
    // Folded by compatibility (NFKD) they were "1⁄2", "l·", "ij": a phrase to FTS5, which the
    // events' table (no positions) refuses with an error. The cache folds them as FTS5 does.
    const frac = ['2026-11-04T10-00-00-frac'];
    for (const q of ['½', 'ŀ', 'Ĳ', '½ cup', '½ since:2026-11-01', 'ŀ role:user']) {
      const ranked = await searchSessions(root, q, { limit: 50 });
      expect(
        ranked.sessions.map((s) => s.sessionId),
        q,
      ).toEqual(frac);
      const scanned = await searchSessions(root, q, { limit: 50, cache: null });
      expect(
        scanned.sessions.map((s) => s.sessionId),
        q,
      ).toEqual(frac);
    }
  });

  it('a word of a script FTS5 keeps its marks in (й, 한국, Ελλάδα, がっこう) is found, ranked and scanned', async () => {
    // FTS5 removes diacritics from Latin letters only, and keeps a Hangul syllable whole: a fold
    // that stripped every mark, or left the syllable decomposed, asked it for words it never stored.
    const scripts = ['2026-11-05T10-00-00-scripts'];
    for (const q of ['йод', '한국', 'Ελλάδα', 'がっこう', '"йод и 한국"']) {
      expect(
        (await searchSessions(root, q, { limit: 50 })).sessions.map((s) => s.sessionId),
        q,
      ).toEqual(scripts);
      expect(
        (await searchSessions(root, q, { limit: 50, cache: null })).sessions.map((s) => s.sessionId),
        q,
      ).toEqual(scripts);
    }
  });

  it('scanning (before a first build) finds the same sessions', async () => {
    for (const q of [
      'paging',
      'deploy tool:codex',
      'haystack',
      '"deploy script"',
      'haystack role:tool',
      'paging since:2026-11-01 until:2026-11-30',
    ]) {
      const ranked = await searchSessions(root, q, { limit: 50 });
      expect(ranked.total, q).toBeGreaterThan(0);
      const scanned = await searchSessions(root, q, { limit: 50, cache: null });
      expect(scanned.ranked).toBe(false);
      expect(scanned.sessions.map((s) => s.sessionId).sort(), q).toEqual(ranked.sessions.map((s) => s.sessionId).sort());
    }
  });
});
