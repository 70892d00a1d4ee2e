// What the JSONL importers share: reading a tool's log into records, line by line, tolerating
// what a live writer leaves (a torn last line) and what a broken one leaves (a line that is not
// JSON), and the small shapes every mapping uses (times, kept-raw records, file stats).
// No store, no writes.

import { type BigIntStats, lstatSync, readdirSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { MAX_DEPTH, tooDeep } from '../format/events.js';
import { READ_NO_FOLLOW } from '../store/files.js';
import { join } from 'node:path';
import type { MappedEvent, SourceFile } from './types.js';

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
  const endsClean = text.endsWith('\n') || text.length === 0;
  parts.forEach((raw, i) => {
    const s = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (s.trim() === '') return;
    try {
      out.push({ line: i + 1, value: JSON.parse(s) });
    } catch (e) {
      if (i === parts.length - 1 && !endsClean) problems.push(`line ${i + 1}: torn last line (still being written?); read on a later run`);
      else {
        problems.push(`line ${i + 1}: not JSON (${(e as Error).message}); kept as text`);
        out.push({ line: i + 1, value: s, unparsed: true });
      }
    }
  });
  return out;
}

/** A line longer than this is kept truncated (its first HEAD_BYTES, its size), never parsed or dropped. */
export const LINE_CAP = 64 << 20;
const HEAD_BYTES = 1 << 20;
const READ_CHUNK = 1 << 20;

/**
 * The lines of a JSONL file as jsonlLines gives them, read as a stream with a bounded buffer
 * (never the whole file as one string): a line over LINE_CAP becomes an unparsed record
 * `{"$truncated": {bytes, cap}, "head": <its first 1 MiB>}` with a problem, so a session with a
 * 600 MB line is imported with that line marked instead of failing whole. No symlink followed,
 * no FIFO waited on.
 */
export async function readJsonl(path: string, problems: string[]): Promise<SourceLine[]> {
  const fh = await open(path, READ_NO_FOLLOW);
  try {
    if (!(await fh.stat()).isFile()) throw new Error(`${path} is not a regular file`);
    const out: SourceLine[] = [];
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    let parts: Buffer[] = [];
    let kept = 0;
    let bytes = 0;
    let lineNo = 0;
    const take = (b: Buffer) => {
      bytes += b.length;
      if (bytes <= LINE_CAP) {
        parts.push(Buffer.from(b)); // a copy: buf is read into again
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
    const end = (torn: boolean) => {
      lineNo++;
      const text = Buffer.concat(parts, kept).toString('utf8');
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
      oneLine(text, lineNo, torn, out, problems);
    };
    for (let pos = 0; ; ) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const chunk = buf.subarray(0, bytesRead);
      let start = 0;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
        take(chunk.subarray(start, i));
        end(false);
        start = i + 1;
      }
      if (start < bytesRead) take(chunk.subarray(start));
    }
    if (bytes > 0) end(true);
    return out;
  } finally {
    await fh.close();
  }
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

/** Reads a file without following a symlink or waiting on a FIFO; throws what open throws. */
export async function readText(path: string): Promise<string> {
  const fh = await open(path, READ_NO_FOLLOW);
  try {
    if (!(await fh.stat()).isFile()) throw new Error(`${path} is not a regular file`);
    return await fh.readFile('utf8');
  } finally {
    await fh.close();
  }
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
// Performance: discovery's stat, readdir and lstat calls are synchronous. A run with nothing
// new is a stat walk of every source, and the promise forms cost a thread-pool round trip each
// (awaited one by one, seconds on a busy machine for a few thousand files, against tens of ms).
export async function statFile(path: string): Promise<SourceFile> {
  let st: BigIntStats;
  try {
    st = statSync(path, { bigint: true });
  } catch (e) {
    throw (e as NodeJS.ErrnoException).code === 'ENOENT' ? new Error(`no such file or folder: ${path}`) : e;
  }
  if (!st.isFile()) throw new Error(`${path} is not a file`);
  return { path, size: Number(st.size), mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, ino: st.ino };
}

/** Whether a path is a folder (false when missing; other errors thrown). */
export async function isFolder(path: string): Promise<boolean> {
  try {
    return statSync(path).isDirectory();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** Names in a folder; an unreadable folder is an error (thrown), a missing one too. */
export async function entries(dir: string): Promise<{ name: string; dir: boolean; file: boolean }[]> {
  const list = readdirSync(dir, { withFileTypes: true });
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
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
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
