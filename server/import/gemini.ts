// The Gemini CLI importer: finds the sessions Gemini CLI keeps under ~/.gemini/tmp/<project>/chats/
// and maps their messages to our events. Two formats: one JSON document a session (0.1x-0.3x,
// rewritten whole on every change) and the JSONL log (newer: a header, message records appended
// and appended again as they complete, `$set` metadata patches, `$rewindTo` rewinds). Both are
// replayed the way Gemini CLI's chatRecordingService.ts replays them, message by
// message id, so a record written twice maps to one event, and a rewrite maps what did not change
// to the same events. Field notes: gemini.md beside this file.
// Depends on node:fs, node:path, node:crypto and the event format only.

import { createHash } from 'node:crypto';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, sep } from 'node:path';
import { defineOwn, textOf } from '../format/text.js';
import { parseJson, readText } from './jsonl.js';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile } from './types.js';

type Rec = Record<string, unknown>;

const EPOCH = '1970-01-01T00:00:00.000Z';
/** Metadata keys of a header or `$set` that carry nothing of the conversation. */
const META_KEYS = new Set([
  'sessionId',
  'projectHash',
  'startTime',
  'lastUpdated',
  'kind',
  'directories',
  'summary',
  'memoryScratchpad',
  'messages',
]);
const FINAL_STATUS = new Set(['success', 'error', 'cancelled']);

export const gemini: ImporterModule = {
  defaultRoots(env, home) {
    // Gemini CLI puts .gemini under GEMINI_CLI_HOME when set, else under the home folder.
    const base = env.GEMINI_CLI_HOME && env.GEMINI_CLI_HOME.length > 0 ? env.GEMINI_CLI_HOME : home;
    return [join(base, '.gemini')];
  },
  discover: discoverGemini,
  read: readGemini,
  // A record is a message (`type`), a header, a `$set` patch (`$set/<key>` for a key it does
  // not know), a `$rewindTo`, or one key of a JSON document (`document/<key>`).
  kinds: {
    mapped: ['user', 'gemini', 'info', 'error', 'warning', 'header', '$set', '$rewindTo'],
    hidden: [],
  },
  kindOf: geminiKindOf,
};

function geminiKindOf(raw: unknown): string | undefined {
  if (!isObj(raw)) return undefined;
  if (typeof raw.$rewindTo === 'string') return '$rewindTo';
  if (isObj(raw.$set)) {
    const other = Object.keys(raw.$set).find((k) => !META_KEYS.has(k));
    return other ? `$set/${other}` : '$set';
  }
  if (typeof raw.id === 'string') return typeof raw.type === 'string' ? raw.type : 'message';
  if (typeof raw.sessionId === 'string' && typeof raw.projectHash === 'string') return 'header';
  const keys = Object.keys(raw);
  return keys.length === 1 ? `document/${keys[0]}` : typeof raw.type === 'string' ? raw.type : undefined;
}

// ---------------------------------------------------------------------------------------------
// Discovery.

async function discoverGemini(root: string): Promise<SourceFile[]> {
  const st = await stat(root); // throws for a missing or unreadable root
  if (st.isFile()) return [await sourceFile(root)];
  const out: SourceFile[] = [];
  // The data folder (holding tmp/), one project's folder (holding chats/), or a chats folder.
  const tmp = join(root, 'tmp');
  if (await isDir(tmp)) {
    const named: SourceFile[] = [];
    const hashed: SourceFile[] = [];
    for (const project of await dirNames(tmp)) {
      const chats = join(tmp, project, 'chats');
      if (await isDir(chats)) await collectChats(chats, HASH_RE.test(project) ? hashed : named);
    }
    // Newer versions copy a <sha256> project folder to a project-named one and leave the old
    // copy: a file found in both is read from the named one (where the CLI goes on writing).
    const stems = new Set(named.flatMap((f) => [f.path, ...(f.parts ?? [])]).map(stem));
    out.push(...named, ...hashed.filter((f) => !stems.has(stem(f.path))));
  } else if (await isDir(join(root, 'chats'))) {
    await collectChats(join(root, 'chats'), out);
  } else if (basename(root) === 'chats') {
    await collectChats(root, out);
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The session files of one chats/ folder. A subagent's log (chats/<parent id>/<id>.jsonl,
 * `kind: "subagent"`) is a part of its parent's session file (the first `session-*-<id8>` of
 * that parent), read into it as a sidechain, never a session of its own; one whose parent file
 * is not there stays a file of its own.
 */
async function collectChats(chats: string, out: SourceFile[], depth = 0): Promise<void> {
  const entries = await readdir(chats, { withFileTypes: true }); // throws when unreadable
  const names = new Set(entries.map((e) => e.name));
  const mine: SourceFile[] = [];
  const subs: { parent: string; files: SourceFile[] }[] = [];
  for (const e of entries) {
    const path = join(chats, e.name);
    if (e.isDirectory() && depth === 0) {
      const files: SourceFile[] = [];
      await collectChats(path, files, 1);
      subs.push({ parent: e.name, files });
      continue;
    }
    if (!e.isFile()) continue; // symlinks and the like are not followed
    if (e.name.endsWith('.jsonl')) mine.push(await sourceFile(path));
    // A .json file that Gemini CLI converted to .jsonl on resume: the .jsonl holds all of it.
    else if (e.name.endsWith('.json') && !names.has(e.name + 'l')) mine.push(await sourceFile(path));
  }
  mine.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Files of one session: older versions (and a resume started in a later minute) write
  // `session-<minute>-<id8>` again for the same sessionId. The first file (by name: by time) is
  // the session's source, the later ones parts of it, replayed after it (read checks the
  // sessionId: a file of another session that shares the id8 is read as its own).
  const first = new Map<string, SourceFile>();
  for (let i = 0; i < mine.length; i++) {
    const f = mine[i]!;
    const id8 = ID8_RE.exec(stem(f.path))?.[1];
    if (!id8) continue;
    const main = first.get(id8);
    if (!main) {
      first.set(id8, f);
      continue;
    }
    addPart(main, f);
    mine.splice(i--, 1);
  }
  for (const s of subs) {
    const id8 = s.parent.slice(0, 8);
    const parent = first.get(id8) ?? mine.find((f) => stem(f.path).endsWith(`-${id8}`));
    if (!parent) {
      mine.push(...s.files);
      continue;
    }
    for (const f of s.files) addPart(parent, f);
  }
  out.push(...mine);
}

/** Reads `part` as a part of `main`'s source: its size and time count as the source's. */
function addPart(main: SourceFile, part: SourceFile): void {
  main.parts = [...(main.parts ?? []), part.path, ...(part.parts ?? [])];
  main.size += part.size;
  if (part.mtimeNs > main.mtimeNs) main.mtimeNs = part.mtimeNs;
}

const HASH_RE = /^[0-9a-f]{64}$/;
/** `session-<YYYY-MM-DDTHH-MM>-<id8>`: the first eight characters of the sessionId. */
const ID8_RE = /^session-.+-([0-9a-zA-Z]{8})$/;

function stem(path: string): string {
  return basename(path).replace(/\.jsonl?$/, '');
}

async function sourceFile(path: string): Promise<SourceFile> {
  const st = await lstat(path, { bigint: true });
  return { path, size: Number(st.size), mtimeNs: st.mtimeNs };
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

async function dirNames(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

function isObj(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Copies own keys onto target as own data properties (a `__proto__` key stays a key). */
function mergeOwn(target: Rec, source: Rec): void {
  for (const k of Object.keys(source)) defineOwn(target, k, source[k]);
}

function isoOr(v: unknown, fallback: string): string {
  if (typeof v !== 'string' && typeof v !== 'number') return fallback;
  const ms = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : fallback;
}

// ---------------------------------------------------------------------------------------------
// Reading one session file.

async function readGemini(file: SourceFile): Promise<MappedSession[]> {
  const text = await readText(file.path);
  const r = new Replay();
  replayFile(file.path, text, r);
  const id = typeof r.meta.sessionId === 'string' && r.meta.sessionId ? r.meta.sessionId : sniffId(text, file.path);
  // Later files of the same sessionId (discovery's parts beside the file) replay into the same
  // session, message by id, so what a later file repeats maps to the events we have.
  const others: MappedSession[] = [];
  const siblings = (file.parts ?? []).filter((p) => dirname(p) === dirname(file.path));
  for (const part of siblings) {
    const partText = await readText(part);
    if (sniffId(partText, part) !== id) {
      others.push(...(await readGemini({ path: part, size: 0, mtimeNs: file.mtimeNs })));
      continue;
    }
    const problems = r.problems.length;
    replayFile(part, partText, r);
    for (let i = problems; i < r.problems.length; i++) r.problems[i] = `${basename(part)}: ${r.problems[i]}`;
  }
  if (r.events.length === 0 && r.problems.length === 0) return others;
  const subagents: MappedEvent[][] = [];
  for (const part of file.parts ?? []) {
    if (siblings.includes(part)) continue;
    const sub = new Replay();
    const subText = await readText(part);
    if (part.endsWith('.json')) readWhole(subText, sub);
    else readLog(subText, sub);
    r.problems.push(...sub.problems.map((p) => `${basename(part)}: ${p}`));
    subagents.push(sub.events.map((e) => (e.kind === 'event' ? e : sidechainOf(e))));
  }
  // A resume started in a later minute writes a stub file (a header and the <session_context>)
  // while the turns go on in the session's first file: no conversation, so never a row of its own.
  const events = r.events;
  for (const sub of subagents) placeSidechain(events, sub);
  const talk = events.some((e) => e.kind === 'user' || e.kind === 'assistant' || e.kind === 'agent' || e.kind === 'compact');
  const project = await projectOf(file.path, r);
  if (!project.known)
    r.problems.push(
      `Gemini CLI recorded no project folder for this session; it is listed under ${project.path} (relink moves it to the real folder).`,
    );
  const first = r.entries.find((e) => e.ev.t !== EPOCH)?.ev.t;
  return [
    ...others,
    {
      source: { tool: 'gemini', path: file.path, id, project: project.path },
      // The first header's start: a resume writes the header again with a later startTime.
      createdAt: isoOr(r.startTime, first ?? new Date(Number(file.mtimeNs / 1_000_000n)).toISOString()),
      ...(r.model ? { model: r.model } : {}),
      events: talk ? events : [],
      variant: '',
      problems: r.problems,
    },
  ];
}

/** One file of a session into the replay: a whole JSON document or a JSONL log. */
function replayFile(path: string, text: string, r: Replay): void {
  const whole = path.endsWith('.json') || (!path.endsWith('.jsonl') && /^\s*\{\s*\n/.test(text));
  if (whole) readWhole(text, r);
  else readLog(text, r);
}

/** The older format: one JSON document, {sessionId, projectHash, startTime, messages[], summary?}. */
function readWhole(text: string, r: Replay): void {
  const { value, deep } = parseJson(text);
  if (!isObj(value)) {
    r.problems.push(
      deep
        ? 'The session file nests deeper than can be stored; it was not imported.'
        : 'The session file is not complete JSON (Gemini CLI may be writing it); it is read again next time.',
    );
    return;
  }
  const { messages, summary, ...meta } = value;
  const first = r.meta.sessionId === undefined;
  mergeOwn(r.meta, meta);
  if (first) {
    r.startTime = meta.startTime;
    r.lastT = isoOr(meta.startTime, EPOCH);
  } else if (r.entries.some((e) => e.ev.kind !== 'event')) {
    // A later file of the same session: a resume, as a header written again in a log.
    r.push({
      kind: 'event',
      t: isoOr(meta.startTime, r.lastT),
      type: 'resume',
      raw: { sessionId: meta.sessionId, startTime: meta.startTime },
    });
  }
  if (Array.isArray(messages)) for (const m of messages) if (isObj(m)) r.message(m);
  // The document has no order for its summary: it comes last, after the messages it summarises.
  if (typeof summary === 'string') r.title(summary, { summary });
  for (const k of Object.keys(meta)) {
    if (!META_KEYS.has(k)) {
      r.push({ kind: 'event', t: r.lastT, type: 'source-record', raw: { [k]: meta[k] } });
      break;
    }
  }
}

/** The newer format: one record a line, replayed in order. */
function readLog(text: string, r: Replay): void {
  const lines = text.split('\n');
  const complete = text.endsWith('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.length === 0) continue;
    const { value, deep } = parseJson(line);
    if (value === undefined) {
      const last = i === lines.length - 1 && !complete;
      if (last) r.problems.push(`Line ${i + 1} is a torn last line (Gemini CLI may still be writing it); it is read again next time.`);
      else if (deep) r.problems.push(`Line ${i + 1} nests deeper than can be stored; it was skipped.`);
      else {
        r.problems.push(`Line ${i + 1} is not JSON; it is kept as text.`);
        r.push({ kind: 'event', t: r.lastT, type: 'source-record', line: i + 1, unparsed: true, raw: line });
      }
      continue;
    }
    r.record(value, i + 1);
  }
}

/** The session id from a document too torn to parse, else the file name. */
function sniffId(text: string, path: string): string {
  const m = /"sessionId"\s*:\s*"([^"\\]{1,200})"/.exec(text);
  return m ? m[1]! : basename(path).replace(/\.jsonl?$/, '');
}

interface Entry {
  /** The message id the event was made from (none for markers and titles). */
  id?: string;
  ev: MappedEvent;
  /** Events after ev made from the same record: a model message's tool results (see mapGemini). */
  more?: MappedEvent[];
}

/**
 * Replays records into events. Our events are a transcript that only grows: a message record
 * appends an event, or replaces the one made from the same id (Gemini CLI writes a message again
 * as it completes); `$set: {messages}` (Gemini CLI replacing its in-memory list on resume, after a
 * compression or a rollback) adds only what is new in it, never removes; only `$rewindTo`, the
 * user's own rewind, takes messages out (kept raw on a rewind marker).
 */
class Replay {
  meta: Rec = {};
  /** The first header's startTime: the session's birth (later headers are resumes). */
  startTime: unknown;
  entries: Entry[] = [];
  /** The entry of each message id, and of the ids Gemini CLI gave copies of a message later. */
  byId = new Map<string, Entry>();
  problems: string[] = [];
  lastT = EPOCH;
  model?: string;
  title_?: string;
  /** Tool-call ids whose results an event already carries. */
  answered = new Set<string>();

  get events(): MappedEvent[] {
    return this.entries.flatMap((e) => (e.more ? [e.ev, ...e.more] : [e.ev]));
  }

  push(ev: MappedEvent, id?: string): Entry {
    const entry: Entry = { id, ev };
    this.entries.push(entry);
    if (id !== undefined) this.byId.set(id, entry);
    return entry;
  }

  record(rec: unknown, line: number): void {
    if (!isObj(rec)) {
      this.push({ kind: 'event', t: this.lastT, type: 'source-record', line, raw: rec });
      return;
    }
    if (typeof rec.$rewindTo === 'string') return this.rewind(rec.$rewindTo, rec);
    if (typeof rec.id === 'string') return this.message(rec);
    if (isObj(rec.$set)) return this.set(rec.$set, rec);
    if (typeof rec.sessionId === 'string' && typeof rec.projectHash === 'string') {
      // A header: the first opens the log; one written again after the conversation began is a resume.
      const { messages, ...meta } = rec;
      const first = this.meta.sessionId === undefined;
      mergeOwn(this.meta, meta);
      if (first) {
        this.startTime = meta.startTime;
        this.lastT = isoOr(meta.startTime, this.lastT);
      } else if (this.entries.some((e) => e.ev.kind !== 'event')) {
        this.push({ kind: 'event', t: isoOr(meta.startTime, this.lastT), type: 'resume', raw: rec });
      }
      if (Array.isArray(messages)) this.setMessages(messages);
      return;
    }
    this.push({ kind: 'event', t: this.lastT, type: 'source-record', line, raw: rec });
  }

  /** A message record: a new id appends, a known id (written again as it completes) is replaced. */
  message(rec: Rec): void {
    const id = rec.id as string;
    const [first, ...more] = mapMessage(rec, this.lastT, this.answered);
    const ev = first!; // a message maps to one event at least
    this.lastT = ev.t;
    for (const e of [ev, ...more]) if (e.kind === 'agent') for (const tid of resultIds(e)) this.answered.add(tid);
    if (!this.model && rec.type === 'gemini' && typeof rec.model === 'string') this.model = rec.model;
    const entry = this.byId.get(id) ?? this.push(ev, id);
    entry.ev = ev;
    if (more.length > 0) entry.more = more;
    else delete entry.more;
  }

  set(patch: Rec, rec: Rec): void {
    const { messages, ...meta } = patch;
    mergeOwn(this.meta, meta);
    if (typeof patch.summary === 'string') this.title(patch.summary, rec);
    if (Array.isArray(messages)) this.setMessages(messages);
    if (Object.keys(meta).some((k) => !META_KEYS.has(k))) {
      this.push({ kind: 'event', t: this.lastT, type: 'source-record', raw: rec });
    }
  }

  title(summary: string, raw: unknown): void {
    const title = summary.trim().slice(0, 500);
    if (!title || title === this.title_) return;
    this.title_ = title;
    this.push({ kind: 'title', t: this.lastT, title, source: 'model', raw });
  }

  /** `$rewindTo`: the message and all after it leave the conversation (kept raw on a marker). */
  rewind(to: string, rec: Rec): void {
    const target = this.byId.get(to);
    const at = target ? this.entries.indexOf(target) : 0; // an unknown id empties it, as in Gemini CLI
    const dropped: unknown[] = [];
    const keep: Entry[] = [];
    this.entries.forEach((e, i) => {
      if (i >= at && e.id !== undefined)
        dropped.push(e.ev.raw); // e.more share e.ev's record
      else keep.push(e);
    });
    this.entries = keep;
    for (const [id, e] of [...this.byId]) if (!keep.includes(e)) this.byId.delete(id);
    if (dropped.length > 0) this.push({ kind: 'event', t: this.lastT, type: 'rewind', to, dropped, raw: rec });
  }

  /**
   * `$set: {messages}`: Gemini CLI's whole list again. Known ids are what we have (their events
   * stay as their original records made them; the list re-encodes them). A message under a new id
   * whose content is one we have is a copy (a compression re-numbers the turns it keeps). A
   * `<state_snapshot>` is a compression's summary: a compact event, with the model's
   * acknowledgement after it. Anything else new is appended.
   */
  setMessages(list: unknown[]): void {
    const claimed = new Set<Entry>();
    let afterSnapshot = false;
    for (const m of list) {
      if (!isObj(m) || typeof m.id !== 'string') continue;
      const known = this.byId.get(m.id);
      if (known) {
        claimed.add(known);
        afterSnapshot = false;
        continue;
      }
      const sig = signature(m);
      const copy = sig
        ? [...this.entries].reverse().find((e) => e.id !== undefined && !claimed.has(e) && signature(e.ev.raw) === sig)
        : undefined;
      if (copy) {
        this.byId.set(m.id, copy);
        claimed.add(copy);
        afterSnapshot = false;
        continue;
      }
      const text = textOf(m.content).trim();
      if (m.type === 'user' && text.startsWith('<state_snapshot>')) {
        const entry = this.push(
          {
            kind: 'compact',
            t: isoOr(m.timestamp, this.lastT),
            briefing: text,
            coversThrough: Math.max(0, this.events.length - 1),
            raw: m,
          },
          m.id,
        );
        claimed.add(entry);
        afterSnapshot = true;
        continue;
      }
      if (afterSnapshot && m.type === 'gemini' && !Array.isArray(m.toolCalls)) {
        // The model's "Got it" to the snapshot: kept raw on an event of its own, not a turn.
        claimed.add(this.push({ kind: 'event', t: isoOr(m.timestamp, this.lastT), type: 'compact-ack', raw: m }, m.id));
        afterSnapshot = false;
        continue;
      }
      afterSnapshot = false;
      if (isAnsweredResponse(m, this.answered)) continue; // a re-encoding of results we carry
      this.message(m);
      const added = this.byId.get(m.id);
      if (added) claimed.add(added);
    }
  }
}

function isAnsweredResponse(m: Rec, answered: Set<string>): boolean {
  if (m.type !== 'user' || !Array.isArray(m.content) || m.content.length === 0) return false;
  return m.content.every((p) => isObj(p) && isObj(p.functionResponse) && answered.has(String(p.functionResponse.id)));
}

/** What a message says, whatever its encoding (a record's string, or the parts a list re-encodes it as). */
function signature(rec: unknown): string | undefined {
  if (!isObj(rec) || typeof rec.type !== 'string') return undefined;
  const parts = Array.isArray(rec.content) ? rec.content : [rec.content];
  const texts: string[] = [];
  const calls: string[] = [];
  for (const p of parts) {
    if (typeof p === 'string') texts.push(p);
    else if (isObj(p)) {
      if (typeof p.text === 'string' && p.thought !== true) texts.push(p.text);
      if (isObj(p.functionCall)) calls.push(`c:${String(p.functionCall.id)}`);
      if (isObj(p.functionResponse)) calls.push(`r:${String(p.functionResponse.id)}`);
    }
  }
  if (Array.isArray(rec.toolCalls)) for (const c of rec.toolCalls) if (isObj(c)) calls.push(`c:${String(c.id)}`);
  const text = texts.join('').trim();
  if (!text && calls.length === 0) return undefined;
  return `${rec.type}\u0000${text}\u0000${[...new Set(calls)].sort().join(',')}`;
}

// ---------------------------------------------------------------------------------------------
// One message to one event.

/**
 * One message record to one event. `answered` holds the tool calls whose results an earlier
 * event carries: recent versions record each function response twice, in the model message's
 * toolCalls[].result and as a user message of functionResponse parts; the second is kept raw.
 */
function mapMessage(rec: Rec, lastT: string, answered: Set<string>): MappedEvent[] {
  const ev = mapOne(rec, lastT, answered);
  return Array.isArray(ev) ? ev : [ev];
}

function mapOne(rec: Rec, lastT: string, answered: Set<string>): MappedEvent | MappedEvent[] {
  const t = isoOr(rec.timestamp, lastT);
  switch (rec.type) {
    case 'user': {
      const content = rec.content ?? '';
      const results = Array.isArray(content) ? content.filter((p) => isObj(p) && isObj(p.functionResponse)) : [];
      if (results.length > 0 && results.length === (content as unknown[]).length) {
        const blocks = results.map(responseBlock);
        if (blocks.every((b) => answered.has(b.tool_use_id as string))) return { kind: 'event', t, type: 'tool-response', raw: rec };
        return { kind: 'agent', t, messages: [{ role: 'user', content: blocks }], raw: rec };
      }
      // The environment context recent versions put first (date, OS, folders): not a turn.
      if (textOf(content).trimStart().startsWith('<session_context>')) return { kind: 'event', t, type: 'context', raw: rec };
      return { kind: 'user', t, content, raw: rec };
    }
    case 'gemini':
      return mapGemini(rec, t);
    case 'info':
    case 'error':
    case 'warning':
      return { kind: 'event', t, type: 'notice', level: rec.type, text: textOf(rec.content), raw: rec };
    default:
      return { kind: 'event', t, type: 'source-record', raw: rec };
  }
}

function resultIds(ev: MappedEvent): string[] {
  const out: string[] = [];
  for (const m of ev.messages as Rec[]) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content as Rec[]) if (b.type === 'tool_result') out.push(String(b.tool_use_id));
  }
  return out;
}

/**
 * A model message: its thoughts and text, and the tool calls it made; the results Gemini CLI
 * records on the same message (toolCalls[].result) follow as an event of their own, made from
 * the same record, so a call and its result are two events as in every other tool's log.
 */
function mapGemini(rec: Rec, t: string): MappedEvent | MappedEvent[] {
  const blocks: Rec[] = [];
  if (Array.isArray(rec.thoughts)) {
    for (const th of rec.thoughts) {
      if (!isObj(th)) continue;
      const text = [th.subject, th.description].filter((s) => typeof s === 'string' && s).join(': ');
      if (text) blocks.push({ type: 'thinking', thinking: text });
    }
  }
  const calls = Array.isArray(rec.toolCalls) ? rec.toolCalls.filter(isObj) : [];
  const callIds = new Set(calls.map((c) => c.id));
  if (typeof rec.content === 'string') {
    if (rec.content) blocks.push({ type: 'text', text: rec.content });
  } else if (Array.isArray(rec.content)) {
    for (const p of rec.content) {
      if (typeof p === 'string') blocks.push({ type: 'text', text: p });
      else if (isObj(p) && typeof p.text === 'string')
        blocks.push(p.thought === true ? { type: 'thinking', thinking: p.text } : { type: 'text', text: p.text });
      else if (isObj(p) && isObj(p.functionCall) && !callIds.has(p.functionCall.id)) {
        blocks.push({
          type: 'tool_use',
          id: String(p.functionCall.id ?? ''),
          name: String(p.functionCall.name ?? 'tool'),
          input: p.functionCall.args ?? {},
        });
      }
    }
  }
  const model = typeof rec.model === 'string' ? { model: rec.model } : {};
  if (calls.length === 0) return { kind: 'assistant', t, content: blocks, ...model, raw: rec };
  const uses: Rec[] = [];
  const results: Rec[] = [];
  for (const c of calls) {
    const id = String(c.id ?? '');
    uses.push({ type: 'tool_use', id, name: String(c.name ?? 'tool'), input: c.args ?? {} });
    const result = toolResult(c, id);
    if (result) results.push(result);
  }
  const call: MappedEvent = { kind: 'agent', t, messages: [{ role: 'assistant', content: [...blocks, ...uses] }], ...model, raw: rec };
  if (results.length === 0) return call;
  return [call, { kind: 'agent', t, messages: [{ role: 'user', content: results }], raw: rec }];
}

/** The result of a finished tool call; none while the call is still running. */
function toolResult(call: Rec, id: string): Rec | undefined {
  const parts = Array.isArray(call.result) ? call.result : [];
  const outputs: string[] = [];
  let isError = call.status === 'error' || call.status === 'cancelled';
  for (const p of parts) {
    if (!isObj(p) || !isObj(p.functionResponse)) continue;
    const block = responseBlock(p);
    outputs.push(block.content as string);
    if (block.is_error) isError = true;
  }
  if (outputs.length === 0) {
    if (!FINAL_STATUS.has(String(call.status))) return undefined;
    outputs.push(typeof call.resultDisplay === 'string' ? call.resultDisplay : String(call.status));
  }
  return { type: 'tool_result', tool_use_id: id, content: outputs.join('\n'), ...(isError ? { is_error: true } : {}) };
}

export function responseBlock(part: unknown): Rec {
  const fr = (part as Rec).functionResponse as Rec;
  const resp = isObj(fr.response) ? fr.response : {};
  const isError = resp.error !== undefined;
  const content = typeof resp.output === 'string' ? resp.output : typeof resp.error === 'string' ? resp.error : JSON.stringify(resp);
  return { type: 'tool_result', tool_use_id: String(fr.id ?? ''), content, ...(isError ? { is_error: true } : {}) };
}

// ---------------------------------------------------------------------------------------------
// The project folder.

/**
 * The project folder of a session file: the .project_root marker of its project folder (newer
 * versions), else projects.json's entry for that folder's name, else a folder whose sha256 is the
 * session's projectHash (projects.json's entries, the session's directories, and the folders its
 * tool calls named). Else the project's temp folder, with a problem saying so.
 */
async function projectOf(path: string, r: Replay): Promise<{ path: string; known: boolean }> {
  const chats = chatsFolder(path);
  const projectDir = chats ? dirname(chats) : dirname(path);
  const marker = await readSmall(join(projectDir, '.project_root'));
  if (marker && isAbsolute(marker.trim())) return { path: marker.trim(), known: true };
  const registry = parseJson((await readSmall(join(dirname(dirname(projectDir)), 'projects.json'))) ?? '').value;
  const projects = isObj(registry) && isObj(registry.projects) ? registry.projects : {};
  const slug = basename(projectDir);
  for (const [p, name] of Object.entries(projects)) if (name === slug && isAbsolute(p)) return { path: p, known: true };
  const hash = typeof r.meta.projectHash === 'string' ? r.meta.projectHash : HASH_RE.test(slug) ? slug : '';
  if (hash) {
    const candidates = [...Object.keys(projects), ...(Array.isArray(r.meta.directories) ? r.meta.directories : []), ...pathsIn(r)];
    for (const c of candidates) {
      for (let d = String(c); isAbsolute(d); d = dirname(d)) {
        if (createHash('sha256').update(d).digest('hex') === hash) return { path: d, known: true };
        if (dirname(d) === d) break;
      }
    }
  }
  // Nothing says: an "unknown project" of its own (one a hash folder), which `relink` moves to
  // the real folder; never the hash folder under ~/.gemini/tmp as if that were the project.
  return { path: join(UNKNOWN_PROJECT, `gemini-${basename(projectDir)}`), known: false };
}

/** Where sessions whose tool recorded no project folder are listed (relink moves them). */
export const UNKNOWN_PROJECT = join(sep, 'unknown-project');

/** A subagent's message as an agent event of its parent's session (`sidechain: true`). */
function sidechainOf(e: MappedEvent): MappedEvent {
  if (e.kind === 'agent') return { ...e, sidechain: true };
  const role = e.kind === 'user' ? 'user' : 'assistant';
  const text = e.kind === 'compact' ? String(e.briefing) : textOf(e.content);
  return { kind: 'agent', t: e.t, messages: [{ role, content: [{ type: 'text', text }] }], sidechain: true, raw: e.raw };
}

/** A subagent's events placed by time: after the last event of the parent at or before its first. */
function placeSidechain(events: MappedEvent[], sub: MappedEvent[]): void {
  const first = sub.find((e) => e.t !== EPOCH);
  if (!first) return;
  const start = Date.parse(first.t);
  let at = events.length;
  while (at > 0 && Date.parse(events[at - 1]!.t) > start) at--;
  events.splice(at, 0, ...sub);
}

function chatsFolder(path: string): string | undefined {
  for (let d = dirname(path), i = 0; i < 3 && dirname(d) !== d; d = dirname(d), i++) if (basename(d) === 'chats') return d;
  return undefined;
}

/** Absolute paths the session's tool calls named (file_path, dir_path, path, ...). */
function pathsIn(r: Replay): string[] {
  const out = new Set<string>();
  for (const e of r.entries) {
    const raw = e.ev.raw;
    if (!isObj(raw) || !Array.isArray(raw.toolCalls)) continue;
    for (const c of raw.toolCalls) {
      if (!isObj(c) || !isObj(c.args)) continue;
      for (const v of Object.values(c.args)) if (typeof v === 'string' && isAbsolute(v)) out.add(v);
    }
  }
  return [...out];
}

async function readSmall(path: string): Promise<string | undefined> {
  try {
    return await readText(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}
