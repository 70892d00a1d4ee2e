// Shared pieces of the reliability suite's crash and concurrency tests: a seeded PRNG (the seed
// is printed so a failing run can be replayed with LCS_SEED=...), deterministic events of any
// size, the side file of acknowledged appends, a byte-level verifier of a session file against
// it, and a "fresh rebuild" of a project folder's listing straight from its files.
//
// Depends on the core's catalog (entryFromFile, the rebuild) and history (toSessionEntry) only
// to compute what a correct listing is; the writers under test are real processes.

import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { INDEX_FORMAT, entryFromFile, newestFirst, type IndexEntry } from '../../server/store/entries.js';
import { toSessionEntry, type SessionEntry } from '../../server/listing/history.js';
import { isSessionId } from '../../server/format/ids.js';
import { projectCache } from '../../server/store/cache-dir.js';
import { at } from '../helpers/items.js';

// ---------------------------------------------------------------------------------------------
// Seeded randomness

export function seedFromEnv(name = 'LCS_SEED'): number {
  const v = process.env[name];
  if (v && /^\d+$/.test(v)) return Number(v) >>> 0;
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

/** mulberry32: small, fast, good enough to pick kill moments and sizes. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** An integer in [lo, hi]. */
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => at(xs, Math.floor(next() * xs.length), 'pick'),
    chance: (p: number) => next() < p,
  };
}
export type Rng = ReturnType<typeof prng>;

// ---------------------------------------------------------------------------------------------
// Events: deterministic from a spec, so the side file can name them and a verifier rebuild them

/** Text with JSON escapes, multi-byte UTF-8 and an astral character in every repetition. */
const CHUNK = 'abc dé "q" \\ 😀 ∑\n\ttab/</script> ';

export interface EventSpec {
  /** Who sent it ("t12", "sidecarA", "cli", ...) and its number for that sender. */
  tag: string;
  n: number;
  /** Approximate size of the body in characters. */
  size: number;
  /** Which kind of event: 0 user, 1 assistant, 2 agent, 3 event. */
  shape: number;
}

const T0 = Date.parse('2026-07-28T09:00:00.000Z');

/** The event a spec names; `kind` and `t` first, so that the stored line is JSON.stringify of it. */
export function makeEvent(s: EventSpec): Record<string, unknown> {
  const t = new Date(T0 + s.n * 1000).toISOString();
  const body = `#${s.tag}.${s.n} ` + CHUNK.repeat(Math.max(1, Math.ceil(s.size / CHUNK.length)));
  switch (s.shape % 4) {
    case 0:
      return { kind: 'user', t, content: body, tag: s.tag, n: s.n };
    case 1:
      return { kind: 'assistant', t, content: [{ type: 'text', text: body }], tag: s.tag, n: s.n };
    case 2:
      return {
        kind: 'agent',
        t,
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${s.n}`, name: 'read_file', input: { path: 'a.ts' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${s.n}`, content: body }] },
        ],
        tag: s.tag,
        n: s.n,
      };
    default:
      return { kind: 'event', t, type: 'checkpoint', note: body, tag: s.tag, n: s.n };
  }
}

export function sha(s: string | Buffer): string {
  return createHash('sha256').update(s).digest('hex');
}

// ---------------------------------------------------------------------------------------------
// The side file: one line per acknowledged append, written when the ack arrives

export interface AckRecord {
  id: string;
  firstSeq: number;
  lastSeq: number;
  events: { spec: EventSpec; sha: string; bytes: number }[];
}

export class SideFile {
  constructor(readonly path: string) {}

  record(id: string, ack: { firstSeq: number; lastSeq: number }, specs: EventSpec[], lines: string[]): void {
    const rec: AckRecord = {
      id,
      firstSeq: ack.firstSeq,
      lastSeq: ack.lastSeq,
      events: specs.map((spec, i) => ({ spec, sha: sha(at(lines, i)), bytes: Buffer.byteLength(at(lines, i)) })),
    };
    appendFileSync(this.path, JSON.stringify(rec) + '\n');
  }

  /** Every acknowledged event of a session: seq -> what was sent. */
  acknowledged(id: string): Map<number, { spec: EventSpec; sha: string; bytes: number }> {
    const out = new Map<number, { spec: EventSpec; sha: string; bytes: number }>();
    if (!existsSync(this.path)) return out;
    for (const l of readFileSync(this.path, 'utf8').split('\n')) {
      if (!l) continue;
      const r = JSON.parse(l) as AckRecord;
      if (r.id !== id) continue;
      if (r.lastSeq - r.firstSeq + 1 !== r.events.length)
        throw new Error(`ack of ${id} names ${r.lastSeq - r.firstSeq + 1} seqs for ${r.events.length} events`);
      r.events.forEach((e, i) => {
        if (out.has(r.firstSeq + i)) throw new Error(`seq ${r.firstSeq + i} of ${id} acknowledged twice`);
        out.set(r.firstSeq + i, e);
      });
    }
    return out;
  }

  count(): number {
    if (!existsSync(this.path)) return 0;
    let n = 0;
    for (const l of readFileSync(this.path, 'utf8').split('\n')) if (l) n += (JSON.parse(l) as AckRecord).events.length;
    return n;
  }
}

// ---------------------------------------------------------------------------------------------
// Byte-level verification of a session file

export interface FileCheck {
  /** Acknowledged events found byte-identical at their seq. */
  found: number;
  /** Acknowledged events missing or different (must be 0). */
  lost: { seq: number; why: string }[];
  /** Line positions after the meta line (terminated lines, plus an unterminated tail). */
  positions: number;
  /** Lines that are not a whole event (torn fragments, stepped over or not). */
  fragments: number[];
  /** Complete lines of batches that were never acknowledged (the writer died before the ack). */
  unacked: number;
  /** Lines the sidecar wrote itself (an automatic title, a sealed event, ...): no tag. */
  own: number;
  /** The file ends without '\n' and its tail does not parse. */
  tornTail: boolean;
  /** Lines that are not what any writer sent (must be 0). */
  foreign: { seq: number; why: string }[];
}

/**
 * Splits a session file into lines and checks every acknowledged event: the line at its seq
 * must be byte-identical to what was sent (same sha-256 as the JSON of the sent event). A line
 * that no ack names must be a whole event a writer sent (an unacknowledged batch) or a fragment.
 */
export function checkFile(
  file: string,
  acked: Map<number, { spec: EventSpec; sha: string; bytes: number }>,
  /** sha-256 of every line any writer sent, by `${tag}.${n}` (whether acknowledged or not). */
  sent?: Map<string, string>,
): FileCheck {
  const buf = readFileSync(file);
  const out: FileCheck = { found: 0, lost: [], positions: 0, fragments: [], unacked: 0, own: 0, tornTail: false, foreign: [] };
  let start = buf.indexOf(10) + 1; // past the meta line
  if (start === 0) throw new Error(`${file}: no terminated meta line`);
  const lines: { seq: number; bytes: Buffer; terminated: boolean }[] = [];
  let seq = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(10, start);
    const end = nl === -1 ? buf.length : nl;
    lines.push({ seq: seq++, bytes: buf.subarray(start, end), terminated: nl !== -1 });
    start = end + 1;
  }
  out.positions = seq;
  const bySeq = new Map(lines.map((l) => [l.seq, l]));
  for (const [s, want] of acked) {
    const l = bySeq.get(s);
    if (!l) out.lost.push({ seq: s, why: 'no line at this seq' });
    else if (!l.terminated) out.lost.push({ seq: s, why: 'line not terminated' });
    else if (l.bytes.length !== want.bytes || sha(l.bytes) !== want.sha)
      out.lost.push({ seq: s, why: `bytes differ (${l.bytes.length} vs ${want.bytes})` });
    else out.found++;
  }
  for (const l of lines) {
    if (acked.has(l.seq)) continue;
    let v: unknown;
    try {
      v = JSON.parse(l.bytes.toString('utf8'));
    } catch {
      out.fragments.push(l.seq);
      if (!l.terminated) out.tornTail = true;
      continue;
    }
    const ev = v as { tag?: unknown; n?: unknown; kind?: unknown };
    if (typeof ev.tag === 'string' && typeof ev.n === 'number') {
      // A whole line nobody acknowledged: it must be exactly one of the events a writer sent.
      const want = sent?.get(`${ev.tag}.${ev.n}`);
      if (sent && want !== sha(l.bytes)) out.foreign.push({ seq: l.seq, why: `${ev.tag}.${ev.n} is not what was sent` });
      else out.unacked++;
      continue;
    }
    // Lines the sidecar writes itself (title, sealed, ...) carry no tag.
    if (ev.kind === 'title' || ev.kind === 'event' || ev.kind === 'compact') {
      out.own++;
      continue;
    }
    out.foreign.push({ seq: l.seq, why: `an untagged ${String(ev.kind)} line` });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The listing a project folder must give: rebuilt from its files, ignoring index.json

export function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl') && isSessionId(n.slice(0, -6)))
    .sort();
}

export async function rebuildEntries(dir: string): Promise<IndexEntry[]> {
  const out: IndexEntry[] = [];
  for (const name of sessionFiles(dir)) {
    const file = join(dir, name);
    const st = statSync(file, { bigint: true });
    out.push(await entryFromFile(file, name.slice(0, -6), Number(st.size), st.mtimeNs));
  }
  return out.sort(newestFirst);
}

export async function rebuildListing(dir: string): Promise<SessionEntry[]> {
  return (await rebuildEntries(dir)).map(toSessionEntry);
}

/** index.json of a folder: absent, or parsed (throws when it does not parse: half-written). */
export function readIndex(dir: string): { entries: IndexEntry[] } | undefined {
  const p = projectCache(dir, 'index.json');
  if (!existsSync(p)) return undefined;
  const text = readFileSync(p, 'utf8');
  const v = JSON.parse(text) as { format: number; entries: IndexEntry[] };
  if (v.format !== INDEX_FORMAT || !Array.isArray(v.entries)) throw new Error(`index.json of ${dir} has the wrong shape`);
  return v;
}

/** Leftover temp files of interrupted atomic index writes. */
export function indexTemps(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((n) => n.startsWith('index.json.'));
}
