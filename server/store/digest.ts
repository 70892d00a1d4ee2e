// A session's digest (what History shows of it: turns, dates, preview, title, pin and archive)
// folded from its file's bytes without parsing what it need not: the one fold of the digest
// rules, read synchronously (the CLI's cold listing) or not (the sidecar). Most lines of a
// session (an assistant's or a tool's, an importer's verbatim records) change the digest by their
// kind and time alone, which this store writes first on the line: those are read from the line's
// first PREFIX bytes, as bytes, never decoded nor parsed. The others (user, title, pin, archive,
// any line in a shape we did not write) are parsed whole by the caller's `check`.
// test/store/digest.test.ts holds the head rules as two regular expressions (the spec) and
// checks this fold against a plain fold by them.
// Depends on node:fs, ../format/text (the preview) and ./lines (PREFIX, the read buffers): no
// schema library, so that a cold History's first page can be folded before zod is loaded
// (reader.ts gives the check).

import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { SessionEvent } from '../format/events.js';
import { oneLine, textOf } from '../format/text.js';
import { CHUNK, PREFIX, giveChunk, takeChunk } from './lines.js';

/** What the index needs of a session, foldable over appended bytes. */
export interface Digest {
  turns: number;
  /** Time of the last message (user, assistant or agent line); createdAt before any. */
  updatedAt: string;
  preview: string;
  firstUser: string;
  title: string | null;
  titleSource: string | null;
  /** Line positions after the meta line seen so far. */
  lines: number;
  /** Byte offset after the last complete line folded; the next fold starts here. */
  folded: number;
  /** Unreadable lines seen. */
  bad: number;
  /** The latest of the session's `pin` / `unpin` events says pinned (lifecycle.ts). */
  pinned: boolean;
  /** The latest of its `archive` / `unarchive` events says archived, and no message came after it. */
  archived: boolean;
  /** Time of the latest `unarchive` event: idleness counts from it too (lifecycle.ts lastActive). */
  unarchivedAt: string | null;
  /** The last run stopped part way: an `interrupted` or `reaped` event came after the last message. */
  interrupted: boolean;
}

/** A parsed line's event, or undefined when the line is unreadable (counted in `bad`). */
export type LineCheck = (bytes: Buffer) => SessionEvent | undefined;

/**
 * How the lines a head does not settle are folded: parsed by `check`, but for user lines when
 * `user` is given (a first look: firstLook below).
 */
export interface LineFold {
  check: LineCheck;
  /** The user line `buf[s, e)`, whose head says it was written at `t`. */
  user?: (d: Digest, buf: Buffer, s: number, e: number, t: string) => void;
}

/** The `event` types the digest reads (applyEvent): any other is not parsed for the listing. */
const DIGEST_EVENTS: ReadonlySet<string> = new Set(['pin', 'unpin', 'archive', 'unarchive', 'interrupted', 'reaped']);

export function emptyDigest(meta: { createdAt: string; title?: unknown }, metaEnd: number): Digest {
  return {
    turns: 0,
    updatedAt: meta.createdAt,
    preview: '',
    firstUser: '',
    title: typeof meta.title === 'string' && meta.title ? meta.title : null,
    titleSource: null,
    lines: 0,
    folded: metaEnd,
    bad: 0,
    pinned: false,
    archived: false,
    unarchivedAt: null,
    interrupted: false,
  };
}

/**
 * A user line that holds only tool results (Anthropic's `tool_result` blocks, OpenAI's
 * `function_call_output` items: what an agent loop sends back) is no turn of the person's.
 */
export function isTurn(ev: SessionEvent): boolean {
  if (ev.kind !== 'user') return false;
  const c = (ev as { content?: unknown }).content;
  if (!Array.isArray(c) || c.length === 0) return true;
  return !c.every(
    (b) =>
      b &&
      typeof b === 'object' &&
      ((b as { type?: unknown }).type === 'tool_result' || (b as { type?: unknown }).type === 'function_call_output'),
  );
}

/** Kinds that are a message of the conversation: only these move `updatedAt` (a rename, a seal or a compaction does not). */
function isMessage(kind: string): boolean {
  return kind === 'user' || kind === 'assistant' || kind === 'agent';
}

export function applyEvent(d: Digest, ev: SessionEvent): void {
  if (isMessage(ev.kind)) {
    if (typeof ev.t === 'string') d.updatedAt = ev.t;
    continued(d);
  }
  if (ev.kind === 'user') {
    if (isTurn(ev)) d.turns++;
    const line = oneLine(textOf(ev.content), 200);
    if (line) {
      d.preview = line;
      if (!d.firstUser) d.firstUser = line;
    }
  } else if (ev.kind === 'title') {
    d.title = ev.title;
    d.titleSource = typeof ev.source === 'string' ? ev.source : null;
  } else if (ev.kind === 'event') {
    if (ev.type === 'pin') d.pinned = true;
    else if (ev.type === 'unpin') d.pinned = false;
    else if (ev.type === 'archive') d.archived = true;
    else if (ev.type === 'interrupted' || ev.type === 'reaped') d.interrupted = true;
    else if (ev.type === 'unarchive') {
      d.archived = false;
      d.unarchivedAt = typeof ev.t === 'string' ? ev.t : d.unarchivedAt;
    }
  }
}

// ---- Heads, as bytes ----------------------------------------------------------------------------

const PARSE = 0;
/** A line that changes nothing but the count (a compaction, an event the digest does not read). */
const SKIP = 1;
/** An assistant or agent line: its time (headT) is the last message's. */
const MESSAGE = 2;
/** A user line in the canonical shape, its time at headT: parsed, unless LineFold.user folds it. */
const USER = 3;
/** An event line: SKIP or PARSE by its type. */
const EVENT = 4;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = Buffer.from('{"kind":"');
const TYPE_OPEN = Buffer.from(',"type":"');
/** What follows `{"kind":"` in each kind's head, and what the fold does with a line of that kind. */
const KINDS = (
  [
    ['user', USER],
    ['assistant', MESSAGE],
    ['agent', MESSAGE],
    ['event', EVENT],
    ['title', PARSE],
    ['compact', SKIP],
  ] as const
).map(([kind, verdict]) => ({ head: Buffer.from(`${kind}","t":"`), verdict }));

/** Where the time of the last MESSAGE head is (offsets in the buffer classified). */
let headT = 0;
let headTEnd = 0;

function startsAt(buf: Buffer, at: number, pat: Buffer, w: number): boolean {
  if (at + pat.length > w) return false;
  for (let i = 0; i < pat.length; i++) if (buf[at + i] !== pat[i]) return false;
  return true;
}

/** The end of a run of `lo`..`hi` bytes other than `"` and `\` from `at`, closed by `"` before `w`; -1 when not so. */
function quoted(buf: Buffer, at: number, w: number, lo: number, hi: number): number {
  let q = at;
  while (q < w && q - at <= hi && buf[q] !== QUOTE && buf[q] !== BACKSLASH) q++;
  return q < w && buf[q] === QUOTE && q - at >= lo && q - at <= hi ? q : -1;
}

/**
 * What the fold does with the line `buf[s, e)`, from its first PREFIX bytes: a head
 * `{"kind":"K","t":"T"` (K a kind below, T 10 to 40 bytes, no `"` nor `\`), and for an event
 * `,"type":"Y"` after it (1 to 40 such bytes).
 */
function headOf(buf: Buffer, s: number, e: number): number {
  const w = Math.min(e, s + PREFIX);
  if (!startsAt(buf, s, OPEN, w)) return PARSE;
  const at = s + OPEN.length;
  let kind;
  for (const k of KINDS)
    if (startsAt(buf, at, k.head, w)) {
      kind = k;
      break;
    }
  if (!kind) return PARSE;
  const verdict = kind.verdict;
  const t = at + kind.head.length;
  const q = quoted(buf, t, w, 10, 40);
  if (q === -1) return PARSE;
  if (verdict === MESSAGE || verdict === USER) {
    headT = t;
    headTEnd = q;
  }
  if (verdict !== EVENT) return verdict;
  if (!startsAt(buf, q + 1, TYPE_OPEN, w)) return PARSE;
  const y = q + 1 + TYPE_OPEN.length;
  const ye = quoted(buf, y, w, 1, 40);
  return ye !== -1 && !DIGEST_EVENTS.has(buf.toString('latin1', y, ye)) ? SKIP : PARSE;
}

// ---- Folds --------------------------------------------------------------------------------------

/**
 * Folds the complete lines of `buf[from, to)` into `d` (`base`: the file offset of buf[0]).
 * Returns where the first line not ended before `to` starts (`to` when every line ended).
 */
export function foldLines(d: Digest, buf: Buffer, from: number, to: number, base: number, fold: LineFold): number {
  let s = from;
  // The latest assistant or agent line's time, decoded only when another line could follow it
  // into `updatedAt` (most lines of a session are these: a string each was most of the garbage).
  let t = -1;
  let tEnd = -1;
  while (s < to) {
    const e = buf.indexOf(10, s);
    if (e === -1 || e >= to) break;
    d.lines++;
    d.folded = base + e + 1;
    const h = headOf(buf, s, e);
    if (h === MESSAGE) {
      t = headT;
      tEnd = headTEnd;
      continued(d);
    } else if (h !== SKIP) {
      if (t !== -1) d.updatedAt = buf.toString('latin1', t, tEnd);
      t = -1;
      if (h === USER && fold.user) fold.user(d, buf, s, e, buf.toString('latin1', headT, headTEnd));
      else {
        const ev = fold.check(buf.subarray(s, e));
        if (ev) applyEvent(d, ev);
        else d.bad++;
      }
    }
    s = e + 1;
  }
  if (t !== -1) d.updatedAt = buf.toString('latin1', t, tEnd);
  return s;
}

/** An assistant or agent line at time `t`, known from its head. */
function message(d: Digest, t: string): void {
  d.updatedAt = t;
  continued(d);
}

/** A message came: a session continued after its archive is back in History, and one continued after an interruption is no longer stopped. */
function continued(d: Digest): void {
  d.archived = false;
  d.interrupted = false;
}

/** A read the fold asks for: into `buf` at `at`, `len` bytes from file offset `pos`; sent back the bytes read. */
interface Read {
  buf: Buffer;
  at: number;
  len: number;
  pos: number;
}

/** Folds the complete lines of an open file `fd` from `d.folded` up to byte `to` (foldReads). */
export function foldFdSync(fd: number, d: Digest, to: number, fold: LineFold, chunk = CHUNK): Digest {
  const g = foldReads(d, to, fold, chunk);
  let r = g.next();
  while (!r.done) r = g.next(readSync(fd, r.value.buf, r.value.at, r.value.len, r.value.pos));
  return r.value;
}

/** foldFdSync over a file handle: the sidecar's, whose event loop a read must not hold. */
export async function foldFd(fh: FileHandle, d: Digest, to: number, fold: LineFold): Promise<Digest> {
  const g = foldReads(d, to, fold, CHUNK);
  let r = g.next();
  while (!r.done) r = g.next((await fh.read(r.value.buf, r.value.at, r.value.len, r.value.pos)).bytesRead);
  return r.value;
}

/**
 * Folds the complete lines of a file from `d.folded` up to byte `to` into `d`, asking its
 * caller for the reads (one fold, read synchronously or not), CHUNK bytes at a time. A line
 * longer than that is kept whole only when it is parsed; one read by its head is scanned for
 * its end and dropped. A last line without '\n' is not folded (the next fold starts at it again).
 */
function* foldReads(d: Digest, to: number, fold: LineFold, chunk: number): Generator<Read, Digest, number> {
  // `chunk` other than CHUNK only in tests, to cross read boundaries often.
  let buf = chunk === CHUNK ? takeChunk() : Buffer.allocUnsafe(Math.max(PREFIX, chunk));
  let pos = d.folded; // next file offset to read
  let base = pos; // file offset of buf[0]
  let len = 0; // bytes of buf that hold file data
  let skipping: string | null | undefined; // inside a line read by its head: its time (MESSAGE) or null (SKIP)
  while (pos < to) {
    const n = yield { buf, at: len, len: Math.min(buf.length - len, to - pos), pos };
    if (n === 0) break; // the file shrank: what is read is all there is
    pos += n;
    len += n;
    let s = 0;
    if (skipping !== undefined) {
      const e = buf.indexOf(10, 0);
      if (e === -1 || e >= len) {
        base += len;
        len = 0;
        continue;
      }
      d.lines++;
      d.folded = base + e + 1;
      if (skipping !== null) message(d, skipping);
      skipping = undefined;
      s = e + 1;
    }
    s = foldLines(d, buf, s, len, base, fold);
    if (s > 0 && s < len) buf.copyWithin(0, s, len);
    base += s;
    len -= s;
    if (len < buf.length) continue;
    // A line longer than the buffer: read by its head, or kept whole in a bigger buffer.
    const h = headOf(buf, 0, len);
    if (h === PARSE || h === USER) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, len);
      if (chunk === CHUNK && buf.length === CHUNK) giveChunk(buf);
      buf = bigger;
    } else {
      skipping = h === MESSAGE ? buf.toString('latin1', headT, headTEnd) : null;
      base += len;
      len = 0;
    }
  }
  if (chunk === CHUNK && buf.length === CHUNK) giveChunk(buf); // not on a throw: left to the GC
  return d;
}

/**
 * A first look at a session (a cold History's first page, before the schema library is loaded:
 * entries.ts firstLookReader). User lines are counted as turns from their bytes, and parsed
 * only for the first text (firstUser, the row's title when it has none) and where the bytes
 * name tool results; the preview, which the CLI's rows do not show, is not made. For a file our
 * writers made, whose lines are all valid, the rows it gives are the exact ones
 * (test/store/digest.test.ts); a line not valid, or tool results spelled with an escape, are
 * counted as turns, and the caller compares what it showed with the exact listing.
 */
export function firstLook(check: LineCheck): LineFold {
  return {
    check,
    user: (d, buf, s, e, t) => {
      const bytes = buf.subarray(s, e);
      if (d.firstUser && !mayHoldResults(bytes)) {
        message(d, t);
        d.turns++;
        return;
      }
      const ev = check(bytes);
      if (ev) applyEvent(d, ev);
      else d.bad++;
    },
  };
}

/**
 * Whether a user line's bytes may hold tool results, as our writers spell them (JSON.stringify
 * escapes no letter; a line that spells the type with an escape is a turn at first look).
 */
function mayHoldResults(bytes: Buffer): boolean {
  return bytes.includes(TOOL_RESULT) || bytes.includes(CALL_OUTPUT);
}
const TOOL_RESULT = Buffer.from('"tool_result"');
const CALL_OUTPUT = Buffer.from('"function_call_output"');
