// The search index (server/search/search-index.ts, search.ts searchIndexed) against the scan, on
// real files in a temp store: after every change a store goes through (lines appended, a torn
// line completed, a file rewritten, a file deleted, the index itself corrupted or left behind),
// a query the index answers gives exactly what the scan (index: false) gives: hits, total, files
// and problems.

import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeLine } from '../server/format/events.js';
import { SEARCH_INDEX_FILE } from '../server/search/search-index.js';
import { searchSessions, type SearchResult } from '../server/search/search.js';
import { line } from './helpers/search-lines.js';
import { projectCache } from '../server/store/cache-dir.js';

const sorted = (r: SearchResult) => ({
  ...r,
  problems: [...r.problems].sort((a, b) => (`${a.file}:${a.line}:${a.message}` < `${b.file}:${b.line}:${b.message}` ? -1 : 1)),
});

const meta = (id: string, project: string) =>
  serializeLine({ kind: 'meta', v: 1, id, project, createdAt: '2026-09-01T10:00:00.000Z', title: null });

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

/**
 * expectAsScan, and each query again with a page of one hit: the indexed search counts the
 * hits off the page without parsing them (search.ts rawHolds), so `total` must still be the scan's.
 */
async function expectAsScanPaged(root: string, queries: string[]): Promise<void> {
  await expectAsScan(root, queries);
  for (const q of queries) {
    const scanned = await searchSessions(root, q, { limit: 1, index: false });
    expect(await searchSessions(root, q, { limit: 1 }), q).toEqual(scanned);
  }
}

/** The seqs of a query's hits, ascending. */
const hitSeqs = async (root: string, q: string): Promise<number[]> =>
  (await searchSessions(root, q, { limit: 100 })).hits.map((h) => h.seq).sort((a, b) => a - b);

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
// Phrases too: decided on a CLEAN line's bytes when they can be (search.ts rawHolds), else parsed.
const phrase = fc.constantFrom('"x y"', '"zonk x"', '"y zonk"', '"k x"', '"y pad"', '"x y" zonk', '"a/b zonk"', '"Zonk é"');
const query = fc.oneof(
  fc.array(word, { minLength: 1, maxLength: 2 }).map((a) => a.join(' ')),
  phrase,
);

describe('search index: the same answer as the scan', () => {
  it('after appends, torn lines, rewrites, deletions and a corrupt index', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 6 }),
        fc.array(query, { minLength: 1, maxLength: 3 }),
        async (ops, queries) => {
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
        },
      ),
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
      await expectAsScan(root, [
        'zonk',
        'kelvin',
        'zonk kelvin',
        'onk',
        '"zonk and"',
        '"Zonk and"',
        '"and kelvin" plain',
        '"onk sho"',
        '"\u212Aelvin"',
      ]);
      // A phrase's candidates come from the index: its words, then the exact phrase checked.
      const r = await searchSessions(root, '"zonk and kelvin"', { limit: 10 });
      expect(r.hits.map((h) => h.seq)).toEqual([5]);
      expect(existsSync(projectCache(join(root, '-p'), SEARCH_INDEX_FILE))).toBe(true);
      expect((await searchSessions(root, 'zonk', { index: false })).hits.map((h) => h.seq).sort()).toEqual([2, 5]);
      expect((await searchSessions(root, 'kelvin', { index: false })).hits.map((h) => h.seq).sort()).toEqual([4, 5]);
    });
  });
});

describe('search index: a phrase decided on the raw bytes of a CLEAN line', () => {
  // Each line holds the words of "zonk here" in a text (so it is the phrase's candidate), and the
  // phrase's bytes somewhere the rule named beside it must keep from counting as a hit (or the
  // phrase in a text whose bytes do not show it). search.ts isClean, rawCheckable, rawHolds.
  const t = (s: number) => `"kind":"user","t":"2026-09-01T10:00:${String(s).padStart(2, '0')}.000Z"`;
  const lines = [
    // 1: a hit, CLEAN: counted without a parse, made whole for the answer.
    `{${t(1)},"content":"so zonk here it is"}`,
    // 2: the phrase in a key holding a space.
    `{${t(2)},"content":"here zonk","zonk here":1}`,
    // 3, 4: in strings that are no searchable text: a tool_use id, a field no reader knows.
    `{${t(3)},"content":[{"type":"tool_use","id":"zonk here","name":"x","input":{"a":"here zonk"}}]}`,
    `{${t(4)},"content":"here zonk","extra":"zonk here"}`,
    // 5: after an escape's letter (\n then "nzonk here"), and 6: after an escaped backslash.
    `{${t(5)},"content":"here \\nzonk here xnzonk"}`,
    `{${t(6)},"content":"here \\\\nzonk here xnzonk"}`,
    // 7: "nzonk here" only through a \u escape, its bytes only after an escape's backslash.
    `{${t(7)},"content":"\\u006ezonk here \\nzonk here"}`,
    // 8: "na/b zonk" in a text only through the '/' written \/, its bytes after a backslash.
    `{${t(8)},"content":"xna\\/b zonk \\na/b zonk"}`,
    // 9: a string tool input holding JSON: its texts are inside a string of the line.
    `{${t(9)},"content":[{"type":"tool_use","id":"u9","name":"x","input":"{\\"cmd\\":\\"zonk here\\"}"}]}`,
    // 10: a key given twice: JSON.parse keeps its last value, the line holds both.
    `{${t(10)},"x":"zonk here","x":1,"content":"here zonk"}`,
    // 11: the phrase in JSON's structure, written with spaces: [true, false].
    `{${t(11)},"content":"false true zonk here","flag":[true, false]}`,
    // 12: words inside longer words.
    `{${t(12)},"content":"bezonk hereby"}`,
    // 13: as many texts with a space as strings with one, but not the same: two thinking
    // summaries (each its texts joined) sharing a string, and a field no reader knows.
    `{"kind":"assistant","t":"2026-09-01T10:00:13.000Z","content":[${['x', 'y'].map((x) => `{"type":"thinking","summary":[{"type":"summary_text","text":"here zonk"},{"type":"summary_text","text":"${x}"}]}`).join(',')}],"extra":"zonk here"}`,
    // 14: the newest, every phrase in its text: the answer's first hit, so that a line the
    // rules keep out counts in the total but is not read again for the page (where a line that
    // does not match would make the index distrusted, and the answer the scan's anyway).
    `{${t(14)},"content":"all: zonk here, nzonk here, na/b zonk, true, false, onk her"}`,
  ];
  const queries = [
    '"zonk here"',
    '"nzonk here"',
    '"zonk here" it',
    '"zonk here" xnzonk',
    '"zonk here" "here zonk"',
    '"na/b zonk"',
    '"true, false"',
    '"onk her"',
    '"zonk here" a',
    '"zonk here"x',
  ];

  it('gives the answer of the scan for every rule', async () => {
    await withSession('2026-09-01T10-00-00-cccc', lines, async (root) => {
      await expectAsScanPaged(root, queries);
      const seqs = (q: string) => hitSeqs(root, q);
      expect(await seqs('"zonk here"')).toEqual([0, 4, 5, 6, 8, 10, 11, 13]);
      expect(await seqs('"nzonk here"')).toEqual([5, 6, 13]);
      expect(await seqs('"na/b zonk"')).toEqual([7, 13]);
      expect(await seqs('"true, false"')).toEqual([13]);
      expect(await seqs('"onk her"')).toEqual([0, 4, 5, 6, 8, 10, 11, 13]);
    });
  });

  it('gives the answer of the scan on long lines, read a chunk at a time', async () => {
    // search.ts LineReader.holds reads a long line 32 KiB at a time: the phrase across a
    // chunk's end, at the line's end, and after a run of backslashes that starts in an
    // earlier chunk (of either parity), placed at two offsets so the run's part in the later
    // chunk has either parity too.
    const at = 32 << 10;
    const long = (s: number, before: string, after: string, shift: number) => {
      const head = `{"kind":"user","t":"2026-09-01T10:01:${String(s).padStart(2, '0')}.000Z","content":"`;
      const pad = 'w'.repeat(at + shift - head.length - Buffer.byteLength(before));
      return `${head}${pad}${before}${after}${' pad'.repeat(9000)} xnzonk pad here"}`;
    };
    const bs = '\\\\'.repeat(100); // 100 escaped backslashes: 200 bytes
    const lines = [
      long(1, bs, 'zonk here', 20),
      long(2, bs, 'zonk here', 21),
      long(3, `${bs}\\n`, 'zonk here', 20),
      long(4, `${bs}\\n`, 'zonk here', 21),
      long(5, '', 'zonk here', -4),
      long(6, '', 'zonk', 0),
      `{"kind":"user","t":"2026-09-01T10:01:59.000Z","content":"zonk here, nzonk here"}`,
    ];
    await withSession('2026-09-01T10-01-00-llll', lines, async (root) => {
      await expectAsScanPaged(root, ['"zonk here"', '"nzonk here"', '"pad xnzonk pad"']);
      expect((await searchSessions(root, '"nzonk here"', { limit: 1 })).total).toBe(1);
      expect((await searchSessions(root, '"zonk here"', { limit: 1 })).total).toBe(6);
      expect((await searchSessions(root, '"pad xnzonk pad"', { limit: 1 })).total).toBe(6);
    });
  });

  it('marks CLEAN only the lines the rules allow', async () => {
    await withSession('2026-09-01T10-00-00-cccc', lines, async (root) => {
      await searchSessions(root, 'zonk', { limit: 1 });
      const { FolderIndex, CLEAN } = await import('../server/search/search-index.js');
      const ix = FolderIndex.open(projectCache(join(root, '-p'), SEARCH_INDEX_FILE))!;
      try {
        const clean = Array.from({ length: ix.n }, (_, e) => [ix.seq[e]!, ix.flags[e]! & CLEAN ? 1 : 0]);
        expect(clean).toEqual([
          [0, 1],
          [1, 0],
          [2, 0],
          [3, 0],
          [4, 1],
          [5, 1],
          [6, 0],
          [7, 1],
          [8, 0],
          [9, 0],
          [10, 1],
          [11, 1],
          [12, 0],
          [13, 1],
        ]);
      } finally {
        ix.close();
      }
    });
  });
});

describe('search index: the pair filter', () => {
  // The filter leaves out the candidates whose texts never have the phrase's words next to
  // each other (pair-filter.ts): these lines hold the words of "zonk here" everywhere the
  // filter must not lose it, and next to each other where it must.
  const t = (s: number) => `"kind":"user","t":"2026-09-01T11:00:${String(s).padStart(2, '0')}.000Z"`;
  // Words of its own in each line: slices large enough that a pair not there is seldom let through.
  const pad = (s: number) => Array.from({ length: 300 }, (_, k) => `q${s}x${k}`).join(' ');
  const lines = [
    `{${t(1)},"content":"so zonk here it is ${pad(1)}"}`,
    // Inside longer words: the phrase's first run ends a token, its last starts one.
    `{${t(2)},"content":"bezonk hereby ${pad(2)}"}`,
    // The case at the join, the separator: pairs of these words, but not the phrase's.
    `{${t(3)},"content":"zonk Here, zonk  here, zonk-here ${pad(3)}"}`,
    // Two leaves of one part, joined by '\n': "zonk\nhere" is in the part's text, in no leaf.
    `{${t(4)},"content":[{"type":"tool_use","id":"u4","name":"x","input":{"a":"x zonk","b":"here y ${pad(4)}"}}]}`,
    // Three runs: "so zonk here" has an inner run, a whole token.
    `{${t(5)},"content":"also zonk here, so zonkhere ${pad(5)}"}`,
    // The case away from the join: the filter lets it through, the check does not.
    `{${t(6)},"content":"Zonk here ${pad(6)}"}`,
    // Inside longer words again.
    `{${t(7)},"content":"unzonk herein ${pad(7)}"}`,
  ];
  const queries = [
    '"zonk here"',
    '"onk her"',
    '"k h"',
    '"zonk Here"',
    '" zonk Here,"',
    '"zonk  here"',
    '"zonk-here"',
    '"Zonk here"',
    '"zonk\nhere"',
    '"so zonk here"',
    '"o zonk h"',
    '"zonk here" so',
    '"zonk here" "so zonk"',
    '"here, zonk"',
  ];

  it("gives the scan's answer", async () => {
    await withSession('2026-09-01T11-00-00-pppp', lines, async (root) => {
      await expectAsScanPaged(root, queries);
      const seqs = (q: string) => hitSeqs(root, q);
      expect(await seqs('"zonk here"')).toEqual([0, 1, 4, 6]);
      expect(await seqs('"onk her"')).toEqual([0, 1, 4, 5, 6]);
      expect(await seqs('"zonk\nhere"')).toEqual([3]);
      expect(await seqs('"o zonk h"')).toEqual([0, 4]);
    });
  });

  it("is built by a phrase's search only, and kept as the index goes on", async () => {
    await withSession('2026-09-01T11-00-00-pppp', lines, async (root) => {
      const { hasPairs } = await import('../server/search/search-index.js');
      const path = projectCache(join(root, '-p'), SEARCH_INDEX_FILE);
      await expectAsScan(root, ['zonk']);
      expect(hasPairs(path)).toBe(false); // a word's search: no filter
      await expectAsScan(root, ['"zonk here"']);
      expect(hasPairs(path)).toBe(true); // a phrase's: built again, with one
      appendFileSync(
        join(root, '-p', '2026-09-01T11-00-00-pppp.jsonl'),
        `{"kind":"user","t":"2026-09-01T11:01:00.000Z","content":"late zonk here"}\n`,
      );
      await expectAsScan(root, ['zonk', '"zonk here"', '"late zonk"']);
      expect(hasPairs(path)).toBe(true); // gone on from by a word's search: the new lines' pairs too
    });
  });

  it('keeps each event its filter when a compaction drops the events of a dead file', async () => {
    const { FolderIndex, unindexedFile: file } = await import('../server/search/search-index.js');
    const ix = new FolderIndex(true);
    ix.edit();
    ix.files = [file('a'), file('b')];
    // Slices of odd sizes (7 to 300 pairs), so that the kept ones move by a part of a byte.
    for (let e = 0; e < 40; e++) {
      ix.event(e % 2, e, 0, 0, 0, 0);
      ix.text(`${Array.from({ length: 7 + e * 7 }, (_, k) => `w${e}x${k}`).join(' ')} zonk${e} here${e}`);
      ix.endEvent();
    }
    const kept = (e: number) =>
      Array.from(ix.withPairs(ix.matching(['zonk', 'here']), ix.phrasePairs(`zonk${e} here${e}`)!), (v) => ix.seq[v]);
    expect(kept(10)).toContain(10);
    ix.files[0]!.dead = true;
    ix.compact(true);
    expect(ix.n).toBe(20);
    for (let e = 1; e < 40; e += 2) expect(kept(e)).toContain(e);
  });

  it('leaves out the events that never have the words next to each other', async () => {
    await withSession('2026-09-01T11-00-00-pppp', lines, async (root) => {
      await searchSessions(root, '"zonk here"', { limit: 1 }); // a phrase's search: the index has a pair filter
      const { FolderIndex } = await import('../server/search/search-index.js');
      const ix = FolderIndex.open(projectCache(join(root, '-p'), SEARCH_INDEX_FILE))!;
      try {
        const all = ix.matching(['zonk', 'here']);
        const kept = (p: string) => Array.from(ix.withPairs(all, ix.phrasePairs(p)!), (e) => ix.seq[e]);
        expect(Array.from(all, (e) => ix.seq[e])).toEqual([0, 1, 2, 3, 4, 5, 6]);
        // A Bloom filter lets a line through by chance, the more the more hashes a pair has
        // (here 9 for "zonk here": zonk, bezonk, unzonk, and here, hereby, herein); one here.
        expect(kept(' zonk here ')).toEqual([0, 4, 5]);
        expect(kept(' zonk Here ')).toContain(2);
        expect(ix.phrasePairs('zonk\nhere')).toBeNull();
        expect(ix.phrasePairs('zonk')).toBeNull();
      } finally {
        ix.close();
      }
    });
  });
});

describe('search index: a title set again unchanged', () => {
  it('is one hit, its newest, and counts once in total whatever the limit', async () => {
    const long = ' long'.repeat(400);
    const title = (t: string) => serializeLine({ kind: 'title', t, title: `refund${long}` });
    const lines = [
      title('2026-09-01T10:00:01.000Z'),
      serializeLine({ kind: 'user', t: '2026-09-01T10:00:02.000Z', content: `refund${long}` }),
      title('2026-09-01T10:00:03.000Z'),
      serializeLine({ kind: 'compact', t: '2026-09-01T10:00:04.000Z', briefing: `refund${long}`, coversThrough: 0 }),
    ];
    await withSession('2026-09-01T10-00-00-tttt', lines, async (root) => {
      for (const index of [false, true]) {
        const all = await searchSessions(root, 'refund', { limit: 100, index });
        expect(all.hits.map((h) => [h.seq, h.where])).toEqual([
          [3, 'compact'],
          [2, 'title'],
          [1, 'user'],
        ]);
        expect(all.total).toBe(3);
        // The older title would be the fourth hit: the limit no longer decides whether it counts.
        const few = await searchSessions(root, 'refund', { limit: 2, index });
        expect({ seqs: few.hits.map((h) => h.seq), total: few.total }).toEqual({ seqs: [3, 2], total: 3 });
      }
    });
  });
});

// The compiled module, as the CLI and the sidecar run it (dist/ is built by `npm test`).
describe('search index: built, appended to, progress, abort, a store it cannot write', () => {
  const dist = join(import.meta.dirname, '..', 'dist', 'search', 'search.js');
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
          serializeLine({
            kind: i % 2 ? 'assistant' : 'user',
            t: `2026-09-0${f + 1}T10:${String(n).padStart(2, '0')}:${String(i).padStart(2, '0')}.000Z`,
            content: `parse number ${f} ${n} ${i} ${'long text '.repeat(i * 60)}${i === 3 ? 'needle' : ''}`,
          }),
        );
        writeFileSync(file, [meta(id, `/p${f}`), ...events].map((l) => l + '\n').join(''));
        files.push(file);
      }
    }
    return { root, files };
  };

  it("gives the scan's answer when it builds the index and from the index it wrote", async () => {
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
      expect(sorted(await searchSessions(root, 'needle', { limit: 100 }))).toEqual(
        sorted(await searchSessions(root, 'needle', { limit: 100, index: false })),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers from a store it cannot write to, and keeps no index there', async () => {
    if (process.getuid?.() === 0) {
      // root writes through any mode: a file in the index's place stands for the store's refusal.
      const { root } = store();
      try {
        for (const f of ['-folder-0', '-folder-1', '-folder-2'])
          mkdirSync(projectCache(join(root, f), SEARCH_INDEX_FILE), { recursive: true });
        for (const q of ['needle', 'parse needle']) {
          expect(sorted(await searchSessions(root, q, { limit: 100 })), q).toEqual(
            sorted(await searchSessions(root, q, { limit: 100, index: false })),
          );
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
      expect(sorted(await searchSessions(root, 'needle', { limit: 100 }))).toEqual(
        sorted(await searchSessions(root, 'needle', { limit: 100, index: false })),
      );
      for (const f of ['-folder-0', '-folder-1', '-folder-2'])
        expect(existsSync(projectCache(join(root, f), SEARCH_INDEX_FILE))).toBe(false);
    } finally {
      for (const f of ['-folder-0', '-folder-1', '-folder-2']) chmodSync(join(root, f), 0o755);
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('search index: the vocabulary', () => {
  it('grows past a million distinct words and still finds each, folded as the regex folds', async () => {
    const { FolderIndex } = await import('../server/search/search-index.js');
    const many = Array.from({ length: 1_100_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
    const texts = ['Zonk zonk ' + many, 'some WORDS again: w0 w1 zonk', 'after \u212Aelvin and ſtraße', 'last w10000 word'];
    const ix = new FolderIndex();
    ix.edit();
    texts.forEach((t, i) => {
      ix.event(0, i, 0, 0, 0, 0);
      ix.text(t);
      ix.endEvent();
    });
    expect(ix.tokens.length).toBeGreaterThan(1 << 20);
    expect(Array.from(ix.matching(['zonk']))).toEqual([0, 1]);
    expect(Array.from(ix.matching(['kelvin']))).toEqual([2]);
    expect(Array.from(ix.matching(['w10000']))).toEqual([3]);
    expect(Array.from(ix.matching(['wzzz']))).toEqual([0]);
    expect(Array.from(ix.matching(['word']))).toEqual([0, 1, 3]); // w + 'ord' in base 36
    expect(Array.from(ix.matching(['again']))).toEqual([1]);
    expect(Array.from(ix.matching(['nowhere']))).toEqual([]);
  }, 60_000);
});
