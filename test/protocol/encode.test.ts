// The sidecar's frame encoder (server/rpc/encode.ts): whatever the message, and whichever of its
// values the token estimates measured, the bytes are exactly JSON.stringify's in UTF-8
// (fast-check, with texts that look like its tags), and the measured texts, or the known bytes,
// are what is written.
// The real sidecar's resume answers (test/protocol/resume.test.ts) go through it too.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeMessage } from '../../server/rpc/encode.js';
import { jsonLength, knownJson, measuredJson } from '../../server/core/tokens.js';

const long = (s: string) => s.repeat(Math.ceil(5000 / Math.max(1, s.length)));
// Strings near what the encoder looks for: NULs, quotes, backslashes, hex, colons, digits.
const text = fc.oneof(
  fc.string(),
  fc.constantFrom('\u0000', '\u0000abc:0', '"\\u0000', '\\"', 'é中😀', '\ud800', ':1"', '0123456789abcdef'),
  fc.constantFrom('\u0000', '"', 'é中', 'x\n').map(long),
);
const leaf = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null));
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 4 })),
}));

/** Every object and array inside v (v included), depth first. */
function nodes(v: unknown, out: object[] = []): object[] {
  if (v !== null && typeof v === 'object') {
    out.push(v);
    for (const x of Object.values(v)) nodes(x, out);
  }
  return out;
}

describe('encode: frames from measured texts', () => {
  it('writes exactly JSON.stringify in UTF-8, whichever values were measured', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 5 }), fc.array(fc.boolean(), { maxLength: 40 }), fc.nat(), (arrays, pick, id) => {
        const msg = { jsonrpc: '2.0', id, result: { tier: 1, conversation: arrays, agentMessages: [arrays[0] ?? null] } };
        const all = nodes(msg.result.conversation);
        all.forEach((n, i) => pick[i % Math.max(1, pick.length)] && jsonLength(n));
        expect(encodeMessage(msg).equals(Buffer.from(JSON.stringify(msg), 'utf8'))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('writes a measured value from its kept text, and only a long one, only in an answer', () => {
    const message = { role: 'user', content: long('a long tool output \n') };
    jsonLength(message);
    expect(measuredJson(message)).toBe(JSON.stringify(message));
    // Were the value serialized again, this change after the measure would show; it does not,
    // because an answer is written from the texts (events are never changed once read).
    (message as { role: string }).role = 'changed';
    const out = encodeMessage({ jsonrpc: '2.0', id: 1, result: { conversation: [message] } }).toString('utf8');
    expect(out).toContain('"role":"user"');
    // Short values and requests go the plain way.
    const small = { role: 'user', content: 'hi' };
    jsonLength(small);
    expect(measuredJson(small)).toBeUndefined();
    expect(encodeMessage({ jsonrpc: '2.0', id: 2, method: 'x', params: [message] }).toString('utf8')).toContain('"role":"changed"');
  });

  it('writes a value whose JSON bytes are known from those bytes, and counts their length', () => {
    const message = { role: 'assistant', content: long('é中😀 "x"\n') };
    const bytes = Buffer.from(JSON.stringify(message), 'utf8');
    knownJson(message, bytes, JSON.stringify(message).length);
    expect(measuredJson(message)).toBe(bytes);
    expect(jsonLength(message)).toBe(JSON.stringify(message).length);
    const msg = { jsonrpc: '2.0', id: 3, result: { tier: 1, conversation: [{ role: 'user', content: 'hi' }, message], agentMessages: [message] } };
    expect(encodeMessage(msg).equals(Buffer.from(JSON.stringify(msg), 'utf8'))).toBe(true);
    // Written from the bytes, not the value: a change after the record does not show.
    (message as { role: string }).role = 'changed';
    expect(encodeMessage(msg).toString('utf8')).not.toContain('changed');
  });
});
