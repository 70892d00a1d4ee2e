// The search index (server/core/search-index.ts, search.ts searchIndexed) against the scan, on
// real files in a temp store: after every change a store goes through (lines appended, a torn
// line completed, a file rewritten, a file deleted, the index itself corrupted or left behind),
// a query the index answers gives exactly what the scan (index: false) gives: hits, total, files
// and problems.

import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeLine } from '../server/core/events.js';
import { SEARCH_INDEX_FILE } from '../server/core/search-index.js';
import { searchSessions, type SearchResult } from '../server/core/search.js';
import { line } from './helpers/search-lines.js';
import { projectCache } from '../server/core/cache-dir.js';

const sorted = (r: SearchResult) => ({ ...r, problems: [...r.problems].sort((a, b) => (`${a.file}:${a.line}:${a.message}` < `${b.file}:${b.line}:${b.message}` ? -1 : 1)) });

const meta = (id: string, project: string) => serializeLine({ kind: 'meta', v: 1, id, project, createdAt: '2026-09-01T10:00:00.000Z', title: null });

/** A store of one session (these lines after its meta line), given to `body`, then removed. */
async function withSession(id: string, lines: string[], body: (root: string) => Promise<void>): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'lc-search-index-'));
  try {
    mkdirSync(join(root, '-p'));
    writeFileSync(join(root, '-p', `${id}.jsonl`), [meta(id, '/p'), ...lines].map((l) => l + '\n').join(''));
    await body(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Each query answered as the scan answers it: by the search that builds the index, and from it. */
async function expectAsScan(root: string, queries: string[]): Promise<void> {
  for (const q of queries) {
    const scanned = await searchSessions(root, q, { limit: 100, index: false });
    expect(await searchSessions(root, q, { limit: 100 }), q).toEqual(scanned);
    expect(await searchSessions(root, q, { limit: 100 }), q).toEqual(scanned);
  }
}

type Op =
  | { op: 'append'; file: number; lines: string[] }
  | { op: 'torn'; file: number; line: string }
  | { op: 'rewrite'; file: number; lines: string[] }
  | { op: 'delete'; file: number }
  | { op: 'corrupt'; folder: number; at: number };

const FILES = 4;
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('append' as const), file: fc.nat(FILES - 1), lines: fc.array(line, { minLength: 1, maxLength: 4 }) }),
  fc.record({ op: fc.constant('torn' as const), file: fc.nat(FILES - 1), line }),
  fc.record({ op: fc.constant('rewrite' as const), file: fc.nat(FILES - 1), lines: fc.array(line, { maxLength: 4 }) }),
  fc.record({ op: fc.constant('delete' as const), file: fc.nat(FILES - 1) }),
  fc.record({ op: fc.constant('corrupt' as const), folder: fc.nat(1), at: fc.nat() }),
);
const word = fc.constantFrom('zonk', 'Zonk', 'onk', 'kelvin', 'k', 'id', 'type', 'text', 'pad', 'long', 'nonk', 'b', 'x');
const query = fc.array(word, { minLength: 1, maxLength: 2 }).map((a) => a.join(' '));

describe('search index: the same answer as the scan', () => {
  it('after appends, torn lines, rewrites, deletions and a corrupt index', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), fc.array(query, { minLength: 1, maxLength: 3 }), async (ops, queries) => {
        const root = mkdtempSync(join(tmpdir(), 'lc-search-index-'));
        try {
          const run = n++;
          const folders = ['-p', '-q'];
          const files = Array.from({ length: FILES }, (_, i) => {
            const dir = join(root, folders[i % 2]!);
            mkdirSync(dir, { recursive: true });
            const id = `2026-09-01T10-00-00-r${String(run).padStart(3, '0')}${i}`;
            return { file: join(dir, `${id}.jsonl`), id, project: `/${folders[i % 2]}` };
          });
          for (const f of files) writeFileSync(f.file, meta(f.id, f.project) + '\n');
          const check = async () => {
            for (const q of queries) {
              const indexed = await searchSessions(root, q, { limit: 1000 });
              const scanned = await searchSessions(root, q, { limit: 1000, index: false });
              expect(sorted(indexed), q).toEqual(sorted(scanned));
              // The best few only (ties in time broken by session and seq): as the scan ranks.
              const few = await searchSessions(root, q, { limit: 3 });
              expect({ hits: few.hits, total: few.total }, q).toEqual({ hits: scanned.hits.slice(0, 3), total: scanned.total });
            }
          };
          await check();
          for (const o of ops) {
            const f = files[o.op === 'corrupt' ? 0 : o.file]!;
            switch (o.op) {
              case 'append':
                appendFileSync(f.file, o.lines.map((l) => l + '\n').join(''));
                break;
              case 'torn':
                appendFileSync(f.file, o.line);
                break;
              case 'rewrite':
                writeFileSync(f.file, [meta(f.id, f.project), ...o.lines].map((l) => l + '\n').join(''));
                break;
              case 'delete':
                rmSync(f.file, { force: true });
                break;
              case 'corrupt': {
                const ix = projectCache(join(root, folders[o.folder]!), SEARCH_INDEX_FILE);
                try {
                  const names = readdirSync(join(ix, '..'));
                  if (names.includes(SEARCH_INDEX_FILE)) writeFileSync(ix, Buffer.from(`not an index ${o.at}`));
                } catch {
                  /* no folder */
                }
                break;
              }
            }
            await check();
          }
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 100 },
    );
    // A query of two words is three searches (each word, then both: search.ts searchEveryTerm).
  }, 120_000);
});

describe('search index: events it is unsure of', () => {
  it('decides a word seen only through a \\u escape or a folding trap as the scan does', async () => {
    const long = ' long'.repeat(500); // also long enough for the skeleton path
    const lines = [
      // Only through an escape: the raw bytes lack the word, so the scan never looks.
      `{"kind":"user","t":"2026-09-01T10:00:01.000Z","content":"\\u007aonk${long}"}`,
      `{"kind":"user","t":"2026-09-01T10:00:02.000Z","content":"\\u007aonk short"}`,
      // The same, with the word in a key: the scan looks, and the decoded text matches.
      `{"kind":"user","t":"2026-09-01T10:00:03.000Z","zonk":1,"content":"\\u007aonk${long}"}`,
      // The Kelvin sign: /kelvin/iu matches it, the raw bytes do not hold "kelvin".
      serializeLine({ kind: 'user', t: '2026-09-01T10:00:04.000Z', content: `\u212Aelvin${long}` }),
      serializeLine({ kind: 'user', t: '2026-09-01T10:00:05.000Z', content: '\u212Aelvin', kelvin: true }),
      serializeLine({ kind: 'user', t: '2026-09-01T10:00:06.000Z', content: `plain zonk and kelvin${long}` }),
    ];
    await withSession('2026-09-01T10-00-00-uuuu', lines, async (root) => {
      await expectAsScan(root, ['zonk', 'kelvin', 'zonk kelvin', 'onk', '"zonk and"', '"Zonk and"', '"and kelvin" plain', '"onk sho"', '"\u212Aelvin"']);
      // A phrase's candidates come from the index: its words, then the exact phrase checked.
      const r = await searchSessions(root, '"zonk and kelvin"', { limit: 10 });
      expect(r.hits.map((h) => h.seq)).toEqual([5]);
      expect(existsSync(projectCache(join(root, '-p'), SEARCH_INDEX_FILE))).toBe(true);
      expect((await searchSessions(root, 'zonk', { index: false })).hits.map((h) => h.seq).sort()).toEqual([2, 5]);
      expect((await searchSessions(root, 'kelvin', { index: false })).hits.map((h) => h.seq).sort()).toEqual([4, 5]);
    });
  });
});

// The compiled module, as the CLI and the sidecar run it (dist/ is built by `npm test`).
describe('search index: built, appended to, progress, abort, a store it cannot write', () => {
  const dist = join(import.meta.dirname, '..', 'dist', 'core', 'search.js');
  type Search = typeof searchSessions;

  const store = (): { root: string; files: string[] } => {
    const root = mkdtempSync(join(tmpdir(), 'lc-search-index-'));
    const files: string[] = [];
    for (let f = 0; f < 3; f++) {
      const dir = join(root, `-folder-${f}`);
      mkdirSync(dir);
      for (let n = 0; n < 12; n++) {
        const id = `2026-09-0${f + 1}T10-00-${String(n).padStart(2, '0')}-s${f}${n}x`;
        const file = join(dir, `${id}.jsonl`);
        const events = Array.from({ length: 6 }, (_, i) =>
          serializeLine({ kind: i % 2 ? 'assistant' : 'user', t: `2026-09-0${f + 1}T10:${String(n).padStart(2, '0')}:${String(i).padStart(2, '0')}.000Z`, content: `parse number ${f} ${n} ${i} ${'long text '.repeat(i * 60)}${i === 3 ? 'needle' : ''}` }),
        );
        writeFileSync(file, [meta(id, `/p${f}`), ...events].map((l) => l + '\n').join(''));
        files.push(file);
      }
    }
    return { root, files };
  };

  it('gives the scan\'s answer when it builds the index and from the index it wrote', async () => {
    const { searchSessions: compiled } = (await import(dist)) as { searchSessions: Search };
    const { root, files } = store();
    try {
      for (const q of ['parse', 'needle', 'needle parse', 'nothing']) {
        const scanned = sorted(await compiled(root, q, { limit: 50, index: false }));
        for (const f of [0, 1, 2]) rmSync(projectCache(join(root, `-folder-${f}`), SEARCH_INDEX_FILE), { force: true });
        expect(sorted(await compiled(root, q, { limit: 50 })), q).toEqual(scanned);
        // And from the index it wrote.
        expect(sorted(await compiled(root, q, { limit: 50 })), q).toEqual(scanned);
      }
      // Appended to: only the new lines are read.
      appendFileSync(files[5]!, serializeLine({ kind: 'user', t: '2026-09-09T00:00:00.000Z', content: 'a late needle' }) + '\n');
      const late = await compiled(root, 'needle', { limit: 1 });
      expect(late.hits[0]?.snippet).toBe('a late needle');
      expect(sorted(late)).toEqual(sorted(await compiled(root, 'needle', { limit: 1, index: false })));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('reports progress once per file, and stops when aborted without writing a half index', async () => {
    const { root, files } = store();
    try {
      const progress: [number, number][] = [];
      await searchSessions(root, 'parse', { onProgress: (d, t) => progress.push([d, t]) });
      expect(progress).toEqual(files.map((_, i) => [i + 1, files.length]));
      for (const f of ['-folder-0', '-folder-1', '-folder-2']) rmSync(projectCache(join(root, f), SEARCH_INDEX_FILE));
      const ac = new AbortController();
      ac.abort(new Error('stop'));
      await expect(searchSessions(root, 'parse', { signal: ac.signal })).rejects.toThrow('stop');
      const ac2 = new AbortController();
      const p = searchSessions(root, 'parse', { signal: ac2.signal, onProgress: () => ac2.abort(new Error('stopped midway')) });
      await expect(p).rejects.toThrow('stopped midway');
      // What was written is whole: the next search answers as the scan does.
      expect(sorted(await searchSessions(root, 'needle', { limit: 100 }))).toEqual(sorted(await searchSessions(root, 'needle', { limit: 100, index: false })));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers from a store it cannot write to, and keeps no index there', async () => {
    if (process.getuid?.() === 0) {
      // root writes through any mode: a file in the index's place stands for the store's refusal.
      const { root } = store();
      try {
        for (const f of ['-folder-0', '-folder-1', '-folder-2']) mkdirSync(projectCache(join(root, f), SEARCH_INDEX_FILE), { recursive: true });
        for (const q of ['needle', 'parse needle']) {
          expect(sorted(await searchSessions(root, q, { limit: 100 })), q).toEqual(sorted(await searchSessions(root, q, { limit: 100, index: false })));
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
      return;
    }
    const { root } = store();
    try {
      // Neither the store nor its cache folder can be written: the answer is the scan's.
      for (const f of ['-folder-0', '-folder-1', '-folder-2']) chmodSync(join(root, f), 0o555);
      mkdirSync(cachePaths(root).dir, { recursive: true });
      chmodSync(cachePaths(root).dir, 0o555);
      expect(sorted(await searchSessions(root, 'needle', { limit: 100 }))).toEqual(sorted(await searchSessions(root, 'needle', { limit: 100, index: false })));
      for (const f of ['-folder-0', '-folder-1', '-folder-2']) expect(existsSync(projectCache(join(root, f), SEARCH_INDEX_FILE))).toBe(false);
    } finally {
      for (const f of ['-folder-0', '-folder-1', '-folder-2']) chmodSync(join(root, f), 0o755);
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('search index: the vocabulary', () => {
  it('goes on in JavaScript, with the same words, once words.wat is full', async () => {
    const { FolderIndex } = await import('../server/core/search-index.js');
    // 1.1 million distinct words: more than words.wat holds (2^20).
    const many = Array.from({ length: 1_100_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const texts = ['Zonk zonk ' + many, 'some WORDS again: w0 w1 zonk', 'after \u212Aelvin and ſtraße', 'last w10000 word'];
    const build = (js: boolean) => {
      const ix = new FolderIndex();
      ix.edit();
      texts.forEach((t, i) => {
        ix.event(0, i, 0, 0, 0, 0);
        // textJs is the JavaScript tokenizer the index falls back to (private in TypeScript).
        if (js) (ix as unknown as { textJs(s: string): void }).textJs(t);
        else ix.text(t);
        ix.endEvent();
      });
      return ix;
    };
    const wasm = build(false);
    const js = build(true);
    expect(wasm.tokens.length).toBeGreaterThan(1 << 20);
    expect(wasm.tokens).toEqual(js.tokens);
    for (const w of ['zonk', 'w0', 'w1', 'kelvin', 'strasse', 'word', 'w10000', 'w', 'elvin']) {
      expect(Array.from(wasm.matching([w])), w).toEqual(Array.from(js.matching([w])));
    }
    expect(Array.from(wasm.matching(['zonk']))).toEqual([0, 1]);
    expect(Array.from(wasm.matching(['kelvin']))).toEqual([2]);
  }, 60_000);
});

describe('search index: long lines', () => {
  it('indexes a line longer than a read chunk and words longer than a block, as the scan finds them', async () => {
    const lines = [
      // 5 MB of text in one tool input (more than the 4 MiB read chunk), the word at its end.
      serializeLine({ kind: 'assistant', t: '2026-09-01T10:00:01.000Z', content: [{ type: 'tool_use', id: 'h', name: 'W', input: { content: 'z'.repeat(5 << 20) + ' Zonk huge' } }] }),
      // A word of 100 KB (it spans thousands of 16-byte blocks), and escapes on block edges.
      serializeLine({ kind: 'user', t: '2026-09-01T10:00:02.000Z', content: `${'ab'.repeat(50_000)}zonk x\\\\nzonk ${'q\n'.repeat(2000)}tail` }),
      serializeLine({ kind: 'user', t: '2026-09-01T10:00:03.000Z', content: 'after the huge zonk' }),
    ];
    await withSession('2026-09-01T10-00-00-bbbb', lines, async (root) => {
      await expectAsScan(root, ['zonk', 'huge', 'abab', 'nzonk', 'tail', 'qq', 'zzzz zonk']);
      expect((await searchSessions(root, 'zonk')).hits.map((h) => h.seq).sort()).toEqual([0, 1, 2]);
      expect((await searchSessions(root, 'nzonk')).total).toBe(1); // "\\\\n" is a backslash and an n
    });
  }, 60_000);
});

describe('search index: one file of a folder gone', () => {
  // Dropped without a compaction (under a quarter of the events), so the index is written again
  // without being edited: its postings and details are still in the file it was opened from.
  async function withFive(spoil: (ix: string) => void, then: (ix: string) => void): Promise<void> {
    const root = mkdtempSync(join(tmpdir(), 'lc-search-index-'));
    try {
      mkdirSync(join(root, '-p'));
      const ids = ['a', 'b', 'c', 'd', 'e'].map((x) => `2026-09-01T10-00-00-${x.repeat(4)}`);
      for (const id of ids) {
        const lines = [1, 2, 3].map((i) => serializeLine({ kind: 'user', t: `2026-09-01T10:00:0${i}.000Z`, content: `zonk ${i} in ${id}` }));
        writeFileSync(join(root, '-p', `${id}.jsonl`), [meta(id, '/p'), ...lines].map((l) => l + '\n').join(''));
      }
      const ix = projectCache(join(root, '-p'), SEARCH_INDEX_FILE);
      await searchSessions(root, 'zonk', { limit: 100 }); // builds it
      spoil(ix);
      rmSync(join(root, '-p', `${ids[0]}.jsonl`));
      await expectAsScan(root, ['zonk', 'in', '2', 'dddd']); // the second of each reads what the first wrote
      then(ix);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  const detailsParse = (b: Buffer) => {
    const l = layout(b);
    return JSON.parse(b.toString('utf8', l.details, l.details + l.detailsBytes)) as unknown[];
  };

  it('leaves an index that answers as the scan does, without the file', async () => {
    await withFive(
      () => {},
      (ix) => {
        // The gone file stays in it, dead, until a compaction.
        const b = readFileSync(ix);
        const head = JSON.parse(b.toString('utf8', 16, 16 + b.readUInt32LE(8))) as { files: { name: string; dead?: boolean }[] };
        expect(head.files.filter((f) => f.dead).map((f) => f.name)).toEqual(['2026-09-01T10-00-00-aaaa.jsonl']);
        expect(detailsParse(b)).toHaveLength(5);
      },
    );
  });

  it('with its details out of place: written again whole, as the scan answers', async () => {
    let spoilt = Buffer.alloc(0);
    await withFive(
      (ix) => {
        spoilt = readFileSync(ix);
        const l = layout(spoilt);
        spoilt.fill(0x20, l.details, l.details + l.detailsBytes - 1);
        writeFileSync(ix, spoilt);
      },
      (ix) => {
        const again = readFileSync(ix);
        expect(again.equals(spoilt)).toBe(false);
        expect(detailsParse(again)).toHaveLength(4); // rebuilt from the four files left
      },
    );
  });
});

describe('search index: ranking', () => {
  it('keeps the best few as the scan ranks them, ties in time broken by session and seq', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lc-search-index-'));
    try {
      for (const [folder, sessions] of [['-p', ['a', 'c']], ['-q', ['b', 'd']]] as const) {
        mkdirSync(join(root, folder));
        for (const s of sessions) {
          const id = `2026-09-01T10-00-00-${s}${s}${s}${s}`;
          const times = ['10:00:05', '10:00:05', '10:00:01', '10:00:05', '10:00:09'];
          const lines = times.map((t, i) => serializeLine({ kind: 'user', t: `2026-09-01T${t}.000Z`, content: `zonk ${s} ${i}` }));
          writeFileSync(join(root, folder, `${id}.jsonl`), [meta(id, `/${folder}`), ...lines].map((l) => l + '\n').join(''));
        }
      }
      const scanned = await searchSessions(root, 'zonk', { limit: 100, index: false });
      expect(scanned.total).toBe(20);
      for (const limit of [0, 1, 2, 3, 5, 7, 12, 19, 20, 21]) {
        for (let round = 0; round < 2; round++) {
          const r = await searchSessions(root, 'zonk', { limit });
          expect({ hits: r.hits, total: r.total }, `limit ${limit}`).toEqual({ hits: scanned.hits.slice(0, limit), total: 20 });
        }
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('search index: the answer of a long line', () => {
  it('shows the first part holding the most words, as the slow path does', async () => {
    // Read from its skeleton (2 KB or more): the first part holds one word, a later one both,
    // another after it both again.
    const pad = 'filler text '.repeat(300);
    const agent = serializeLine({
      kind: 'agent',
      t: '2026-09-01T10:00:01.000Z',
      messages: [
        { role: 'assistant', content: [{ type: 'text', text: `alpha first ${pad}` }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: `${pad} alpha then beta` }] },
        { role: 'assistant', content: [{ type: 'text', text: 'alpha beta again' }] },
      ],
    } as never);
    expect(agent.length).toBeGreaterThan(2048);
    await withSession('2026-09-01T10-00-00-pppp', [agent], async (root) => {
      for (const query of ['alpha beta', 'beta alpha', 'alpha', 'beta', 'first']) {
        const slow = await searchSessions(root, query, { limit: 100, index: false });
        expect(slow.hits.length, query).toBe(1);
        expect(await searchSessions(root, query, { limit: 100 }), query).toEqual(slow);
      }
      const r = await searchSessions(root, 'alpha beta', { limit: 100 });
      expect(r.hits[0]!.snippet).toContain('alpha then beta');
    });
  });
});

describe('search index: the snippet of a word deep in a long text', () => {
  it('is the one the whole text gives, at any place, width and neighbourhood', async () => {
    // Pieces on every edge a snippet can cut (multi-byte characters, surrogate pairs, escapes,
    // line breaks), on both sides: the index's answer is the scan's.
    const piece = fc.constantFrom('a', 'b ', ' ', 'é', '日本', '😀', '😀😀', '\n', '\t', '"', '\\', '\\\\', '/', 'zon', 'onk', 'ZONK', 'xzonkx', 'filler text ');
    const side = fc.array(piece, { maxLength: 400, size: 'max' }).map((a) => a.join(''));
    await fc.assert(
      fc.asyncProperty(side, side, fc.constantFrom('zonk', 'Zonk'), fc.constantFrom(20, 31, 160, 301), fc.boolean(), async (before, after, word, width, padFirst) => {
        // 2 KB or more, the padding before the text or after it.
        const pad = 'p'.repeat(Math.max(0, 2100 - before.length - after.length));
        const content = padFirst ? pad + before + word + after : before + word + after + pad;
        const line = serializeLine({ kind: 'user', t: '2026-09-01T10:00:01.000Z', content });
        await withSession('2026-09-01T10-00-00-wwww', [line], async (root) => {
          const slow = await searchSessions(root, 'zonk', { limit: 10, index: false, snippetChars: width });
          expect(slow.hits).toHaveLength(1);
          expect(await searchSessions(root, 'zonk', { limit: 10, snippetChars: width })).toEqual(slow);
        });
      }),
      { numRuns: 300 },
    );
  }, 60_000);
});

describe('search index: the file (protocol.md "search.idx")', () => {
  it('is written 0600, and two searches writing it at once leave one whole index', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => serializeLine({ kind: 'user', t: `2026-09-01T10:00:${String(i).padStart(2, '0')}.000Z`, content: `turn ${i} zonk ${'text '.repeat(i * 20)}` }));
    await withSession('2026-09-01T10-00-00-wwww', lines, async (root) => {
      const [a, b] = await Promise.all([searchSessions(root, 'zonk', { limit: 100 }), searchSessions(root, 'zonk', { limit: 100 })]);
      expect(b).toEqual(a);
      const ix = projectCache(join(root, '-p'), SEARCH_INDEX_FILE);
      expect(statSync(ix).mode & 0o777).toBe(0o600);
      expect(readdirSync(join(root, '-p')).sort()).toEqual(['2026-09-01T10-00-00-wwww.jsonl']); // the store holds only sessions
      const before = statSync(ix).mtimeMs;
      await expectAsScan(root, ['zonk', 'turn', 'text']);
      expect(statSync(ix).mtimeMs).toBe(before); // answered from it, not rewritten
    });
  });
});

/** Where an index file's parts are (protocol.md "search.idx", format 3: a 16-byte prefix). */
function layout(b: Buffer): { n: number; t: number; details: number; detailsBytes: number; file: number; ends: number; starts: number } {
  const headLen = b.readUInt32LE(8);
  const h = JSON.parse(b.toString('utf8', 16, 16 + headLen)) as { details: number; events: number; tokens: number };
  const pad8 = (x: number) => (x + 7) & ~7;
  const headEnd = pad8(16 + headLen + h.details);
  const ends = headEnd + h.events * 28 + pad8(h.events);
  return { n: h.events, t: h.tokens, details: 16 + headLen, detailsBytes: h.details, file: headEnd + 24 * h.events, ends, starts: ends + 4 * h.tokens };
}

describe('search index: values out of place, the sizes intact', () => {
  // Opening checks the sizes only; the values a search uses are checked where it uses them, and
  // the whole index before it is edited. Each case: the answer is the scan's, and the index is
  // written again, whole, once the search uses what is out of place (the files' tails and
  // titles only when a file grew).
  const lines = Array.from({ length: 12 }, (_, i) => serializeLine({ kind: 'user', t: `2026-09-01T10:00:${String(i).padStart(2, '0')}.000Z`, content: `turn ${i} zonk word${i}` }));
  const cases: [string, (b: Buffer, l: ReturnType<typeof layout>) => void, ('grown' | 'any')?][] = [
    ['a postings end past the postings', (b, l) => { for (let i = 0; i < l.t; i++) b.writeUInt32LE(0xfffffff0, l.ends + 4 * i); }],
    ['a postings end before the one before', (b, l) => { for (let i = 0; i < l.t; i++) b.writeUInt32LE(l.t - i, l.ends + 4 * i); }],
    ['a word start in the middle of a word', (b, l) => { for (let i = 1; i < l.t; i++) b.writeUInt32LE(i, l.starts + 4 * i); }],
    ["an event's file that is not there", (b, l) => { for (let e = 0; e < l.n; e++) b.writeUInt32LE(999, l.file + 4 * e); }],
    ["the files' tails and titles not JSON", (b, l) => b.fill(0x20, l.details, l.details + l.detailsBytes - 1), 'grown'],
    ["the files' tails and titles of no file", (b, l) => b.write('[]'.padEnd(l.detailsBytes, ' '), l.details, 'latin1'), 'grown'],
  ];
  for (const [name, spoil, usedWhen = 'any'] of cases) {
    for (const then of ['searched', 'appended to, then searched'] as const) {
      it(`${name}: ${then}`, async () => {
        await withSession('2026-09-01T10-00-00-cccc', lines, async (root) => {
          const file = join(root, '-p', '2026-09-01T10-00-00-cccc.jsonl');
          const ix = projectCache(join(root, '-p'), SEARCH_INDEX_FILE);
          await searchSessions(root, 'zonk', { limit: 100 }); // builds it
          const b = readFileSync(ix);
          const l = layout(b);
          expect(l.n).toBeGreaterThan(0);
          spoil(b, l);
          writeFileSync(ix, b);
          if (then !== 'searched') appendFileSync(file, serializeLine({ kind: 'user', t: '2026-09-01T10:01:00.000Z', content: 'turn late zonk' }) + '\n');
          const progress: number[] = [];
          const scanned = await searchSessions(root, 'zonk turn', { limit: 100, index: false });
          expect(await searchSessions(root, 'zonk turn', { limit: 100, onProgress: (d) => progress.push(d) })).toEqual(scanned);
          expect(progress).toEqual([1]); // once per file, even when the folder is searched again
          expect(readFileSync(ix).equals(b)).toBe(usedWhen === 'grown' && then === 'searched'); // written again once used
          await expectAsScan(root, ['zonk', 'word3', 'turn', 'late']);
        });
      });
    }
  }
});
