// The VS Code chat importer: finds the chat sessions VS Code (and Insiders, code-server, VSCodium)
// keeps under <user data>/User/workspaceStorage/<hash>/chatSessions/ and
// User/globalStorage/emptyWindowChatSessions/, and maps their requests to our events. Two
// formats: the whole-file JSON document (version 3) and the op-log JSONL of recent versions
// (kind 0 a snapshot, 1 a set at a path, 2 a push at a path with an optional truncation index,
// 3 a delete), replayed op by op into the document, then mapped request by request. A request
// still streaming maps to its user message only, so a session read again as it grows gives the
// earlier events as a prefix. Field notes: vscode-chat.md beside this file.
// Depends on node:fs, node:path, node:url and the event format only.

import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homedir } from 'node:os';
import { defineOwn } from '../format/text.js';
import { parseJson, readText } from './jsonl.js';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile } from './types.js';

type Rec = Record<string, unknown>;

/** The user-data folder names of the VS Code family. */
const PRODUCTS = ['Code', 'Code - Insiders', 'VSCodium', 'VSCodium - Insiders', 'Code - OSS'];

export const vscodeChat: ImporterModule = {
  defaultRoots: vscodeUserData,
  discover: discoverVsCode,
  read: readVsCode,
  // What is kept hidden is an op-log line that did not apply: of a kind the log defines (0
  // snapshot, 1 set, 2 push, 3 delete) whose path does not fit (a problem of its own), or of a
  // kind it never had, counted as never seen.
  kinds: { mapped: ['op 0', 'op 1', 'op 2', 'op 3'], hidden: [] },
  kindOf: (raw) => (isObj(raw) ? `op ${String(raw.kind)}` : undefined),
};

/** VS Code's user-data folders (VS Code, Insiders, VSCodium, code-server): paths only, nothing read. */
export function vscodeUserData(env: NodeJS.ProcessEnv, home: string): string[] {
  const roots: string[] = [];
  if (process.platform === 'darwin') {
    for (const p of PRODUCTS) roots.push(join(home, 'Library/Application Support', p));
  } else if (process.platform === 'win32') {
    const appData = env.APPDATA ?? join(home, 'AppData/Roaming');
    for (const p of PRODUCTS) roots.push(join(appData, p));
  } else {
    const config = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(home, '.config');
    for (const p of PRODUCTS) roots.push(join(config, p));
  }
  // code-server keeps its user data under XDG_DATA_HOME on every platform.
  const data = env.XDG_DATA_HOME && env.XDG_DATA_HOME.length > 0 ? env.XDG_DATA_HOME : join(home, '.local/share');
  roots.push(join(data, 'code-server'));
  return roots;
}

// ---------------------------------------------------------------------------------------------
// Discovery.

async function discoverVsCode(root: string): Promise<SourceFile[]> {
  const st = await stat(root); // throws for a missing or unreadable root
  if (st.isFile()) return [await sourceFile(root)];
  const out: SourceFile[] = [];
  // The user-data folder (holding User/), its User folder, workspaceStorage, or one chatSessions folder.
  const user = (await isDir(join(root, 'User'))) ? join(root, 'User') : root;
  const workspaces = (await isDir(join(user, 'workspaceStorage')))
    ? join(user, 'workspaceStorage')
    : basename(root) === 'workspaceStorage'
      ? root
      : undefined;
  if (workspaces) {
    for (const e of await readdir(workspaces, { withFileTypes: true })) {
      const chats = join(workspaces, e.name, 'chatSessions');
      if (e.isDirectory() && (await isDir(chats))) await collect(chats, out);
    }
  }
  const empty = join(user, 'globalStorage', 'emptyWindowChatSessions');
  if (await isDir(empty)) await collect(empty, out);
  if (!workspaces && basename(root) === 'chatSessions') await collect(root, out);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The session files of one folder: <id>.jsonl, and <id>.json where no .jsonl replaced it. */
async function collect(dir: string, out: SourceFile[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }); // throws when unreadable
  const names = new Set(entries.map((e) => e.name));
  for (const e of entries) {
    if (!e.isFile()) continue;
    if (e.name.endsWith('.jsonl') || (e.name.endsWith('.json') && !names.has(e.name + 'l'))) out.push(await sourceFile(join(dir, e.name)));
  }
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

function isObj(v: unknown): v is Rec {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function iso(v: unknown): string | undefined {
  if (typeof v !== 'number' && typeof v !== 'string') return undefined;
  const ms = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : undefined;
}

// ---------------------------------------------------------------------------------------------
// Reading: whole documents and op logs.

interface Doc {
  state: Rec;
  /** Each customTitle the log set, with how many requests the session had then. */
  titles: { title: string; after: number }[];
  /** Each line of the log that did not apply (a kind we do not know, a path that does not fit), kept raw. */
  kept: { raw: unknown; line: number; after: number }[];
  problems: string[];
}

async function readVsCode(file: SourceFile): Promise<MappedSession[]> {
  const text = await readText(file.path);
  const doc = file.path.endsWith('.jsonl') ? replayLog(text) : readDocument(text);
  const state = doc.state;
  const requests = Array.isArray(state.requests) ? state.requests.filter(isObj) : [];
  if (requests.length === 0 && doc.problems.length === 0) return [];
  const id = typeof state.sessionId === 'string' && state.sessionId ? state.sessionId : basename(file.path).replace(/\.jsonl?$/, '');
  const project = await projectOf(file.path);
  if (!project.known)
    doc.problems.push(`VS Code recorded no folder for this chat's workspace (no workspace.json); it is filed under ${project.path}.`);
  const firstT = iso(state.creationDate) ?? iso(requests[0]?.timestamp) ?? new Date(Number(file.mtimeNs / 1_000_000n)).toISOString();
  const model = requests.map((r) => r.modelId).find((m): m is string => typeof m === 'string' && m.length > 0);
  return [
    {
      source: { tool: 'vscode', path: file.path, id, project: project.path },
      createdAt: firstT,
      ...(model ? { model } : {}),
      events: mapRequests(requests, doc, firstT),
      variant: '',
      problems: doc.problems,
    },
  ];
}

/** The version 3 document (or a "Chat: Export Chat" file, which has the same requests). */
function readDocument(text: string): Doc {
  const { value, deep } = parseJson(text);
  if (isObj(value)) {
    const titles = typeof value.customTitle === 'string' ? [{ title: value.customTitle, after: Infinity }] : [];
    return { state: value, titles, kept: [], problems: [] };
  }
  const problem = deep
    ? 'The chat session nests deeper than can be stored; it was not imported.'
    : 'The chat session is not complete JSON (VS Code may be writing it); it is read again next time.';
  return { state: {}, titles: [], kept: [], problems: [problem] };
}

/** Replays an op log into the document it describes. Ops that do not fit are skipped, counted. */
function replayLog(text: string): Doc {
  const doc: Doc = { state: {}, titles: [], kept: [], problems: [] };
  const lines = text.split('\n');
  let misfits = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    const { value: op, deep } = parseJson(line);
    if (!isObj(op)) {
      if (i === lines.length - 1 && !text.endsWith('\n') && !deep)
        doc.problems.push(`Line ${i + 1} is a torn last line (VS Code may still be writing it); it is read again next time.`);
      else doc.problems.push(`Line ${i + 1} is ${deep ? 'nested deeper than can be stored' : 'not a JSON object'}; it was skipped.`);
      continue;
    }
    if (!applyOp(doc, op)) {
      misfits++;
      doc.kept.push({ raw: op, line: i + 1, after: Array.isArray(doc.state.requests) ? doc.state.requests.length : 0 });
    }
  }
  if (misfits > 0)
    doc.problems.push(
      `${misfits} change${misfits === 1 ? '' : 's'} in the log did not fit the session; ${misfits === 1 ? 'it is' : 'they are'} kept as ${misfits === 1 ? 'a record' : 'records'} of ${misfits === 1 ? 'its' : 'their'} own.`,
    );
  return doc;
}

function applyOp(doc: Doc, op: Rec): boolean {
  if (op.kind === 0) {
    // A snapshot: the whole document again (at the start, and when VS Code compacts or resets it).
    if (!isObj(op.v)) return false;
    doc.state = op.v;
    const t = op.v.customTitle;
    if (typeof t === 'string') noteTitle(doc, t);
    return true;
  }
  const k = op.k;
  if (
    !Array.isArray(k) ||
    k.length === 0 ||
    !k.every((s) => typeof s === 'string' || (typeof s === 'number' && Number.isInteger(s) && s >= 0))
  )
    return false;
  const parent = walk(doc.state, k.slice(0, -1) as (string | number)[]);
  if (parent === undefined) return false;
  const last = k[k.length - 1] as string | number;
  switch (op.kind) {
    case 1:
      if (!setOwn(parent, last, op.v)) return false;
      if (k.length === 1 && last === 'customTitle' && typeof op.v === 'string') noteTitle(doc, op.v);
      return true;
    case 2: {
      // A push: truncate the array at i when given, then append v's items (how answers stream in).
      let target = getOwn(parent, last);
      if (target === undefined) {
        target = [];
        if (!setOwn(parent, last, target)) return false;
      }
      if (!Array.isArray(target)) return false;
      if (op.i !== undefined) {
        if (typeof op.i !== 'number' || !Number.isInteger(op.i) || op.i < 0) return false;
        target.length = Math.min(target.length, op.i);
      }
      if (op.v !== undefined) {
        if (!Array.isArray(op.v)) return false;
        for (const item of op.v) target.push(item);
      }
      return true;
    }
    case 3:
      if (Array.isArray(parent)) {
        if (typeof last !== 'number' || last >= parent.length) return false;
        parent.splice(last, 1);
      } else if (Object.hasOwn(parent, last)) delete (parent as Rec)[last];
      return true;
    default:
      return false;
  }
}

function noteTitle(doc: Doc, title: string): void {
  const requests = Array.isArray(doc.state.requests) ? doc.state.requests.length : 0;
  doc.titles.push({ title, after: requests });
}

/** Follows own keys and in-range indexes only: a path never reaches a prototype. */
function walk(root: Rec, path: (string | number)[]): Rec | unknown[] | undefined {
  let cur: unknown = root;
  for (const seg of path) {
    const next = getOwn(cur, seg);
    if (next === null || typeof next !== 'object') return undefined;
    cur = next;
  }
  return cur as Rec | unknown[];
}

function getOwn(container: unknown, key: string | number): unknown {
  if (Array.isArray(container)) return typeof key === 'number' && key < container.length ? container[key] : undefined;
  if (isObj(container) && Object.hasOwn(container, key)) return container[key as string];
  return undefined;
}

function setOwn(container: Rec | unknown[], key: string | number, value: unknown): boolean {
  if (Array.isArray(container)) {
    if (typeof key !== 'number' || key > container.length) return false;
    container[key] = value;
    return true;
  }
  defineOwn(container, String(key), value);
  return true;
}

// ---------------------------------------------------------------------------------------------
// Requests to events.

/** The fields of a request VS Code writes when it is sent; the rest arrive with the answer. */
const ASKED_KEYS = new Set([
  'requestId',
  'timestamp',
  'message',
  'variableData',
  'agent',
  'modelId',
  'modeInfo',
  'attachedContext',
  'editedFileEvents',
  'hiddenFromTranscript',
]);

/** Each request: a user event, then (once it finished) an assistant event, or an agent event when tools ran. */
function mapRequests(requests: Rec[], doc: Doc, firstT: string): MappedEvent[] {
  const events: MappedEvent[] = [];
  let lastT = firstT;
  let shownTitle: string | undefined;
  const keptAt = (count: number): void => {
    for (const k of doc.kept)
      if (k.after === count) events.push({ kind: 'event', t: lastT, type: 'source-record', line: k.line, raw: k.raw });
  };
  const titleAt = (count: number): void => {
    keptAt(count);
    for (const { title, after } of doc.titles) {
      if (after !== count) continue;
      const t = title.trim().slice(0, 500);
      if (t && t !== shownTitle) {
        events.push({ kind: 'title', t: lastT, title: t, source: 'user', raw: { customTitle: title } });
        shownTitle = t;
      }
    }
  };
  titleAt(0);
  requests.forEach((req, i) => {
    // The request's own fields go with the user event; the rest (set as the answer comes in:
    // modelState, result, timings) with the answer, so a pending request's event does not change.
    const asked: Rec = {};
    const answer: Rec = { requestId: req.requestId };
    for (const key of Object.keys(req)) defineOwn(ASKED_KEYS.has(key) ? asked : answer, key, req[key]);
    const response = req.response;
    const t = iso(req.timestamp) ?? lastT;
    lastT = t;
    const message = isObj(req.message) ? req.message : {};
    const text = typeof message.text === 'string' ? message.text : '';
    const files = contextFiles(req);
    events.push({ kind: 'user', t, content: text, ...(files.length ? { contextFiles: files } : {}), raw: asked });
    if (!finished(req, i === requests.length - 1)) return;
    const doneT = iso(isObj(req.modelState) ? req.modelState.completedAt : undefined) ?? t;
    lastT = doneT;
    events.push(...mapResponse(Array.isArray(response) ? response : [], doneT, req, answer));
    titleAt(i + 1);
  });
  // What came after the last finished request (and a last request still streaming).
  const done = requests.length > 0 && !finished(requests[requests.length - 1]!, true) ? requests.length : requests.length + 1;
  for (const k of doc.kept) if (k.after >= done) events.push({ kind: 'event', t: lastT, type: 'source-record', line: k.line, raw: k.raw });
  const final = doc.titles.filter((x) => x.after === Infinity || x.after > requests.length);
  for (const { title } of final) {
    const t = title.trim().slice(0, 500);
    if (t && t !== shownTitle) {
      events.push({ kind: 'title', t: lastT, title: t, source: 'user', raw: { customTitle: title } });
      shownTitle = t;
    }
  }
  return events;
}

/**
 * Whether a request's answer is complete: its modelState says so (recent versions: 0 pending,
 * 1 complete, 2 cancelled, 3 failed, 4 waiting for input) and its parts are there, or (older
 * files) it has a result or was cancelled, or a later request follows.
 */
function finished(req: Rec, isLast: boolean): boolean {
  if (!isLast) return true;
  if (isObj(req.modelState) && typeof req.modelState.value === 'number') {
    // VS Code 1.139 sets modelState complete a line before it pushes the answer's parts.
    if (req.modelState.value === 1) return Array.isArray(req.response) && req.response.length > 0;
    return req.modelState.value !== 0 && req.modelState.value !== 4;
  }
  return req.isCanceled === true || (isObj(req.result) && Object.keys(req.result).length > 0);
}

function contextFiles(req: Rec): string[] {
  const vars = isObj(req.variableData) && Array.isArray(req.variableData.variables) ? req.variableData.variables : [];
  const out: string[] = [];
  for (const v of vars) {
    if (!isObj(v)) continue;
    const uri = isObj(v.value) && isObj(v.value.uri) ? v.value.uri : isObj(v.value) ? v.value : undefined;
    const path = uri && uri.scheme === 'file' && typeof uri.path === 'string' ? uri.path : undefined;
    if (path) out.push(path);
  }
  return out;
}

/**
 * The response parts in order: text and thinking, and each tool invocation with its result.
 * Without tools, one assistant event. With tools, an event a turn of the exchange (the model's
 * text and calls, then the results, ...), each made from the same answer, so a call and its
 * result are two events as in every other tool's log.
 */
function mapResponse(parts: unknown[], t: string, req: Rec, raw: Rec): MappedEvent[] {
  const messages: { role: string; content: Rec[] }[] = [];
  const add = (role: string, block: Rec): void => {
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(block);
    else messages.push({ role, content: [block] });
  };
  let tools = 0;
  for (const p of parts) {
    const text = markdownOf(p);
    if (text !== undefined) {
      if (text) add('assistant', { type: 'text', text });
      continue;
    }
    if (!isObj(p)) continue;
    if (p.kind === 'thinking') {
      const v = typeof p.value === 'string' ? p.value : Array.isArray(p.value) ? p.value.join('') : '';
      if (v) add('assistant', { type: 'thinking', thinking: v });
    } else if (p.kind === 'toolInvocationSerialized' || p.kind === 'toolInvocation') {
      const id = String(p.toolCallId ?? `${String(req.requestId ?? 'request')}-tool-${tools}`);
      tools++;
      const details = isObj(p.resultDetails) ? p.resultDetails : {};
      add('assistant', { type: 'tool_use', id, name: String(p.toolId ?? p.toolName ?? 'tool'), input: toolInput(details.input) });
      add('user', {
        type: 'tool_result',
        tool_use_id: id,
        content: toolOutput(p, details),
        ...(details.isError === true ? { is_error: true } : {}),
      });
    }
  }
  const model = typeof req.modelId === 'string' && req.modelId ? { model: req.modelId } : {};
  if (tools === 0) return [{ kind: 'assistant', t, content: messages.flatMap((m) => m.content), ...model, raw }];
  return messages.map((m, i) => ({ kind: 'agent', t, messages: [m], ...(i === 0 ? model : {}), raw }));
}

/** The text of a markdown part (v3: {value: string}; op log: {kind:'markdownContent', content:{value}}). */
function markdownOf(p: unknown): string | undefined {
  if (typeof p === 'string') return p;
  if (!isObj(p)) return undefined;
  if (p.kind === 'markdownContent' || p.kind === undefined || p.kind === 'markdownVuln') {
    if (isObj(p.content) && typeof p.content.value === 'string') return p.content.value;
    if (typeof p.value === 'string') return p.value;
    if (isObj(p.value) && typeof p.value.value === 'string') return p.value.value;
  }
  return undefined;
}

function toolInput(input: unknown): unknown {
  if (typeof input !== 'string') return input ?? {};
  const { value } = parseJson(input);
  return value ?? input;
}

function toolOutput(p: Rec, details: Rec): string {
  const out = details.output;
  if (Array.isArray(out)) return out.map((o) => (isObj(o) && typeof o.value === 'string' ? o.value : JSON.stringify(o))).join('\n');
  if (typeof out === 'string') return out;
  const past = isObj(p.pastTenseMessage) ? p.pastTenseMessage.value : p.pastTenseMessage;
  if (typeof past === 'string') return past;
  return p.isComplete === false ? 'The tool call did not finish.' : 'Done.';
}

// ---------------------------------------------------------------------------------------------
// The project folder.

/**
 * The folder the chat belongs to: workspaceStorage/<hash>/workspace.json names it ({folder} or
 * {workspace}: a .code-workspace file, whose folder is used). An empty window's chats have none
 * and are filed under the home folder; so are those of a workspace without workspace.json
 * (code-server 4.139 writes only meta.json, {id, name}), with a problem saying so.
 */
async function projectOf(path: string): Promise<{ path: string; known: boolean }> {
  const wsDir = dirname(dirname(path));
  if (basename(dirname(path)) === 'emptyWindowChatSessions') return { path: homedir(), known: true };
  let text: string | undefined;
  try {
    text = await readText(join(wsDir, 'workspace.json'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
  }
  const ws = text === undefined ? undefined : parseJson(text).value;
  if (isObj(ws)) {
    const folder = uriPath(ws.folder);
    if (folder) return { path: folder, known: true };
    const workspace = uriPath(ws.workspace);
    if (workspace) return { path: dirname(workspace), known: true };
  }
  return { path: homedir(), known: false };
}

function uriPath(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length === 0) return undefined;
  try {
    if (uri.startsWith('file:')) return fileURLToPath(uri);
    const u = new URL(uri); // vscode-remote://ssh-remote+host/path: the path on that machine
    return decodeURIComponent(u.pathname) || undefined;
  } catch {
    return undefined;
  }
}
