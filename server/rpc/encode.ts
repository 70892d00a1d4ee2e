// How the sidecar turns a message into the bytes of a frame: vscode-jsonrpc's own encoder
// (JSON.stringify, then UTF-8), except that a value whose JSON the token estimates already
// made or were given (core/tokens.ts measuredJson: the messages of a resume's answer, as text,
// or as bytes taken from the session file by the soft cap's skim) is written from that
// instead of being serialized again. A whole-session resume answers with 26 MB of messages,
// each of which the planner has just serialized to count its tokens; serializing them again was
// a tenth of the resume (bench/PERFORMANCE.md: resume).
//
// The bytes are exactly JSON.stringify's (test/rpc/encode.test.ts): the message is serialized
// with a fresh random tag in place of each known value, and the tags are then replaced by the
// texts, written straight into one buffer.
// Depends on node:crypto and core/tokens.ts (no other module: the sidecar loads this at start).

import { randomBytes } from 'node:crypto';
import { measuredJson } from '../core/tokens.js';

/** vscode-jsonrpc's ContentTypeEncoder, for StreamMessageWriter's options. */
export const encoder = {
  name: 'application/json',
  encode(msg: unknown): Promise<Uint8Array> {
    try {
      return Promise.resolve(encodeMessage(msg));
    } catch (e) {
      return Promise.reject(e);
    }
  },
};

/** The UTF-8 bytes of JSON.stringify(msg). */
export function encodeMessage(msg: unknown): Buffer {
  // A replacer takes V8 off its fast path: only an answer holding measured values (in its
  // result or one of the result's arrays) is serialized with one.
  const result = msg !== null && typeof msg === 'object' ? (msg as { result?: unknown }).result : undefined;
  if (!holdsMeasured(result)) return Buffer.from(JSON.stringify(msg), 'utf8');
  const texts: (string | Buffer)[] = [];
  const tag = `\u0000${randomBytes(12).toString('hex')}:`;
  const json = JSON.stringify(msg, (_key, value: unknown) => {
    if (value === null || typeof value !== 'object') return value;
    const text = measuredJson(value);
    if (text === undefined) return value;
    texts.push(text);
    return tag + (texts.length - 1);
  });
  if (texts.length === 0) return Buffer.from(json, 'utf8');
  // Each tag is in the JSON as the string literal "\u0000<hex>:<n>": U+0000 is always escaped,
  // and the random hex is in no text of the message.
  const open = JSON.stringify(tag).slice(0, -1);
  const pieces: (string | Buffer)[] = [];
  let from = 0;
  for (let i = 0; i < texts.length; i++) {
    const at = json.indexOf(open, from);
    const end = json.indexOf('"', at + open.length);
    if (at < 0 || end < 0 || json.slice(at + open.length, end) !== String(i)) throw new Error('encode: a tag went missing');
    pieces.push(json.slice(from, at), texts[i]!);
    from = end + 1;
  }
  pieces.push(json.slice(from));
  let size = 0;
  for (const p of pieces) size += typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const p of pieces) at += typeof p === 'string' ? out.write(p, at, 'utf8') : p.copy(out, at);
  return out;
}

function holdsMeasured(result: unknown): boolean {
  if (result === null || typeof result !== 'object') return false;
  for (const v of Object.values(result)) {
    if (v === null || typeof v !== 'object') continue;
    if (measuredJson(v) !== undefined) return true;
    if (Array.isArray(v)) for (const x of v) if (x !== null && typeof x === 'object' && measuredJson(x) !== undefined) return true;
  }
  return false;
}
