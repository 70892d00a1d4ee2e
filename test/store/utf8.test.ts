// decodeUtf8 (server/core/utf8.ts, with utf8.wat) must give exactly what Buffer.toString('utf8')
// gives, for any bytes: valid text of every width, long ASCII runs around the decoder's 16-byte
// blocks, bytes that are not UTF-8 at all, short and long inputs, and a line too big for the
// decoder a thread keeps.

import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from '../../server/core/utf8.js';

// Text of every width: ASCII, two-, three- and four-byte characters, in runs.
const piece = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('a', '"', '\\', 'é', 'ß', '日', '€', '\u0130', '\u212A', '😀', '\u{10FFFF}', '\uFFFD'), maxLength: 40 }),
  fc.nat(70).map((n) => 'x'.repeat(n)),
);
const text = fc.array(piece, { maxLength: 120 }).map((a) => a.join(''));

describe('decodeUtf8', () => {
  it('decodes valid UTF-8 of every length as toString does', () => {
    fc.assert(
      fc.property(text, fc.nat(1100), (t, pad) => {
        // Padding carries short texts past the length under which V8 decodes directly.
        const bytes = Buffer.from('p'.repeat(pad) + t, 'utf8');
        expect(decodeUtf8(bytes)).toBe(bytes.toString('utf8'));
        expect(decodeUtf8(bytes, true)).toBe(bytes.toString('utf8'));
      }),
      { numRuns: 1500 },
    );
  });

  it('gives what toString gives for bytes that are not UTF-8', () => {
    const junk = fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0xc0, 0xed, 0xf4, 0xf5, 0x80, 0xbf)), { maxLength: 60 });
    fc.assert(
      fc.property(text, junk, fc.nat(), (t, j, at) => {
        const good = Buffer.from('q'.repeat(1024) + t, 'utf8');
        const i = at % (good.length + 1);
        const bytes = Buffer.concat([good.subarray(0, i), Buffer.from(j), good.subarray(i)]);
        expect(decodeUtf8(bytes)).toBe(bytes.toString('utf8'));
        // As the reader calls it, having checked the bytes itself.
        expect(decodeUtf8(bytes, isUtf8(bytes))).toBe(bytes.toString('utf8'));
      }),
      { numRuns: 1500 },
    );
  });

  it('decodes a line too big for the decoder a thread keeps, and goes on with the kept one', () => {
    const big = Buffer.from('日本語 text, '.repeat(1_200_000), 'utf8'); // 19 MB
    expect(decodeUtf8(big)).toBe(big.toString('utf8'));
    const small = Buffer.from('é'.repeat(5000), 'utf8');
    expect(decodeUtf8(small)).toBe(small.toString('utf8'));
  });
});
