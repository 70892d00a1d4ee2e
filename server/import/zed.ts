// The Zed importer: the agent panel's threads in `<zed data>/threads/threads.db` (SQLite, table
// `threads(id, parent_id, folder_paths, summary, updated_at, data_type, data)`, `data` the thread
// as JSON, zstd-compressed when data_type is 'zstd'). Two JSON shapes: 0.2.0 (messages with
// role, segments, tool_uses, tool_results) and 0.3.0 (messages tagged User / Agent / Resume,
// Agent content Text / Thinking / ToolUse, tool_results by id). Each message becomes a user,
// assistant or agent event (tool calls and their results as a pair of agent events), the
// summary a title; every message is kept verbatim under `raw`. Read-only (./sqlite.ts).

import { join } from 'node:path';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile } from './types.js';
import { EPOCH, isFolder, isRecord, isoTime, keptRaw, parseJson, str } from './jsonl.js';
import { dbFile, openReadOnly } from './sqlite.js';

export const zed: ImporterModule = {
  defaultRoots(env, home) {
    if (process.platform === 'darwin') return [join(home, 'Library', 'Application Support', 'Zed')];
    return [join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'zed')];
  },
  async discover(root) {
    if (!(await isFolder(root))) return [await dbFile(root)];
    return [await dbFile(join(root, 'threads', 'threads.db'))];
  },
  read,
  // A message of 0.3.0 (`User`, `Agent`, the `Resume` marker) or of 0.2.0 (its `role`), or the title.
  kinds: { mapped: ['User', 'Agent', 'user', 'assistant', 'title'], hidden: ['Resume', 'system'] },
  kindOf(raw) {
    if (raw === 'Resume') return 'Resume';
    if (!isRecord(raw)) return undefined;
    if (typeof raw.role === 'string') return raw.role;
    const key = Object.keys(raw).find((k) => /^[A-Z]/.test(k));
    return key ?? (typeof raw.title === 'string' || typeof raw.summary === 'string' ? 'title' : undefined);
  },
};

interface Row {
  id: string;
  summary?: string;
  updated_at?: string;
  data_type?: string;
  /** A BLOB: a Buffer from better-sqlite3, a Uint8Array from node:sqlite. */
  data: Uint8Array | string;
  folder_paths?: string | null;
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  let rows: Row[];
  try {
    const db = await openReadOnly(file.path);
    try {
      rows = db.prepare('SELECT * FROM threads ORDER BY id').all() as Row[];
    } finally {
      db.close();
    }
  } catch (e) {
    return [
      {
        source: { tool: 'zed', path: file.path, id: 'threads.db', project: '' },
        createdAt: EPOCH,
        events: [],
        problems: [`cannot read ${file.path}: ${(e as Error).message}`],
      },
    ];
  }
  const { decompress } = rows.some((r) => r.data_type === 'zstd') ? await import('fzstd') : { decompress: undefined };
  return rows.map((r) => {
    const problems: string[] = [];
    let doc: Record<string, unknown> = {};
    try {
      const text = r.data_type === 'zstd' && decompress ? unzstd(decompress, r.data) : utf8(r.data);
      const { value } = parseJson(text);
      if (isRecord(value)) doc = value;
      else problems.push(`thread ${r.id}: its data is not a JSON object`);
    } catch (e) {
      problems.push(`thread ${r.id}: cannot decompress its data (${(e as Error).message})`);
    }
    const s = mapThread(r, doc, file.path, problems);
    return problems.length ? { ...s, events: [] } : s; // an unreadable body is not imported
  });
}

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

function unzstd(decompress: (b: Uint8Array) => Uint8Array, data: Uint8Array | string): string {
  const b = typeof data === 'string' ? Buffer.from(data) : data;
  if (!ZSTD_MAGIC.every((x, i) => b[i] === x)) throw new Error('not zstd data');
  return utf8(decompress(new Uint8Array(b)));
}

/** A column's text, whether SQLite holds it as TEXT or as a BLOB. */
function utf8(data: Uint8Array | string): string {
  return typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
}

/** The UUID v7 time of an id, when it is one (Zed records no creation time of its own). */
function v7Time(id: string): string | undefined {
  const m = /^([0-9a-f]{8})-([0-9a-f]{4})-7/i.exec(id);
  return m ? new Date(parseInt(m[1]! + m[2]!, 16)).toISOString() : undefined;
}

function projectOf(r: Row, doc: Record<string, unknown>): string {
  const fp = str(r.folder_paths)?.split('\n')[0];
  if (fp) return fp;
  const snap = isRecord(doc.initial_project_snapshot) ? doc.initial_project_snapshot : {};
  const wt = Array.isArray(snap.worktree_snapshots) ? snap.worktree_snapshots[0] : undefined;
  return (isRecord(wt) && str(wt.worktree_path)) || '';
}

function mapThread(r: Row, doc: Record<string, unknown>, path: string, problems: string[]): MappedSession {
  const updated = isoTime(r.updated_at) ?? isoTime(doc.updated_at) ?? EPOCH;
  // A stable birth (our id is made from it): the id's own time, else the epoch, never updated_at.
  const createdAt = v7Time(r.id) ?? EPOCH;
  const project = projectOf(r, doc);
  const version = str(doc.version);
  const source = { tool: 'zed', ...(version ? { version } : {}), path, id: r.id, project };
  const model = isRecord(doc.model) ? str(doc.model.model) : undefined;
  const t = updated;
  const events: MappedEvent[] = [];
  for (const m of Array.isArray(doc.messages) ? doc.messages : []) events.push(...mapMessage(m, t));
  const title = str(doc.title) ?? str(doc.summary) ?? str(r.summary);
  if (title) events.push({ kind: 'title', t, title, source: 'model', raw: { summary: title } });
  if (!project) problems.push(`thread ${r.id} records no project folder; not imported`);
  return { source, createdAt, ...(model ? { model } : {}), events: project ? events : [], problems };
}

function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (isRecord(v) && typeof v.Text === 'string') return v.Text;
  if (isRecord(v) && typeof v.text === 'string') return v.text;
  return '';
}

function toolEvents(
  t: string,
  raw: unknown,
  uses: { id: string; name: unknown; input: unknown }[],
  results: { id: string; content: string; error: boolean }[],
): MappedEvent[] {
  const out: MappedEvent[] = [];
  if (uses.length)
    out.push({ kind: 'agent', t, messages: [{ role: 'assistant', content: uses.map((u) => ({ type: 'tool_use', ...u })) }], raw });
  if (results.length)
    out.push({
      kind: 'agent',
      t,
      messages: [
        {
          role: 'user',
          content: results.map((x) => ({
            type: 'tool_result',
            tool_use_id: x.id,
            content: x.content,
            ...(x.error ? { is_error: true } : {}),
          })),
        },
      ],
      raw,
    });
  return out;
}

function mapMessage(m: unknown, t: string): MappedEvent[] {
  if (!isRecord(m)) return [keptRaw(t, m)];
  // 0.3.0: {User: {...}} | {Agent: {...}} | "Resume"
  if (isRecord(m.User)) {
    const text = (Array.isArray(m.User.content) ? m.User.content : []).map(textOf).filter(Boolean).join('\n');
    return [text ? { kind: 'user', t, content: text, raw: m } : keptRaw(t, m)];
  }
  if (isRecord(m.Agent)) {
    const content = Array.isArray(m.Agent.content) ? m.Agent.content : [];
    const text = content.map(textOf).filter(Boolean).join('\n');
    const uses = content.filter((c) => isRecord(c) && isRecord(c.ToolUse)).map((c) => (c as { ToolUse: Record<string, unknown> }).ToolUse);
    const res = isRecord(m.Agent.tool_results) ? Object.values(m.Agent.tool_results).filter(isRecord) : [];
    const out = toolEvents(
      t,
      m,
      uses.map((u) => ({ id: String(u.id ?? ''), name: u.name, input: u.input ?? u.raw_input ?? {} })),
      res.map((x) => ({
        id: String(x.tool_use_id ?? ''),
        content: textOf(x.content) || JSON.stringify(x.output ?? x.content ?? ''),
        error: x.is_error === true,
      })),
    );
    if (text) out.push({ kind: 'assistant', t, content: text, raw: m });
    return out.length ? out : [keptRaw(t, m)];
  }
  // 0.2.0: {id, role, segments, tool_uses, tool_results}
  const text = (Array.isArray(m.segments) ? m.segments : [])
    .filter((s) => isRecord(s) && s.type === 'text')
    .map(textOf)
    .join('\n');
  const uses = (Array.isArray(m.tool_uses) ? m.tool_uses : []).filter(isRecord);
  const res = (Array.isArray(m.tool_results) ? m.tool_results : []).filter(isRecord);
  if (m.role === 'user' && !res.length && text) return [{ kind: 'user', t, content: text, raw: m }];
  if (m.role === 'user' || m.role === 'assistant') {
    const out = toolEvents(
      t,
      m,
      uses.map((u) => ({ id: String(u.id ?? ''), name: u.name, input: u.input ?? {} })),
      res.map((x) => ({
        id: String(x.tool_use_id ?? ''),
        content: textOf(x.content) || JSON.stringify(x.content ?? ''),
        error: x.is_error === true,
      })),
    );
    if (text && m.role === 'assistant') out.unshift({ kind: 'assistant', t, content: text, raw: m });
    return out.length ? out : [keptRaw(t, m)];
  }
  return [keptRaw(t, m)];
}
