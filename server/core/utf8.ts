// Decoding a session line's bytes to a string: what Buffer.toString('utf8') gives, faster for
// the lines that cost the most. V8 decodes a line holding any character above U+007F one
// character at a time (~340 MB/s on the bench machine); most of a long line is still ASCII, and
// utf8.wat widens it sixteen bytes at a time. On the 134 MiB bench session: 359 → 140 ms to
// decode every line, 609 → 403 ms with JSON.parse (bench/PERFORMANCE.md: resume).
//
// Exactly toString('utf8') for every input: ASCII is read as latin1 (the same characters), bytes
// that are not valid UTF-8 go to toString('utf8') itself (its replacement characters are its
// own), and only valid UTF-8 reaches the WebAssembly decoder, which then has nothing to decide.
// Short lines go to toString('utf8') too: there the checks would cost more than they save.
// Depends on node:buffer and utf8-wasm.ts.

import { isAscii, isUtf8 } from 'node:buffer';
import { UTF8_WASM } from './utf8-wasm.js';

/** Lines shorter than this are decoded by V8 directly. */
const SHORT = 1024;
/** The memory a thread's decoder keeps (a longer line gets a decoder of its own, then dropped). */
const KEEP_BYTES = 48 << 20;
const PAGE = 65536;

interface Decoder {
  memory: WebAssembly.Memory;
  utf16(src: number, n: number, dst: number): number;
}

let module: WebAssembly.Module | undefined;
let kept: Decoder | undefined;

function decoder(): Decoder {
  module ??= new WebAssembly.Module(Buffer.from(UTF8_WASM, 'base64'));
  return new WebAssembly.Instance(module).exports as unknown as Decoder;
}

/**
 * `bytes` as Buffer.toString('utf8') decodes them. `valid` is whether they are UTF-8
 * (buffer.isUtf8), for a caller that has checked already; it is checked here otherwise.
 */
export function decodeUtf8(bytes: Buffer, valid?: boolean): string {
  if (bytes.length < SHORT) return bytes.toString('utf8');
  if (!(valid ?? isUtf8(bytes))) return bytes.toString('utf8');
  if (isAscii(bytes)) return bytes.toString('latin1');
  // The bytes at 0, their UTF-16 (at most two bytes a byte) after them.
  const dst = (bytes.length + 15) & ~15;
  const need = dst + 2 * bytes.length;
  const d = need <= KEEP_BYTES ? (kept ??= decoder()) : decoder();
  const have = d.memory.buffer.byteLength;
  if (need > have) d.memory.grow(Math.ceil((need - have) / PAGE));
  new Uint8Array(d.memory.buffer).set(bytes, 0);
  const units = d.utf16(0, bytes.length, dst);
  return Buffer.from(d.memory.buffer, dst, 2 * units).toString('utf16le');
}
