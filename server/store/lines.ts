// Streaming line access to a session file: forward from an offset, and backward from the end.
// Reads in fixed-size chunks so memory stays bounded by the lines a caller keeps, not by the
// file. A caller that does not want a line's body (decided from its first bytes) never has it
// buffered, which is how a list of a 134 MB session costs a few megabytes.
// Depends on node:fs and files.ts (its no-follow open).

import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openRegular, readUpTo } from './files.js';

export const CHUNK = 1 << 20; // 1 MiB

/** Bytes enough to read a line's kind from its head, as this store writes lines (kind first). */
export const KIND_HEAD_BYTES = 28;
const KIND_HEAD = /^\{"kind":"([a-z]{1,16})"/;

/** The kind of the line starting at buf[at], when it starts `{"kind":"...` (else null). */
export function kindOfHead(buf: Buffer, at: number): string | null {
  return KIND_HEAD.exec(buf.toString('latin1', at, Math.min(at + KIND_HEAD_BYTES, buf.length)))?.[1] ?? null;
}

/** Bytes of a line's start handed to `want` for classification. */
export const PREFIX = 96;

export interface Line {
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's last byte (before its '\n'). */
  end: number;
  /** The whole line, or only its first PREFIX bytes when `want` said no. */
  bytes: Buffer;
  /** False when the body was skipped at the caller's request. */
  full: boolean;
  /** False for a last line with no '\n' after it (possibly torn by a crash). */
  terminated: boolean;
}

export interface ForwardOptions {
  from?: number;
  /** Stop before this offset (defaults to the size at open). */
  to?: number;
  /** Decide from the first bytes whether the whole line is needed. Default: always. */
  want?: (prefix: Buffer) => boolean;
  signal?: AbortSignal;
  /**
   * The caller is done with `line.bytes` when `onLine` returns (it keeps no reference): a line
   * that lies whole inside one read chunk is then handed over as a view of the chunk, not copied.
   */
  borrow?: boolean;
}

/** Calls `onLine` for every line in [from, to). Returns the offset after the last '\n' seen. */
export async function forEachLine(
  path: string,
  onLine: (line: Line) => void | false,
  opts: ForwardOptions = {},
): Promise<{ size: number; endOfLastFullLine: number }> {
  const fh = await openRegular(path);
  try {
    return await forEachLineFd(fh, onLine, opts);
  } finally {
    await fh.close();
  }
}

export async function forEachLineFd(
  fh: FileHandle,
  onLine: (line: Line) => void | false,
  opts: ForwardOptions = {},
): Promise<{ size: number; endOfLastFullLine: number }> {
  const size = opts.to ?? (await fh.stat()).size;
  const want = opts.want;
  const borrow = opts.borrow === true;
  let pos = opts.from ?? 0;
  const buf = takeChunk();
  // State of the line being assembled.
  let lineStart = pos;
  let pieces: Buffer[] = [];
  let piecesLen = 0;
  let decided: boolean | undefined; // undefined until PREFIX bytes (or the line end) are known
  let endOfLastFullLine = pos;
  let stop = false;

  const emit = (end: number, terminated: boolean) => {
    const bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, piecesLen);
    const full = decided !== false;
    if (onLine({ start: lineStart, end, bytes, full, terminated }) === false) stop = true;
    pieces = [];
    piecesLen = 0;
    decided = undefined;
  };
  const take = (part: Buffer, lineEnds: boolean) => {
    if (decided === false) return;
    if (decided === undefined && want && piecesLen + part.length >= PREFIX) {
      // Decide from the first PREFIX bytes before copying the rest: a line the caller skips
      // (most of a big session's bytes when listing) is never copied at all.
      const head = part.subarray(0, PREFIX - piecesLen);
      const prefix = piecesLen ? Buffer.concat([...pieces, head], PREFIX) : Buffer.from(head);
      decided = want(prefix);
      if (!decided) {
        pieces = [prefix];
        piecesLen = PREFIX;
        return;
      }
    }
    // Copy: `buf` is reused for the next chunk (unless the caller borrows a line held whole in it).
    pieces.push(borrow && lineEnds && piecesLen === 0 ? part : Buffer.from(part));
    piecesLen += part.length;
  };

  while (pos < size && !stop) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, size - pos), pos);
    if (bytesRead === 0) break;
    let i = 0;
    while (i < bytesRead && !stop) {
      const nl = buf.indexOf(10, i);
      if (nl === -1 || nl >= bytesRead) {
        take(buf.subarray(i, bytesRead), false);
        break;
      }
      take(buf.subarray(i, nl), true);
      if (decided === undefined && want) decided = want(pieces.length ? Buffer.concat(pieces, piecesLen) : Buffer.alloc(0));
      emit(pos + nl, true);
      lineStart = pos + nl + 1;
      endOfLastFullLine = lineStart;
      i = nl + 1;
    }
    pos += bytesRead;
  }
  if (!stop && lineStart < pos) {
    if (decided === undefined && want) decided = want(Buffer.concat(pieces, piecesLen));
    emit(pos, false);
  }
  giveChunk(buf); // not on a throw: that buffer is left to the GC
  return { size, endOfLastFullLine };
}

/** The longest first line (a meta line) looked for. */
export const MAX_META = 1 << 20;

/** The first bytes of an open file, read until they hold its first '\n' (`nl`; -1 when none in the file's first MAX_META bytes). */
export function firstLineSync(fd: number): { head: Buffer; nl: number } {
  for (let size = 16384; ; size *= 4) {
    const head = readUpTo(fd, Buffer.allocUnsafe(size), size);
    const nl = head.indexOf(10);
    if (nl !== -1 || head.length < size || size >= MAX_META) return { head, nl };
  }
}

/**
 * forEachLineFd, synchronously, over a file descriptor: the same lines, the same `want`
 * decisions (once a line, on its first PREFIX bytes, or on the whole line when shorter), the
 * same stop rule and the same result. `line.bytes` is always borrowed: a view of the read
 * buffer (a skipped line's first PREFIX bytes, or the whole line), valid only until `onLine`
 * returns. `to` is required: the caller has stat'ed the file.
 *
 * Performance: for a one-shot process (the CLI's cold listing, its helper thread) that has
 * nothing else to do while it reads. A promise per 1 MiB read and per open and close was a
 * thread-pool round trip each; a synchronous read is one system call, and the thread that
 * reads is the one that scans (bench/PERFORMANCE.md: cold list). Never for the sidecar, which
 * must keep its event loop free.
 */
export function forEachLineSync(
  fd: number,
  onLine: (line: Line) => void | false,
  opts: { from?: number; to: number; want?: (prefix: Buffer) => boolean; chunk?: number },
): { size: number; endOfLastFullLine: number } {
  const size = opts.to;
  const want = opts.want;
  // `chunk` other than CHUNK only in tests, to cross read boundaries often.
  const pooled = opts.chunk === undefined || opts.chunk === CHUNK;
  let buf = pooled ? takeChunk() : Buffer.allocUnsafe(Math.max(1, opts.chunk as number));
  const chunk = buf.length;
  let pos = opts.from ?? 0; // next file offset to read
  let base = pos; // file offset of buf[0]
  let len = 0; // bytes of buf that hold file data
  let i = 0; // index in buf of the current line's first byte (or of the scan, when skipping)
  let decided: boolean | undefined; // `want`'s answer for the current line, once asked
  let skipped: { start: number; head: Buffer } | undefined; // a skipped line whose '\n' is still ahead
  let endOfLastFullLine = pos;
  let stop = false;
  const ask = (bytes: Buffer): boolean => (decided ??= want ? want(bytes.length > PREFIX ? bytes.subarray(0, PREFIX) : bytes) : true);

  for (;;) {
    // Every line that ends inside buf[i, len).
    while (i < len && !stop) {
      let nl = buf.indexOf(10, i);
      if (nl >= len) nl = -1;
      if (skipped) {
        if (nl === -1) {
          i = len; // a skipped line's body is never kept: drop it
          break;
        }
        if (onLine({ start: skipped.start, end: base + nl, bytes: skipped.head, full: false, terminated: true }) === false) stop = true;
        skipped = undefined;
      } else if (nl !== -1) {
        const whole = buf.subarray(i, nl);
        const full = ask(whole);
        if (onLine({ start: base + i, end: base + nl, bytes: full ? whole : whole.subarray(0, PREFIX), full, terminated: true }) === false)
          stop = true;
      } else {
        // A line that goes on past what is read: decide on its head as soon as there is one,
        // so that a skipped body is scanned for its '\n' without being kept.
        if (decided === undefined && want && len - i >= PREFIX && !ask(buf.subarray(i, i + PREFIX))) {
          skipped = { start: base + i, head: Buffer.from(buf.subarray(i, i + PREFIX)) };
          i = len;
        }
        break;
      }
      decided = undefined;
      i = nl + 1;
      endOfLastFullLine = base + i;
    }
    if (stop || pos >= size) break;
    // Keep the start of the current line (wanted, or not yet decided) and read after it.
    const keep = len - i;
    if (keep > 0 && i > 0) buf.copyWithin(0, i, len);
    base += i;
    len = keep;
    i = 0;
    if (len === buf.length) {
      // A wanted line longer than the buffer: a bigger one, for this file only.
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, len);
      if (pooled && buf.length === chunk) giveChunk(buf);
      buf = bigger;
    }
    const n = readSync(fd, buf, len, Math.min(buf.length - len, size - pos), pos);
    if (n === 0) break; // the file shrank: what is read is all there is
    pos += n;
    len += n;
  }
  if (!stop) {
    // A last line without '\n' before `to` (torn, or cut by `to`).
    if (skipped) onLine({ start: skipped.start, end: base + len, bytes: skipped.head, full: false, terminated: false });
    else if (i < len) {
      const whole = buf.subarray(i, len);
      const full = ask(whole);
      onLine({ start: base + i, end: base + len, bytes: full ? whole : whole.subarray(0, PREFIX), full, terminated: false });
    }
  }
  if (pooled && buf.length === chunk) giveChunk(buf);
  return { size, endOfLastFullLine };
}

// Read buffers are reused across calls: a cold listing folds thousands of files, and a fresh
// 1 MiB buffer each (outside V8's heap) made garbage collection a sixth of it.
const spareChunks: Buffer[] = [];
export function takeChunk(): Buffer {
  return spareChunks.pop() ?? Buffer.allocUnsafeSlow(CHUNK);
}
export function giveChunk(b: Buffer): void {
  if (spareChunks.length < 8) spareChunks.push(b);
}

/**
 * The last `n` lines of a file (fewer if it has fewer), read backwards from the end, with the
 * byte offset of each. Cost is proportional to the bytes of those lines, not the file.
 * `stopAt` bounds how far back it reads (the end of the meta line).
 */
export async function lastLines(path: string, n: number, stopAt = 0): Promise<{ lines: Line[]; size: number }> {
  const fh = await openRegular(path);
  try {
    const size = (await fh.stat()).size;
    const lines: Line[] = [];
    if (n <= 0 || size <= stopAt) return { lines, size };
    let end = size; // exclusive end of the region not yet split into lines
    let tail: Buffer[] = []; // bytes after the last '\n' found so far, in order
    let tailLen = 0;
    let pos = size;
    let terminatedLast = true;
    // A file not ending in '\n' has a torn last line.
    const last = Buffer.alloc(1);
    await fh.read(last, 0, 1, size - 1);
    if (last[0] !== 10) terminatedLast = false;
    else end = size - 1;
    pos = end;
    while (lines.length < n && pos > stopAt) {
      const len = Math.min(CHUNK, pos - stopAt);
      const chunk = Buffer.allocUnsafe(len);
      await fh.read(chunk, 0, len, pos - len);
      let j = len;
      while (lines.length < n) {
        const nl = chunk.lastIndexOf(10, j - 1);
        if (nl === -1) break;
        const part = chunk.subarray(nl + 1, j);
        const bytes = tailLen ? Buffer.concat([part, ...tail], part.length + tailLen) : Buffer.from(part);
        const start = pos - len + nl + 1;
        lines.push({ start, end: start + bytes.length, bytes, full: true, terminated: !(lines.length === 0 && !terminatedLast) });
        tail = [];
        tailLen = 0;
        j = nl;
      }
      if (lines.length >= n) break;
      const rest = chunk.subarray(0, j);
      tail.unshift(Buffer.from(rest));
      tailLen += rest.length;
      pos -= len;
    }
    if (lines.length < n && tailLen > 0 && pos <= stopAt) {
      const bytes = Buffer.concat(tail, tailLen);
      lines.push({ start: stopAt, end: stopAt + bytes.length, bytes, full: true, terminated: !(lines.length === 0 && !terminatedLast) });
    }
    lines.reverse();
    return { lines, size };
  } finally {
    await fh.close();
  }
}

/**
 * Line starts from the end of a file backwards, down to `stopAt` (the end of the meta line):
 * `visit(start, end)` sees each line ([start, end), end before its '\n' or at the end of the
 * file), newest first, and stops the walk by returning false. Only '\n' positions are looked
 * for: no line is copied, so walking back over a 134 MB session costs its newline search.
 */
export async function eachLineBackward(
  fh: FileHandle,
  size: number,
  stopAt: number,
  /** `chunk` holds the file's bytes from `chunkBase` (the line's first bytes, when they fit). */
  visit: (start: number, end: number, chunk: Buffer, chunkBase: number) => boolean | Promise<boolean>,
): Promise<void> {
  const buf = takeChunk();
  try {
    let end = Math.max(size, stopAt); // exclusive end of the line being looked for
    // A file ending in '\n' has its last line before that '\n'.
    if (size > stopAt) {
      const one = Buffer.alloc(1);
      await fh.read(one, 0, 1, size - 1);
      if (one[0] === 10) end = size - 1;
    }
    let pos = end; // bytes before pos are not searched yet
    while (pos > stopAt) {
      const len = Math.min(CHUNK, pos - stopAt);
      const { bytesRead } = await fh.read(buf, 0, len, pos - len);
      if (bytesRead < len) throw new Error('the file shrank while it was read');
      let j = len;
      for (;;) {
        const nl = j > 0 ? buf.lastIndexOf(10, j - 1) : -1;
        if (nl === -1) break;
        const start = pos - len + nl + 1;
        if (!(await visit(start, end, buf.subarray(0, len), pos - len))) return;
        end = start - 1;
        j = nl;
      }
      pos -= len;
    }
    if (size > stopAt && end >= stopAt) await visit(stopAt, end, Buffer.alloc(0), stopAt);
  } finally {
    giveChunk(buf);
  }
}
