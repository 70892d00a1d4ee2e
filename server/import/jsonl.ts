// What the JSONL importers share: reading a tool's log into records, line by line, tolerating
// what a live writer leaves (a torn last line) and what a broken one leaves (a line that is not
// JSON), and the small shapes every mapping uses (times, kept-raw records, file stats).
// No store, no writes.

import { AsyncLocalStorage } from 'node:async_hooks';
import { isAscii, isUtf8 } from 'node:buffer';
import { type BigIntStats, closeSync, lstatSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { MAX_DEPTH, tooDeep } from '../format/text.js';
import { openRegular, openRegularSync } from '../store/files.js';
import { dirname, join, sep } from 'node:path';
import { type MappedEvent, type SourceFile, SourceChanged } from './types.js';

export interface SourceLine {
  /** 1-based line number in the file. */
  line: number;
  /** The parsed record (any JSON value), or the line's text when it is not JSON. */
  value: unknown;
  /** True when the line is not JSON (value is then its text). */
  unparsed?: boolean;
}

/**
 * The lines of a JSONL file. A last line without its newline that does not parse is a torn
 * write (the tool is still writing it): left out, with a problem, so a later run reads it whole.
 * A line that is not JSON elsewhere is kept as text (nothing is lost) with a problem.
 */
export function jsonlLines(text: string, problems: string[]): SourceLine[] {
  const out: SourceLine[] = [];
  const parts = text.split('\n');
  const bytes = confinement.getStore()?.notUtf8.get(text);
  const byteLines = bytes && splitBytes(bytes); // aligned with parts: a '\n' byte is a '\n' character
  const endsClean = text.endsWith('\n') || text.length === 0;
  parts.forEach((raw, i) => {
    const s = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (s.trim() === '') return;
    const keep = (l: SourceLine) => {
      const b = byteLines?.[i];
      if (b && !isUtf8(b)) keepBytes(l.value, b);
      out.push(l);
    };
    try {
      keep({ line: i + 1, value: JSON.parse(s) });
    } catch (e) {
      if (i === parts.length - 1 && !endsClean) problems.push(`line ${i + 1}: torn last line (still being written?); read on a later run`);
      else {
        problems.push(`line ${i + 1}: not JSON (${(e as Error).message}); kept as text`);
        keep({ line: i + 1, value: s, unparsed: true });
      }
    }
  });
  return out;
}

/** A line longer than this is kept truncated (its first HEAD_BYTES, its size), never parsed or dropped. */
export const LINE_CAP = 64 << 20;
const HEAD_BYTES = 1 << 20;
const READ_CHUNK = 1 << 20;
const READ_YIELD = 8;
/** Read past the size the file had when opened (a writer still appending). */
const READ_TAIL = 64 << 10;

/**
 * The lines of a JSONL file as jsonlLines gives them, read as a stream with a bounded buffer
 * (never the whole file as one string): a line over LINE_CAP becomes an unparsed record
 * `{"$truncated": {bytes, cap}, "head": <its first 1 MiB>}` with a problem, so a session with a
 * 600 MB line is imported with that line marked instead of failing whole. No symlink followed,
 * no FIFO waited on.
 */
export async function readJsonl(path: string, problems: string[]): Promise<SourceLine[]> {
  const out: SourceLine[] = [];
  for await (const b of jsonlBatches(path, problems)) for (const l of b.lines) out.push(l);
  return out;
}

/**
 * readJsonl's lines a read chunk at a time, none kept after it is handed over: what a large
 * source's two passes read with (claude-code.ts). `end`: the offset up to which lines were read
 * (a torn last line left out included). `upTo` stops the read at that byte (a second pass reads
 * the bytes the first one did, not what a writer added since). `facts`: a first pass, whose
 * records are never written: their lines' bytes are not remembered (sourceLineOf, rawBytesOf).
 */
export async function* jsonlBatches(
  path: string,
  problems: string[],
  upTo = Number.POSITIVE_INFINITY,
  facts = false,
): AsyncGenerator<{ lines: SourceLine[]; end: number }> {
  await mustBeInside(dirname(path));
  // Read synchronously (a thread-pool round trip a chunk was a fifth of a first import's wall
  // time on a busy machine), letting other work in every READ_YIELD chunks: parsing is synchronous anyway.
  const { fd, st } = openRegularSync(path); // no symlink followed, no FIFO waited on
  const size0 = Math.min(Number(st.size), upTo);
  try {
    let out: SourceLine[] = [];
    let lineEnd = 0;
    let parts: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    let lineNo = 0;
    const take = (b: Buffer) => {
      bytes += b.length;
      if (bytes <= LINE_CAP) {
        parts.push(b); // a slice of its chunk, which is never read into again
        kept += b.length;
        return;
      }
      if (kept > HEAD_BYTES) {
        parts = [Buffer.from(Buffer.concat(parts, kept).subarray(0, HEAD_BYTES))]; // over the cap: only its head is kept
        kept = HEAD_BYTES;
      }
      if (kept < HEAD_BYTES) {
        const piece = Buffer.from(b.subarray(0, HEAD_BYTES - kept));
        parts.push(piece);
        kept += piece.length;
      }
    };
    const end = (torn: boolean, at: number): void => {
      lineNo++;
      lineEnd = at;
      const line = parts.length === 1 ? parts[0]! : Buffer.concat(parts, kept);
      // An ASCII line (most of a tool's log) decoded byte for byte: several times faster than UTF-8's decoder.
      const ascii = isAscii(line);
      const text = line.toString(ascii ? 'latin1' : 'utf8');
      const size = bytes;
      parts = [];
      kept = 0;
      bytes = 0;
      if (size > LINE_CAP) {
        if (torn) problems.push(`line ${lineNo}: torn last line (still being written?); read on a later run`);
        else {
          problems.push(
            `line ${lineNo}: a record of ${size} bytes, over the cap of ${LINE_CAP} bytes: kept truncated to its first ${HEAD_BYTES}`,
          );
          out.push({ line: lineNo, value: { $truncated: { bytes: size, cap: LINE_CAP }, head: text }, unparsed: true });
        }
        return;
      }
      const kept1 = out.length;
      oneLine(text, lineNo, torn, out, problems);
      if (out.length === kept1 || facts) return;
      if (!ascii && !isUtf8(line)) keepBytes(out[kept1]!.value, line);
      else if (!out[kept1]!.unparsed) keepSource(out[kept1]!.value, line);
    };
    const batch = () => {
      const b = { lines: out, end: lineEnd };
      out = [];
      return b;
    };
    let pos = 0;
    for (let k = 1; ; k++) {
      if (k % READ_YIELD === 0) await new Promise((r) => setImmediate(r));
      // A buffer of its own a chunk (the file's size at most): a line inside it is kept as a slice
      // (its record's source line, keepSource), never copied.
      const want = pos < size0 ? Math.min(READ_CHUNK, size0 - pos) : Math.min(READ_TAIL, upTo - pos);
      if (want <= 0) break;
      const buf = Buffer.allocUnsafeSlow(want);
      const bytesRead = readSync(fd, buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const chunk = buf.subarray(0, bytesRead);
      let start = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
        take(chunk.subarray(start, i));
        end(false, pos - bytesRead + i + 1);
        start = i + 1;
      }
      if (start < bytesRead) take(chunk.subarray(start));
      if (out.length) yield batch();
    }
    if (bytes > 0) end(true, pos);
    yield batch();
  } finally {
    closeSync(fd);
  }
}

/**
 * A session file this large is read in two passes by the importers that can (claude-code.ts,
 * codex.ts): below it a file's records are held while it is written (about four times its size
 * in memory), above it they never all are. Lower costs a second parse of more bytes.
 */
export const STREAM_BYTES = 4 << 20;

/**
 * A second pass over the bytes a first one read up to `end`: the same lines again, one at a time,
 * each checked against the first pass (its line number, and `same` where given). A file that
 * changed meanwhile throws SourceChanged: read again on a later run.
 */
export async function* readAgain(
  path: string,
  end: number,
  lineNos: readonly number[],
  same: (l: SourceLine, i: number) => boolean = () => true,
): AsyncGenerator<SourceLine> {
  let i = 0;
  lines: for await (const b of jsonlBatches(path, [], end))
    for (const l of b.lines) {
      if (l.line !== lineNos[i] || !same(l, i)) break lines;
      yield l;
      i++;
    }
  if (i !== lineNos.length) throw new SourceChanged(`${path} changed while it was read; read again on a later run`);
}

/** One line of a JSONL file, as jsonlLines reads it. */
function oneLine(raw: string, line: number, last: boolean, out: SourceLine[], problems: string[]): void {
  const s = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (s.trim() === '') return;
  try {
    out.push({ line, value: JSON.parse(s) });
  } catch (e) {
    if (last) problems.push(`line ${line}: torn last line (still being written?); read on a later run`);
    else {
      problems.push(`line ${line}: not JSON (${(e as Error).message}); kept as text`);
      out.push({ line, value: s, unparsed: true });
    }
  }
}

function splitBytes(b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let nl = b.indexOf(10); nl !== -1; nl = b.indexOf(10, at)) {
    out.push(b.subarray(at, nl));
    at = nl + 1;
  }
  out.push(b.subarray(at));
  return out;
}

// ---- raw bytes: a line that is not valid UTF-8 comes back byte for byte ------------------------
//
// Decoding such a line puts U+FFFD where its bad bytes were, so the record kept under `raw` is
// not the tool's bytes. readText remembers the bytes of a file that is not valid UTF-8 (in the
// read's confinement, so nothing outlives the read), jsonlLines the bytes of each such line by the
// record it made (an object, or the text of a line kept unparsed), and the registry (rawBytesOf)
// puts them beside `raw` as `rawBase64` on every event made from that record (protocol.md).

function keepBytes(value: unknown, line: Buffer): void {
  const c = confinement.getStore();
  if (!c) return;
  const bytes = line.length > 0 && line[line.length - 1] === 13 ? line.subarray(0, -1) : line; // as the text: '\r' of '\r\n' left out
  c.rawBytes.set(value, bytes.toString('base64'));
}

// ---- source lines: a record's own bytes, written as its `raw` -------------------------------------
//
// A record readJsonl parsed from a line of valid UTF-8 is remembered with that line's bytes
// (without the line ending and the blanks around it), so that the store writes them as the
// event's `raw` instead of serialising the parsed record again (JSON.stringify of every record
// was the largest part of a first import). The bytes parse to the very value mapped, so a reader
// and the source signature (a hash of the parsed `raw` re-serialised) see no difference.
// Importers keep records as parsed (types.ts MappedEvent: never re-shaped), which this relies on.
// Kept by the record (a WeakMap): the bytes go when the record does.

const sourceLines = new WeakMap<object, Buffer>();

function keepSource(value: unknown, line: Buffer): void {
  if (!value || typeof value !== 'object') return; // a string or number: serialising it costs nothing
  let from = 0;
  let to = line.length;
  while (from < to && isBlank(line[from]!)) from++;
  while (to > from && isBlank(line[to - 1]!)) to--;
  sourceLines.set(value, from === 0 && to === line.length ? line : line.subarray(from, to));
}

/** JSON's whitespace, and the '\r' of a '\r\n' line ending. */
function isBlank(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
}

/** The bytes of the JSONL line a record was parsed from (readJsonl, valid UTF-8 only), if it was. */
export function sourceLineOf(value: unknown): Buffer | undefined {
  return value && typeof value === 'object' ? sourceLines.get(value) : undefined;
}

/** The base64 bytes of the line a record was read from, when that line was not valid UTF-8 (during a confined read). */
export function rawBytesOf(value: unknown): string | undefined {
  return confinement.getStore()?.rawBytes.get(value);
}

/**
 * Reads a file without following a symlink or waiting on a FIFO (the store's openRegular), and
 * only from inside the tool's folder being imported (confinedTo); throws what open throws.
 */
export async function readText(path: string): Promise<string> {
  await mustBeInside(dirname(path));
  const fh = await openRegular(path);
  let bytes: Buffer;
  try {
    bytes = await fh.readFile();
  } finally {
    await fh.close();
  }
  const text = bytes.toString('utf8');
  if (!isUtf8(bytes)) confinement.getStore()?.notUtf8.set(text, bytes);
  return text;
}

// ---- confinement: nothing outside the tool's folder is read ------------------------------------
//
// A tool's folder may hold a symlinked sub-folder (Claude Code's <uuid>/subagents/, Qwen's
// projects/<p>/chats, opencode's storage/part/<msg>/) that leads anywhere: files from outside would
// be copied into the store. Listing by Dirent type never enters a link, but paths an importer
// builds by name can; so while an importer runs (confinedTo, set by the registry around discover
// and read), every folder it tests, lists or reads from must resolve (realpath) under the real
// path of the root it was given. Outside: a folder is "not a folder", a path "does not exist",
// and a listing or a read is an error.

interface Confinement {
  root: string;
  /** The root's real path, resolved on first use. */
  realSync?: string;
  seen: Map<string, boolean>;
  /** Files read that are not valid UTF-8: their bytes, by the text they decoded to. */
  notUtf8: Map<string, Buffer>;
  /** Records (or unparsed lines' text) read from a line that is not valid UTF-8: its bytes in base64. */
  rawBytes: Map<unknown, string>;
  /** Folders that could not be read (EACCES, EPERM): reported, and the rest of the tool's folder read. */
  unreadable: { path: string; message: string }[];
}

const confinement = new AsyncLocalStorage<Confinement>();

/**
 * Runs `f` with every read of jsonl.ts's helpers confined to `root` (a tool's folder; for a file,
 * the folder two levels up, where a tool keeps what it writes beside one session).
 */
export async function confinedTo<T>(root: string, f: () => Promise<T>): Promise<T> {
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory(); // synchronous: a first import confines each of its reads
  } catch {
    /* not there: a file's folder two levels up, as for a file */
  }
  const base = isDir ? root : dirname(dirname(root));
  return confinement.run({ root: base, seen: new Map(), notUtf8: new Map(), rawBytes: new Map(), unreadable: [] }, f);
}

/**
 * An iteration made later (a large source's second pass, when the engine writes its events)
 * confined as the read that made it was, with the same memory of raw bytes: each step runs in
 * the confinement current when this was called.
 */
export function keepConfined<T>(each: () => AsyncIterable<T>): () => AsyncIterable<T> {
  const c = confinement.getStore();
  if (!c) return each;
  return () => ({
    [Symbol.asyncIterator]: () => {
      const it = confinement.run(c, () => each()[Symbol.asyncIterator]());
      return {
        next: () => confinement.run(c, () => it.next()),
        return: (v?: unknown) => confinement.run(c, () => it.return?.(v) ?? Promise.resolve({ done: true as const, value: v as T })),
      };
    },
  });
}

/**
 * Whether `path` resolves inside the confining root (always, outside confinedTo); false when it
 * cannot be resolved. Synchronous (remembered per path): discovery asks it of every folder.
 */
export async function inside(path: string): Promise<boolean> {
  return insideSync(path);
}

function insideSync(path: string): boolean {
  const c = confinement.getStore();
  if (!c) return true;
  let verdict = c.seen.get(path);
  if (verdict === undefined) {
    try {
      const real = realpathSync.native(path);
      const root = c.realSync ?? (c.realSync = realOr(c.root));
      verdict = real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
    } catch {
      verdict = false;
    }
    c.seen.set(path, verdict);
  }
  return verdict;
}

function realOr(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return p;
  }
}

/**
 * During a confined discovery, a folder that cannot be read (EACCES, EPERM) is noted and read as
 * empty, so one unreadable folder does not hide the rest of the tool's sessions; the registry
 * reports each as an error of its own (unreadableFolders). True when the error was so noted.
 */
function noteUnreadable(path: string, e: unknown): boolean {
  const c = confinement.getStore();
  const code = (e as NodeJS.ErrnoException).code;
  if (!c || (code !== 'EACCES' && code !== 'EPERM')) return false;
  if (!c.unreadable.some((u) => u.path === path)) c.unreadable.push({ path, message: `cannot read ${path}: ${(e as Error).message}` });
  return true;
}

/** The folders a confined discovery could not read (noteUnreadable). */
export function unreadableFolders(): { path: string; message: string }[] {
  return confinement.getStore()?.unreadable ?? [];
}

async function mustBeInside(dir: string): Promise<void> {
  mustBeInsideSync(dir);
}

function mustBeInsideSync(dir: string): void {
  if (insideSync(dir)) return;
  const c = confinement.getStore()!;
  throw Object.assign(new Error(`${dir} leads outside ${c.root} (a symlinked folder?): not read`), { code: 'EXDEV' });
}

/** Parses JSON text, or undefined; a value nesting deeper than we store is refused too. */
export function parseJson(text: string): { value?: unknown; deep?: boolean } {
  let value: unknown;
  try {
    value = JSON.parse(text); // JSON.parse makes `__proto__` an own key, never a prototype
  } catch {
    return {};
  }
  return tooDeep(value, MAX_DEPTH - 8) ? { deep: true } : { value };
}

/** A plain object (a record), never an array or null. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** An ISO time our schema accepts, normalised, or undefined. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return new Date(v > 1e12 ? v : v * 1000).toISOString();
  if (typeof v !== 'string' || !ISO.test(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** Stamps events that have no time of their own with the time before them (or the session's start). */
export class Clock {
  constructor(private last: string) {}
  at(v: unknown): string {
    const t = isoTime(v);
    if (t) this.last = t;
    return this.last;
  }
}

/** A record we do not map: kept whole, as an event of its own, so nothing is lost. */
export function keptRaw(t: string, raw: unknown, extra: Record<string, unknown> = {}): MappedEvent {
  return { kind: 'event', t, type: 'source-record', ...extra, raw };
}

/** The one file given, or an error a user understands when it is not a regular file. */
// Performance: discovery's stat, readdir and realpath calls are synchronous. A run with nothing
// new is a stat walk of every source, and the promise forms cost a thread-pool round trip each,
// awaited one by one.
export async function statFile(path: string): Promise<SourceFile> {
  mustBeInsideSync(dirname(path));
  let st: BigIntStats;
  try {
    st = statSync(path, { bigint: true });
  } catch (e) {
    throw (e as NodeJS.ErrnoException).code === 'ENOENT' ? new Error(`no such file or folder: ${path}`) : e;
  }
  if (!st.isFile()) throw new Error(`${path} is not a file`);
  return { path, size: Number(st.size), mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, ino: st.ino };
}

/** Whether a path is a folder inside the confining root (false when missing or outside; other errors thrown). */
export async function isFolder(path: string): Promise<boolean> {
  try {
    return statSync(path).isDirectory() && insideSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || noteUnreadable(path, e)) return false;
    throw e;
  }
}

/** Names in a folder; an unreadable folder is an error (thrown), a missing one too. */
export async function entries(dir: string): Promise<{ name: string; dir: boolean; file: boolean }[]> {
  mustBeInsideSync(dir);
  let list;
  try {
    list = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    if (noteUnreadable(dir, e)) return [];
    throw e;
  }
  // A folder listed inside the root (not a symlink: its Dirent says so) is inside it too: no
  // realpath of each (a readlink a path component; ~15 a project folder).
  const seen = confinement.getStore()?.seen;
  if (seen) for (const d of list) if (d.isDirectory()) seen.set(join(dir, d.name), true);
  return list
    .map((d) => ({ name: d.name, dir: d.isDirectory(), file: d.isFile() }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every file under `dir` whose name passes `want`, depth first, sorted; symlinks are not followed. */
export async function walkFiles(dir: string, want: (name: string) => boolean, out: string[] = []): Promise<string[]> {
  for (const e of await entries(dir)) {
    const p = join(dir, e.name);
    if (e.dir) await walkFiles(p, want, out);
    else if (e.file && want(e.name)) out.push(p);
  }
  return out;
}

export async function exists(path: string): Promise<boolean> {
  try {
    lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  return insideSync(path);
}

/** The text of content blocks or a string: what a person reads of it. */
export function textOfContent(c: unknown): string {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c
    .map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : typeof b === 'string' ? b : ''))
    .filter(Boolean)
    .join('\n');
}

export const EPOCH = '1970-01-01T00:00:00.000Z';
