// Full-text search (server/search/search.ts) over real session files in a temp store: words,
// phrases, case, where a match is (tool input/output marked), the project filter with two
// projects whose slugs collide, time ranges, ranking, limit, abort, progress and bad lines.

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeLine } from '../server/format/events.js';
import { listSessionFiles, parseQuery, searchSessions, type SearchHit } from '../server/search/search.js';

let root: string;
const files: Record<string, string> = {};

function session(slug: string, id: string, project: string, events: Record<string, unknown>[], tail = ''): string {
  const dir = join(root, slug);
  mkdirSync(dir, { recursive: true });
  const meta = { kind: 'meta', v: 1, id, project, createdAt: '2026-07-01T00:00:00.000Z', title: null };
  const file = join(dir, `${id}.jsonl`);
  writeFileSync(file, [meta, ...events].map((e) => serializeLine(e) + '\n').join('') + tail);
  return file;
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'lc-search-'));
  // /a/b-c and /a-b/c share the slug -a-b-c: one folder, told apart by the meta line.
  files.rust = session('-a-b-c', '2026-07-01T10-00-00-aaaa', '/a/b-c', [
    { kind: 'user', t: '2026-07-01T10:00:01.000Z', content: 'How do I parse JSON in Rust?' },
    {
      kind: 'assistant',
      t: '2026-07-01T10:00:05.000Z',
      content: [
        { type: 'text', text: 'Use serde_json. Add it first:' },
        { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'cargo add serde_json' } },
      ],
    },
    {
      kind: 'agent',
      t: '2026-07-01T10:00:09.000Z',
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'Updating crates.io index' }] }],
    },
    { kind: 'title', t: '2026-07-01T10:00:10.000Z', title: 'Rust JSON parsing' },
    { kind: 'user', t: '2026-07-01T10:00:20.000Z', content: 'My path is C:\\Users\\ada and über-long 日本語 text' },
  ]);
  files.config = session('-a-b-c', '2026-07-02T10-00-00-bbbb', '/a-b/c', [
    { kind: 'user', t: '2026-07-02T10:00:01.000Z', content: 'Parse the CONFIG file, then PARSE again' },
    { kind: 'assistant', t: '2026-07-02T10:00:02.000Z', content: 'He said "hello world" loudly.' },
    { kind: 'compact', t: '2026-07-02T10:00:03.000Z', briefing: 'Summary: the user wants to parse config.', coversThrough: 1 },
    {
      kind: 'agent',
      t: '2026-07-02T10:00:04.000Z',
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'grep', arguments: '{"pattern":"needleInArgs"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'found needleInOutput' },
      ],
    },
  ]);
  // Bad lines: not JSON in the middle, a torn last line; the good lines still count.
  files.broken = session(
    '-x',
    '2026-07-03T10-00-00-cccc',
    '/x',
    [{ kind: 'user', t: '2026-07-03T10:00:01.000Z', content: 'parse this please' }],
    '{"kind":"user","t":"2026-07-03T10:00:02.000Z","content":"parse broken\n' +
      serializeLine({ kind: 'user', t: '2026-07-03T10:00:03.000Z', content: 'parse after the bad line' }) +
      '\n{"kind":"user","t":"2026-07-03T10:00:04.000Z","content":"parse torn',
  );
  mkdirSync(join(root, '-y'));
  files.noMeta = join(root, '-y', '2026-07-04T10-00-00-dddd.jsonl');
  writeFileSync(files.noMeta, 'garbage parse\n{"kind":"user","t":"2026-07-04T10:00:00.000Z","content":"parse"}\n');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const brief = (hits: SearchHit[]) => hits.map((h) => `${h.sessionId.slice(-4)}#${h.seq}:${h.where}`);

describe('search: the query', () => {
  it('splits words and "quoted phrases"', () => {
    expect(parseQuery('foo "bar baz" Qux "open')).toEqual({ words: ['foo', 'Qux'], phrases: ['bar baz', 'open'] });
    expect(parseQuery('   ')).toEqual({ words: [], phrases: [] });
  });

  it('finds nothing for an empty query', async () => {
    expect((await searchSessions(root, '  ')).hits).toEqual([]);
  });
});

describe('search: matching', () => {
  it('matches words case-insensitively, newest first', async () => {
    const r = await searchSessions(root, 'PARSE');
    expect(brief(r.hits)).toEqual(['cccc#2:user', 'cccc#0:user', 'bbbb#2:compact', 'bbbb#0:user', 'aaaa#0:user']);
    expect(r.total).toBe(5);
  });

  it('finds the sessions holding every word, each in any of their events', async () => {
    expect(brief((await searchSessions(root, 'parse json')).hits)).toEqual(['aaaa#3:title', 'aaaa#1:assistant', 'aaaa#0:user']);
    // "serde" only in the assistant's answer, "how" only in the question: the session holds both.
    expect(brief((await searchSessions(root, 'serde how')).hits)).toEqual(['aaaa#1:assistant', 'aaaa#0:user']);
    expect((await searchSessions(root, 'serde hello')).hits).toEqual([]); // in two sessions, none holds both
  });

  it('matches "phrases" exactly, case included, even across JSON escapes', async () => {
    expect(brief((await searchSessions(root, '"hello world"')).hits)).toEqual(['bbbb#1:assistant']);
    expect((await searchSessions(root, '"Hello World"')).hits).toEqual([]);
    expect(brief((await searchSessions(root, '"said \\"hello"')).hits)).toEqual([]); // no escapes in queries
    expect(brief((await searchSessions(root, '"C:\\Users\\ada"')).hits)).toEqual(['aaaa#4:user']);
    expect(brief((await searchSessions(root, '"CONFIG file"')).hits)).toEqual(['bbbb#0:user']);
  });

  it('does not match JSON keys or kinds, only text', async () => {
    expect((await searchSessions(root, 'kind')).hits).toEqual([]);
    expect((await searchSessions(root, 'tool_use_id')).hits).toEqual([]);
  });

  it('marks tool inputs and outputs, Anthropic and OpenAI shapes', async () => {
    expect(brief((await searchSessions(root, 'cargo')).hits)).toEqual(['aaaa#1:tool-input']);
    expect(brief((await searchSessions(root, 'crates.io')).hits)).toEqual(['aaaa#2:tool-output']);
    expect(brief((await searchSessions(root, 'needleinargs')).hits)).toEqual(['bbbb#3:tool-input']);
    expect(brief((await searchSessions(root, 'needleInOutput')).hits)).toEqual(['bbbb#3:tool-output']);
    expect(brief((await searchSessions(root, 'serde_json')).hits)).toEqual(['aaaa#1:assistant']);
  });

  it('reads OpenAI Responses items as every reader does: custom tool calls, their outputs, reasoning', async () => {
    const own = mkdtempSync(join(tmpdir(), 'lc-search-responses-'));
    try {
      mkdirSync(join(own, '-r'));
      const meta = {
        kind: 'meta',
        v: 1,
        id: '2026-07-05T10-00-00-eeee',
        project: '/r',
        createdAt: '2026-07-05T00:00:00.000Z',
        title: null,
      };
      const agent = {
        kind: 'agent',
        t: '2026-07-05T10:00:01.000Z',
        messages: [
          { type: 'reasoning', summary: [{ type: 'summary_text', text: 'weighing quokkaPlan first' }] },
          { type: 'custom_tool_call', call_id: 'k1', name: 'apply_patch', input: '*** Begin Patch wombatFile' },
          { type: 'custom_tool_call_output', call_id: 'k1', output: 'patched numbatLine' },
        ],
      };
      writeFileSync(join(own, '-r', `${meta.id}.jsonl`), [meta, agent].map((e) => serializeLine(e) + '\n').join(''));
      for (const index of [false, true]) {
        expect(brief((await searchSessions(own, 'quokkaPlan', { index })).hits)).toEqual(['eeee#0:agent']);
        expect(brief((await searchSessions(own, 'wombatFile', { index })).hits)).toEqual(['eeee#0:tool-input']);
        expect(brief((await searchSessions(own, 'numbatLine', { index })).hits)).toEqual(['eeee#0:tool-output']);
      }
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('finds titles, and gives each hit its session title', async () => {
    const r = await searchSessions(root, 'rust');
    expect(brief(r.hits)).toEqual(['aaaa#3:title', 'aaaa#0:user']);
    expect(r.hits.every((h) => h.title === 'Rust JSON parsing')).toBe(true);
    const c = await searchSessions(root, 'loudly');
    expect(c.hits[0]!.title).toBe('Parse the CONFIG file, then PARSE again');
  });

  it('matches non-ASCII words, case-insensitively', async () => {
    expect(brief((await searchSessions(root, '日本語')).hits)).toEqual(['aaaa#4:user']);
    expect(brief((await searchSessions(root, 'ÜBER-LONG')).hits)).toEqual(['aaaa#4:user']);
  });

  it('gives snippets with the matched ranges', async () => {
    // The event holding both words (a newer one holds "parse" only).
    const hit = (await searchSessions(root, 'parse again')).hits.find((h) => h.t === '2026-07-02T10:00:01.000Z');
    expect(hit).toBeDefined();
    const words = hit!.ranges.map(([a, b]) => hit!.snippet.slice(a, b));
    expect(words).toEqual(['Parse', 'PARSE', 'again']);
    expect(hit).toMatchObject({ sessionId: '2026-07-02T10-00-00-bbbb', project: '/a-b/c', kind: 'user', t: '2026-07-02T10:00:01.000Z' });
  });

  it('cuts long texts into a snippet around the first match', async () => {
    const long = session('-z', '2026-07-05T10-00-00-eeee', '/z', [
      { kind: 'assistant', t: '2026-07-05T10:00:00.000Z', content: 'a'.repeat(5000) + ' zebra ' + 'b'.repeat(5000) },
    ]);
    const [hit] = (await searchSessions([long], 'zebra')).hits;
    expect(hit!.snippet.length).toBeLessThan(200);
    expect(hit!.snippet.startsWith('…')).toBe(true);
    const [a, b] = hit!.ranges[0]!;
    expect(hit!.snippet.slice(a, b)).toBe('zebra');
    rmSync(join(root, '-z'), { recursive: true });
  });
});

describe('search: filters and limits', () => {
  it('filters by the exact project path, even when slugs collide', async () => {
    expect(brief((await searchSessions(root, 'parse', { project: '/a/b-c' })).hits)).toEqual(['aaaa#0:user']);
    expect(brief((await searchSessions(root, 'parse', { project: '/a-b/c' })).hits)).toEqual(['bbbb#2:compact', 'bbbb#0:user']);
    expect((await searchSessions(root, 'parse', { project: '/a/b' })).hits).toEqual([]);
  });

  it('filters by time range, both ends inclusive', async () => {
    const r = await searchSessions(root, 'parse', { since: '2026-07-02T10:00:01.000Z', until: '2026-07-03T10:00:01Z' });
    expect(brief(r.hits)).toEqual(['cccc#0:user', 'bbbb#2:compact', 'bbbb#0:user']);
  });

  it('keeps the newest hits within the limit, and counts them all', async () => {
    const r = await searchSessions(root, 'parse', { limit: 2 });
    expect(brief(r.hits)).toEqual(['cccc#2:user', 'cccc#0:user']);
    expect(r.total).toBe(5);
  });

  it('searches a list of files as well as a store root', async () => {
    expect(await listSessionFiles(root)).toHaveLength(4);
    expect(brief((await searchSessions([files.config!], 'parse')).hits)).toEqual(['bbbb#2:compact', 'bbbb#0:user']);
    expect((await searchSessions(join(root, 'missing'), 'parse')).hits).toEqual([]);
  });
});

describe('search: tolerance, progress, abort', () => {
  it('skips bad lines and files, and reports them as problems', async () => {
    const r = await searchSessions(root, 'parse');
    const byFile = (f: string) => r.problems.filter((p) => p.file === f);
    expect(byFile(files.broken!).map((p) => p.line)).toEqual([3, 5]);
    expect(byFile(files.broken!)[1]!.message).toMatch(/torn/);
    expect(byFile(files.noMeta!)).toEqual([{ file: files.noMeta, line: 1, message: 'no readable meta line: file skipped' }]);
    const missing = await searchSessions([join(root, 'nope.jsonl')], 'parse');
    expect(missing.problems).toHaveLength(1);
    expect(missing.hits).toEqual([]);
  });

  it('reports progress per file', async () => {
    const seen: [number, number][] = [];
    await searchSessions(root, 'parse', { onProgress: (d, t) => seen.push([d, t]) });
    expect(seen).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
  });

  it('lets the event loop run between the chunks of a file (the sidecar keeps answering)', async () => {
    // Reads are synchronous: without a turn between chunks, a 12 MB session would hold the
    // sidecar's event loop for its whole search.
    const dir = mkdtempSync(join(tmpdir(), 'lc-search-turns-'));
    try {
      const file = join(dir, '2026-09-02T10-00-00-tttt.jsonl');
      const meta = serializeLine({
        kind: 'meta',
        v: 1,
        id: '2026-09-02T10-00-00-tttt',
        project: '/t',
        createdAt: '2026-09-02T10:00:00.000Z',
        title: null,
      });
      const big = (i: number) =>
        serializeLine({ kind: 'user', t: `2026-09-02T10:00:${String(i).padStart(2, '0')}.000Z`, content: 'parse '.repeat(170_000) });
      writeFileSync(file, [meta, ...Array.from({ length: 12 }, (_, i) => big(i))].join('\n') + '\n');
      let ticks = 0;
      let stop = false;
      const tick = () => {
        ticks++;
        if (!stop) setImmediate(tick);
      };
      setImmediate(tick);
      let atProgress = -1;
      const r = await searchSessions([file], 'parse', { onProgress: () => (atProgress = ticks) });
      stop = true;
      expect(r.total).toBe(12);
      expect(atProgress).toBeGreaterThanOrEqual(2); // the event loop ran while the file was read
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects when aborted, before or during the search', async () => {
    const before = new AbortController();
    before.abort();
    await expect(searchSessions(root, 'parse', { signal: before.signal })).rejects.toThrow();
    const during = new AbortController();
    const p = searchSessions(root, 'parse', { signal: during.signal, onProgress: () => during.abort() });
    await expect(p).rejects.toThrow();
  });
});

// The fast path (search-skeleton.ts) decides most lines without decoding them: long strings are
// cut out of the line's JSON and searched raw. Each case below is one where raw bytes and decoded
// text differ; the expected answers are what a full decode and parse gives.
describe('search: long texts, escapes and bad lines (the fast path)', () => {
  const pad = (s: string) => 'x '.repeat(40) + s + ' y'.repeat(40); // long enough to be cut
  let dir: string;
  let file: string;
  const lines: string[] = [];
  const at = (i: number) => `2026-08-01T10:00:${String(i).padStart(2, '0')}.000Z`;
  const add = (line: string) => lines.push(line);
  const ev = (o: Record<string, unknown>) => add(serializeLine({ t: at(lines.length), ...o }));

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lc-search-fast-'));
    ev({ kind: 'user', content: pad('plain zonk') }); // 0
    ev({ kind: 'user', content: pad('escaped\nzonk and \\ "q"') }); // 1: after an escape
    ev({ kind: 'user', content: pad('only\nonk') }); // 2: "nonk" only as the n of \n
    // Candidate lines are found by raw bytes: here by the key, then "zonk" is only in the text
    // once its \u escape is decoded.
    add(`{"kind":"user","t":"${at(3)}","zonk":1,"content":"${pad('zo\\u006ek by a unicode escape')}"}`); // 3
    ev({ kind: 'assistant', content: [{ type: 'tool_use', id: pad('zonk in an id'), name: 'zonk', input: { zonk: pad('a key') } }] }); // 4
    // Duplicate long keys: JSON keeps the last value.
    const key = 'k'.repeat(60);
    add(`{"kind":"user","t":"${at(5)}","content":[{"type":"tool_use","input":{"${key}":"${pad('zonk dup')}","${key}":"none"}}]}`); // 5
    // A string tool input holding JSON: its keys are not text.
    ev({
      kind: 'agent',
      messages: [
        { role: 'assistant', content: null, tool_calls: [{ function: { name: 'f', arguments: JSON.stringify({ zonk: pad('v') }) } }] },
      ],
    }); // 6
    ev({
      kind: 'agent',
      messages: [
        { role: 'assistant', content: null, tool_calls: [{ function: { name: 'f', arguments: JSON.stringify({ q: pad('zonk arg') }) } }] },
      ],
    }); // 7
    // The Kelvin sign matches k case-insensitively (/k/iu); the anchor is found in the id.
    ev({ kind: 'assistant', content: [{ type: 'tool_use', id: 'kelvin', name: 'n', input: { a: pad('\u212Aelvin') } }] }); // 8
    // Bad lines with long strings: a raw tab, a bad escape.
    add(`{"kind":"user","t":"${at(9)}","content":"${pad('zonk\traw tab')}"}`); // 9
    add(`{"kind":"user","t":"${at(10)}","content":"${pad('zonk \\x bad escape')}"}`); // 10
    // A line longer than a read chunk (4 MiB), then a torn last line.
    ev({ kind: 'assistant', content: [{ type: 'tool_use', id: 'h', name: 'W', input: { content: 'z'.repeat(5 << 20) + ' zonk huge' } }] }); // 11
    ev({ kind: 'user', content: 'after the huge zonk' }); // 12
    add(`{"kind":"user","t":"${at(13)}","content":"${pad('zonk torn')}`); // 13, torn
    file = join(dir, '2026-08-01T10-00-00-ffff.jsonl');
    const meta = serializeLine({ kind: 'meta', v: 1, id: '2026-08-01T10-00-00-ffff', project: '/f', createdAt: at(0), title: 'Fast' });
    writeFileSync(file, [meta, ...lines].join('\n'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const seqs = async (q: string) => {
    const r = await searchSessions([file], q, { limit: 1000 });
    expect(r.total).toBe(r.hits.length);
    return r.hits.map((h) => h.seq).sort((a, b) => a - b);
  };

  it('matches words in long texts, after escapes, and only in text', async () => {
    expect(await seqs('zonk')).toEqual([0, 1, 3, 7, 11, 12]);
  });

  it('never matches an escape letter, and decodes \\u escapes', async () => {
    expect(await seqs('nonk')).toEqual([]);
    expect(await seqs('"zonk by"')).toEqual([]); // no candidate: the raw bytes lack it
    // Found by the key, matched once its \/ is decoded.
    const slash = join(dir, '2026-08-01T11-00-00-gggg.jsonl');
    const meta = serializeLine({ kind: 'meta', v: 1, id: '2026-08-01T11-00-00-gggg', project: '/f', createdAt: at(0), title: null });
    writeFileSync(slash, `${meta}\n{"kind":"user","t":"${at(1)}","a/b":1,"content":"${pad('see a\\/b')}"}\n`);
    expect((await searchSessions([slash], 'a/b')).hits.map((h) => h.seq)).toEqual([0]);
  });

  it('keeps the last of duplicate keys', async () => {
    expect(await seqs('dup')).toEqual([]);
  });

  it('folds case as the decoded text does (Kelvin sign)', async () => {
    expect(await seqs('kelvin')).toEqual([8]);
  });

  it('reports long bad lines and the torn last line, as problems', async () => {
    const r = await searchSessions([file], 'zonk');
    expect(r.problems.map((p) => [p.line, p.message])).toEqual([
      [11, 'not JSON: skipped'],
      [12, 'not JSON: skipped'],
      [15, 'torn last line: skipped'],
    ]);
  });

  it('searches a file whose torn last line is shorter than a title or user line head', async () => {
    // A crash mid-append can leave `{"kind":"ti` at the end: the heads the title is looked for by
    // must not be read past the end of the file.
    for (const torn of ['{"kind":"ti', '{"kind":"titl', '{"kind":"us']) {
      const f = join(dir, '2026-08-01T12-00-00-hhhh.jsonl');
      const meta = serializeLine({ kind: 'meta', v: 1, id: '2026-08-01T12-00-00-hhhh', project: '/f', createdAt: at(0), title: null });
      writeFileSync(f, `${meta}\n${serializeLine({ kind: 'user', t: at(1), content: 'zonk before the tear' })}\n${torn}`);
      const r = await searchSessions([f], 'zonk');
      expect(r.problems, torn).toEqual([]);
      expect(
        r.hits.map((h) => [h.seq, h.title]),
        torn,
      ).toEqual([[0, 'zonk before the tear']]);
    }
  });

  it('gives the answer hits whole: kind, where, snippet and title', async () => {
    const r = await searchSessions([file], 'zonk', { limit: 2 });
    expect(r.total).toBe(6);
    expect(r.hits.map((h) => [h.seq, h.kind, h.where, h.title])).toEqual([
      [12, 'user', 'user', 'Fast'],
      [11, 'assistant', 'tool-input', 'Fast'],
    ]);
    const [a, b] = r.hits[1]!.ranges[0]!;
    expect(r.hits[1]!.snippet.slice(a, b)).toBe('zonk');
  });
});

// The compiled module, as the CLI and the sidecar run it (dist/ is built by `npm test`).
describe('search: progress and abort over many files', () => {
  const dist = join(import.meta.dirname, '..', 'dist', 'search', 'search.js');
  type Search = typeof searchSessions;

  it('counts every file once in progress, and gives the same answer for any limit', async () => {
    const { searchSessions: compiled } = (await import(dist)) as { searchSessions: Search };
    // More files, so that both threads get some: forty more sessions in a folder of their own.
    for (let n = 0; n < 40; n++) {
      const nn = String(n).padStart(2, '0');
      session('-many', `2026-08-01T10-00-${nn}-h${nn}x`, '/many', [
        { kind: 'user', t: `2026-08-01T10:00:${nn}.000Z`, content: `parse file number ${n} ${'x'.repeat(200)}` },
        {
          kind: 'assistant',
          t: `2026-08-01T10:01:${nn}.000Z`,
          content: [{ type: 'text', text: `parsed ${n}: ${'long text '.repeat(20)}parse` }],
        },
      ]);
    }
    try {
      const sorted = (r: Awaited<ReturnType<Search>>) => ({
        ...r,
        problems: [...r.problems].sort((a, b) => (`${a.file}:${a.line}` < `${b.file}:${b.line}` ? -1 : 1)),
      });
      const total = (await listSessionFiles(root)).length;
      for (const [query, limit] of [
        ['parse', 100],
        ['parse', 3],
        ['"hello world"', 10],
        ['needleInArgs', 5],
        ['nothing-matches-this', 10],
      ] as const) {
        const one = await compiled(root, query, { limit, index: false });
        // From the index: the same answer.
        expect(sorted(await compiled(root, query, { limit })), query).toEqual(sorted(one));
        if (query === 'parse') expect(one.total).toBeGreaterThan(80);
      }
      // Progress counts every file once.
      const progress: [number, number][] = [];
      await compiled(root, 'parse', { index: false, onProgress: (d, t) => progress.push([d, t]) });
      expect(progress).toEqual(Array.from({ length: total }, (_, i) => [i + 1, total]));
    } finally {
      rmSync(join(root, '-many'), { recursive: true, force: true });
    }
  });

  it('stops when the search is aborted', async () => {
    const { searchSessions: compiled } = (await import(dist)) as { searchSessions: Search };
    const ac = new AbortController();
    const p = compiled(root, 'parse', { index: false, signal: ac.signal, onProgress: () => ac.abort() });
    await expect(p).rejects.toThrow();
  });
});
