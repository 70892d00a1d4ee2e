// The Cursor importers beyond the contract: what becomes of each bubble (a garbage one is one
// problem and kept as text, an empty chat is skipped, a tool call keeps its parsed params and
// result), a write that only reached the -wal is seen while the database stays untouched, the
// agent CLI's store.db wins over the transcript of the same chat, and `import` finds both tools
// in their default folders under HOME through the real binary.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { countUnknownKinds, type UnknownKind } from '../../server/import/engine.js';
import { followImports } from '../../server/import/follow.js';
import { SessionStore } from '../../server/store/store.js';
import { importerOf } from '../../server/import/registry.js';
import { A, C, cursorLayout, openWritable } from './cases/cursor.js';
import { AGENT, STORE, storeLayout } from './cases/cursor-agent.js';
import { FIXTURES } from './layout.js';

const cursor = importerOf('cursor')!;
const cursorAgent = importerOf('cursor-agent')!;

let tmp: string;
let n = 0;
const dir = () => join(tmp, `t${++n}`);
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-cursor-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function readAll(root: string) {
  const [file] = await cursor.discover(root);
  return cursor.read(file!);
}

describe('cursor (the editor)', () => {
  it('a garbage bubble is one problem, kept as text, and the rest of its chat is imported; an empty chat is skipped', async () => {
    const sessions = await readAll(await cursorLayout(dir()));
    expect(sessions.map((s) => s.source.id).sort()).toEqual([A, 'b1b2c3d4-0002-4000-8000-00000000000b', C]);
    expect(sessions.flatMap((s) => s.problems)).toEqual([`chat ${C}: bubble c-a1 is not JSON; kept as text`]);
    const c = sessions.find((s) => s.source.id === C)!;
    expect(c.events.map((e) => e.kind)).toEqual(['title', 'user', 'event', 'assistant']);
    expect(c.events[2]).toMatchObject({ type: 'source-record', unparsed: true, raw: '{"_v":3,"type":2,"bubbleId":"c-a1","text":"Renam' });
  });

  it('maps a tool call and its result as a pair, thinking as agent thinking, times from the bubbles', async () => {
    const a = (await readAll(await cursorLayout(dir()))).find((s) => s.source.id === A)!;
    expect(a).toMatchObject({ createdAt: '2026-03-01T09:59:58.000Z', model: 'claude-4-sonnet', source: { version: 'composerData v10' } });
    const agents = a.events.filter((e) => e.kind === 'agent') as unknown as {
      t: string;
      messages: { content: Record<string, unknown>[] }[];
    }[];
    expect(agents.map((e) => e.messages[0]!.content[0]!.type)).toEqual(['thinking', 'tool_use', 'tool_result']);
    expect(agents[1]!.messages[0]!.content[0]).toMatchObject({
      id: 'toolu_cursor_1',
      name: 'run_terminal_cmd',
      input: { command: 'ls', requireUserApproval: false },
    });
    expect(agents[2]!.messages[0]!.content[0]).toMatchObject({
      tool_use_id: 'toolu_cursor_1',
      content: '{"output":"a.txt\\nb.txt\\n","exitCode":0}',
    });
    expect(agents[1]!.t).toBe('2026-03-01T10:00:02.000Z');
  });

  it('a header whose bubble has no row of its own is read from the older conversationMap', async () => {
    const root = await cursorLayout(dir());
    const w = openWritable(join(root, 'User', 'globalStorage', 'state.vscdb'));
    const key = `composerData:${A}`;
    const doc = JSON.parse((w.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(key) as { value: string }).value);
    doc.conversationMap = { 'a-a2': { type: 2, bubbleId: 'a-a2', text: 'It holds one line.' } };
    w.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(JSON.stringify(doc), key);
    w.prepare('DELETE FROM cursorDiskKV WHERE key = ?').run(`bubbleId:${A}:a-a2`);
    w.close();
    const a = (await readAll(root)).find((s) => s.source.id === A)!;
    expect(a.events.at(-1)).toMatchObject({ kind: 'assistant', content: 'It holds one line.' });
  });

  it('a bubble of a type never seen is kept hidden and counted as a kind never seen', async () => {
    const root = await cursorLayout(dir());
    const w = openWritable(join(root, 'User', 'globalStorage', 'state.vscdb'));
    const key = `composerData:${A}`;
    const doc = JSON.parse((w.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(key) as { value: string }).value);
    doc.fullConversationHeadersOnly.push({ bubbleId: 'a-x1', type: 30 });
    w.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(JSON.stringify(doc), key);
    const bubble = { _v: 3, type: 30, bubbleId: 'a-x1', text: 'a hologram', createdAt: '2026-03-01T10:03:00.000Z' };
    w.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)').run(`bubbleId:${A}:a-x1`, JSON.stringify(bubble));
    w.close();
    const sessions = await readAll(root);
    const unknown = new Map<string, UnknownKind>();
    for (const s of sessions) countUnknownKinds(cursor, s, unknown);
    expect([...unknown.values()]).toEqual([{ tool: 'cursor', version: 'composerData v10', kind: '30', count: 1 }]);
    expect(sessions.find((s) => s.source.id === A)!.events.at(-1)).toMatchObject({ type: 'source-record', raw: bubble });
  });

  it('follows a write that only reached the -wal, and leaves the database as it was', async () => {
    const root = await cursorLayout(dir());
    const db = join(root, 'User', 'globalStorage', 'state.vscdb');
    const w = openWritable(db);
    w.prepare('PRAGMA journal_mode = WAL').get();
    w.prepare('PRAGMA wal_autocheckpoint = 0').get();
    const before = await cursor.discover(root);
    const doc = JSON.parse((w.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(`composerData:${A}`) as { value: string }).value);
    doc.fullConversationHeadersOnly.push({ bubbleId: 'a-u3', type: 1 });
    w.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(JSON.stringify(doc), `composerData:${A}`);
    const bubble = { _v: 3, type: 1, bubbleId: 'a-u3', text: 'And b.txt?', createdAt: '2026-03-01T10:02:00.000Z' };
    w.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)').run(`bubbleId:${A}:a-u3`, JSON.stringify(bubble));
    const main = await readFile(db);
    const [after] = await cursor.discover(root);
    expect(after!.parts).toContain(`${db}-wal`);
    expect(after!.size).not.toBe(before[0]!.size);
    const a = (await cursor.read(after!)).find((s) => s.source.id === A)!;
    expect(a.events.at(-1)).toMatchObject({ kind: 'user', content: 'And b.txt?' });
    expect(await readFile(db)).toEqual(main); // read-only: no checkpoint, no write
    w.close();
  });

  it('followed live, a prompt that only reached the -wal becomes a turn of ours', async () => {
    const base = dir();
    const root = await cursorLayout(base);
    const w = openWritable(join(root, 'User', 'globalStorage', 'state.vscdb'));
    w.prepare('PRAGMA journal_mode = WAL').get();
    w.prepare('PRAGMA wal_autocheckpoint = 0').get();
    const store = new SessionStore({ root: join(base, 'store'), agent: 'test' });
    const f = followImports(store, [{ importer: cursor, roots: [root] }], { poll: true, pollMs: 3_600_000 });
    try {
      expect((await f.runNow()).imported).toBe(3);
      const key = `composerData:${C}`;
      const doc = JSON.parse((w.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(key) as { value: string }).value);
      doc.fullConversationHeadersOnly.push({ bubbleId: 'c-u2', type: 1 });
      w.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(JSON.stringify(doc), key);
      w.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)').run(
        `bubbleId:${C}:c-u2`,
        JSON.stringify({ type: 1, bubbleId: 'c-u2', text: 'and baz?' }),
      );
      const next = await f.runNow();
      expect([next.imported, next.updated]).toEqual([0, 1]);
      const again = await f.runNow();
      expect([again.imported, again.updated]).toEqual([0, 0]);
    } finally {
      f.close();
      w.close();
    }
  });

  it('a user-data folder without state.vscdb holds no chats; a folder that is not one is an error', async () => {
    const root = join(dir(), 'Cursor');
    await mkdir(join(root, 'User', 'globalStorage', 'saoudrizwan.claude-dev'), { recursive: true });
    expect(await cursor.discover(root)).toEqual([]);
    const other = dir();
    await mkdir(other, { recursive: true });
    await expect(cursor.discover(other)).rejects.toThrow(/no User\/globalStorage\/state.vscdb/);
  });

  it('a chat no workspace lists takes its bubbles workspaceUris, else the home folder', async () => {
    const root = await cursorLayout(dir());
    await rm(join(root, 'User', 'workspaceStorage'), { recursive: true });
    const w = openWritable(join(root, 'User', 'globalStorage', 'state.vscdb'));
    const bubble = { _v: 3, type: 1, bubbleId: 'c-u1', text: 'Rename foo to bar', workspaceUris: ['file:///srv/app'] };
    w.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(JSON.stringify(bubble), `bubbleId:${C}:c-u1`);
    w.close();
    const projects = Object.fromEntries((await readAll(root)).map((s) => [s.source.id, s.source.project]));
    expect(projects).toEqual({ [A]: homedir(), 'b1b2c3d4-0002-4000-8000-00000000000b': homedir(), [C]: '/srv/app' });
  });
});

describe('cursor-agent store.db', () => {
  it('reads the conversation under the latest root: prompts from <user_query>, <user_info> as context, the call paired', async () => {
    const root = await storeLayout(dir());
    const [file] = await cursorAgent.discover(root);
    const [s] = await cursorAgent.read(file!);
    expect(s!.problems).toEqual([]);
    expect(s!.source).toMatchObject({ id: AGENT, project: '/home/dev/demo' });
    expect(s!).toMatchObject({ createdAt: '2026-03-01T10:00:00.000Z', model: 'claude-4-sonnet' });
    expect(s!.events.map((e) => `${e.kind}${e.context ? ':context' : ''}`)).toEqual([
      'title',
      'event',
      'agent:context',
      'user',
      'agent',
      'agent',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(s!.events[3]).toMatchObject({ content: 'List the files here' });
  });

  it('leaves a transcript of the same chat to its store.db, and still reads the other transcripts', async () => {
    const root = await storeLayout(dir());
    const folder = join(root, 'projects', 'home-dev-demo', 'agent-transcripts');
    await mkdir(folder, { recursive: true });
    await cp(join(FIXTURES, 'cursor-agent', 'as_cursor_small.jsonl'), join(folder, `${AGENT}.jsonl`));
    await cp(join(FIXTURES, 'cursor-agent', 'as_cursor_small.jsonl'), join(folder, 'other.jsonl'));
    const files = await cursorAgent.discover(root);
    expect(files.map((f) => f.path.slice(root.length + 1)).sort()).toEqual([
      STORE,
      join('projects', 'home-dev-demo', 'agent-transcripts', 'other.jsonl'),
    ]);
  });

  it('a root without the workspace URI: the path in <user_info> whose md5 names the chat folder', async () => {
    const root = await storeLayout(dir());
    const w = openWritable(join(root, STORE));
    const meta = JSON.parse(
      Buffer.from((w.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: string }).value, 'hex').toString(),
    );
    const latest = (w.prepare('SELECT data FROM blobs WHERE id = ?').get(meta.latestRootBlobId) as { data: Buffer }).data;
    let end = 0;
    while (latest[end] === 0x0a && latest[end + 1] === 0x20) end += 34; // the field-1 entries, without field 9
    const bare = latest.subarray(0, end);
    meta.latestRootBlobId = createHash('sha256').update(bare).digest('hex');
    w.prepare('INSERT INTO blobs (id, data) VALUES (?, ?)').run(meta.latestRootBlobId, bare);
    w.prepare("UPDATE meta SET value = ? WHERE key = '0'").run(Buffer.from(JSON.stringify(meta)).toString('hex'));
    w.close();
    const [s] = await cursorAgent.read((await cursorAgent.discover(root))[0]!);
    expect(s!.problems).toEqual([]);
    expect(s!.source.project).toBe('/home/dev/demo');
    expect(s!.events.filter((e) => e.kind === 'user')).toHaveLength(2);
  });

  it('~/.cursor of the editor alone (extensions/, no CLI chats) holds nothing; another folder without them is an error', async () => {
    const root = join(dir(), '.cursor');
    await mkdir(join(root, 'extensions'), { recursive: true });
    expect(await cursorAgent.discover(root)).toEqual([]);
    const other = join(dir(), 'elsewhere');
    await mkdir(other, { recursive: true });
    await expect(cursorAgent.discover(other)).rejects.toThrow(/no projects\/ or chats\/ folder/);
  });

  it('a message blob that is not JSON is one problem, kept as text', async () => {
    const root = await storeLayout(dir());
    const w = openWritable(join(root, STORE));
    const rows = w.prepare("SELECT id FROM blobs WHERE CAST(data AS TEXT) LIKE '%Deleted b.txt%'").get() as { id: string };
    w.prepare('UPDATE blobs SET data = ? WHERE id = ?').run(Buffer.from('{"role":"assistant","content":[{"ty'), rows.id);
    w.close();
    const [file] = await cursorAgent.discover(root);
    const [s] = await cursorAgent.read(file!);
    expect(s!.problems).toEqual([`chat ${AGENT}: message blob ${rows.id.slice(0, 12)} is not JSON; kept as text`]);
    expect(s!.events.at(-1)).toMatchObject({ kind: 'event', unparsed: true });
    expect(s!.events.filter((e) => e.kind === 'user')).toHaveLength(2);
  });
});

describe('levelcode-sessions import: Cursor and its agent CLI in their default folders', () => {
  const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
  it('import all finds both, then nothing new on a second run', async () => {
    const base = dir();
    const home = join(base, 'home');
    await mkdir(join(home, '.config'), { recursive: true });
    await cursorLayout(join(home, '.config'));
    await storeLayout(home);
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [bin, ...args], {
        cwd: base,
        env: {
          ...process.env,
          HOME: home,
          LEVELCODE_SESSIONS_DIR: join(base, 'store'),
          XDG_CACHE_HOME: join(base, 'cache'),
          XDG_CONFIG_HOME: join(home, '.config'),
          XDG_DATA_HOME: join(home, '.local', 'share'),
        },
        encoding: 'utf8',
        timeout: 30_000,
      });
    const first = cli(['import', '--json']);
    expect(first.status, first.stderr).toBe(0);
    const r = JSON.parse(first.stdout);
    expect(r.sessions.map((s: { source: { tool: string } }) => s.source.tool).sort()).toEqual([
      'cursor',
      'cursor',
      'cursor',
      'cursor-agent',
    ]);
    const second = JSON.parse(cli(['import', '--json']).stdout);
    expect(second).toMatchObject({ imported: 0, updated: 0 });
  });
});
