// Tolerant reading of session files. Reading never throws for bad content: it returns what it
// could read and a list of problems (a torn last line, a line that is not JSON, an event that
// fails the schema, invalid UTF-8), like rust-analyzer's parser returns a tree and errors.
// Only a missing or unreadable file, or a file without a meta line, is an error.
//
// Events keep the object JSON.parse produced (never zod's copy), so provider content comes back
// exactly as it was appended and a `__proto__` key stays a plain own property.
// Every line is checked by events.ts's zod schemas, the one definition of the format.
// Depends on node:fs, ../format (soft-cap.ts among it), ./lines, ./skim and ./digest (the digest
// folded from bytes, given this reader's check of the lines it parses); nothing of JSON-RPC.

import type { FileHandle } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { MetaLine, SessionEvent, type SeqEvent } from '../format/events.js';
import { restoreFromRaw } from '../format/derived.js';
import { tooDeep, MAX_DEPTH } from '../format/text.js';
import { openRegular } from './files.js';
import { MAX_META, firstLineSync, forEachLine, forEachLineFd, lastLines, type Line } from './lines.js';
import { StreamElider } from '../format/soft-cap.js';
import { skimLine } from './skim.js';
import { StoreError, fromFsError } from './errors.js';
import { applyEvent, emptyDigest, foldFd, foldFdSync, foldLines, type Digest, type LineCheck } from './digest.js';

export { applyEvent, emptyDigest, isTurn, type Digest } from './digest.js';

export interface Problem {
  file: string;
  /** 1-based line number in the file, when known. */
  line?: number;
  message: string;
}

export interface MetaInfo {
  meta: MetaLine;
  /** Byte offset just past the meta line's '\n'. */
  metaEnd: number;
}

/** Reads and validates line 1. Throws StoreError('corrupt-session') when it is not a meta line. */
export async function readMeta(file: string, handle?: FileHandle): Promise<MetaInfo> {
  let fh;
  try {
    fh = handle ?? (await openRegular(file));
  } catch (e) {
    throw fromFsError(e, `cannot open ${file}`);
  }
  try {
    let size = 16384;
    for (;;) {
      const buf = Buffer.allocUnsafe(size);
      const { bytesRead } = await fh.read(buf, 0, size, 0);
      const nl = buf.subarray(0, bytesRead).indexOf(10);
      if (nl === -1 && bytesRead === size && size < MAX_META) {
        size *= 4;
        continue;
      }
      return metaOf(file, buf.subarray(0, bytesRead), nl);
    }
  } catch (e) {
    throw e instanceof StoreError ? e : fromFsError(e, `cannot read ${file}`);
  } finally {
    if (!handle) await fh.close();
  }
}

/** readMeta, synchronously, over an open file descriptor (the CLI's cold listing; see lines.ts forEachLineSync). */
export function readMetaSync(file: string, fd: number): MetaInfo {
  let first;
  try {
    first = firstLineSync(fd);
  } catch (e) {
    throw fromFsError(e, `cannot read ${file}`);
  }
  return metaOf(file, first.head, first.nl);
}

/** The meta line from the first bytes of a file (`nl`: the first '\n' in them, or -1). */
function metaOf(file: string, buf: Buffer, nl: number): MetaInfo {
  const end = nl === -1 ? buf.length : nl;
  const parsed = parseJson(buf.subarray(0, end));
  if (!parsed.ok) throw new StoreError('corrupt-session', `${file}: line 1 is not a meta line (${parsed.error})`);
  const meta = MetaLine.safeParse(parsed.value);
  if (!meta.success) throw new StoreError('corrupt-session', `${file}: line 1 is not a valid meta line`, { issues: meta.error.issues });
  if (nl === -1) throw new StoreError('corrupt-session', `${file}: the meta line is not terminated (torn at birth)`);
  // JSON.parse's object, not zod's copy (see above).
  return { meta: parsed.value as MetaLine, metaEnd: nl + 1 };
}

/**
 * readMeta and foldDigest over a whole file already in memory (`buf`, its first `bytes` bytes:
 * a small file read at once, entries.ts entryFromFile). Undefined when the meta line does not
 * end inside `buf` (the caller then reads the file the streaming way, which may look further).
 */
export function digestOfBuffer(file: string, buf: Buffer): { info: MetaInfo; d: Digest } | undefined {
  const nl = buf.subarray(0, MAX_META).indexOf(10);
  if (nl === -1) return undefined;
  const info = metaOf(file, buf, nl);
  const d = emptyDigest(info.meta, info.metaEnd);
  foldLines(d, buf, d.folded, buf.length, 0, { check: checkLine });
  return { info, d };
}

type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** The line's bytes decoded as UTF-8 (bad bytes become U+FFFD) and parsed. */
export function parseJson(bytes: Buffer): Parsed {
  try {
    return { ok: true, value: JSON.parse(bytes.toString('utf8')) };
  } catch (e) {
    return { ok: false, error: jsonErrorOf(e) };
  }
}

/**
 * JSON.parse's complaint without the bytes it quotes: V8 names the token and a snippet of the
 * input ("Unexpected token 'x', \"secret...\" is not valid JSON"), and a session name swapped for
 * another file must not have that file's content read back to the client in an error.
 */
function jsonErrorOf(e: unknown): string {
  const m = /position (\d+)/.exec((e as Error)?.message ?? '');
  if (/Unexpected end/.test((e as Error)?.message ?? '')) return 'not JSON: it ends too early';
  return m ? `not JSON from byte ${m[1]}` : 'not JSON';
}

/**
 * Parses one event line. Returns the event or a problem message. `copy: false` leaves the fields
 * an imported line names under `ofRaw` shared with its `raw` (format/derived.ts), for a reader
 * that only looks (the listing's fold): a deep copy of each was a tenth of a cold listing.
 */
export function parseEventLine(bytes: Buffer, copy = true): { event: SessionEvent; warning?: string } | { error: string } {
  if (bytes.length === 0) return { error: 'empty line' };
  const valid = isUtf8(bytes);
  const parsed = parseJson(bytes);
  if (!parsed.ok) return { error: `not JSON (${parsed.error})` };
  const r = checkEvent(parsed.value, copy);
  if ('error' in r) return r;
  return valid ? r : { ...r, warning: 'invalid UTF-8 (bytes replaced with U+FFFD)' };
}

/** The checks of a parsed line: an object, not too deep, a SessionEvent (events.ts's schema). */
function checkEvent(line: unknown, copy = true): { event: SessionEvent } | { error: string } {
  if (!line || typeof line !== 'object' || Array.isArray(line)) return { error: 'not a JSON object' };
  const v = restoreFromRaw(line, copy); // an imported event's fields written as parts of its raw record (format/derived.ts)
  if (tooDeep(v)) return { error: `nested deeper than ${MAX_DEPTH} levels` };
  const checked = SessionEvent.safeParse(v);
  if (!checked.success) {
    const first = checked.error.issues[0];
    return { error: `not a valid event (${first ? `${first.path.join('.') || 'kind'}: ${first.message}` : 'schema'})` };
  }
  return { event: v as SessionEvent };
}

/** checkEvent for skim.ts: the event, or undefined for any problem (the ordinary path then says it). */
const eventOrUndefined = (v: unknown): SessionEvent | undefined => {
  const r = checkEvent(v);
  return 'event' in r ? r.event : undefined;
};

export interface ReadOptions {
  /** First seq to return (inclusive). */
  from?: number;
  /** Last seq to return (inclusive). */
  to?: number;
  signal?: AbortSignal;
  /**
   * The soft cap (elide.ts): when the file is larger, the oldest tool results are elided as the
   * lines are read (the same choice elideToCap makes after the read), so their text is never
   * held all at once. Only for a whole read (no from/to).
   */
  softCap?: number;
  /**
   * The soft cap as the caller holds it, instead of `softCap`: a whole read that stops at `end`
   * hands the rest of the file, read before, through the same elider (store.loadForResume).
   */
  elider?: StreamElider;
  /** Stop before this byte offset, a line start (a whole read only: from the first line). */
  end?: number;
  /**
   * Kept for callers that said so (doctor); every read is now of a regular file at `file`
   * itself: opened without following a symlink or waiting on a FIFO (files.ts openRegular).
   */
  regularOnly?: boolean;
}

export interface SessionRead {
  meta: MetaLine;
  events: SeqEvent[];
  problems: Problem[];
  /** Number of line positions after the meta line (the next append gets this seq). */
  lines: number;
  size: number;
  /** Tool results elided by `softCap`. */
  elided: number;
}

function lineProblem(file: string, seq: number, message: string): Problem {
  return { file, line: seq + 2, message };
}

/** Reads a whole session (or a seq range of it), tolerantly. */
export async function readSession(file: string, opts: ReadOptions = {}): Promise<SessionRead> {
  let fh;
  try {
    fh = await openRegular(file);
  } catch (e) {
    throw fromFsError(e, `cannot open ${file}`);
  }
  try {
    const st = await fh.stat().catch((e: unknown) => {
      throw fromFsError(e, `cannot read ${file}`);
    });
    const size = st.size;
    const { meta, metaEnd } = await readMeta(file, fh);
    const events: SeqEvent[] = [];
    const problems: Problem[] = [];
    let seq = 0;
    const from = opts.from ?? 0;
    const to = opts.to ?? Infinity;
    const whole = opts.from === undefined && opts.to === undefined;
    const elider = !whole
      ? undefined
      : (opts.elider ?? (opts.softCap !== undefined && size > opts.softCap ? new StreamElider(size, opts.softCap) : undefined));
    const stop = whole && opts.end !== undefined ? Math.min(opts.end, size) : size;
    try {
      await forEachLineFd(
        fh,
        (line) => {
          const s = seq++;
          if (s < from || s > to) return;
          const skimmed = elider && line.terminated ? skimLine(s, line.bytes, elider, eventOrUndefined) : undefined;
          if (skimmed) {
            events.push(skimmed);
            return;
          }
          const n = events.length;
          collect(file, s, line, events, problems);
          if (elider && events.length > n) events[n] = elider.take(events[n]!);
        },
        { from: metaEnd, to: stop, signal: opts.signal, want: whole ? undefined : (p) => wantInRange(seq, from, to, p), borrow: true },
      );
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      throw fromFsError(e, `cannot read ${file}`);
    }
    return { meta, events, problems, lines: seq, size, elided: elider?.elided ?? 0 };
  } finally {
    await fh.close().catch(() => {});
  }
}

/**
 * The events from byte `offset` (a line start) to the end, numbered from `firstSeq`: the part
 * of a session after a compact event (store.loadForResume), without reading what precedes it.
 */
export async function readSessionFrom(
  file: string,
  offset: number,
  firstSeq: number,
  signal?: AbortSignal,
): Promise<{ events: SeqEvent[]; problems: Problem[]; lines: number; size: number }> {
  const events: SeqEvent[] = [];
  const problems: Problem[] = [];
  let seq = firstSeq;
  let result;
  try {
    result = await forEachLine(file, (line) => collect(file, seq++, line, events, problems), { from: offset, signal, borrow: true });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw fromFsError(e, `cannot read ${file}`);
  }
  return { events, problems, lines: seq, size: result.size };
}

// `seq` passed to want is the seq of the line being classified (it is incremented on emit).
function wantInRange(seq: number, from: number, to: number, _prefix: Buffer): boolean {
  return seq >= from && seq <= to;
}

function collect(file: string, seq: number, line: Line, events: SeqEvent[], problems: Problem[]): void {
  if (!line.terminated) {
    // A last line without '\n' is a write that a crash cut short, unless it parses whole.
    const r = parseEventLine(line.bytes);
    if ('event' in r) events.push({ seq, event: r.event });
    else problems.push(lineProblem(file, seq, `torn last line (${line.bytes.length} bytes, no newline): skipped`));
    return;
  }
  const r = parseEventLine(line.bytes);
  if ('error' in r) {
    problems.push(lineProblem(file, seq, `${r.error}: skipped`));
    return;
  }
  if (r.warning) problems.push(lineProblem(file, seq, r.warning));
  events.push({ seq, event: r.event });
}

/**
 * The last `n` events of a session, numbered without reading the whole file: `at` is what an
 * index entry knows (`lines` line positions after the meta line up to byte `folded`). The file
 * may have grown since (an import or another writer appending while this reads): a line's seq
 * is then `lines` plus the line starts between `folded` and it, counted from the bytes after
 * `folded` (a cost that follows the growth, not the session). `total` is the number of line
 * positions the file held as read. Only a file shorter than `folded` (rewritten in place) is
 * counted from its start.
 */
export async function readTail(
  file: string,
  n: number,
  at: { lines: number; folded: number },
): Promise<{ meta: MetaLine; events: SeqEvent[]; problems: Problem[]; total: number }> {
  const { meta, metaEnd } = await readMeta(file);
  const problems: Problem[] = [];
  const events: SeqEvent[] = [];
  let got;
  let firstSeq;
  try {
    got = await lastLines(file, n, metaEnd);
    firstSeq = await seqOfFirst(file, got.lines, got.size < at.folded ? { lines: 0, folded: metaEnd } : at);
  } catch (e) {
    throw fromFsError(e, `cannot read ${file}`);
  }
  got.lines.forEach((line, i) => collect(file, firstSeq + i, line, events, problems));
  return { meta, events, problems, total: firstSeq + got.lines.length };
}

/** The seq of the first of `lines` (consecutive, the file's last): see readTail. */
async function seqOfFirst(file: string, lines: Line[], at: { lines: number; folded: number }): Promise<number> {
  if (lines.length === 0) return at.lines;
  const first = lines[0]!.start;
  if (first <= at.folded) {
    const k = lines.findIndex((l) => l.start >= at.folded);
    return at.lines - (k === -1 ? lines.length : k);
  }
  let between = 0;
  await forEachLine(file, () => void between++, { from: at.folded, to: first, borrow: true });
  return at.lines + between;
}

// ---- Summaries for the index ------------------------------------------------------------------

/**
 * Folds the complete lines from `d.folded` to the end of the file into the digest (mutated and
 * returned), by digest.ts's fold: only user, title and digest event lines (and lines in a shape
 * we did not write) are parsed; the rest are read by their heads as bytes. A torn last line is
 * not folded: the next fold starts at it again.
 */
export async function foldDigest(
  file: string,
  d: Digest,
  /** An open handle of `file` to read (saves an open), and where to stop (saves a stat). */
  via?: { fh: FileHandle; to: number },
): Promise<Digest> {
  if (via) return foldFd(via.fh, d, via.to, { check: checkLine });
  const fh = await openRegular(file);
  try {
    return await foldFd(fh, d, (await fh.stat()).size, { check: checkLine });
  } finally {
    await fh.close();
  }
}

/**
 * foldDigest, synchronously, over an open file descriptor up to `to` (lines.ts forEachLineSync
 * says when a synchronous read is right).
 */
export function foldDigestSync(fd: number, d: Digest, to: number): Digest {
  return foldFdSync(fd, d, to, { check: checkLine });
}

/** The fold's check of a line it parses (digest.ts): the event, or undefined for a bad line. */
export const checkLine: LineCheck = (bytes) => {
  const r = parseEventLine(bytes, false);
  return 'event' in r ? r.event : undefined;
};

/** Folds events already in memory (after an append) into a digest. */
export function foldEvents(d: Digest, events: SessionEvent[], lineBytes: number[], startOffset: number): Digest {
  let off = startOffset;
  events.forEach((ev, i) => {
    applyEvent(d, ev);
    d.lines++;
    off += lineBytes[i]!;
  });
  d.folded = off;
  return d;
}
