// The Codex CLI importer: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl and
// $CODEX_HOME/archived_sessions/ (field notes in ./codex.md). Maps the user's prompts to user
// events, answers to assistant events, function/custom/shell tool calls with their outputs,
// reasoning and web searches to agent events, `compacted` to a compact event, and keeps every
// other record whole (session_meta, turn_context, event_msg, records of later versions).
// Reads both layouts: the enveloped one ({timestamp, type, payload}, 0.2x and later) and the
// earlier bare one (a first line {id, timestamp, instructions}, then bare response items).
// Pure reading: no store, no writes.

import { basename, dirname, join } from 'node:path';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile, SourceRef } from './types.js';
import {
  Clock,
  EPOCH,
  exists,
  isFolder,
  isRecord,
  isoTime,
  jsonlBatches,
  keptRaw,
  readAgain,
  readJsonl,
  STREAM_BYTES,
  statFile,
  str,
  textOfContent,
  walkFiles,
  type SourceLine,
} from './jsonl.js';

/** What Codex puts in user-role messages for the model that the user did not type. */
const CONTEXT_PREFIX =
  /^\s*(<environment_context>|<user_instructions>|<user_shell_command>|<turn_aborted>|# AGENTS\.md instructions|<INSTRUCTIONS>)/;
const AGENT_ITEMS = new Set([
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'reasoning',
  'web_search_call',
  'tool_search_call',
  'image_generation_call',
]);
/** The record kinds this importer maps and keeps hidden (types.ts RecordKinds): `type`, or `type/payload.type`. */
const KINDS = {
  mapped: ['compacted', 'event_msg/user_message', ...[...AGENT_ITEMS, 'message'].map((t) => `response_item/${t}`)],
  hidden: [
    'session_meta',
    'turn_context',
    'token_usage_record',
    'world_state',
    'event_msg/agent_message',
    'event_msg/agent_reasoning',
    'event_msg/context_compacted',
    'event_msg/item_completed',
    'event_msg/task_complete',
    'event_msg/task_started',
    'event_msg/thread_settings_applied',
    'event_msg/token_count',
    'event_msg/turn_aborted',
    'event_msg/exec_command_end',
    'event_msg/patch_apply_end',
    'event_msg/web_search_end',
    'event_msg/entered_review_mode',
    'event_msg/exited_review_mode',
  ],
};

function kindOf(raw: unknown): string | undefined {
  const r = envelope(raw, false);
  if (!r) return isRecord(raw) && typeof raw.type === 'string' ? raw.type : undefined;
  const sub = r.type === 'event_msg' || r.type === 'response_item' ? str(r.payload.type) : undefined;
  return sub ? `${r.type}/${sub}` : r.type;
}

const ID_IN_NAME = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

export const codex: ImporterModule = {
  defaultRoots(env, home) {
    return [env.CODEX_HOME || join(home, '.codex')];
  },
  discover,
  read,
  kinds: KINDS,
  kindOf,
};

async function discover(root: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) return [await statFile(root)];
  const dirs = [join(root, 'sessions'), join(root, 'archived_sessions')];
  const found = [];
  for (const d of dirs) if (await exists(d)) found.push(d);
  if (found.length === 0)
    throw new Error(`no sessions/ or archived_sessions/ folder in ${root} (Codex keeps its rollouts in $CODEX_HOME/sessions/YYYY/MM/DD/)`);
  const out: SourceFile[] = [];
  for (const d of found)
    for (const p of await walkFiles(d, (n) => n.startsWith('rollout-') && n.endsWith('.jsonl'))) out.push(await statFile(p));
  return out;
}

interface Rec {
  t: unknown;
  type: string;
  payload: Record<string, unknown>;
}

/** A line as (time, type, payload), whichever layout wrote it. */
function envelope(v: unknown, first: boolean): Rec | undefined {
  if (!isRecord(v)) return undefined;
  if (typeof v.type === 'string' && isRecord(v.payload)) return { t: v.timestamp, type: v.type, payload: v.payload };
  if (first && typeof v.id === 'string' && v.type === undefined) return { t: v.timestamp, type: 'session_meta', payload: v };
  if (typeof v.type === 'string' && v.payload === undefined && (v.type === 'message' || AGENT_ITEMS.has(v.type)))
    return { t: v.timestamp, type: 'response_item', payload: v };
  return undefined;
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  return readRollout(file, 0);
}

/** Forks of forks are followed this deep (a cycle of forked_from_id never recurses forever). */
const MAX_FORK_DEPTH = 8;

async function readRollout(file: SourceFile, depth: number): Promise<MappedSession[]> {
  if (depth === 0 && file.size >= STREAM_BYTES) {
    const streamed = await readStreamed(file);
    if (streamed) return streamed;
  }
  const problems: string[] = [];
  const lines = await readJsonl(file.path, problems);
  const recs = lines.map((l, i) => envelope(l.value, i === 0));
  const h = new RolloutHead();
  for (const r of recs) h.add(r);
  const { meta, createdAt, id, project, version, model, promptsLogged } = h.session(file);
  if (!project) problems.push(NO_FOLDER);
  // A fork (`codex fork`, recent versions) points to its parent instead of copying it.
  const parent = str(meta?.forked_from_id);
  const history =
    parent && parent !== id && depth < MAX_FORK_DEPTH ? await parentHistory(file, parent, meta!, createdAt, depth, problems) : [];
  const turn = history.filter((e) => e.kind === 'user').length;
  const source: SourceRef = {
    tool: 'codex',
    ...(version ? { version } : {}),
    path: file.path,
    id,
    project,
    ...(parent && parent !== id ? { forkedFrom: { id: parent, ...(history.length ? { turn } : {}) } } : {}),
  };
  const clock = new Clock(createdAt);
  const own: MappedEvent[] = lines.map((l, i) => mapRecord(l, recs[i], clock, promptsLogged));
  // A fork's file holds only what came after the fork: Codex resumes it with its parent's
  // history first, and so does our copy (the parent's records verbatim, then the fork's).
  const events = history.length ? [...history, ...own] : own;
  if (!project) return [{ source, createdAt, events: [], problems }];
  return [{ source, createdAt, ...(model ? { model } : {}), events, problems }];
}

const NO_FOLDER = 'no working folder recorded (session_meta.cwd); not imported';

/** What a rollout's records say of the whole session, gathered a record at a time (both reads). */
class RolloutHead {
  meta?: Record<string, unknown>;
  ctx?: Record<string, unknown>;
  firstT?: string;
  /**
   * Versions that log the user's prompts as event_msg user_message put everything else a
   * user-role message carries (instructions, environment) in response items: those are context.
   */
  promptsLogged = false;

  add(r: Rec | undefined): void {
    if (!r) return;
    if (r.type === 'session_meta') this.meta ??= r.payload;
    if (r.type === 'turn_context') this.ctx ??= r.payload;
    this.firstT ??= isoTime(r.t);
    if (r.type === 'event_msg' && r.payload.type === 'user_message') this.promptsLogged = true;
  }

  session(file: SourceFile) {
    const meta = this.meta;
    return {
      meta,
      createdAt: isoTime(meta?.timestamp) ?? this.firstT ?? EPOCH,
      id: str(meta?.id) ?? ID_IN_NAME.exec(file.path)?.[1] ?? basename(file.path, '.jsonl'),
      project: str(meta?.cwd) ?? str(this.ctx?.cwd) ?? '',
      version: str(meta?.cli_version),
      model: str(this.ctx?.model),
      promptsLogged: this.promptsLogged,
    };
  }
}

/** One line (`r`: its envelope) as an event; `clock` stamps one without a time of its own. */
function mapRecord(l: SourceLine, r: Rec | undefined, clock: Clock, promptsLogged: boolean): MappedEvent {
  const raw = l.value;
  if (!r) return keptRaw(clock.at(isRecord(raw) ? raw.timestamp : undefined), raw, l.unparsed ? { unparsed: true } : {});
  const t = clock.at(r.t ?? r.payload.timestamp);
  if (r.type === 'compacted') return compactOf(r.payload, t, raw);
  if (r.type === 'event_msg' && r.payload.type === 'user_message' && promptsLogged) {
    const text = str(r.payload.message);
    return text ? { kind: 'user', t, content: text, raw } : keptRaw(t, raw);
  }
  if (r.type !== 'response_item') return keptRaw(t, raw);
  return responseItem(r.payload, t, raw, promptsLogged);
}

/**
 * A large rollout read in two passes, so that its records are never all held (as claude-code.ts
 * readStreamed): the first keeps its session_meta and first turn_context, its first time and
 * whether prompts are logged as event_msg; the second maps a line at a time as the engine writes
 * them. A fork (its parent's history comes first) is left to readRollout: undefined.
 */
async function readStreamed(file: SourceFile): Promise<MappedSession[] | undefined> {
  const problems: string[] = [];
  const lineNos: number[] = [];
  const h = new RolloutHead();
  let end = 0;
  for await (const b of jsonlBatches(file.path, problems, Number.POSITIVE_INFINITY, true)) {
    for (const l of b.lines) {
      h.add(envelope(l.value, lineNos.length === 0));
      lineNos.push(l.line);
    }
    end = b.end;
  }
  const { meta, createdAt, id, project, version, model, promptsLogged } = h.session(file);
  if (str(meta?.forked_from_id) && meta?.forked_from_id !== id) return undefined;
  const source: SourceRef = { tool: 'codex', ...(version ? { version } : {}), path: file.path, id, project };
  if (!project) {
    problems.push(NO_FOLDER);
    return [{ source, createdAt, events: [], problems }];
  }
  async function* events(): AsyncGenerator<MappedEvent> {
    const clock = new Clock(createdAt);
    let i = 0;
    for await (const l of readAgain(file.path, end, lineNos)) yield mapRecord(l, envelope(l.value, i++ === 0), clock, promptsLogged);
  }
  return [{ source, createdAt, ...(model ? { model } : {}), events: [], streamed: { count: lineNos.length, events }, problems }];
}

function responseItem(p: Record<string, unknown>, t: string, raw: unknown, promptsLogged: boolean): MappedEvent {
  const type = str(p.type);
  if (type === 'message') {
    if (p.role === 'assistant') return { kind: 'assistant', t, content: p.content ?? '', raw };
    if (p.role === 'user') {
      const text = textOfContent(p.content);
      if (promptsLogged || CONTEXT_PREFIX.test(text)) return { kind: 'agent', t, messages: [p], context: true, raw };
      return { kind: 'user', t, content: p.content ?? '', raw };
    }
    return keptRaw(t, raw);
  }
  if (type && AGENT_ITEMS.has(type)) return { kind: 'agent', t, messages: [p], raw };
  return keptRaw(t, raw);
}

function compactOf(p: Record<string, unknown>, t: string, raw: unknown): MappedEvent {
  let briefing = (str(p.message) ?? '').trim();
  if (!briefing && Array.isArray(p.replacement_history)) {
    const users = p.replacement_history
      .filter((m) => isRecord(m) && m.role === 'user')
      .map((m) => textOfContent((m as Record<string, unknown>).content));
    briefing = (users[users.length - 1] ?? '').trim();
  }
  return { kind: 'compact', t, briefing: briefing || 'Conversation compacted by Codex.', coversThrough: 0, raw };
}

/**
 * The parent's history a fork goes on from: the parent rollout's records (its own history first,
 * when it is a fork too) before `forked_from_ordinal_exclusive` (the ordinals run on across a
 * fork), or before a numeric `history_base`; with neither, those up to the fork's birth. The
 * parent is looked for in the same Codex home (sessions/ and archived_sessions/); not found,
 * the fork is imported alone with a problem saying so.
 */
async function parentHistory(
  file: SourceFile,
  parent: string,
  meta: Record<string, unknown>,
  createdAt: string,
  depth: number,
  problems: string[],
): Promise<MappedEvent[]> {
  const path = await findRollout(file.path, parent).catch(() => undefined);
  if (!path) {
    problems.push(`the fork's parent session ${parent} was not found beside it; imported without the parent's history`);
    return [];
  }
  const [session] = await readRollout({ path, size: 0, mtimeNs: 0n }, depth + 1);
  if (!session) return [];
  const bound = typeof meta.forked_from_ordinal_exclusive === 'number' ? meta.forked_from_ordinal_exclusive : meta.history_base;
  const out: MappedEvent[] = [];
  for (const ev of session.events) {
    const ordinal = isRecord(ev.raw) ? ev.raw.ordinal : undefined;
    if (typeof bound === 'number' && typeof ordinal === 'number') {
      if (ordinal >= bound) break;
    } else if (Date.parse(ev.t) > Date.parse(createdAt)) break;
    out.push(ev);
  }
  return out;
}

/** The rollout file of a session id in the Codex home the file is in (its sessions/ or archived_sessions/). */
async function findRollout(from: string, id: string): Promise<string | undefined> {
  let home = dirname(from);
  while (!['sessions', 'archived_sessions'].includes(basename(home))) {
    if (dirname(home) === home) return undefined;
    home = dirname(home);
  }
  home = dirname(home);
  for (const d of [join(home, 'sessions'), join(home, 'archived_sessions')]) {
    if (!(await exists(d))) continue;
    const hit = await walkFiles(d, (n) => n.startsWith('rollout-') && n.endsWith(`${id}.jsonl`));
    if (hit.length) return hit.sort()[0];
  }
  return undefined;
}
