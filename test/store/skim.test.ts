// The soft cap's skim (server/core/skim.ts): a session over the cap, read whole, must come back
// exactly as the ordinary path reads it and elideToCap then elides it: the same events, text,
// key order, elided count and problems, on generated sessions (fast-check) with long tool outputs
// of every kind (strings with escapes, non-ASCII and lone surrogates, block arrays, OpenAI tool
// messages), lines as other writers write them (`\/`, `\u` escapes), `__proto__` keys, long
// times, and broken lines; and the JSON a skimmed message carries is JSON.stringify's, byte for
// byte. Also: the skim is what actually reads such lines, and the scan's escape
// count, on which its measure rests, is checked against a plain count.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { elideToCap, elisionMarker } from '../../server/core/elide.js';
import { serializeLine } from '../../server/core/events.js';
import { readSession } from '../../server/core/reader.js';
import { Scanner } from '../../server/core/scan.js';
import { Skimmer } from '../../server/core/skim.js';
import { jsonLength, measuredJson } from '../../server/core/tokens.js';

const dir = mkdtempSync(join(tmpdir(), 'lc-skim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function write(lines: string[]): string {
  const id = `2026-09-01T10-00-00-${(n++).toString(36).padStart(4, '0')}`;
  const file = join(dir, `${id}.jsonl`);
  const meta = serializeLine({ kind: 'meta', v: 1, id, project: '/p', createdAt: '2026-09-01T10:00:00.000Z', title: null });
  writeFileSync(file, [meta, ...lines].join('\n') + '\n');
  return file;
}

/** What the skim must equal: every line read the ordinary way, then the cap applied. */
async function expectSameAsOrdinary(file: string, cap: number): Promise<void> {
  const skimmed = await readSession(file, { softCap: cap });
  const plain = await readSession(file);
  const capped = elideToCap(plain.events, plain.size, cap);
  expect(skimmed.elided).toBe(capped.elided);
  expect(skimmed.problems).toEqual(plain.problems);
  expect(skimmed.events.map((e) => JSON.stringify(e))).toEqual(capped.events.map((e) => JSON.stringify(e)));
  expect(skimmed.events).toEqual(capped.events);
  // The JSON a skimmed message carries (knownJson, made from the line's bytes) is exactly
  // JSON.stringify's, in UTF-8, and its length is the estimate's.
  for (const se of skimmed.events) {
    const messages = (se.event as { messages?: unknown }).messages;
    if (!Array.isArray(messages)) continue;
    for (const m of messages) {
      if (m === null || typeof m !== 'object') continue;
      const known = measuredJson(m);
      const json = JSON.stringify(m);
      if (Buffer.isBuffer(known)) {
        knownSeen++;
        expect(known.toString('utf8')).toBe(json);
        expect(known.equals(Buffer.from(json, 'utf8'))).toBe(true);
      }
      expect(jsonLength(m)).toBe(json.length);
    }
  }
}
let knownSeen = 0;

// Text rich in what decoding and measuring care about: escapes JSON.stringify writes (\n, \",
// \\, \u001b), non-ASCII of every width, a lone surrogate (written as \ud800), U+0000.
const piece = fc.constantFrom('a', 'word ', 'z', '/', '\n', '"', '\\', '\\\\"', '\u001b[31m', 'é', '中文', '😀', '\ud800', '\u0000', '\t', '{"k":1}');
const longText = fc.tuple(fc.array(piece, { maxLength: 40 }), fc.nat(120)).map(([p, times]) => p.join('').repeat(1 + times));
const shortText = fc.array(piece, { maxLength: 6 }).map((p) => p.join(''));
const text = fc.oneof(longText, shortText);
const payload = fc.oneof(
  longText,
  shortText,
  fc.array(text.map((t) => ({ type: 'text', text: t })), { maxLength: 3 }),
  fc.record({ stdout: text, code: fc.nat(3) }),
);
const message = fc.oneof(
  fc.record({ role: fc.constant('user'), content: fc.array(fc.record({ type: fc.constant('tool_result'), tool_use_id: text, content: payload }), { maxLength: 3 }) }),
  fc.record({ role: fc.constant('assistant'), content: fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text }), fc.record({ type: fc.constant('tool_use'), id: text, input: fc.record({ command: text }) })), { maxLength: 3 }) }),
  fc.record({ role: fc.constant('tool'), tool_call_id: text, content: payload }),
  fc.record({ role: fc.constant('user'), content: text }),
  // A `__proto__` key JSON.parse keeps as an own property, holding a long string.
  text.map((t) => JSON.parse(`{"role":"user","__proto__":${JSON.stringify(t)},"content":[]}`) as Record<string, unknown>),
);
const time = fc.constantFrom('2026-09-01T10:00:00.000Z', '2026-09-01T10:00:00.123456789+02:00');
const event = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('agent'), t: time, messages: fc.array(message, { maxLength: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('user'), t: time, content: text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('assistant'), t: time, content: text }) },
);
// As written, as another writer may write it ('/' and 'z' only ever occur in strings here), or
// broken: cut short, or with a bad escape.
const line = fc.tuple(event, fc.nat(), fc.nat(9)).map(([ev, at, how]) => {
  const good = serializeLine(ev);
  if (how === 0) return good.replaceAll('/', '\\/');
  if (how === 1) return good.replace(/z/g, (z, i: number) => (i % 2 ? '\\u007a' : z));
  if (how === 2) return good.slice(0, at % good.length) + '\\x' + good.slice(at % good.length);
  if (how === 3 && at % 5 === 0) return good.slice(0, at % good.length);
  return good;
});

describe('skim: the soft cap without decoding what it elides', () => {
  it('reads a session over the cap as the ordinary path and elideToCap do', async () => {
    const take = vi.spyOn(Skimmer.prototype, 'take');
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 8 }), fc.double({ min: 0, max: 1, noNaN: true }), async (lines, share) => {
        const file = write(lines);
        const size = Buffer.byteLength([...lines].join('\n')) + 200;
        await expectSameAsOrdinary(file, Math.floor(size * share));
      }),
      { numRuns: 300 },
    );
    // The generated sessions did exercise the skim (not only the ordinary path).
    const skimmed = take.mock.results.filter((x) => x.type === 'return' && x.value !== undefined).length;
    take.mockRestore();
    expect(skimmed).toBeGreaterThan(100);
    // And their messages' JSON was made from the lines' bytes (not only by JSON.stringify).
    expect(knownSeen).toBeGreaterThan(100);
  });

  it('elides a long output of every escape and width by its exact UTF-8 size', async () => {
    // Without a \u escape (measured from the raw bytes), and with one (measured from its text).
    const plain = 'line "one"\n\ttab \\ back\\slash é 中文 😀 /path\n'.repeat(200);
    const colored = `\u001b[31m${plain}\u001b[0m`;
    const ev = {
      kind: 'agent',
      t: '2026-09-01T10:00:00.000Z',
      messages: [
        // A long `__proto__` value: an own property, given its text without touching the prototype.
        JSON.parse(`{"role":"user","__proto__":${JSON.stringify(plain)},"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":${JSON.stringify(plain)}}]}`),
      ],
    };
    const file = write([serializeLine(ev), serializeLine({ ...ev, messages: [{ role: 'tool', tool_call_id: 'c', content: colored }] })]);
    const take = vi.spyOn(Skimmer.prototype, 'take');
    const r = await readSession(file, { softCap: 1 });
    // Both lines were skimmed, not read the ordinary way.
    expect(take.mock.results.filter((x) => x.type === 'return' && x.value !== undefined)).toHaveLength(2);
    take.mockRestore();
    expect(r.elided).toBe(2);
    const first = r.events[0]!.event as unknown as { messages: Record<string, unknown>[] };
    expect(Object.getOwnPropertyDescriptor(first.messages[0], '__proto__')?.value).toBe(plain);
    expect(JSON.stringify(first)).toContain(JSON.stringify(elisionMarker(Buffer.byteLength(plain))));
    expect(JSON.stringify(r.events[1]!.event)).toContain(JSON.stringify(elisionMarker(Buffer.byteLength(colored))));
    await expectSameAsOrdinary(file, 1);
  });

  it("makes a message's JSON from the line where keys and short texts look like cut strings", async () => {
    // A cut string is "\u0000<n>" in the skeleton. Here a key, a short text after an escaped
    // quote, and a long text are written just like one: only the long text is a cut.
    const long = 'the output "quoted" \\ é 😀\n'.repeat(300);
    const input: Record<string, unknown> = { quoted: '"\u00001', '\u00001': long, nul: '\u00002', list: ['a\\', long, '\u0000', 7, null, true] };
    const message = { role: 'assistant', content: [{ type: 'text', text: long }, { type: 'tool_use', id: 'toolu_1', name: 'Write', input }] };
    const file = write([serializeLine({ kind: 'agent', t: '2026-09-01T10:00:00.000Z', messages: [message] })]);
    const r = await readSession(file, { softCap: 1 });
    const m = (r.events[0]!.event as unknown as { messages: object[] }).messages[0]!;
    expect(m).toEqual(message);
    const known = measuredJson(m);
    expect(Buffer.isBuffer(known)).toBe(true);
    expect((known as Buffer).toString('utf8')).toBe(JSON.stringify(message));
    expect(jsonLength(m)).toBe(JSON.stringify(message).length);
  });

  it('counts the escapes in a string body as the JSON grammar reads them', () => {
    const sc = new Scanner();
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', '\\', '\\\\', '\\"', '\\n', '\\u0041', 'é', '"'), { maxLength: 200 }), (parts) => {
        // A body: any text, its backslashes paired with a letter as JSON would pair them.
        const body = Buffer.from(JSON.stringify(parts.join('')).slice(1, -1));
        sc.data(body.length + 1).set(Buffer.concat([Buffer.from('"'), body]));
        sc.use(body.length + 1);
        let escapes = 0;
        for (let i = 0; i < body.length; i++) if (body[i] === 92) (escapes++, i++);
        expect(sc.escapes(1, 1 + body.length)).toBe(escapes);
      }),
      { numRuns: 500 },
    );
  });
});
