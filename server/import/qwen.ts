// The Qwen Code importer (@qwen-code/qwen-code): ~/.qwen/projects/<slug>/chats/<id>.jsonl (and
// background subagents' transcripts under <slug>/subagents/), one file a session, appended to.
// Qwen Code forked from Gemini CLI but records differently: not Gemini's message log
// ({id, type: user|gemini, content, toolCalls}, written twice as a message completes) but one
// record a line as Claude Code does ({uuid, parentUuid, sessionId, timestamp, type, cwd, version,
// message}), each written once, whose message is a Gemini `Content` ({role, parts}). So the
// envelope is read here, and the parts as gemini.ts reads them (its responseBlock is reused).
// Maps user and assistant records to our user/assistant events, functionCall parts and
// tool_result records to agent events (pairs kept), `system/chat_compression` to a compact event,
// `system/custom_title` to a title; the rest (telemetry, attribution snapshots, slash commands,
// rewinds, later record kinds) is kept raw. Field notes: ./qwen.md. Pure reading.

import { basename, dirname, join } from 'node:path';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile, SourceRef } from './types.js';
import {
  Clock,
  EPOCH,
  entries,
  exists,
  isFolder,
  isRecord,
  isoTime,
  jsonlLines,
  keptRaw,
  parseJson,
  readText,
  statFile,
  str,
  textOfContent,
  walkFiles,
} from './jsonl.js';
import { responseBlock } from './gemini.js';
import { asSidechain, placeSidechain } from './sidechain.js';

type Rec = Record<string, unknown>;

export const qwen: ImporterModule = {
  defaultRoots(env, home) {
    // Session data goes under QWEN_RUNTIME_DIR when set, else QWEN_HOME, else ~/.qwen.
    const roots = [env.QWEN_RUNTIME_DIR, env.QWEN_HOME].filter((r): r is string => !!r);
    return roots.length > 0 ? [...new Set(roots)] : [join(home, '.qwen')];
  },
  discover,
  read,
  kinds: {
    mapped: ['user', 'assistant', 'tool_result', 'system/chat_compression', 'system/custom_title'],
    hidden: [
      // Bookkeeping Qwen Code writes beside the conversation (0.15-0.24), kept raw, never shown.
      'system/ui_telemetry',
      'system/attribution_snapshot',
      'system/slash_command',
      'system/at_command',
      'system/rewind',
      'system/parent_session',
      'system/session_source',
      'system/session_sources_snapshot',
      'system/session_model',
      'system/turn_result',
      'system/branch_checkpoint',
      'system/file_history_snapshot',
      'system/session_artifact_snapshot',
      'system/session_artifact_event',
      'system/goal_state',
      'system/goal_runtime',
      'system/goal_turn_end',
      'system/session_recording_degraded',
      'system/loop_detected',
      'system/malformed_json_response',
    ],
  },
  kindOf(raw) {
    if (!isRecord(raw) || typeof raw.type !== 'string') return undefined;
    return typeof raw.subtype === 'string' ? `${raw.type}/${raw.subtype}` : raw.type;
  },
};

/** The data folder (holding projects/), one project's folder (holding chats/), or one file. */
async function discover(root: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) return [await statFile(root)];
  const projects = join(root, 'projects');
  const folders: string[] = [];
  if (await exists(projects)) {
    for (const p of await walkDirs(projects)) folders.push(join(projects, p, 'chats'), join(projects, p, 'subagents'));
  } else folders.push(join(root, 'chats'), join(root, 'subagents'));
  if (!(await exists(projects)) && !(await exists(join(root, 'chats')))) {
    throw new Error(`no projects/ or chats/ folder in ${root} (Qwen Code keeps its sessions in ~/.qwen/projects/<project>/chats/)`);
  }
  const out: SourceFile[] = [];
  const subagents: string[] = [];
  for (const f of folders) {
    if (!(await isFolder(f))) continue;
    const files = await walkFiles(f, (n) => n.endsWith('.jsonl'));
    if (basename(f) === 'subagents') subagents.push(...files);
    else for (const p of files) out.push(await statFile(p));
  }
  // A subagent's transcript (subagents/<session id>/agent-<id>.jsonl, 0.2x) is part of its
  // parent's session, read into it as a sidechain; one whose parent is not there stays its own.
  for (const p of subagents) {
    const parentId = basename(dirname(p));
    const parent = out.find((f) => basename(f.path) === `${parentId}.jsonl` && dirname(dirname(f.path)) === dirname(dirname(dirname(p))));
    const st = await statFile(p);
    if (!parent) {
      out.push(st);
      continue;
    }
    parent.parts = [...(parent.parts ?? []), p];
    parent.size += st.size;
    if (st.mtimeNs > parent.mtimeNs) parent.mtimeNs = st.mtimeNs;
  }
  return out;
}

async function walkDirs(dir: string): Promise<string[]> {
  return (await entries(dir)).filter((e) => e.dir).map((e) => e.name);
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  const problems: string[] = [];
  const lines = jsonlLines(await readText(file.path), problems);
  const recs = lines.map((l) => (isRecord(l.value) && !l.unparsed ? l.value : undefined));
  const first = recs.find((r) => r && str(r.sessionId));
  const id = str(first?.sessionId) ?? basename(file.path, '.jsonl');
  const project = str(recs.find((r) => r && str(r.cwd))?.cwd) ?? '';
  const createdAt = isoTime(recs.find((r) => r && isoTime(r.timestamp))?.timestamp) ?? EPOCH;
  const version = str(recs.find((r) => r && str(r.version))?.version);
  const forkedFrom = forkParent(recs, id);
  const source: SourceRef = {
    tool: 'qwen',
    ...(version ? { version } : {}),
    path: file.path,
    id,
    project,
    ...(forkedFrom ? { forkedFrom } : {}),
  };
  if (lines.length === 0 && problems.length === 0) return [];
  if (!project) {
    problems.push('no working folder recorded (no record has a cwd); not imported');
    return [{ source, createdAt, events: [], problems }];
  }
  const clock = new Clock(createdAt);
  const events: MappedEvent[] = [];
  let model: string | undefined;
  lines.forEach((l, i) => {
    const r = recs[i];
    if (!r) return events.push(keptRaw(clock.at(undefined), l.value, l.unparsed ? { unparsed: true, line: l.line } : { line: l.line }));
    const t = clock.at(r.timestamp);
    if (!model && r.type === 'assistant') model = str(r.model);
    events.push(mapRecord(r, t, events.length));
  });
  for (const part of file.parts ?? []) await readSubagent(part, events, createdAt, problems);
  return [{ source, createdAt, ...(model ? { model } : {}), events, problems }];
}

/**
 * The session a `--fork-session` file was forked from: Qwen Code copies the parent's records
 * under the new id, each stamped `forkedFrom: {sessionId, messageUuid}`. `turn`: the parent's
 * prompts the fork copied.
 */
function forkParent(recs: (Rec | undefined)[], own: string): SourceRef['forkedFrom'] {
  const copied = recs.filter(
    (r): r is Rec => !!r && isRecord(r.forkedFrom) && !!str(r.forkedFrom.sessionId) && r.forkedFrom.sessionId !== own,
  );
  if (copied.length === 0) return undefined;
  const turn = copied.filter((r) => r.type === 'user' && r.subtype === undefined && !isResult(r)).length;
  return { id: String((copied[0]!.forkedFrom as Rec).sessionId), turn };
}

function isResult(r: Rec): boolean {
  const parts = isRecord(r.message) && Array.isArray(r.message.parts) ? r.message.parts : [];
  return parts.some((p) => isRecord(p) && isRecord(p.functionResponse));
}

/**
 * A subagent's transcript (subagents/<session id>/agent-<id>.jsonl) as agent events with
 * `sidechain: true`, placed right after the event that made the call starting it (its
 * `.meta.json` names the call: `toolUseId`), else by time.
 */
async function readSubagent(path: string, events: MappedEvent[], createdAt: string, problems: string[]): Promise<void> {
  const sp: string[] = [];
  const lines = jsonlLines(await readText(path), sp);
  problems.push(...sp.map((p) => `${basename(path)}: ${p}`));
  const clock = new Clock(createdAt);
  const sub = asSidechain(
    lines.map((l) => {
      const r = isRecord(l.value) && !l.unparsed ? l.value : undefined;
      if (!r) return keptRaw(clock.at(undefined), l.value, l.unparsed ? { unparsed: true, line: l.line } : { line: l.line });
      return mapRecord(r, clock.at(r.timestamp), 0);
    }),
  );
  if (sub.length === 0) return;
  const meta = parseJson((await readText(path.replace(/\.jsonl$/, '.meta.json')).catch(() => '')) || '').value;
  const call = isRecord(meta) ? str(meta.toolUseId) : undefined;
  const after = call ? events.findIndex((e) => e.kind === 'agent' && JSON.stringify(e.messages).includes(`"id":"${call}"`)) : -1;
  placeSidechain(events, sub, after);
}

function mapRecord(r: Rec, t: string, here: number): MappedEvent {
  const msg = isRecord(r.message) ? r.message : undefined;
  const parts = Array.isArray(msg?.parts) ? msg.parts : undefined;
  if (r.type === 'user' && parts && r.subtype === undefined) {
    const results = parts.filter((p) => isRecord(p) && isRecord(p.functionResponse));
    if (results.length > 0) return { kind: 'agent', t, messages: [{ role: 'user', content: results.map(responseBlock) }], raw: r };
    return { kind: 'user', t, content: textOfContent(parts), raw: r };
  }
  if (r.type === 'assistant' && parts) return assistantOf(parts, t, r);
  if (r.type === 'tool_result' && parts) {
    const blocks = parts.filter((p) => isRecord(p) && isRecord(p.functionResponse)).map(responseBlock);
    if (blocks.length > 0) return { kind: 'agent', t, messages: [{ role: 'user', content: blocks }], raw: r };
  }
  if (r.type === 'system' && isRecord(r.systemPayload)) {
    const p = r.systemPayload;
    if (r.subtype === 'chat_compression')
      return { kind: 'compact', t, briefing: briefingOf(p), coversThrough: Math.max(0, here - 1), raw: r };
    if (r.subtype === 'custom_title' && str(p.customTitle)) {
      return {
        kind: 'title',
        t,
        title: String(p.customTitle).trim().slice(0, 500),
        source: p.titleSource === 'manual' ? 'user' : 'model',
        raw: r,
      };
    }
  }
  return keptRaw(t, r);
}

/** A model message: text and thoughts, and its functionCall parts as tool_use (then an agent event). */
function assistantOf(parts: unknown[], t: string, raw: Rec): MappedEvent {
  const blocks: Rec[] = [];
  for (const p of parts) {
    if (typeof p === 'string') blocks.push({ type: 'text', text: p });
    else if (isRecord(p) && typeof p.text === 'string')
      blocks.push(p.thought === true ? { type: 'thinking', thinking: p.text } : { type: 'text', text: p.text });
    else if (isRecord(p) && isRecord(p.functionCall)) {
      blocks.push({
        type: 'tool_use',
        id: String(p.functionCall.id ?? ''),
        name: String(p.functionCall.name ?? 'tool'),
        input: p.functionCall.args ?? {},
      });
    }
  }
  const model = str(raw.model) ? { model: raw.model } : {};
  if (blocks.some((b) => b.type === 'tool_use'))
    return { kind: 'agent', t, messages: [{ role: 'assistant', content: blocks }], ...model, raw };
  return { kind: 'assistant', t, content: blocks, ...model, raw };
}

/** The compression's summary: the `<state_snapshot>` user turn that opens the compressed history. */
function briefingOf(p: Rec): string {
  const history = Array.isArray(p.compressedHistory) ? p.compressedHistory : [];
  for (const c of history) {
    const text = isRecord(c) ? textOfContent(c.parts).trim() : '';
    if (text) return text;
  }
  return 'Conversation compressed by Qwen Code.';
}
