// The pi importer (@mariozechner/pi-coding-agent): ~/.pi/agent/sessions/--<cwd>--/*.jsonl, one
// file a session, appended to, its entries a tree by id/parentId (a /tree jump or a fork goes on
// from an earlier entry in the same file). Entries are mapped in file order, so a file that only
// grows maps to a list that only grows; the parentId of each is in its raw record. User and
// assistant messages map to our user/assistant events, an assistant's toolCall blocks and the
// toolResult messages to agent events (tool_use/tool_result pairs), `compaction` to a compact
// event, `session_info.name` to a title; everything else (model and thinking-level changes,
// labels, branch summaries, extension entries) is kept raw. Field notes: ./pi.md.
// Pure reading: no store, no writes.

import { basename, join } from 'node:path';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile, SourceRef } from './types.js';
import {
  Clock,
  EPOCH,
  isFolder,
  isRecord,
  isoTime,
  jsonlLines,
  keptRaw,
  readText,
  statFile,
  str,
  textOfContent,
  walkFiles,
} from './jsonl.js';

type Rec = Record<string, unknown>;

export const pi: ImporterModule = {
  defaultRoots(env, home) {
    // pi keeps its sessions under PI_CODING_AGENT_DIR when set, else ~/.pi/agent.
    return [env.PI_CODING_AGENT_DIR || join(home, '.pi', 'agent')];
  },
  discover,
  read,
  // An entry's `type`; a message entry's `message/<role>`.
  kinds: {
    mapped: ['message/user', 'message/assistant', 'message/toolResult', 'message/bashExecution', 'compaction', 'session_info'],
    hidden: ['session', 'model_change', 'thinking_level_change', 'label', 'branch_summary', 'custom', 'custom_message', 'message/custom'],
  },
  kindOf(raw) {
    if (!isRecord(raw) || typeof raw.type !== 'string') return undefined;
    return raw.type === 'message' && isRecord(raw.message) && typeof raw.message.role === 'string'
      ? `message/${raw.message.role}`
      : raw.type;
  },
};

/** The agent folder (holding sessions/), the sessions folder, one project's folder, or one file. */
async function discover(root: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) return [await statFile(root)];
  const sessions = (await isFolder(join(root, 'sessions'))) ? join(root, 'sessions') : root;
  const out: SourceFile[] = [];
  for (const p of await walkFiles(sessions, (n) => n.endsWith('.jsonl'))) out.push(await statFile(p));
  return out;
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  const problems: string[] = [];
  const lines = jsonlLines(await readText(file.path), problems);
  const header = lines.map((l) => l.value).find((v) => isRecord(v) && v.type === 'session') as Rec | undefined;
  if (!header && lines.length === 0) return problems.length ? [emptyOf(file, problems)] : [];
  const id = str(header?.id) ?? basename(file.path, '.jsonl').replace(/^.*_/, '');
  const project = str(header?.cwd) ?? '';
  if (!project) problems.push('no working folder recorded (the session header has no cwd); not imported');
  const createdAt = isoTime(header?.timestamp) ?? EPOCH;
  const version = header && header.version !== undefined ? `session v${String(header.version)}` : undefined;
  // `--fork` and `/fork` start a session whose header names its parent's file (parentSession).
  const parent = str(header?.parentSession);
  const parentId = parent ? basename(parent, '.jsonl').replace(/^.*_/, '') : undefined;
  const source: SourceRef = {
    tool: 'pi',
    ...(version ? { version } : {}),
    path: file.path,
    id,
    project,
    ...(parentId && parentId !== id ? { forkedFrom: { id: parentId } } : {}),
  };
  if (!project) return [{ source, createdAt, events: [], problems }];
  const clock = new Clock(createdAt);
  const events: MappedEvent[] = [];
  /** The index of the event made from each entry id (for a compaction's firstKeptEntryId). */
  const at = new Map<string, number>();
  let model: string | undefined;
  for (const l of lines) {
    const v = l.value;
    if (!isRecord(v) || l.unparsed) {
      events.push(keptRaw(clock.at(undefined), v, l.unparsed ? { unparsed: true, line: l.line } : { line: l.line }));
      continue;
    }
    const t = clock.at(v.timestamp);
    if (typeof v.id === 'string') at.set(v.id, events.length);
    if (v.type === 'message' && isRecord(v.message)) {
      if (!model && v.message.role === 'assistant') model = str(v.message.model);
      events.push(messageEvent(v.message, t, v));
    } else if (v.type === 'compaction') events.push(compactEvent(v, t, at, events.length));
    else if (v.type === 'session_info' && str(v.name))
      events.push({ kind: 'title', t, title: String(v.name).trim().slice(0, 500), source: 'user', raw: v });
    else events.push(keptRaw(t, v));
  }
  return [{ source, createdAt, ...(model ? { model } : {}), events, problems }];
}

function emptyOf(file: SourceFile, problems: string[]): MappedSession {
  const id = basename(file.path, '.jsonl').replace(/^.*_/, '');
  return { source: { tool: 'pi', path: file.path, id, project: '' }, createdAt: EPOCH, events: [], problems };
}

/** One message entry: user, assistant (with tool calls: agent), toolResult (agent), or kept raw. */
function messageEvent(m: Rec, t: string, raw: Rec): MappedEvent {
  if (m.role === 'user') return { kind: 'user', t, content: m.content ?? '', raw };
  if (m.role === 'assistant') {
    const blocks = Array.isArray(m.content) ? m.content.filter(isRecord).map(block) : [{ type: 'text', text: String(m.content ?? '') }];
    const model = str(m.model) ? { model: m.model } : {};
    if (blocks.some((b) => b.type === 'tool_use'))
      return { kind: 'agent', t, messages: [{ role: 'assistant', content: blocks }], ...model, raw };
    return { kind: 'assistant', t, content: blocks, ...model, raw };
  }
  if (m.role === 'toolResult') {
    const result = {
      type: 'tool_result',
      tool_use_id: String(m.toolCallId ?? ''),
      content: textOfContent(m.content),
      ...(m.isError === true ? { is_error: true } : {}),
    };
    return { kind: 'agent', t, messages: [{ role: 'user', content: [result] }], raw };
  }
  // A `!` command the user ran: its command and output as a shell call and result (not a turn).
  if (m.role === 'bashExecution' && typeof m.command === 'string') {
    const id = `bash-${String(raw.id ?? t)}`;
    const output = [str(m.output), m.exitCode !== undefined && m.exitCode !== 0 ? `exit code ${String(m.exitCode)}` : undefined]
      .filter(Boolean)
      .join('\n');
    return {
      kind: 'agent',
      t,
      messages: [
        { role: 'user', content: [{ type: 'tool_use', id, name: 'bash', input: { command: m.command } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output, ...(m.exitCode ? { is_error: true } : {}) }] },
      ],
      shell: true,
      raw,
    };
  }
  // custom, branchSummary, compactionSummary: not turns.
  return keptRaw(t, raw);
}

/** pi's content blocks in our (Anthropic-shaped) form: toolCall is tool_use. */
function block(b: Rec): Rec {
  if (b.type === 'toolCall') return { type: 'tool_use', id: String(b.id ?? ''), name: String(b.name ?? 'tool'), input: b.arguments ?? {} };
  if (b.type === 'thinking') return { type: 'thinking', thinking: String(b.thinking ?? '') };
  if (b.type === 'text') return { type: 'text', text: String(b.text ?? '') };
  return b;
}

/**
 * A compaction: its summary is the briefing; it covers the events before the first kept entry
 * (firstKeptEntryId, or the older firstKeptEntryIndex), else everything before it.
 */
function compactEvent(v: Rec, t: string, at: Map<string, number>, here: number): MappedEvent {
  const kept = typeof v.firstKeptEntryId === 'string' ? at.get(v.firstKeptEntryId) : undefined;
  const coversThrough = Math.max(0, (kept ?? here) - 1);
  return { kind: 'compact', t, briefing: str(v.summary) ?? 'Conversation compacted by pi.', coversThrough, raw: v };
}
