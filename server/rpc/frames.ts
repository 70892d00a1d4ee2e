// The guard in front of vscode-jsonrpc's frame reader: every byte from the client passes
// through here first, and a frame whose header cannot be honoured stops the stream before the
// library sees it. vscode-jsonrpc buffers whatever a Content-Length says (a huge one grew the
// sidecar without bound), reads a negative one as a TypeError and then neither answers nor
// exits, and rescans a header with no terminator on every chunk (a core kept busy, quadratic). Here:
// a header is at most MAX_HEADER_BYTES up to its blank line, names one Content-Length of decimal
// digits, and a body is at most MAX_FRAME_BYTES (protocol.md "Framing"). Anything else calls
// `onBad` once with the reason and passes nothing more; the sidecar logs it and exits 1 after
// releasing its locks.
// Depends on node:stream only.

import { Transform, type TransformCallback } from 'node:stream';

/** The longest header accepted, from its first byte through its terminating blank line. */
export const MAX_HEADER_BYTES = 8 * 1024;
/** The longest frame body accepted (Content-Length). */
export const MAX_FRAME_BYTES = 128 * 1024 * 1024;

const END = Buffer.from('\r\n\r\n');

export class FrameGuard extends Transform {
  /** Bytes of the current body still to pass; -1 while a header is being read. */
  private body = -1;
  private header: Buffer = Buffer.alloc(0);
  private bad = false;

  constructor(private readonly onBad: (reason: string) => void) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let at = 0;
    while (at < chunk.length && !this.bad) {
      if (this.body >= 0) {
        const n = Math.min(this.body, chunk.length - at);
        this.push(chunk.subarray(at, at + n));
        at += n;
        this.body -= n;
        if (this.body === 0) this.body = -1;
        continue;
      }
      // A header: looked for in what is held plus this chunk, never more than the cap.
      const room = MAX_HEADER_BYTES - this.header.length;
      const take = chunk.subarray(at, at + Math.min(room, chunk.length - at));
      const held = this.header.length ? Buffer.concat([this.header, take]) : take;
      const end = held.indexOf(END, Math.max(0, this.header.length - 3));
      if (end === -1) {
        if (held.length >= MAX_HEADER_BYTES)
          return this.refuse(`a frame header longer than ${MAX_HEADER_BYTES} bytes without its blank line`, done);
        this.header = Buffer.from(held);
        at += take.length;
        continue;
      }
      const headerEnd = end + END.length;
      const length = contentLength(held.toString('latin1', 0, end));
      if (typeof length === 'string') return this.refuse(length, done);
      this.push(held.subarray(0, headerEnd));
      at += headerEnd - this.header.length;
      this.header = Buffer.alloc(0);
      this.body = length > 0 ? length : -1;
    }
    done();
  }

  private refuse(reason: string, done: TransformCallback): void {
    this.bad = true;
    this.header = Buffer.alloc(0);
    this.onBad(reason);
    done();
  }
}

/** The body length a header names, or why it names none that can be honoured. */
function contentLength(header: string): number | string {
  let length: number | undefined;
  for (const line of header.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) return `a frame header line that is not "Name: value" (${JSON.stringify(line.slice(0, 40))})`;
    if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
    const v = line.slice(colon + 1).trim();
    if (!/^\d{1,12}$/.test(v)) return `a Content-Length that is not a decimal number of bytes (${JSON.stringify(v.slice(0, 20))})`;
    if (length !== undefined) return 'two Content-Length headers in one frame';
    length = Number(v);
  }
  if (length === undefined) return 'a frame header without Content-Length';
  if (length > MAX_FRAME_BYTES) return `a frame of ${length} bytes, above the cap of ${MAX_FRAME_BYTES}`;
  return length;
}
