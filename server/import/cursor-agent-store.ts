// The Cursor agent CLI's chat databases: `~/.cursor/chats/<md5 of the cwd>/<agent id>/store.db`
// (SQLite): table `meta`, whose key '0' holds the agent's metadata as hex-encoded JSON (agentId,
// name, createdAt, latestRootBlobId, lastUsedModel), and table `blobs(id, data)`, content-addressed
// (id the sha256 of data): JSON messages ({role: system | user | assistant | tool, content}) and
// protobuf root blobs naming the conversation in order (field 1, repeated: a 32-byte blob id;
// field 9: the workspace URI, the project; without it, a path of the first messages whose md5 is
// the folder's <hash>). The conversation is the tree under meta's latest root; the older
// roots the table still holds are earlier states of it. User prompts are wrapped in
// `<user_query>`; a user message of only other tags (`<user_info>`...) is context. Assistant
// `tool-call` blocks and `tool` messages' `tool-result` blocks pair by toolCallId. The messages
// carry no times: each takes meta's createdAt. Every message is kept verbatim under `raw`.

import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { basename, dirname } from 'node:path';
import type { MappedEvent, MappedSession, SourceFile } from './types.js';
import { EPOCH, isRecord, isoTime, keptRaw, parseJson, str } from './jsonl.js';
import { openReadOnly } from './sqlite.js';

type Bytes = Uint8Array;

interface Tree {
  /** The message blobs' bytes, in conversation order. */
  messages: { id: string; data: Bytes }[];
  workspace?: string;
}

function utf8(b: Bytes | string): string {
  return typeof b === 'string' ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
}

/** A protobuf varint at `at`: its value and the offset after it, or undefined past the end. */
function varint(b: Bytes, at: number): [number, number] | undefined {
  let n = 0;
  for (let shift = 0; at < b.length && shift < 35; shift += 7) {
    const x = b[at++]!;
    n += (x & 0x7f) * 2 ** shift;
    if (x < 0x80) return [n, at];
  }
  return undefined;
}

/** The length-delimited fields of a protobuf message, or undefined when it is not one. */
function fields(b: Bytes): { no: number; data: Bytes }[] | undefined {
  const out: { no: number; data: Bytes }[] = [];
  let at = 0;
  while (at < b.length) {
    const tag = varint(b, at);
    if (!tag) return undefined;
    const [key, next] = tag;
    const wire = key & 7;
    at = next;
    if (wire === 2) {
      const len = varint(b, at);
      if (!len || len[1] + len[0] > b.length) return undefined;
      out.push({ no: key >>> 3, data: b.subarray(len[1], len[1] + len[0]) });
      at = len[1] + len[0];
    } else if (wire === 0) {
      const v = varint(b, at);
      if (!v) return undefined;
      at = v[1];
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else return undefined;
  }
  return out;
}

/** Walks the tree from a root: JSON blobs are messages, protobuf blobs list children (field 1). */
function walk(blobs: Map<string, Bytes>, rootId: string, problems: string[]): Tree {
  const tree: Tree = { messages: [] };
  const seen = new Set<string>();
  const visit = (id: string, depth: number): void => {
    const data = blobs.get(id);
    if (!data) return void problems.push(`blob ${id.slice(0, 12)} is missing from the database`);
    if (data[0] === 0x7b /* '{' */) return void tree.messages.push({ id, data });
    if (seen.has(id) || depth > 32) return;
    seen.add(id);
    const fs = fields(data);
    if (!fs) return void problems.push(`blob ${id.slice(0, 12)} is neither a message nor a list of blobs; skipped`);
    for (const f of fs) {
      if (f.no === 1 && f.data.length === 32) visit(Buffer.from(f.data).toString('hex'), depth + 1);
      else if (f.no === 9 && depth === 0) tree.workspace = utf8(f.data);
    }
  };
  visit(rootId, 0);
  return tree;
}

/** Reads one store.db: one session, or a problem in words. */
export async function readStore(file: SourceFile): Promise<MappedSession[]> {
  const problems: string[] = [];
  const folderId = basename(dirname(file.path));
  let meta: Record<string, unknown> = {};
  let blobs: Map<string, Bytes>;
  try {
    const db = await openReadOnly(file.path);
    try {
      const row = db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: string | Bytes } | undefined;
      const hex = row ? utf8(row.value).trim() : '';
      const { value } = parseJson(/^[0-9a-f]*$/i.test(hex) ? Buffer.from(hex, 'hex').toString('utf8') : hex);
      if (isRecord(value)) meta = value;
      const rows = db.prepare('SELECT id, data FROM blobs').all() as { id: string; data: Bytes | string }[];
      blobs = new Map(rows.map((r) => [String(r.id), typeof r.data === 'string' ? Buffer.from(r.data) : r.data]));
    } finally {
      db.close();
    }
  } catch (e) {
    problems.push(`cannot read ${file.path}: ${(e as Error).message}`);
    return [{ source: { tool: 'cursor-agent', path: file.path, id: folderId, project: '' }, createdAt: EPOCH, events: [], problems }];
  }
  const id = str(meta.agentId) ?? folderId;
  const root = str(meta.latestRootBlobId);
  const createdAt = isoTime(meta.createdAt) ?? EPOCH;
  const tree: Tree = root ? walk(blobs, root, problems) : { messages: [] };
  if (!root) problems.push(`chat ${id}: its metadata names no conversation (latestRootBlobId); not imported`);
  const messages = tree.messages.map((m) => ({ id: m.id, text: utf8(m.data) }));
  const project = workspacePath(tree.workspace) ?? hashedPath(basename(dirname(dirname(file.path))), messages);
  const source = { tool: 'cursor-agent', path: file.path, id, project: project ?? '' };
  if (!project) {
    problems.push(`chat ${id} records no workspace folder; not imported`);
    return [{ source, createdAt, events: [], problems }];
  }
  const t = createdAt;
  const events: MappedEvent[] = [];
  const name = str(meta.name);
  if (name) events.push({ kind: 'title', t, title: name, source: 'model', raw: { name } });
  for (const { id: blob, text } of messages) {
    const { value } = parseJson(text);
    if (value === undefined) {
      problems.push(`chat ${id}: message blob ${blob.slice(0, 12)} is not JSON; kept as text`);
      events.push(keptRaw(t, text, { unparsed: true }));
    } else events.push(...mapMessage(value, t));
  }
  const model = str(meta.lastUsedModel);
  return [{ source, createdAt, ...(model ? { model } : {}), events, problems }];
}

function workspacePath(uri: string | undefined): string | undefined {
  if (!uri) return undefined;
  if (uri.startsWith('/')) return uri;
  try {
    return uri.startsWith('file://') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A root without the workspace URI: the folder the chat's folder is named after (its md5), when
 * an absolute path in the first messages (Cursor's `<user_info>` names the workspace) hashes to it.
 */
function hashedPath(hash: string, messages: { text: string }[]): string | undefined {
  if (!/^[0-9a-f]{32}$/.test(hash)) return undefined;
  for (const m of messages.slice(0, 4))
    for (const [, p] of m.text.matchAll(/(?:^|[\s:="'`(])(\/[^\s"'`<>)\\]+)/g)) {
      for (let c = p!.replace(/[.,;]+$/, ''); c.length > 1; c = c.slice(0, c.lastIndexOf('/')) || '/')
        if (createHash('md5').update(c).digest('hex') === hash) return c;
    }
  return undefined;
}

function blocksOf(m: Record<string, unknown>): Record<string, unknown>[] {
  if (typeof m.content === 'string') return [{ type: 'text', text: m.content }];
  return Array.isArray(m.content) ? m.content.filter(isRecord) : [];
}

const QUERY = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/;
/** Text that is only tags Cursor adds around a prompt (`<user_info>…</user_info>`), nothing typed. */
const ONLY_TAGS = /^(\s*<([a-z_]+)>[\s\S]*?<\/\2>)+\s*$/;

function mapMessage(m: unknown, t: string): MappedEvent[] {
  if (!isRecord(m)) return [keptRaw(t, m)];
  const blocks = blocksOf(m);
  const text = blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
  if (m.role === 'user') {
    const q = QUERY.exec(text);
    if (q) return [{ kind: 'user', t, content: q[1] ?? '', raw: m }];
    if (!text.trim()) return [keptRaw(t, m)];
    if (ONLY_TAGS.test(text)) return [{ kind: 'agent', t, context: true, messages: [{ role: 'user', content: text }], raw: m }];
    return [{ kind: 'user', t, content: text, raw: m }];
  }
  if (m.role === 'assistant') {
    const calls = blocks.filter((b) => b.type === 'tool-call');
    if (calls.length === 0) return [text ? { kind: 'assistant', t, content: text, raw: m } : keptRaw(t, m)];
    const content = blocks.flatMap((b): Record<string, unknown>[] => {
      if (b.type === 'text') return [{ type: 'text', text: b.text }];
      if (b.type === 'reasoning') return [{ type: 'thinking', thinking: b.text }];
      if (b.type === 'tool-call') return [{ type: 'tool_use', id: String(b.toolCallId ?? ''), name: b.toolName, input: b.args ?? {} }];
      return [];
    });
    return [{ kind: 'agent', t, messages: [{ role: 'assistant', content }], raw: m }];
  }
  if (m.role === 'tool') {
    const results = blocks.filter((b) => b.type === 'tool-result');
    if (results.length === 0) return [keptRaw(t, m)];
    const content = results.map((b) => ({
      type: 'tool_result',
      tool_use_id: String(b.toolCallId ?? ''),
      content: resultText(b.result),
      ...(b.isError === true ? { is_error: true } : {}),
    }));
    return [{ kind: 'agent', t, messages: [{ role: 'user', content }], raw: m }];
  }
  return [keptRaw(t, m)]; // system prompts and any later role
}

function resultText(r: unknown): string {
  if (typeof r === 'string') return r;
  if (Array.isArray(r)) return r.map((x) => (isRecord(x) && typeof x.text === 'string' ? x.text : JSON.stringify(x))).join('\n');
  return JSON.stringify(r ?? '');
}
