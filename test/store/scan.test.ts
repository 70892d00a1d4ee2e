// Search's byte scans (server/core/scan.wat through scan.ts), each against a plain JavaScript
// statement of what it must find, on generated data (fast-check): the needle search with its
// case mask, the line index, and scanLine, whose skeletons must read back as the line's own JSON
// and must never make a bad line look good. The generated modules must be what their .wat files
// assemble to (utf8.wat's decoder has its own tests: test/store/utf8.test.ts).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEEP_MAX, Scanner, type CutString } from '../../server/core/scan.js';
import { cutOf, skeletonOf } from '../../server/core/search-skeleton.js';

const repo = join(import.meta.dirname, '..', '..');

/** Copies `chunk` into the scanner's data area and makes it the chunk. */
function load(sc: Scanner, chunk: Uint8Array): void {
  sc.data(chunk.length).set(chunk);
  sc.use(chunk.length);
}

describe('scan: the modules', () => {
  it('are what scan.wat and utf8.wat assemble to (tools/build-wasm.mjs --check)', () => {
    const out = execFileSync(process.execPath, [join(repo, 'tools', 'build-wasm.mjs'), '--check'], { encoding: 'utf8' });
    expect(out).toMatch(/scan-wasm\.ts is current/);
    expect(out).toMatch(/utf8-wasm\.ts is current/);
  });
});

// Data rich in what the scans care about: quotes, backslashes, line ends, cases, bytes above 0x7f.
const byteOf = fc.constantFrom(...Buffer.from('aAbBzZ@`[{~ "\\\n\t:/u0', 'latin1'), 0xc4, 0xb0, 0xe2, 0x84, 0xaa, 0xc5, 0xbf, 0xff);
const data = fc.array(byteOf, { maxLength: 300 }).map((b) => Buffer.from(b));

/** Where `needle` first matches in buf[from, to) (ASCII letters folded unless exact), else -1. */
function findRef(buf: Buffer, needle: Buffer, exact: boolean, from: number, to: number): number {
  const fold = (b: number) => (!exact && ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)) ? b | 0x20 : b);
  for (let p = from; p + needle.length <= to; p++) {
    let j = 0;
    while (j < needle.length && fold(buf[p + j]!) === fold(needle[j]!)) j++;
    if (j === needle.length) return p;
  }
  return -1;
}

describe('scan: find', () => {
  it('finds what a byte-by-byte search finds, case folded for ASCII letters only', () => {
    const sc = new Scanner();
    fc.assert(
      fc.property(
        data,
        fc.array(fc.constantFrom(...Buffer.from('aAbB@`[{ "\\', 'latin1')), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.nat(),
        fc.nat(),
        (buf, n, exact, a, b) => {
          const needle = Buffer.from(n);
          load(sc, buf);
          expect(sc.setNeedle(needle, exact)).toBe(true);
          const from = buf.length ? a % (buf.length + 1) : 0;
          const to = from + (b % (buf.length - from + 1));
          expect(sc.find(from, to)).toBe(findRef(buf, needle, exact, from, to));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses a needle it cannot hold: too long, or not ASCII', () => {
    const sc = new Scanner();
    expect(sc.setNeedle(Buffer.alloc(1025, 0x61), false)).toBe(false);
    expect(sc.setNeedle(Buffer.from('é'), true)).toBe(false);
  });
});

describe('scan: lineStarts', () => {
  it('gives `from` and the place after every line end', () => {
    const sc = new Scanner();
    fc.assert(
      fc.property(data, fc.nat(), (buf, a) => {
        load(sc, buf);
        const from = a % (buf.length + 1);
        const want = [from];
        for (let i = from; i < buf.length; i++) if (buf[i] === 10) want.push(i + 1);
        expect([...sc.lineStarts(from)]).toEqual(want);
      }),
      { numRuns: 1000 },
    );
  });

  it('gives every start of a chunk with more lines than one call writes', () => {
    const sc = new Scanner();
    const buf = Buffer.from('x\n'.repeat(30000) + 'tail');
    load(sc, buf);
    const starts = sc.lineStarts(0);
    expect(starts.length).toBe(30001);
    expect(starts[30000]).toBe(60000);
    expect(starts.every((s, i) => s === 2 * i)).toBe(true);
  });
});

// ---- scanLine -------------------------------------------------------------------------------

/**
 * The value a skeleton parses to, with each cut string's marker replaced by its body parsed as a
 * JSON string. All in the latin1 view the fast path reads (one byte, one character): it must be
 * what JSON.parse makes of the line's latin1 view.
 */
function readBack(line: Buffer, start: number, end: number, cuts: readonly CutString[]): unknown {
  const sk = skeletonOf(line, start, end, cuts);
  const bodies = sk.cuts.map((c) => JSON.parse('"' + line.toString('latin1', start + c.start, start + c.end) + '"') as string);
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const cut = cutOf(v, sk.cuts);
      return cut ? bodies[sk.cuts.indexOf(cut)] : v;
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(JSON.parse(sk.json));
}

/** The \u and \/ escapes of a raw JSON string body (each escape read whole). */
function escapesOf(body: string): { unicode: boolean; slash: boolean } {
  let unicode = false;
  let slash = false;
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') continue;
    if (body[i + 1] === 'u') unicode = true;
    if (body[i + 1] === '/') slash = true;
    i++;
  }
  return { unicode, slash };
}

// Strings with what JSON escapes (quotes, backslashes, control characters), non-ASCII text, the
// case traps, U+0000, and lengths on both sides of the KEEP_MAX bytes a kept string may have.
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', '"', '\\', '/', '\n', '\t', '\u0000', 'é', '日', '\u0130', '\u212A', '\u017F', '😀'), maxLength: 80 }),
  fc.string({ maxLength: 8 }).map((s) => s.repeat(12)),
  fc.nat(4).map((n) => 'k'.repeat(KEEP_MAX - 2 + n)),
  fc.constant('\u0000' + 'x'.repeat(10)),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(text, tie('v'), { maxKeys: 4 })),
})).v;
const event = fc.dictionary(text, value, { minKeys: 1, maxKeys: 6 });

/** Writes `\/` for some '/' and `\u0041`-style escapes for some letters, as other writers may. */
function otherWriter(json: string, seed: number): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c === '\\' && inString) {
      out += c + json[++i]!;
      continue;
    }
    if (c === '"') inString = !inString;
    if (inString && c === '/' && (i + seed) % 2 === 0) out += '\\/';
    else if (inString && c === 'a' && (i + seed) % 3 === 0) out += '\\u0061';
    else out += c;
  }
  return out;
}

describe('scan: scanLine', () => {
  it('reads back every line JSON.stringify writes: the same value, keys kept, long strings cut', () => {
    const sc = new Scanner();
    fc.assert(
      fc.property(event, fc.nat(3), fc.boolean(), fc.nat(), fc.string({ unit: fc.constantFrom('"', '\\', 'u', '0', ' ', ':', 'a'), minLength: 128, maxLength: 128 }), (ev, pad, other, seed, after) => {
        let json = JSON.stringify(ev);
        if (other) json = otherWriter(json, seed);
        // The line among others, at any alignment, and the last line with or without its '\n'.
        const before = 'x'.repeat(pad) + '\n';
        const buf = Buffer.from(before + json + (seed % 2 ? '\n{"next":1}\n' : ''), 'utf8');
        // What follows the data in the scanner's memory (a read's leftovers) must never count.
        const area = sc.data(buf.length + 128);
        buf.copy(area);
        area.write(after, buf.length, 'latin1');
        sc.use(buf.length);
        const start = Buffer.byteLength(before);
        const scan = sc.scanLine(start);
        expect(scan.end).toBe(start + Buffer.byteLength(json));
        expect(scan.cuts).not.toBeNull();
        expect(readBack(buf, start, scan.end, scan.cuts!)).toEqual(JSON.parse(buf.toString('latin1', start, scan.end)));
        for (const c of scan.cuts!) {
          const body = buf.toString('latin1', start + c.start, start + c.end);
          const after = buf.toString('latin1', start + c.end + 1, scan.end).trimStart();
          expect(after.startsWith(':'), 'a key is never cut').toBe(false);
          expect(c.end - c.start > KEEP_MAX || body.startsWith('\\u0000')).toBe(true);
          const e = escapesOf(body);
          expect([c.unicodeEscape, c.slashEscape]).toEqual([e.unicode, e.slash]);
        }
        if (/[\u0130\u212A\u017F]/.test(json)) expect(scan.caseTrap).toBe(true);
        // And only those: every other value stays in the skeleton, whole (counted as written).
        if (!other) {
          let long = 0;
          const walk = (v: unknown): void => {
            if (typeof v === 'string') {
              const raw = JSON.stringify(v).slice(1, -1);
              if (Buffer.byteLength(raw) > KEEP_MAX || raw.startsWith('\\u0000')) long++;
            } else if (v && typeof v === 'object') Object.values(v).forEach(walk);
          };
          walk(ev);
          expect(scan.cuts!.length).toBe(long);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('never takes a bad line for a good one, and reads a good one as JSON.parse does', () => {
    const sc = new Scanner();
    const noise = fc.constantFrom('"', '\\', '\\u', '\\x', '\t', '\u0001', ':', ',', '{', '}', ']', ' ', 'a', 'é', '\\"');
    fc.assert(
      fc.property(event, fc.array(fc.tuple(fc.nat(), noise, fc.boolean()), { minLength: 1, maxLength: 4 }), (ev, edits) => {
        let line = JSON.stringify(ev);
        for (const [at, s, replace] of edits) {
          const i = at % (line.length + 1);
          line = line.slice(0, i) + s + line.slice(replace ? i + 1 : i);
        }
        const buf = Buffer.from(line + '\n', 'utf8');
        load(sc, buf);
        const scan = sc.scanLine(0);
        expect(scan.end).toBe(buf.length - 1);
        let good = true;
        try {
          JSON.parse(buf.toString('utf8', 0, scan.end)); // as the slow path reads it
        } catch {
          good = false;
        }
        if (scan.cuts === null) return; // the slow path decides: always allowed
        let back: unknown;
        try {
          back = readBack(buf, 0, scan.end, scan.cuts);
        } catch {
          return; // the skeleton does not parse: the slow path decides
        }
        expect(good, `taken for good: ${line}`).toBe(true);
        expect(back).toEqual(JSON.parse(buf.toString('latin1', 0, scan.end)));
      }),
      { numRuns: 3000 },
    );
  });

  it('sends to the slow path: control bytes, bad escapes, stray backslashes, open strings', () => {
    const sc = new Scanner();
    const long = 'y'.repeat(60);
    for (const line of [
      `{"a":"${long}\tb"}`,
      `{"a":"${long}\\x"}`,
      `{"a":"${long}\\u12G4"}`,
      `{"a":\\"${long}"}`,
      `{"a":"${long}`,
      `{"a":"${long}\\`,
    ]) {
      load(sc, Buffer.from(line + '\n'));
      const scan = sc.scanLine(0);
      expect(scan.cuts, line).toBeNull();
      expect(scan.end, line).toBe(line.length);
    }
  });

  it('finds no more than it can hold: a line with too many strings to cut takes the slow path', () => {
    const sc = new Scanner();
    const line = JSON.stringify(Array.from({ length: 16385 }, () => 'z'.repeat(49)));
    load(sc, Buffer.from(line));
    expect(sc.scanLine(0).cuts).toBeNull();
    const fits = JSON.stringify(Array.from({ length: 16384 }, () => 'z'.repeat(49)));
    load(sc, Buffer.from(fits));
    expect(sc.scanLine(0).cuts).toHaveLength(16384);
  });
});
