// The Cursor editor importer: its chats ("composers") in `<Cursor user data>/User/globalStorage/
// state.vscdb` (SQLite, table cursorDiskKV): `composerData:<composerId>` the chat (name,
// createdAt, and either `fullConversationHeadersOnly`, the list of its messages' ids, with each
// message under `bubbleId:<composerId>:<bubbleId>`, or, in older versions, the messages inline in
// `conversation`). Bubble type 1 is the user, 2 the assistant; an assistant bubble with
// `toolFormerData` is a tool call and its result (a pair of agent events). The workspace
// databases (`User/workspaceStorage/<hash>/state.vscdb`, ItemTable key `composer.composerData`)
// list each workspace's composers and `workspace.json` beside them names its folder: the chat's
// project. Every bubble is kept verbatim under `raw`. Read-only (./sqlite.ts); the global database,
// its -wal and the workspace databases are one source, so a change in any is seen.

import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile } from './types.js';
import { Clock, EPOCH, entries, exists, isFolder, isRecord, isoTime, keptRaw, parseJson, readText, str } from './jsonl.js';
import { dbFile, openReadOnly } from './sqlite.js';
import type { ReadOnlyDb } from './sqlite.js';

export const cursor: ImporterModule = {
  defaultRoots(env, home) {
    if (process.platform === 'darwin') return [join(home, 'Library', 'Application Support', 'Cursor')];
    if (process.platform === 'win32') return [join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'Cursor')];
    return [join(env.XDG_CONFIG_HOME || join(home, '.config'), 'Cursor')];
  },
  discover,
  read,
  // A bubble's `type`: 1 the user's, 2 the model's (`user`/`ai` in older builds); a bubble of
  // either with nothing to show is kept hidden as a known kind, any other type is never seen.
  kinds: { mapped: ['1', '2', 'user', 'ai'], hidden: [] },
  kindOf: (raw) => (isRecord(raw) ? (raw.type === undefined ? 'untyped' : String(raw.type)) : undefined),
};

/** The global database, with its -wal and every workspace database (and -wal) as parts. */
async function discover(given: string): Promise<SourceFile[]> {
  if (!(await isFolder(given))) return [await dbFile(given)];
  const root = (await exists(join(given, 'globalStorage', 'state.vscdb'))) ? dirname(given) : given; // the User folder given
  const path = join(root, 'User', 'globalStorage', 'state.vscdb');
  if (!(await exists(path))) {
    if (await isFolder(join(root, 'User'))) return []; // Cursor's user data, no chat written yet (extensions' storage only)
    throw new Error(
      `no User/globalStorage/state.vscdb in ${root} (Cursor keeps its chats in <its user data>/User/globalStorage/state.vscdb)`,
    );
  }
  const global = await dbFile(path);
  const parts = [...(global.parts ?? [])];
  let { size, mtimeNs } = global;
  const ws = join(root, 'User', 'workspaceStorage');
  if (await exists(ws))
    for (const e of await entries(ws)) {
      const db = join(ws, e.name, 'state.vscdb');
      if (!e.dir || !(await exists(db))) continue;
      const f = await dbFile(db);
      parts.push(db, ...(f.parts ?? []));
      size += f.size;
      if (f.mtimeNs > mtimeNs) mtimeNs = f.mtimeNs;
    }
  return [{ path: global.path, size, mtimeNs, ...(parts.length ? { parts } : {}) }];
}

interface Kv {
  key: string;
  /** TEXT as Cursor writes it, or a BLOB (a Buffer from better-sqlite3, a Uint8Array from node:sqlite). */
  value: string | Uint8Array | null;
}

function text(v: Kv['value']): string {
  if (v === null) return '';
  return typeof v === 'string' ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  const projects = await workspaceProjects(dirname(dirname(file.path)));
  let db: ReadOnlyDb;
  try {
    db = await openReadOnly(file.path);
  } catch (e) {
    return [failed(file.path, `cannot read ${file.path}: ${(e as Error).message}`)];
  }
  const out: MappedSession[] = [];
  try {
    // Range scans on the key's index: `composerData:` up to `composerData;` (';' follows ':').
    const chats = db
      .prepare("SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' ORDER BY key")
      .all() as Kv[];
    const bubbleRows = db.prepare('SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?');
    for (const row of chats) {
      const id = row.key.slice('composerData:'.length);
      const { value } = parseJson(text(row.value));
      if (!isRecord(value)) {
        out.push(failed(file.path, `chat ${id}: its composerData is not a JSON object; not imported`, id));
        continue;
      }
      const rows = bubbleRows.all(`bubbleId:${id}:`, `bubbleId:${id};`) as Kv[];
      const s = mapChat(id, value, new Map(rows.map((r) => [r.key, r.value])), projects.get(id), file.path);
      if (s) out.push(s);
    }
  } catch (e) {
    return [failed(file.path, `cannot read ${file.path}: ${(e as Error).message}`)];
  } finally {
    db.close();
  }
  return out;
}

function failed(path: string, problem: string, id = 'state.vscdb'): MappedSession {
  return { source: { tool: 'cursor', path, id, project: '' }, createdAt: EPOCH, events: [], problems: [problem] };
}

/** composerId → the folder of the workspace that lists it (`workspace.json`'s folder URI). */
async function workspaceProjects(user: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ws = join(user, 'workspaceStorage');
  if (!(await exists(ws))) return out;
  for (const e of await entries(ws)) {
    if (!e.dir) continue;
    const folder = await workspaceFolder(join(ws, e.name, 'workspace.json'));
    if (!folder || !(await exists(join(ws, e.name, 'state.vscdb')))) continue;
    for (const id of await listedComposers(join(ws, e.name, 'state.vscdb'))) if (!out.has(id)) out.set(id, folder);
  }
  return out;
}

async function workspaceFolder(path: string): Promise<string | undefined> {
  const { value } = parseJson(await readText(path).catch(() => ''));
  return isRecord(value) ? fileUriPath(value.folder) : undefined;
}

/** A `file://` URI's path (a remote `vscode-remote://` folder is not a local project). */
function fileUriPath(v: unknown): string | undefined {
  if (typeof v !== 'string' || !v.startsWith('file://')) return undefined;
  try {
    return fileURLToPath(v);
  } catch {
    return undefined;
  }
}

async function listedComposers(db: string): Promise<string[]> {
  try {
    const h = await openReadOnly(db);
    try {
      const row = h.prepare("SELECT value FROM ItemTable WHERE key = 'composer.composerData'").get() as Kv | undefined;
      const { value } = parseJson(row ? text(row.value) : '');
      const all = isRecord(value) && Array.isArray(value.allComposers) ? value.allComposers : [];
      return all.filter(isRecord).flatMap((c) => (typeof c.composerId === 'string' ? [c.composerId] : []));
    } finally {
      h.close();
    }
  } catch {
    return []; // a workspace database we cannot read only costs its chats their folder
  }
}

/** The chat's messages in order: the headers' bubbles, or the older inline conversation. */
function messagesOf(id: string, doc: Record<string, unknown>, bubbles: Map<string, Kv['value']>, problems: string[]): unknown[] {
  const headers = Array.isArray(doc.fullConversationHeadersOnly) ? doc.fullConversationHeadersOnly.filter(isRecord) : [];
  if (headers.length === 0) return Array.isArray(doc.conversation) ? doc.conversation : [];
  const generating = new Set(Array.isArray(doc.generatingBubbleIds) ? doc.generatingBubbleIds : []);
  const out: unknown[] = [];
  for (const h of headers) {
    const bid = str(h.bubbleId);
    if (!bid) continue;
    if (generating.has(bid)) break; // still being written: read whole on a later run
    const raw = bubbles.get(`bubbleId:${id}:${bid}`);
    if (raw === undefined || raw === null) {
      const inline = isRecord(doc.conversationMap) ? doc.conversationMap[bid] : undefined; // the older map of bubbles
      if (isRecord(inline)) out.push(inline);
      continue;
    }
    const s = text(raw);
    const { value } = parseJson(s);
    if (value === null) continue; // Cursor leaves `null` for a bubble it dropped
    if (value === undefined) {
      problems.push(`chat ${id}: bubble ${bid} is not JSON; kept as text`);
      out.push({ unparsed: s });
    } else out.push(value);
  }
  // The last bubble while Cursor still writes it (the chat generating, a tool call running).
  const last = out[out.length - 1];
  if (doc.status === 'generating' || (isRecord(last) && isRecord(last.toolFormerData) && RUNNING.has(String(last.toolFormerData.status))))
    out.pop();
  return out;
}

const RUNNING = new Set(['loading', 'pending', 'running', 'generating']);

function mapChat(
  id: string,
  doc: Record<string, unknown>,
  bubbles: Map<string, Kv['value']>,
  folder: string | undefined,
  path: string,
): MappedSession | undefined {
  const problems: string[] = [];
  const messages = messagesOf(id, doc, bubbles, problems);
  if (messages.length === 0 && problems.length === 0) return undefined; // opened, never used
  const createdAt = isoTime(doc.createdAt) ?? firstTime(messages) ?? EPOCH;
  const clock = new Clock(createdAt);
  const events: MappedEvent[] = [];
  const title = str(doc.name);
  if (title) events.push({ kind: 'title', t: createdAt, title, source: 'model', raw: { name: title } });
  for (const m of messages) events.push(...mapBubble(m, clock));
  const project = folder ?? bubbleFolder(messages) ?? homedir();
  const version = typeof doc._v === 'number' ? `composerData v${doc._v}` : undefined;
  const mc = isRecord(doc.modelConfig) ? str(doc.modelConfig.modelName) : undefined;
  return {
    source: { tool: 'cursor', ...(version ? { version } : {}), path, id, project },
    createdAt,
    ...(mc && mc !== 'default' ? { model: mc } : {}),
    events,
    problems,
  };
}

function firstTime(messages: unknown[]): string | undefined {
  for (const m of messages) if (isRecord(m) && isoTime(m.createdAt)) return isoTime(m.createdAt);
  return undefined;
}

/** A user bubble's `workspaceUris`, for a chat no workspace database lists. */
function bubbleFolder(messages: unknown[]): string | undefined {
  for (const m of messages)
    if (isRecord(m) && Array.isArray(m.workspaceUris)) {
      const p = fileUriPath(m.workspaceUris[0]);
      if (p) return p;
    }
  return undefined;
}

/** A bubble's text: `text`, else the words of its Lexical `richText`. */
function bubbleText(b: Record<string, unknown>): string {
  if (typeof b.text === 'string' && b.text.trim()) return b.text;
  const { value } = parseJson(typeof b.richText === 'string' ? b.richText : '');
  const words: string[] = [];
  const walk = (n: unknown): void => {
    if (!isRecord(n)) return;
    if (typeof n.text === 'string') words.push(n.text);
    if (Array.isArray(n.children)) n.children.forEach(walk);
  };
  walk(isRecord(value) ? value.root : undefined);
  return words.join('');
}

/** A JSON string Cursor stores inside JSON (rawArgs, params, result), parsed when it is JSON. */
function inner(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const { value } = parseJson(v);
  return value === undefined ? v : value;
}

function mapBubble(m: unknown, clock: Clock): MappedEvent[] {
  if (!isRecord(m)) return [keptRaw(clock.at(undefined), m)];
  if ('unparsed' in m && Object.keys(m).length === 1) return [keptRaw(clock.at(undefined), m.unparsed, { unparsed: true })];
  const t = clock.at(m.createdAt);
  const content = bubbleText(m);
  if (m.type === 1 || m.type === 'user') return [content ? { kind: 'user', t, content, raw: m } : keptRaw(t, m)];
  if (m.type !== 2 && m.type !== 'ai') return [keptRaw(t, m)];
  const out: MappedEvent[] = [];
  const think = isRecord(m.thinking) ? str(m.thinking.text) : str(m.thinking);
  if (think) out.push({ kind: 'agent', t, messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: think }] }], raw: m });
  if (content) out.push({ kind: 'assistant', t, content, raw: m });
  const tool = isRecord(m.toolFormerData) ? m.toolFormerData : undefined;
  if (tool && str(tool.name)) out.push(...toolEvents(t, m, tool));
  return out.length ? out : [keptRaw(t, m)];
}

/** A tool call, and its result once Cursor has one: a pair of agent events sharing the call's id. */
function toolEvents(t: string, raw: Record<string, unknown>, tool: Record<string, unknown>): MappedEvent[] {
  const id = str(tool.toolCallId) ?? `cursor-${String(raw.bubbleId ?? '')}`;
  const input = inner(tool.params ?? tool.rawArgs) ?? {};
  const call: MappedEvent = {
    kind: 'agent',
    t,
    messages: [{ role: 'assistant', content: [{ type: 'tool_use', id, name: tool.name, input }] }],
    raw,
  };
  if (tool.result === undefined || tool.result === null) return [call];
  const result = inner(tool.result);
  const error = tool.status === 'error' || (isRecord(tool.additionalData) && tool.additionalData.status === 'error');
  const block = {
    type: 'tool_result',
    tool_use_id: id,
    content: typeof result === 'string' ? result : JSON.stringify(result),
    ...(error ? { is_error: true } : {}),
  };
  return [call, { kind: 'agent', t, messages: [{ role: 'user', content: [block] }], raw }];
}
