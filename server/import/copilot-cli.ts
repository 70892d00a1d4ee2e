// The GitHub Copilot CLI importer (@github/copilot): ~/.copilot/session-state/<id>/events.jsonl,
// one folder a session ($COPILOT_HOME moves ~/.copilot), an append-only log of events
// {type, id, parentId, timestamp, data}, with workspace.yaml beside it (cwd, name). Maps
// user.message to user events (data.content, what the user typed; transformedContent is what
// the model saw), assistant.message to assistant events (with toolRequests: agent events),
// tool.execution_complete to tool results (pairs by toolCallId), session.compaction_complete to
// a compact event; everything else (session.start/resume/shutdown, turn markers, usage records,
// system messages, tool.execution_start, later kinds) is kept raw. Field notes: ./copilot-cli.md.
// Pure reading: no store, no writes.

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
  readText,
  statFile,
  str,
  textOfContent,
} from './jsonl.js';

type Rec = Record<string, unknown>;

/** Copilot CLI's event types this importer maps and those it keeps hidden (types.ts RecordKinds). */
const KINDS = {
  mapped: ['user.message', 'assistant.message', 'tool.execution_complete', 'session.compaction_complete'],
  hidden: [
    'session.start',
    'session.resume',
    'session.shutdown',
    'session.usage_record',
    'session.compaction_start',
    'session.info',
    'session.model_change',
    'assistant.turn_start',
    'assistant.turn_end',
    'assistant.usage',
    'system.message',
    'tool.execution_start',
    'tool.user_requested',
    'model.*',
    'function',
    'subagent.*',
    'hook.*',
    'skill.*',
  ],
};

function kindOf(raw: unknown): string | undefined {
  if (!isRecord(raw) || typeof raw.type !== 'string') return undefined;
  return raw.type.startsWith('model.') || raw.type.startsWith('subagent.') || raw.type.startsWith('hook.') || raw.type.startsWith('skill.')
    ? `${raw.type.split('.')[0]}.*`
    : raw.type;
}

export const copilotCli: ImporterModule = {
  defaultRoots(env, home) {
    return [env.COPILOT_HOME || join(home, '.copilot')];
  },
  discover,
  read,
  kinds: KINDS,
  kindOf,
};

/** The data folder (holding session-state/), the session-state folder, one session's folder, or one file. */
async function discover(root: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) return [await statFile(root)];
  if (await exists(join(root, 'events.jsonl'))) return [await statFile(join(root, 'events.jsonl'))];
  const state = (await isFolder(join(root, 'session-state'))) ? join(root, 'session-state') : root;
  if (state === root && basename(root) !== 'session-state') {
    throw new Error(`no session-state/ folder in ${root} (Copilot CLI keeps its sessions in ~/.copilot/session-state/)`);
  }
  const out: SourceFile[] = [];
  for (const e of await entries(state)) {
    if (!e.dir || e.name.startsWith('.')) continue;
    const file = join(state, e.name, 'events.jsonl');
    if (await exists(file)) out.push(await statFile(file));
  }
  return out;
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  const problems: string[] = [];
  const lines = jsonlLines(await readText(file.path), problems);
  if (lines.length === 0 && problems.length === 0) return [];
  const recs = lines.map((l) => (isRecord(l.value) && !l.unparsed ? l.value : undefined));
  const start = recs.find((r) => r?.type === 'session.start');
  const sd = isRecord(start?.data) ? start.data : {};
  const ctx = isRecord(sd.context) ? sd.context : {};
  const id = str(sd.sessionId) ?? basename(dirname(file.path));
  const project = str(ctx.cwd) ?? (await cwdOfWorkspace(file.path)) ?? '';
  const version = str(sd.copilotVersion);
  const createdAt = isoTime(sd.startTime) ?? isoTime(start?.timestamp) ?? EPOCH;
  const source: SourceRef = { tool: 'copilot-cli', ...(version ? { version } : {}), path: file.path, id, project };
  if (!project) {
    problems.push('no working folder recorded (session.start context.cwd, workspace.yaml cwd); not imported');
    return [{ source, createdAt, events: [], problems }];
  }
  const clock = new Clock(createdAt);
  const events: MappedEvent[] = [];
  lines.forEach((l, i) => {
    const r = recs[i];
    if (!r) return events.push(keptRaw(clock.at(undefined), l.value, l.unparsed ? { unparsed: true, line: l.line } : { line: l.line }));
    events.push(mapEvent(r, clock.at(r.timestamp), events.length));
  });
  const model = str(sd.selectedModel);
  return [{ source, createdAt, ...(model ? { model } : {}), events, problems }];
}

function mapEvent(r: Rec, t: string, here: number): MappedEvent {
  const ev = mapRecord(r, t, here);
  // A subagent's records carry its agentId: its messages are the parent's sidechain, never turns.
  const d = isRecord(r.data) ? r.data : {};
  if (!str(d.agentId) && !str(r.agentId)) return ev;
  if (ev.kind === 'agent') return { ...ev, sidechain: true };
  if (ev.kind === 'user' || ev.kind === 'assistant') {
    const text = typeof ev.content === 'string' ? ev.content : textOfContent(ev.content);
    return { kind: 'agent', t, messages: [{ role: ev.kind, content: [{ type: 'text', text }] }], sidechain: true, raw: r };
  }
  return ev;
}

function mapRecord(r: Rec, t: string, here: number): MappedEvent {
  const d = isRecord(r.data) ? r.data : {};
  switch (r.type) {
    case 'user.message':
      return typeof d.content === 'string' ? { kind: 'user', t, content: d.content, raw: r } : keptRaw(t, r);
    case 'assistant.message': {
      const text = typeof d.content === 'string' ? d.content : textOfContent(d.content);
      const model = str(d.model) ? { model: d.model } : {};
      const calls = Array.isArray(d.toolRequests) ? d.toolRequests.filter(isRecord) : [];
      // The model's reasoning (reasoningText) is its thinking: a block of its own, searched as such.
      const thinking = str(d.reasoningText) ? [{ type: 'thinking', thinking: d.reasoningText }] : [];
      if (calls.length === 0)
        return {
          kind: 'assistant',
          t,
          content: thinking.length ? [...thinking, ...(text ? [{ type: 'text', text }] : [])] : text,
          ...model,
          raw: r,
        };
      const uses = calls.map((c) => ({
        type: 'tool_use',
        id: String(c.toolCallId ?? ''),
        name: String(c.name ?? 'tool'),
        input: c.arguments ?? {},
      }));
      return {
        kind: 'agent',
        t,
        messages: [{ role: 'assistant', content: [...thinking, ...(text ? [{ type: 'text', text }] : []), ...uses] }],
        ...model,
        raw: r,
      };
    }
    case 'tool.execution_complete': {
      const result = isRecord(d.result) ? d.result : {};
      const content =
        typeof result.content === 'string'
          ? result.content
          : typeof d.error === 'string'
            ? d.error
            : JSON.stringify(d.result ?? d.error ?? '');
      const block = {
        type: 'tool_result',
        tool_use_id: String(d.toolCallId ?? ''),
        content,
        ...(d.success === false ? { is_error: true } : {}),
      };
      return { kind: 'agent', t, messages: [{ role: 'user', content: [block] }], raw: r };
    }
    case 'session.compaction_complete': {
      const briefing = str(d.summaryContent) ?? str(d.summary) ?? 'Conversation compacted by Copilot CLI.';
      return { kind: 'compact', t, briefing, coversThrough: Math.max(0, here - 1), raw: r };
    }
    default:
      return keptRaw(t, r);
  }
}

/** workspace.yaml's `cwd:` line (a flat YAML file written beside events.jsonl). */
async function cwdOfWorkspace(eventsPath: string): Promise<string | undefined> {
  try {
    const text = await readText(join(dirname(eventsPath), 'workspace.yaml'));
    const m = /^cwd:\s*['"]?(.+?)['"]?\s*$/m.exec(text);
    return m ? m[1] : undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
