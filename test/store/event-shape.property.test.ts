// reader.ts isSessionEvent (the structural check a full load uses instead of zod) accepts
// exactly what SessionEvent.safeParse accepts: property-tested over generated objects that mix
// valid and invalid kinds, times and the fields each kind's schema checks, plus extra keys.
// isMetaLine likewise for MetaLine, and reader.ts's ISO_TIME is the schema's own pattern.
// FC_SEED=<n> replays a run.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ISO_TIME, isMetaLine, isSessionEvent, loadSchemas, parseEventLine, readMeta } from '../../server/core/reader.js';
import { MetaLine, SessionEvent, UserEvent } from '../../server/core/events.js';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : (Date.now() ^ 0x5eed) >>> 0;
const ABSENT = Symbol('absent');

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
/** ISO-looking times, valid and subtly invalid (month 13, Feb 29/30, hour 24, bad offsets). */
const isoTime = fc
  .record({
    y: fc.integer({ min: 0, max: 9999 }),
    mo: fc.integer({ min: 0, max: 13 }),
    d: fc.integer({ min: 0, max: 32 }),
    h: fc.integer({ min: 0, max: 25 }),
    mi: fc.integer({ min: 0, max: 60 }),
    s: fc.integer({ min: 0, max: 60 }),
    frac: fc.option(fc.stringMatching(/^\d{0,9}$/)),
    zone: fc.constantFrom('Z', '+01:00', '-05:30', '+24:00', '+0100', 'z', '', '+05:60', '-00:00'),
    sep: fc.constantFrom('T', 'T', 'T', ' ', 't'),
  })
  .map(({ y, mo, d, h, mi, s, frac, zone, sep }) => `${pad(y, 4)}-${pad(mo)}-${pad(d)}${sep}${pad(h)}:${pad(mi)}:${pad(s)}${frac === null ? '' : `.${frac}`}${zone}`);

/** A generated record as an object: absent fields left out, extra keys added as own properties. */
function toObject(r: { extra: Record<string, unknown> | null } & Record<string, unknown>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (k === 'extra' || v === ABSENT) continue;
    o[k] = v;
  }
  if (r.extra) for (const [k, v] of Object.entries(r.extra)) if (!(k in o)) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const anyJson = fc.jsonValue({ maxDepth: 2 });
const str = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 4 }), fc.constant(''));
const longTitle = fc.integer({ min: 495, max: 505 }).map((n) => 'x'.repeat(n));
// The arbitrary of a field's own type is weighted up so that whole valid events come out often.
const field = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: arb, weight: 5 }, { arbitrary: fc.constant(ABSENT), weight: 2 }, fc.constant(undefined), anyJson);

const candidate = fc
  .record({
    kind: fc.oneof(fc.constantFrom('user', 'assistant', 'agent', 'event', 'title', 'compact', 'meta', 'User', ''), fc.constant(ABSENT), anyJson),
    t: fc.oneof({ arbitrary: isoTime, weight: 4 }, { arbitrary: fc.constant('2026-07-28T09:12:33.120Z'), weight: 3 }, fc.constant(ABSENT), str, anyJson),
    content: field(anyJson),
    contextFiles: field(fc.oneof(fc.array(str, { maxLength: 3 }), fc.array(fc.oneof(str, fc.integer(), fc.constant(null)), { maxLength: 3 }))),
    model: field(str),
    messages: field(fc.array(anyJson, { maxLength: 3 })),
    type: field(str),
    title: field(fc.oneof(str, longTitle)),
    source: field(fc.constantFrom('user', 'model', 'fallback', 'other', '')),
    briefing: field(str),
    coversThrough: field(
      fc.oneof(
        fc.integer({ min: -3, max: 1000 }),
        fc.constantFrom(-0, 0.5, 2 ** 53, 2 ** 53 - 1, -1, 1e21, Number.NaN, Number.POSITIVE_INFINITY),
        fc.double(),
      ),
    ),
    extra: fc.option(fc.dictionary(fc.string({ maxLength: 5 }), anyJson, { maxKeys: 2 })),
  })
  .map(toObject);

// First in this file, before anything has loaded the reader's schemas: readMeta loads them when
// a meta line is refused, so its error still carries zod's issues.
describe('a refused meta line', () => {
  it("is explained by zod's issues even when nothing loaded the schemas before", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lc-meta-'));
    try {
      const file = join(dir, '2026-07-28T09-12-33-8f3k.jsonl');
      writeFileSync(file, '{"kind":"meta","v":0,"id":"2026-07-28T09-12-33-8f3k","project":"/p","createdAt":"2026-07-28T09:12:33Z","title":null}\n');
      const err = await readMeta(file).then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string; data?: { issues?: { path: unknown[] }[] } },
      );
      expect(err?.code).toBe('corrupt-session');
      expect(err?.message).toMatch(/line 1 is not a valid meta line$/);
      expect(err?.data?.issues?.[0]?.path).toEqual(['v']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('isSessionEvent is SessionEvent.safeParse without zod', () => {
  it('agrees with zod on generated objects (and on their JSON round trip)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(candidate, (o) => {
        const zod = SessionEvent.safeParse(o).success;
        expect(isSessionEvent(o)).toBe(zod);
        if (zod) accepted++;
        const j = JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
        expect(isSessionEvent(j)).toBe(SessionEvent.safeParse(j).success);
      }),
      { numRuns: 10_000, seed: SEED },
    );
    // The generator reaches both sides of the check, not only refusals.
    if (process.env.LCS_SHOW_ACCEPTED) console.log(`accepted ${accepted} of 10000`);
    expect(accepted).toBeGreaterThan(150);
  });

  it('agrees on valid events of every kind with one field broken at a time', () => {
    const t = '2026-02-28T23:59:59+05:30';
    const valid: Record<string, unknown>[] = [
      { kind: 'user', t, content: 'hi', contextFiles: ['a'] },
      { kind: 'assistant', t, content: [{ type: 'text', text: 'x' }], model: 'm' },
      { kind: 'agent', t, messages: [] },
      { kind: 'event', t, type: 'checkpoint' },
      { kind: 'title', t, title: 'T', source: 'user' },
      { kind: 'compact', t, briefing: 'b', coversThrough: 0 },
    ];
    const breakers: unknown[] = [undefined, null, '', 0, -1, 1.5, [], {}, ['x', 1], 'x'.repeat(501), '2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z'];
    fc.assert(
      fc.property(fc.constantFrom(...valid), fc.constantFrom('kind', 't', 'content', 'contextFiles', 'model', 'messages', 'type', 'title', 'source', 'briefing', 'coversThrough'), fc.constantFrom(...breakers), (ev, key, value) => {
        const o = { ...ev, [key]: value };
        expect(isSessionEvent(o)).toBe(SessionEvent.safeParse(o).success);
      }),
      { numRuns: 3_000, seed: SEED },
    );
    for (const ev of valid) expect(isSessionEvent(ev)).toBe(true);
  });

  it('parseEventLine still names the field zod names for a refused line, once the schemas are loaded', async () => {
    await loadSchemas();
    const r = parseEventLine(Buffer.from('{"kind":"compact","t":"2026-07-28T09:12:33Z","briefing":"b","coversThrough":-1}'));
    expect(r).toEqual({ error: expect.stringContaining('not a valid event (coversThrough:') });
  });

  it("ISO_TIME is the pattern of the schema's times", () => {
    const zod = (UserEvent.shape.t as unknown as { _zod: { pattern: RegExp } })._zod.pattern;
    expect(ISO_TIME.source).toBe(zod.source);
    expect(ISO_TIME.flags).toBe(zod.flags);
  });
});

// Each field is valid most of the time, so that whole valid meta lines come out often.
const mfield = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: arb, weight: 16 }, { arbitrary: fc.constant(ABSENT), weight: 1 }, fc.constant(undefined), anyJson);
const metaCandidate = fc
  .record({
    kind: fc.oneof({ arbitrary: fc.constant('meta'), weight: 16 }, fc.constantFrom('Meta', 'user', ''), fc.constant(ABSENT), anyJson),
    v: mfield(fc.oneof({ arbitrary: fc.integer({ min: -2, max: 3 }), weight: 4 }, fc.constantFrom(-0, 0.5, 2 ** 53, 2 ** 53 - 1, 1e21, Number.NaN, Number.POSITIVE_INFINITY))),
    id: mfield(fc.oneof({ arbitrary: fc.constant('2026-07-28T09-12-33-8f3k'), weight: 8 }, fc.constantFrom('2026-07-28T09-12-33-8F3K', '2026-07-28T09-12-33-8f3', '../x', ''), str)),
    project: mfield(fc.oneof({ arbitrary: fc.constantFrom('/home/ada/code', 'x'), weight: 6 }, fc.constant(''), str)),
    createdAt: mfield(fc.oneof({ arbitrary: fc.constant('2026-07-28T09:12:33.120Z'), weight: 4 }, isoTime)),
    title: fc.oneof({ arbitrary: fc.constant(null), weight: 12 }, str, fc.constant(ABSENT), anyJson),
    model: fc.oneof({ arbitrary: fc.constant(ABSENT), weight: 8 }, { arbitrary: str, weight: 8 }, fc.constant(undefined), anyJson),
    extra: fc.option(fc.dictionary(fc.string({ maxLength: 5 }), anyJson, { maxKeys: 2 })),
  })
  .map(toObject);

describe('isMetaLine is MetaLine.safeParse without zod', () => {
  it('agrees with zod on generated meta lines (and on their JSON round trip), arrays and non-objects', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof({ arbitrary: metaCandidate, weight: 9 }, anyJson), (o) => {
        const zod = MetaLine.safeParse(o).success;
        expect(isMetaLine(o)).toBe(zod);
        if (zod) accepted++;
        const j = JSON.parse(JSON.stringify(o) ?? 'null') as unknown;
        expect(isMetaLine(j)).toBe(MetaLine.safeParse(j).success);
      }),
      { numRuns: 10_000, seed: SEED },
    );
    expect(accepted).toBeGreaterThan(150);
  });
});
