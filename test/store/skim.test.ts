// The soft cap's skim (skim.ts) against the ordinary path on real files: a session read with the
// cap applied as lines are read (long agent lines skimmed) gives exactly the events, key order
// included, and the problems of the plain read followed by elideToCap, over payloads that are
// hard to cut (escapes, quotes and backslashes at the end, non-ASCII, lone surrogates, nested
// `content` strings that are no payload, `__proto__` keys, OpenAI role "tool" messages).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../server/store/store.js';
import { readSession } from '../../server/store/reader.js';
import { elideToCap } from '../../server/format/soft-cap.js';

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-skim-'));
});
afterEach(() => rm(tmp, { recursive: true, force: true }));

/** A deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'line\n',
  '"quoted"',
  'back\\slash',
  '\\',
  '\t',
  'é',
  '日本語',
  '🦀',
  '\ud800',
  '\udc00x',
  '\u0000',
  '\u001f',
  'plain text ',
];

function payload(r: () => number, size: number): string {
  let s = '';
  while (s.length < size) s += PIECES[Math.floor(r() * PIECES.length)];
  // Ends on what is hardest for the end-of-string search: backslashes and a quote.
  return r() < 0.3 ? `${s}\\\\` : r() < 0.5 ? `${s}\\"` : s;
}

function agentEvent(r: () => number, n: number) {
  const id = `toolu_${n}`;
  const big = () => payload(r, 1000 + Math.floor(r() * 20_000));
  const messages: unknown[] = [
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Write', input: { file_path: '/x', content: big() } }] },
    {
      role: 'user',
      content: [
        r() < 0.5
          ? { type: 'tool_result', tool_use_id: id, content: big() }
          : { type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: big() }], is_error: false },
      ],
    },
  ];
  if (r() < 0.3) messages.push({ role: 'tool', tool_call_id: `c${n}`, content: big() });
  if (r() < 0.2) messages.push(JSON.parse(`{"role":"assistant","__proto__":{"content":${JSON.stringify(big())}},"content":"ok"}`));
  if (r() < 0.2) messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'short' }] });
  return { kind: 'agent', t: '2026-07-28T09:00:00.000Z', messages };
}

async function sessionFile(seed: number, turns: number): Promise<string> {
  const store = new SessionStore({ root: join(tmp, 'store') });
  const meta = await store.create({ project: tmp });
  const r = rng(seed);
  for (let i = 0; i < turns; i++) {
    await store.append(meta.id, [{ kind: 'user', content: `turn ${i}` }, agentEvent(r, i) as never]);
  }
  await store.releaseAll();
  return store.pathOf(meta.id);
}

async function both(file: string, cap: number) {
  const size = (await stat(file)).size;
  const skimmed = await readSession(file, { softCap: cap });
  const plain = await readSession(file);
  const ordinary = elideToCap(plain.events, size, cap);
  return { skimmed, plain, ordinary };
}

describe('the soft cap skim', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`gives the ordinary path's events and elisions (seed ${seed})`, async () => {
      const file = await sessionFile(seed, 12);
      const size = (await stat(file)).size;
      for (const cap of [Math.floor(size / 2), Math.floor(size / 5), 1]) {
        const { skimmed, plain, ordinary } = await both(file, cap);
        expect(ordinary.elided).toBeGreaterThan(0);
        expect(skimmed.elided).toBe(ordinary.elided);
        expect(JSON.stringify(skimmed.events)).toBe(JSON.stringify(ordinary.events));
        expect(skimmed.events).toEqual(ordinary.events);
        expect(skimmed.problems).toEqual(plain.problems);
      }
    });
  }

  it('leaves a line whose kept string is not JSON to the ordinary path, which reports it', async () => {
    const file = await sessionFile(7, 3);
    // A kept payload (the cap elides none of this line's: the excess is spent before it) with a bad escape.
    const bad = `{"kind":"agent","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"${'a'.repeat(20_000)}\\x"}]}]}\n`;
    await appendFile(file, bad);
    const size = (await stat(file)).size;
    const { skimmed, plain, ordinary } = await both(file, size - 10);
    expect(plain.problems).toMatchObject([{ line: 8 }]);
    expect(skimmed.problems).toEqual(plain.problems);
    expect(skimmed.events).toEqual(ordinary.events);
  });
});
