// The Continue importer (the `cn` CLI, @continuedev/cli, and the IDE extensions that share its
// folder): ~/.continue/sessions/<id>.json, one JSON document a session ({sessionId, title,
// workspaceDirectory, history: [{message, contextItems, toolCallStates?, conversationSummary?}]}),
// rewritten whole every turn, and sessions.json, the list of them. A compaction rewrites the
// document too: the history becomes the summary item (and the system message), the turns before
// it gone from the file. Every history item maps to an event with the item verbatim as its raw
// record, so the engine's ledger (which appends only events whose raw record it has not seen)
// keeps every turn we imported before a rewrite and appends the summary as a compact event.
// User messages map to user events, assistant messages to assistant events (with tool calls:
// agent events, their results from toolCallStates as the next agent event), `tool` messages to
// tool results; system messages and unknown items are kept raw. Field notes: ./continue.md.

import { basename, join } from 'node:path';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile, SourceRef } from './types.js';
import { EPOCH, isFolder, isRecord, keptRaw, parseJson, readText, statFile, str, textOfContent } from './jsonl.js';
import { entries } from './jsonl.js';

type Rec = Record<string, unknown>;

export const continueDev: ImporterModule = {
  defaultRoots(env, home) {
    return [env.CONTINUE_GLOBAL_DIR || join(home, '.continue')];
  },
  discover,
  read,
  // A history item (`item/<role>`), a tool-calling message (`message/assistant`), the title, or
  // the document's other keys (`document/<key>`).
  kinds: {
    mapped: ['item/user', 'item/assistant', 'item/tool', 'item/summary', 'message/assistant', 'title'],
    hidden: ['item/system'],
  },
  kindOf(raw) {
    if (!isRecord(raw)) return undefined;
    if (isRecord(raw.message)) return typeof raw.conversationSummary === 'string' ? 'item/summary' : `item/${String(raw.message.role)}`;
    if (typeof raw.role === 'string') return `message/${raw.role}`;
    const keys = Object.keys(raw);
    return keys.length === 1 && keys[0] === 'title' ? 'title' : `document/${keys.sort().join(',')}`;
  },
};

/** The data folder (holding sessions/), the sessions folder, or one session file. */
async function discover(root: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) return [await statFile(root)];
  const folder = (await isFolder(join(root, 'sessions'))) ? join(root, 'sessions') : root;
  if (folder === root && basename(root) !== 'sessions') {
    throw new Error(`no sessions/ folder in ${root} (Continue keeps its sessions in ~/.continue/sessions/)`);
  }
  const out: SourceFile[] = [];
  for (const e of await entries(folder))
    if (e.file && e.name.endsWith('.json') && e.name !== 'sessions.json') out.push(await statFile(join(folder, e.name)));
  return out;
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  const problems: string[] = [];
  const text = await readText(file.path);
  const fallbackId = basename(file.path, '.json');
  const { value, deep } = parseJson(text);
  if (!isRecord(value)) {
    problems.push(
      deep
        ? 'the session file nests deeper than can be stored; not imported'
        : 'the session file is not complete JSON (Continue may be writing it); read again on a later run',
    );
    return [{ source: { tool: 'continue', path: file.path, id: fallbackId, project: '' }, createdAt: EPOCH, events: [], problems }];
  }
  const id = str(value.sessionId) ?? fallbackId;
  const listed = await listedEntry(file.path, id, problems);
  const project = str(value.workspaceDirectory) ?? str(listed?.workspaceDirectory) ?? '';
  const created = Number(listed?.dateCreated);
  const listedBirth = Number.isFinite(created) && created > 0;
  const createdAt = listedBirth ? new Date(created).toISOString() : new Date(Number(file.mtimeNs / 1_000_000n)).toISOString();
  // Not in sessions.json: the file's time shows as its birth, but our id must not follow it (a
  // rewrite every turn would make a new copy each time): it comes from the sessionId alone.
  const idTime = listedBirth ? undefined : EPOCH;
  const source: SourceRef = { tool: 'continue', path: file.path, id, project };
  if (!project) {
    problems.push('no workspace folder recorded (workspaceDirectory); not imported');
    return [{ source, createdAt, events: [], problems }];
  }
  // The document has no times of its own: every event takes the session's creation time.
  const t = createdAt;
  const events: MappedEvent[] = [];
  const history = Array.isArray(value.history) ? value.history : [];
  if (!Array.isArray(value.history)) problems.push('the session file has no history list; nothing to import');
  for (const item of history) events.push(...itemEvents(item, t, events.length));
  const title = str(value.title);
  if (title && title !== 'Untitled Session')
    events.push({ kind: 'title', t, title: title.trim().slice(0, 500), source: 'model', raw: { title } });
  const rest = Object.fromEntries(
    Object.entries(value).filter(([k]) => !['sessionId', 'title', 'workspaceDirectory', 'history', 'usage'].includes(k)),
  );
  if (Object.keys(rest).length > 0) events.push(keptRaw(t, rest));
  const model = history
    .map((h) => (isRecord(h) && isRecord(h.message) && isRecord(h.message.usage) ? str(h.message.usage.model) : undefined))
    .find(Boolean);
  return [{ source, createdAt, ...(idTime ? { idTime } : {}), ...(model ? { model } : {}), events, problems }];
}

/** sessions.json's entry for the session (its creation time), when the list is there and readable. */
async function listedEntry(path: string, id: string, problems: string[]): Promise<Rec | undefined> {
  let text: string;
  try {
    text = await readText(join(path, '..', 'sessions.json'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    problems.push(`sessions.json could not be read (${(e as Error).message}); the session's creation time is the file's`);
    return undefined;
  }
  const list = parseJson(text).value;
  return Array.isArray(list) ? (list.find((s) => isRecord(s) && s.sessionId === id) as Rec | undefined) : undefined;
}

/** One history item to its events (an assistant item with tool calls gives the call and its results). */
function itemEvents(item: unknown, t: string, here: number): MappedEvent[] {
  if (!isRecord(item) || !isRecord(item.message)) return [keptRaw(t, item)];
  const m = item.message;
  if (typeof item.conversationSummary === 'string' && item.conversationSummary.trim()) {
    return [{ kind: 'compact', t, briefing: item.conversationSummary.trim(), coversThrough: Math.max(0, here - 1), raw: item }];
  }
  if (m.role === 'user') return [{ kind: 'user', t, content: m.content ?? '', raw: item }];
  if (m.role === 'tool') {
    const result = { type: 'tool_result', tool_use_id: String(m.toolCallId ?? ''), content: textOfContent(m.content) };
    return [{ kind: 'agent', t, messages: [{ role: 'user', content: [result] }], raw: item }];
  }
  if (m.role !== 'assistant') return [keptRaw(t, item)];
  const text = typeof m.content === 'string' ? m.content : textOfContent(m.content);
  const calls = Array.isArray(m.toolCalls) ? m.toolCalls.filter(isRecord) : [];
  if (calls.length === 0) return [{ kind: 'assistant', t, content: text, raw: item }];
  const uses = calls.map((c) => {
    const fn = isRecord(c.function) ? c.function : {};
    return { type: 'tool_use', id: String(c.id ?? ''), name: String(fn.name ?? 'tool'), input: argsOf(fn.arguments) };
  });
  // The call's raw record is the message (it does not change); the whole item, whose
  // toolCallStates Continue updates as the call runs, is the raw record of the results.
  const call: MappedEvent = {
    kind: 'agent',
    t,
    messages: [{ role: 'assistant', content: [...(text ? [{ type: 'text', text }] : []), ...uses] }],
    raw: m,
  };
  const states = Array.isArray(item.toolCallStates) ? item.toolCallStates.filter(isRecord) : [];
  const results = states
    .filter((s) => s.status === 'done' || s.status === 'errored' || s.status === 'canceled' || Array.isArray(s.output))
    .map((s) => ({
      type: 'tool_result',
      tool_use_id: String(s.toolCallId ?? ''),
      content: outputOf(s),
      ...(s.status === 'errored' ? { is_error: true } : {}),
    }));
  if (results.length === 0) return [call];
  return [call, { kind: 'agent', t, messages: [{ role: 'user', content: results }], raw: item }];
}

function argsOf(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? {};
  const parsed = parseJson(v).value;
  return parsed === undefined ? { arguments: v } : parsed;
}

function outputOf(s: Rec): string {
  if (!Array.isArray(s.output)) return String(s.status ?? '');
  return s.output.map((o) => (isRecord(o) && typeof o.content === 'string' ? o.content : '')).join('\n');
}
