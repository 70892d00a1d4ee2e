// The opencode importer: the JSON tree opencode wrote up to 1.1 (`storage/session/<project>/
// <id>.json`, `storage/message/<session>/<id>.json`, `storage/part/<message>/<id>.json`) and the
// SQLite database of 1.2 and later (`opencode.db`: tables session, message, part, whose `data`
// column holds the same JSON the tree's files hold). Both are read into one shape (a session
// row, its messages in order, each with its parts) and mapped the same way: user text parts →
// user, assistant text parts → assistant, tool parts → an agent call event and an agent result
// event, a compaction part → compact, the session's title → title. Every message and part is
// kept verbatim under `raw`. The database is opened read-only (./sqlite.ts): never written.

import { basename, dirname, join } from 'node:path';
import type { ImporterModule, MappedEvent, MappedSession, SourceFile, SourceRef } from './types.js';
import { Clock, EPOCH, entries, exists, isFolder, isRecord, isoTime, keptRaw, parseJson, readText, statFile, str } from './jsonl.js';
import { asSidechain, placeSidechain } from './sidechain.js';
import { dbFile, openReadOnly } from './sqlite.js';

export const opencode: ImporterModule = {
  defaultRoots(env, home) {
    return [join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'opencode')];
  },
  discover,
  read,
  // A kept record is a message's info (`message`), one of its parts (`part/<type>`) or the title.
  kinds: {
    mapped: ['part/text', 'part/tool', 'part/reasoning', 'part/compaction', 'title'],
    hidden: [
      'message',
      'part/step-start',
      'part/step-finish',
      'part/patch',
      'part/file',
      'part/snapshot',
      'part/agent',
      'part/subtask',
      'part/retry',
    ],
  },
  kindOf(raw) {
    if (!isRecord(raw)) return undefined;
    if (typeof raw.role === 'string') return 'message';
    if (typeof raw.type === 'string') return `part/${raw.type}`;
    return typeof raw.title === 'string' ? 'title' : undefined;
  },
};

/** The session records of either layout, as read. */
interface Msg {
  info: Record<string, unknown>;
  parts: Record<string, unknown>[];
}
interface Sess {
  info: Record<string, unknown>;
  messages: Msg[];
}

async function discover(root: string): Promise<SourceFile[]> {
  if (!(await isFolder(root))) {
    if (root.endsWith('.db')) return [await dbFile(root)];
    return [await treeFile(root)];
  }
  const out: SourceFile[] = [];
  const db = join(root, 'opencode.db');
  if (await exists(db)) out.push(await dbFile(db));
  const sessions = join(root, 'storage', 'session');
  if (await exists(sessions)) {
    const tree: { path: string; id: string; parent?: string }[] = [];
    for (const p of await entries(sessions))
      if (p.dir)
        for (const f of await entries(join(sessions, p.name)))
          if (f.file && f.name.endsWith('.json')) tree.push(await treeEntry(join(sessions, p.name, f.name)));
    // A subagent's session (parentID) is read with the session it ran under: one source a row.
    const byId = new Map(tree.map((t) => [t.id, t]));
    const rootOf = (t: (typeof tree)[number]) => {
      const seen = new Set<string>();
      while (t.parent && byId.has(t.parent) && !seen.has(t.id)) {
        seen.add(t.id);
        t = byId.get(t.parent)!;
      }
      return t;
    };
    for (const t of tree)
      if (rootOf(t) === t)
        out.push(
          await treeFile(
            t.path,
            tree.filter((c) => c !== t && rootOf(c) === t).map((c) => c.path),
          ),
        );
  }
  if (out.length === 0 && !(await exists(join(root, 'storage'))))
    throw new Error(`no opencode.db or storage/ folder in ${root} (opencode keeps its data in ~/.local/share/opencode)`);
  return out;
}

/** A JSON-tree session file's id and parent. */
async function treeEntry(path: string): Promise<{ path: string; id: string; parent?: string }> {
  const { value: info } = parseJson(await readText(path));
  const parent = isRecord(info) ? str(info.parentID) : undefined;
  return { path, id: (isRecord(info) && str(info.id)) || basename(path, '.json'), ...(parent ? { parent } : {}) };
}

/**
 * A JSON-tree session: its file, with every message and part file as its parts, and those of
 * the subagent sessions that ran under it (their session files first).
 */
async function treeFile(path: string, children: string[] = []): Promise<SourceFile> {
  const self = await statFile(path);
  const storage = dirname(dirname(dirname(path)));
  const parts: string[] = [];
  let size = self.size;
  let mtimeNs = self.mtimeNs;
  const add = async (p: string) => {
    const st = await statFile(p);
    parts.push(p);
    size += st.size;
    if (st.mtimeNs > mtimeNs) mtimeNs = st.mtimeNs;
  };
  for (const c of children) await add(c);
  for (const sessionPath of [path, ...children]) {
    const msgDir = join(storage, 'message', (await treeEntry(sessionPath)).id);
    if (await exists(msgDir))
      for (const m of await entries(msgDir)) {
        if (!m.file || !m.name.endsWith('.json')) continue;
        const mp = join(msgDir, m.name);
        await add(mp);
        // Parts live under the message's id (the file's name in what opencode writes).
        const { value } = parseJson(await readText(mp));
        const partDir = join(storage, 'part', (isRecord(value) && str(value.id)) || m.name.replace(/\.json$/, ''));
        if (await exists(partDir))
          for (const p of await entries(partDir)) if (p.file && p.name.endsWith('.json')) await add(join(partDir, p.name));
      }
  }
  return { path, size, mtimeNs, parts };
}

async function read(file: SourceFile): Promise<MappedSession[]> {
  const problems: string[] = [];
  if (file.path.endsWith('.db')) {
    let sessions: Sess[];
    try {
      sessions = await readDb(file.path);
    } catch (e) {
      return [
        {
          source: { tool: 'opencode', path: file.path, id: basename(file.path), project: '' },
          createdAt: EPOCH,
          events: [],
          problems: [`cannot read ${file.path}: ${(e as Error).message}`],
        },
      ];
    }
    return linkSessions(sessions, file.path);
  }
  const sessions = await readTree(file, problems);
  if (sessions.length === 0) return [];
  const [main] = linkSessions(sessions, file.path);
  if (main) main.problems.push(...problems);
  return main ? [main] : [];
}

async function readJson(path: string, problems: string[]): Promise<Record<string, unknown> | undefined> {
  const { value } = parseJson(await readText(path));
  if (isRecord(value)) return value;
  problems.push(`${path} is not a JSON object (being written?); skipped this run`);
  return undefined;
}

/** The session of a tree file and its subagents' sessions (the first is the file's own). */
async function readTree(file: SourceFile, problems: string[]): Promise<Sess[]> {
  const info = await readJson(file.path, problems);
  if (!info) return [];
  const sessions = new Map<string, Sess>([[str(info.id) ?? basename(file.path, '.json'), { info, messages: [] }]]);
  const byMsg = new Map<string, Msg>();
  const messages: { session: string; m: Msg }[] = [];
  for (const p of file.parts ?? []) {
    const v = await readJson(p, problems);
    if (!v) continue;
    const kind = basename(dirname(dirname(p)));
    if (kind === 'message') {
      const m = { info: v, parts: [] };
      byMsg.set(str(v.id) ?? basename(p, '.json'), m);
      messages.push({ session: basename(dirname(p)), m });
    } else if (kind === 'part') byMsg.get(basename(dirname(p)))?.parts.push(v);
    else sessions.set(str(v.id) ?? basename(p, '.json'), { info: v, messages: [] });
  }
  for (const { session, m } of messages) sessions.get(session)?.messages.push(m);
  for (const s of sessions.values()) sortMessages(s.messages);
  return [...sessions.values()];
}

function sortMessages(ms: Msg[]): Msg[] {
  const key = (m: Msg) =>
    `${String(num((m.info.time as Record<string, unknown> | undefined)?.created)).padStart(16, '0')}:${str(m.info.id) ?? ''}`;
  for (const m of ms) m.parts.sort((a, b) => (String(a.id ?? '') < String(b.id ?? '') ? -1 : 1));
  return ms.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The 1.2+ database: every session row with its messages and parts (the rows' `data` JSON). */
async function readDb(path: string): Promise<Sess[]> {
  const db = await openReadOnly(path);
  try {
    const rows = db.prepare('SELECT * FROM session ORDER BY time_created, id').all() as Record<string, unknown>[];
    const msgs = db.prepare('SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id');
    const parts = db.prepare('SELECT id, data FROM part WHERE message_id = ? ORDER BY id');
    return rows.map((row) => {
      // The row's columns in the JSON tree's names, so both layouts map the same way.
      const info = {
        ...row,
        projectID: row.project_id,
        parentID: row.parent_id,
        time: { created: row.time_created, updated: row.time_updated },
      };
      const messages = (msgs.all(row.id) as { id: string; data: string }[]).map((m) => ({
        info: { id: m.id, ...objectOf(m.data) },
        parts: (parts.all(m.id) as { id: string; data: string }[]).map((p) => ({ id: p.id, ...objectOf(p.data) })),
      }));
      return { info, messages };
    });
  } finally {
    db.close();
  }
}

function objectOf(text: string): Record<string, unknown> {
  const { value } = parseJson(text);
  return isRecord(value) ? value : { unparsed: text };
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/**
 * The database's sessions as History shows them: a subagent's session (`parent_id`, made by the
 * task tool) is a sidechain of its parent, placed right after the task call that names it
 * (`state.metadata.sessionId`), else by time; never a row of its own. A fork (opencode copies
 * the parent's messages under new ids, keeping their `time.created`, and titles it
 * "<title> (fork #n)") is linked to the session whose messages it starts with.
 */
function linkSessions(sessions: Sess[], path: string): MappedSession[] {
  const byId = new Map(sessions.map((s) => [str(s.info.id) ?? '', s]));
  const children = new Map<string, Sess[]>();
  for (const s of sessions) {
    const parent = str(s.info.parentID);
    if (parent && byId.has(parent) && parent !== str(s.info.id)) children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const isChild = (s: Sess) => {
    const parent = str(s.info.parentID);
    return !!parent && byId.has(parent) && parent !== str(s.info.id);
  };
  // A subagent's own subagents go inside its sidechain, beside their call (a cycle is cut).
  const withChildren = (s: Sess, seen: Set<Sess>): MappedSession => {
    const m = mapSession(s, path, []);
    seen.add(s);
    for (const c of children.get(str(s.info.id) ?? '') ?? [])
      if (!seen.has(c)) placeChild(m.events, withChildren(c, seen).events, str(c.info.id)!);
    return m;
  };
  const out: MappedSession[] = [];
  for (const s of sessions) {
    if (isChild(s)) continue;
    const m = withChildren(s, new Set());
    const fork = forkParent(
      s,
      sessions.filter((x) => x !== s && !isChild(x)),
    );
    if (fork) m.source.forkedFrom = fork;
    out.push(m);
  }
  return out;
}

/** A subagent session's events as sidechain agent events, after the task call that started it. */
function placeChild(events: MappedEvent[], sub: MappedEvent[], childId: string): void {
  const call = events.findIndex((e) => {
    const st = isRecord(e.raw) && e.raw.type === 'tool' && isRecord(e.raw.state) ? e.raw.state : undefined;
    return e.kind === 'agent' && !!st && isRecord(st.metadata) && st.metadata.sessionId === childId;
  });
  placeSidechain(events, asSidechain(sub), call);
}

/** The session a fork copied its first messages from (the longest run of the same messages). */
function forkParent(s: Sess, others: Sess[]): SourceRef['forkedFrom'] {
  if (!/ \(fork #\d+\)$/.test(str(s.info.title) ?? '')) return undefined;
  const key = (m: Msg) => `${String(m.info.role)}@${num(isRecord(m.info.time) ? m.info.time.created : undefined)}`;
  const mine = s.messages.map(key);
  let best: { s: Sess; n: number } | undefined;
  for (const o of others) {
    const theirs = o.messages.map(key);
    let n = 0;
    while (n < theirs.length && n < mine.length && theirs[n] === mine[n]) n++;
    if (n > 0 && (!best || n > best.n)) best = { s: o, n };
  }
  if (!best) return undefined;
  const turn = s.messages.slice(0, best.n).filter((m) => m.info.role === 'user').length;
  return { id: str(best.s.info.id)!, turn };
}

function mapSession(s: Sess, path: string, problems: string[]): MappedSession {
  const time = isRecord(s.info.time) ? s.info.time : {};
  const createdAt = isoTime(time.created) ?? EPOCH;
  const id = str(s.info.id) ?? basename(path, '.json');
  const project = str(s.info.directory) ?? '';
  const version = str(s.info.version);
  const source: SourceRef = { tool: 'opencode', ...(version ? { version } : {}), path, id, project };
  const clock = new Clock(createdAt);
  const events: MappedEvent[] = [];
  let model: string | undefined;
  for (const m of s.messages) {
    const t = clock.at((m.info.time as Record<string, unknown> | undefined)?.created);
    const role = m.info.role;
    const mm = isRecord(m.info.model) ? m.info.model : {};
    model ??= str(mm.modelID) ?? str(m.info.modelID);
    events.push(keptRaw(t, m.info));
    for (const p of m.parts) {
      const pt = clock.at(isRecord(p.time) ? p.time.start : undefined);
      events.push(...mapPart(p, role, pt));
    }
  }
  const title = str(s.info.title);
  if (title && !/^(New session|Child session) - \d{4}-/.test(title))
    events.push({ kind: 'title', t: clock.at(time.updated), title, source: 'model', raw: { title } });
  if (!project) problems.push(`session ${id} records no directory; not imported`);
  return { source, createdAt, ...(model ? { model } : {}), events: project ? events : [], problems };
}

function mapPart(p: Record<string, unknown>, role: unknown, t: string): MappedEvent[] {
  const type = p.type;
  if (type === 'text' && typeof p.text === 'string' && !p.synthetic) {
    if (role === 'user') return [{ kind: 'user', t, content: p.text, raw: p }];
    if (role === 'assistant') return [{ kind: 'assistant', t, content: p.text, raw: p }];
  }
  if (type === 'tool' && isRecord(p.state)) {
    const st = p.state;
    const id = str(p.callID) ?? str(p.id) ?? '';
    const call = {
      kind: 'agent' as const,
      t,
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id, name: p.tool, input: st.input ?? {} }] }],
      raw: p,
    };
    // A call still pending or running is rewritten by opencode when it ends: read it then.
    if (st.status !== 'completed' && st.status !== 'error') return [];
    const output = st.status === 'error' ? st.error : st.output;
    const end = isRecord(st.time) ? (isoTime(st.time.end) ?? t) : t;
    const result = {
      type: 'tool_result',
      tool_use_id: id,
      content: typeof output === 'string' ? output : JSON.stringify(output ?? ''),
      ...(st.status === 'error' ? { is_error: true } : {}),
    };
    return [call, { kind: 'agent', t: end, messages: [{ role: 'user', content: [result] }], raw: p }];
  }
  if (type === 'reasoning' && typeof p.text === 'string')
    return [{ kind: 'agent', t, messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: p.text }] }], raw: p }];
  if (type === 'compaction') return [{ kind: 'compact', t, briefing: 'Conversation compacted by opencode.', coversThrough: 0, raw: p }];
  return [keptRaw(t, p)];
}
