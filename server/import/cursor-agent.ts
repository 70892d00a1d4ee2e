// The Cursor agent CLI importer: `~/.cursor/projects/<encoded cwd>/agent-transcripts/<id>.jsonl`,
// one line a message ({role, message: {content: [blocks]}}, blocks text / thinking / tool_use or
// tool_call / tool_result or tool-result), plus marker lines such as {type: 'turn_ended'}. The
// transcripts carry no ids, times or working folder: the session id is the file's name, the
// project the folder's encoded cwd (its dashes read as slashes, which a folder name with a dash
// makes ambiguous), the birth the file's creation time, and tool calls are paired with the
// results of the next user line in order (ids made from the line and block). Each line is kept
// verbatim under `raw`. The CLI's chat databases, `~/.cursor/chats/<hash>/<agent id>/store.db`,
// are read by ./cursor-agent-store.ts; a transcript whose agent id has a store.db is left to it
// (the database has the ids, times and folder the transcript lacks: one session, not two).

import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile } from './types.js';
import { EPOCH, entries, exists, isFolder, isRecord, jsonlLines, keptRaw, readText, statFile } from './jsonl.js';
import { dbFile } from './sqlite.js';
import { readStore } from './cursor-agent-store.js';

export const cursorAgent: ImporterModule = {
  defaultRoots(_env, home) {
    return [join(home, '.cursor')];
  },
  discover,
  read: (file) => (basename(file.path) === 'store.db' ? readStore(file) : read(file)),
  // A transcript line or store.db message by its `role`, a marker line by its `type`.
  kinds: { mapped: ['user', 'assistant', 'tool'], hidden: ['system', 'turn_ended'] },
  kindOf(raw) {
    if (!isRecord(raw)) return undefined;
    return typeof raw.role === 'string' ? raw.role : typeof raw.type === 'string' ? raw.type : undefined;
  },
};

async function discover(root: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) return [basename(root) === 'store.db' ? await dbFile(root) : await statFile(root)];
  const projects = join(root, 'projects');
  const chats = join(root, 'chats');
  const hasProjects = await exists(projects);
  // The editor keeps its extensions in ~/.cursor too: there, no CLI chats is a true empty.
  if (!hasProjects && !(await exists(chats)) && (await isFolder(join(root, 'extensions')))) return [];
  if (!hasProjects && !(await exists(chats)))
    throw new Error(
      `no projects/ or chats/ folder in ${root} (Cursor's agent CLI keeps transcripts in ~/.cursor/projects/<folder>/agent-transcripts/ and chats in ~/.cursor/chats/)`,
    );
  const stores = await storeFiles(chats);
  const inStore = new Set(stores.map((f) => basename(dirname(f.path))));
  const out: SourceFile[] = [...stores];
  if (hasProjects)
    for (const p of await entries(projects)) {
      const dir = join(projects, p.name, 'agent-transcripts');
      if (!p.dir || !(await exists(dir))) continue;
      for (const f of await entries(dir))
        if (f.file && f.name.endsWith('.jsonl') && !inStore.has(f.name.slice(0, -'.jsonl'.length)))
          out.push(await statFile(join(dir, f.name)));
    }
  return out;
}

/** `chats/<hash>/<agent id>/store.db`, each with its -wal as a part. */
async function storeFiles(chats: string): Promise<SourceFile[]> {
  if (!(await exists(chats))) return [];
  const out: SourceFile[] = [];
  for (const h of await entries(chats)) {
    if (!h.dir) continue;
    for (const a of await entries(join(chats, h.name))) {
      const db = join(chats, h.name, a.name, 'store.db');
      if (a.dir && (await exists(db))) out.push(await dbFile(db));
    }
  }
  return out;
}

const TOOL_USE = new Set(['tool_use', 'tool_call']);
const TOOL_RESULT = new Set(['tool_result', 'tool-result']);

function blocks(v: Record<string, unknown>): Record<string, unknown>[] {
  const m = isRecord(v.message) ? v.message : {};
  return Array.isArray(m.content) ? m.content.filter(isRecord) : typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : [];
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  const problems: string[] = [];
  const lines = jsonlLines(await readText(file.path), problems);
  const st = await stat(file.path);
  const createdAt = st.birthtimeMs > 0 ? new Date(st.birthtimeMs).toISOString() : EPOCH;
  const id = basename(file.path, '.jsonl');
  const folder = basename(dirname(dirname(file.path)));
  const project = '/' + folder.replace(/^-/, '').replace(/-/g, '/');
  const t = createdAt;
  const pending: string[] = []; // ids of calls not yet answered, in order
  const events: MappedEvent[] = lines.map((l, i): MappedEvent => {
    const v = l.value;
    if (!isRecord(v) || (v.role !== 'user' && v.role !== 'assistant')) return keptRaw(t, v, l.unparsed ? { unparsed: true } : {});
    const bs = blocks(v);
    const text = bs
      .filter((b) => b.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text as string)
      .join('\n');
    if (v.role === 'assistant') {
      const uses = bs.filter((b) => TOOL_USE.has(String(b.type)));
      if (uses.length === 0) return { kind: 'assistant', t, content: text, raw: v };
      const content = bs.map((b, k) => {
        if (!TOOL_USE.has(String(b.type))) return b;
        const cid = typeof b.id === 'string' ? b.id : `cursor-${i}-${k}`;
        pending.push(cid);
        return { type: 'tool_use', id: cid, name: b.name, input: b.input ?? {} };
      });
      return { kind: 'agent', t, messages: [{ role: 'assistant', content }], raw: v };
    }
    const results = bs.filter((b) => TOOL_RESULT.has(String(b.type)));
    if (results.length === 0) return text ? { kind: 'user', t, content: text, raw: v } : keptRaw(t, v);
    const content = results.map((b) => ({
      type: 'tool_result',
      tool_use_id: typeof b.tool_use_id === 'string' ? b.tool_use_id : (pending.shift() ?? ''),
      content: b.content ?? '',
    }));
    return { kind: 'agent', t, messages: [{ role: 'user', content }], raw: v };
  });
  return [{ source: { tool: 'cursor-agent', path: file.path, id, project }, createdAt, events, problems }];
}
