// The Cline and Roo Code importers (one format, two tool names): the VS Code extensions keep a
// task a folder, <user data>/User/globalStorage/<extension id>/tasks/<task id>/, holding
// api_conversation_history.json (the Anthropic messages sent to the model, one JSON array
// rewritten whole after each message), ui_messages.json (what the panel showed, with times) and
// task_metadata.json; the task list is state/taskHistory.json (newer Cline) beside tasks/. The
// `cline` CLI keeps the same layout under ~/.cline/data. Each API message becomes one event,
// the message verbatim as its raw record, so a rewrite that only appended maps to the same
// events plus the new ones. ui_messages gives the times (kept on disk, not copied).
// Field notes in ./cline.md. Pure reading: no store, no writes.

import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { asSidechain, placeSidechain } from './sidechain.js';
import { vscodeUserData } from './vscode-chat.js';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile } from './types.js';
import { Clock, EPOCH, entries, exists, isFolder, isRecord, isoTime, keptRaw, parseJson, readText, statFile, str } from './jsonl.js';

type Rec = Record<string, unknown>;

const API_FILE = 'api_conversation_history.json';
const UI_FILE = 'ui_messages.json';
const META_FILE = 'task_metadata.json';

/** Editors of the VS Code family where the extensions install, beyond those of the vscode importer. */
const MORE_EDITORS = ['Cursor', 'Windsurf'];

function makeImporter(tool: string, extensionId: string, cliData?: (env: NodeJS.ProcessEnv, home: string) => string): ImporterModule {
  return {
    defaultRoots(env, home) {
      const userData = vscodeUserData(env, home);
      const first = userData[0];
      if (first) for (const e of MORE_EDITORS) userData.push(join(dirname(first), e));
      const roots = userData.map((u) => join(u, 'User', 'globalStorage', extensionId));
      if (cliData) roots.push(cliData(env, home));
      return roots;
    },
    discover: (root) => discoverTasks(root, extensionId),
    read: (file) => readTask(file, tool),
    // An API message (`message/<role>`) or the title; nothing else is kept.
    kinds: { mapped: ['message/user', 'message/assistant', 'title'], hidden: [] },
    kindOf(raw) {
      if (!isRecord(raw)) return undefined;
      if (typeof raw.role === 'string') return `message/${raw.role}`;
      return typeof raw.title === 'string' ? 'title' : undefined;
    },
  };
}

export const cline = makeImporter('cline', 'saoudrizwan.claude-dev', (env, home) => join(env.CLINE_DIR || join(home, '.cline'), 'data'));
export const rooCode = makeImporter('roo-code', 'rooveterinaryinc.roo-cline');

// ---- discovery ---------------------------------------------------------------------------------

/**
 * The tasks under a root: the extension's storage folder (holding tasks/), a user-data folder
 * (User/globalStorage/<id>/ inside), a tasks/ folder, one task's folder, or its history file.
 */
async function discoverTasks(root: string, extensionId: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) return [await taskFile(join(dirname(root), API_FILE))];
  const inUserData = join(root, 'User', 'globalStorage', extensionId);
  const base = (await isFolder(inUserData)) ? inUserData : root;
  if (await exists(join(base, API_FILE))) return [await taskFile(join(base, API_FILE))];
  if (await isFolder(join(base, 'sessions'))) return cliSessions(join(base, 'sessions'));
  const tasks = (await isFolder(join(base, 'tasks'))) ? join(base, 'tasks') : basename(base) === 'tasks' ? base : undefined;
  if (!tasks)
    throw new Error(
      `no tasks/ folder in ${root} (the extension keeps its tasks in <user data>/User/globalStorage/${extensionId}/tasks/<id>/)`,
    );
  const out: SourceFile[] = [];
  for (const e of await entries(tasks)) {
    const api = join(tasks, e.name, API_FILE);
    if (e.dir && (await exists(api))) out.push(await taskFile(api));
  }
  return out;
}

/** The cline CLI 3.x: sessions/<id>/<id>.messages.json, with <id>.json (the session's cwd, times, title) as a part. */
async function cliSessions(dir: string): Promise<SourceFile[]> {
  const out: SourceFile[] = [];
  for (const e of await entries(dir)) {
    const messages = join(dir, e.name, `${e.name}.messages.json`);
    if (!e.dir || !(await exists(messages))) continue;
    const f: SourceFile = await statFile(messages);
    // The manifest (<id>.json) and the subagents' transcripts (agent_*.messages.json, 3.x's
    // spawn_agent) are parts of the session: their changes count as its.
    const parts = [join(dir, e.name, `${e.name}.json`)];
    for (const x of await entries(join(dir, e.name)))
      if (x.file && x.name.startsWith('agent_') && x.name.endsWith('.messages.json')) parts.push(join(dir, e.name, x.name));
    for (const p of parts) {
      if (!(await exists(p))) continue;
      const st = await statFile(p);
      f.parts = [...(f.parts ?? []), p];
      f.size += st.size;
      if (st.mtimeNs > f.mtimeNs) f.mtimeNs = st.mtimeNs;
    }
    out.push(f);
  }
  return out;
}

/** The task's history file, with ui_messages.json as a part (its changes count as the task's). */
async function taskFile(api: string): Promise<SourceFile> {
  const f = await statFile(api);
  const ui = join(dirname(api), UI_FILE);
  if (!(await exists(ui))) return f;
  const u = await statFile(ui);
  return { path: f.path, size: f.size + u.size, mtimeNs: u.mtimeNs > f.mtimeNs ? u.mtimeNs : f.mtimeNs, parts: [ui] };
}

// ---- reading -----------------------------------------------------------------------------------

async function readJson(path: string): Promise<unknown> {
  if (!(await exists(path))) return undefined;
  return parseJson(await readText(path)).value;
}

async function readTask(file: SourceFile, tool: string): Promise<MappedSession[]> {
  if (file.path.endsWith('.messages.json')) return readCliSession(file, tool);
  const dir = dirname(file.path);
  const id = basename(dir);
  const problems: string[] = [];
  const { value, deep } = parseJson(await readText(file.path));
  const ui = await readJson(join(dir, UI_FILE)).catch(() => undefined);
  const uiList = Array.isArray(ui) ? ui.filter(isRecord) : [];
  const meta = await readJson(join(dir, META_FILE)).catch(() => undefined);
  const item = await historyItem(dir, id);
  if (!Array.isArray(value)) {
    problems.push(
      deep
        ? 'the task history nests deeper than can be stored; not imported'
        : 'the task history is not complete JSON (the extension may be writing it); read again next time',
    );
  }
  const messages: unknown[] = Array.isArray(value) ? value : [];
  const createdAt =
    isoTime(uiList[0]?.ts) ??
    (isRecord(messages[0]) ? isoTime(messages[0].ts) : undefined) ??
    (/^\d{13}$/.test(id) ? isoTime(Number(id)) : undefined) ??
    isoTime(item?.ts) ??
    EPOCH;
  const project = str(item?.cwdOnTaskInitialization) ?? str(item?.workspace) ?? cwdFromMessages(messages);
  if (!project && messages.length) problems.push(`the task records no working folder; it is filed under ${homedir()}`);
  const envs = isRecord(meta) && Array.isArray(meta.environment_history) ? meta.environment_history.filter(isRecord) : [];
  const version = envs.map((e) => str(e.cline_version) ?? str(e.extension_version)).find(Boolean);
  const usage = isRecord(meta) && Array.isArray(meta.model_usage) ? meta.model_usage.filter(isRecord) : [];
  const model = usage.map((u) => str(u.model_id)).find(Boolean);
  const requests = uiList.filter((m) => m.say === 'api_req_started').map((m) => m.ts);
  const events = mapMessages(messages, createdAt, requests);
  return [
    {
      source: { tool, ...(version ? { version } : {}), path: file.path, id, project: project ?? homedir() },
      createdAt,
      ...(model ? { model } : {}),
      events,
      problems,
    },
  ];
}

/** A session of the cline CLI 3.x: {messages: [...]} beside {session_id, cwd, started_at, metadata: {title}}. */
async function readCliSession(file: SourceFile, tool: string): Promise<MappedSession[]> {
  const id = basename(file.path, '.messages.json');
  const problems: string[] = [];
  const { value } = parseJson(await readText(file.path));
  const meta = await readJson(join(dirname(file.path), `${id}.json`)).catch(() => undefined);
  const m = isRecord(meta) ? meta : {};
  if (!isRecord(value) || !Array.isArray(value.messages))
    problems.push('the session file is not complete JSON (cline may be writing it); read again next time');
  const messages: unknown[] = isRecord(value) && Array.isArray(value.messages) ? value.messages : [];
  const createdAt = isoTime(m.started_at) ?? (isRecord(messages[0]) ? isoTime(messages[0].ts) : undefined) ?? EPOCH;
  const project = str(m.cwd) ?? str(m.workspace_root) ?? cwdFromMessages(messages);
  if (!project && messages.length) problems.push(`the session records no working folder; it is filed under ${homedir()}`);
  const origin = isRecord(value) && isRecord(value.origin) ? value.origin : {};
  const version = str(origin.version);
  const model = str(m.model);
  const title = isRecord(m.metadata) ? str(m.metadata.title) : undefined;
  const events = mapMessages(messages, createdAt, []);
  // Each subagent's transcript, a sidechain placed by time (its first message comes after the
  // spawn_agent call that started it, before the call's result).
  for (const part of (file.parts ?? []).filter((p) => basename(p).startsWith('agent_'))) {
    const sub = parseJson(await readText(part)).value;
    const list: unknown[] = isRecord(sub) && Array.isArray(sub.messages) ? sub.messages : [];
    if (!isRecord(sub)) problems.push(`${basename(part)} is not complete JSON (cline may be writing it); read again next time`);
    placeSidechain(events, asSidechain(mapMessages(list, createdAt, [])));
  }
  // cline sets the title from the prompt: a title of the model's kind, after the first event.
  if (title && events.length && title !== textOf((events[0] as { content?: unknown }).content))
    events.push({ kind: 'title', t: events[events.length - 1]!.t, title, source: 'model', raw: { title } });
  return [
    {
      source: { tool, ...(version ? { version } : {}), path: file.path, id, project: project ?? homedir() },
      createdAt,
      ...(model ? { model } : {}),
      events,
      problems,
    },
  ];
}

/** The task's entry in state/taskHistory.json beside tasks/ (newer Cline; older keep it in VS Code's state database). */
async function historyItem(taskDir: string, id: string): Promise<Rec | undefined> {
  const list = await readJson(join(dirname(dirname(taskDir)), 'state', 'taskHistory.json')).catch(() => undefined);
  return Array.isArray(list) ? list.find((x): x is Rec => isRecord(x) && x.id === id) : undefined;
}

/** Both extensions tell the model the folder in each prompt's environment details. */
const CWD = /# Current (?:Working|Workspace) Directory \(([^)\n]+)\) Files/;

function cwdFromMessages(messages: unknown[]): string | undefined {
  for (const m of messages.slice(0, 4)) {
    const hit = CWD.exec(JSON.stringify(isRecord(m) ? m.content : ''));
    const cwd = hit?.[1];
    if (cwd?.startsWith('/')) return cwd.replace(/\\\\/g, '\\');
  }
  return undefined;
}

/** One event a message; user messages take the time of the API request they started, when ui_messages has it. */
function mapMessages(messages: unknown[], createdAt: string, requests: unknown[]): MappedEvent[] {
  const clock = new Clock(createdAt);
  let asked = 0;
  return messages.map((m) => {
    if (!isRecord(m)) return keptRaw(clock.at(undefined), m);
    const t = clock.at(m.ts ?? (m.role === 'user' ? requests[asked++] : undefined));
    if (m.role === 'user') return mapUser(m, t);
    if (m.role === 'assistant') return mapAssistant(m, t);
    return keptRaw(t, m);
  });
}

/** A tool's result in the XML-tool era: a text block "[tool_name for 'x'] Result:". */
const XML_RESULT = /^\[[\w-]+(?: for [^\]]*)?\] Result:/;
const ENV = /^\s*<environment_details>/;
const WRAPPERS = /^\s*<(task|feedback|user_message|answer|user_input)(?: [^>]*)?>\s*([\s\S]*?)\s*<\/\1>\s*$/;

function blocksOf(c: unknown): unknown[] {
  return typeof c === 'string' ? [{ type: 'text', text: c }] : Array.isArray(c) ? c : [];
}

function mapUser(m: Rec, t: string): MappedEvent {
  if (m.isSummary === true)
    return { kind: 'compact', t, briefing: textOf(m.content) || 'Conversation condensed by Roo Code.', coversThrough: 0, raw: m };
  const blocks = blocksOf(m.content);
  const isResult = (b: unknown) =>
    isRecord(b) && (b.type === 'tool_result' || (b.type === 'text' && typeof b.text === 'string' && XML_RESULT.test(b.text)));
  if (blocks.length > 0 && isResult(blocks[0])) return { kind: 'agent', t, messages: [m], raw: m };
  const typed = blocks
    .filter((b) => !(isRecord(b) && b.type === 'text' && typeof b.text === 'string' && ENV.test(b.text)))
    .map((b) => (isRecord(b) && b.type === 'text' && typeof b.text === 'string' ? { ...b, text: b.text.replace(WRAPPERS, '$2') } : b));
  if (typed.length === 0) return { kind: 'agent', t, messages: [m], context: true, raw: m };
  return { kind: 'user', t, content: typed, raw: m };
}

function mapAssistant(m: Rec, t: string): MappedEvent {
  if (m.isSummary === true)
    return { kind: 'compact', t, briefing: textOf(m.content) || 'Conversation condensed by Roo Code.', coversThrough: 0, raw: m };
  const blocks = blocksOf(m.content);
  if (blocks.some((b) => isRecord(b) && b.type === 'tool_use')) return { kind: 'agent', t, messages: [m], raw: m };
  return { kind: 'assistant', t, content: m.content ?? '', raw: m };
}

function textOf(c: unknown): string {
  return blocksOf(c)
    .map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n')
    .trim();
}
