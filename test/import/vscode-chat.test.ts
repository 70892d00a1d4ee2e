// The VS Code chat importer on real files in temp dirs: every contract case's counts, then what a
// case cannot say: each op kind replayed, a log read as it grows (streaming, a request still
// pending), a session reset in place, inputState noise, a torn last line, hostile keys in op
// paths, workspace.json and empty windows, and an unreadable folder.

import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importerOf } from '../../server/import/registry.js';
import { toolOf } from '../../server/import/tools.js';
import { countUnknownKinds, type UnknownKind } from '../../server/import/engine.js';
import { cases, REAL_SESSIONS } from './cases/vscode.js';
import { bare, checkCase, readAll, title, toolPairs, turns, userTexts } from './helpers.js';
import { at, nonEmpty } from '../helpers/items.js';

const vscodeChat = importerOf('vscode')!;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lcs-vscode-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('vscode contract cases', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const sessions = await checkCase(vscodeChat, c, dir, expect);
      expect(sessions.length).toBeGreaterThan(0);
      for (const s of sessions) expect(s.source.path.startsWith(dir)).toBe(true);
    });
  }

  it('the real log: VS Code stored a pending request, then its result, then pushed its parts', async () => {
    expect(REAL_SESSIONS.reduce((n, s) => n + s.requests, 0)).toBeGreaterThanOrEqual(4);
    expect(REAL_SESSIONS.some((s) => s.tools > 0)).toBe(true);
    const sessions = await readAll(vscodeChat, await at(cases, 0).setup(dir));
    const withTool = sessions.find((s) => toolPairs(s.events) > 0)!;
    // One answer, an event a turn of the exchange: text and call, the result, the text after it.
    const agents = withTool.events.filter((e) => e.kind === 'agent');
    expect(agents).toHaveLength(3);
    for (const a of agents) expect(a.raw).toBe(at(agents, 0).raw);
    const blocks = agents.flatMap((a) =>
      (a.messages as { content: { type: string; text?: string; content?: string }[] }[]).flatMap((m) => m.content),
    );
    expect(blocks.map((b) => b.type)).toEqual(['text', 'tool_use', 'tool_result', 'text']);
    expect(at(blocks, 2).content).toBe('README.md\nnotes.txt');
    // code-server keeps no workspace.json: the chat is filed under home, and says so.
    expect(withTool.source.project).toBe(homedir());
    expect(withTool.problems[0]).toMatch(/no workspace\.json/);
  });
});

// ---------------------------------------------------------------------------------------------
// Op logs made op by op, as VS Code writes them.

const T0 = 1_767_261_600_000; // 2026-01-01T10:00:00Z
const req = (n: number, text: string, extra: Record<string, unknown> = {}) => ({
  requestId: `request_${n}`,
  timestamp: T0 + n * 60_000,
  message: { text, parts: [{ kind: 'text', text }] },
  modelId: 'copilot/gpt-test',
  modelState: { value: 0 },
  response: [],
  ...extra,
});
const md = (value: string) => ({ value, supportThemeIcons: false });

function opLog(): Record<string, unknown>[] {
  return [
    { kind: 0, v: { version: 3, sessionId: 'sess-ops', creationDate: T0, requests: [], inputState: { inputText: '' } } },
    { kind: 1, k: ['inputState', 'inputText'], v: 'H' },
    { kind: 1, k: ['inputState', 'inputText'], v: 'Hello' },
    { kind: 2, k: ['requests'], v: [req(1, 'Hello there')] },
    { kind: 2, k: ['requests', 0, 'response'], v: [{ kind: 'progressMessage', content: { value: 'Working' } }] },
    // The progress part replaced by the answer: a push with a truncation index.
    { kind: 2, k: ['requests', 0, 'response'], v: [md('General ')], i: 0 },
    { kind: 2, k: ['requests', 0, 'response'], v: [md('Kenobi.')] },
    { kind: 1, k: ['requests', 0, 'modelState'], v: { value: 1, completedAt: T0 + 61_000 } },
    { kind: 1, k: ['customTitle'], v: 'Greetings' },
    { kind: 2, k: ['requests'], v: [req(2, 'List the files', { pendingFlag: true })] },
    { kind: 3, k: ['requests', 1, 'pendingFlag'] },
    {
      kind: 2,
      k: ['requests', 1, 'response'],
      v: [
        md('Looking.'),
        {
          kind: 'toolInvocationSerialized',
          toolCallId: 'call-1',
          toolId: 'listFiles',
          isComplete: true,
          resultDetails: { input: '{"folder":"."}', output: [{ type: 'embed', isText: true, value: 'a.txt' }] },
        },
        md('Found a.txt.'),
      ],
    },
    { kind: 1, k: ['requests', 1, 'modelState'], v: { value: 1, completedAt: T0 + 121_000 } },
    { kind: 1, k: ['inputState', 'inputText'], v: 'typing the next one' },
  ];
}

async function writeOps(ops: unknown[], name = 'sess-ops.jsonl', tail = '\n'): Promise<string> {
  const ws = join(dir, 'User/workspaceStorage/abc');
  await mkdir(join(ws, 'chatSessions'), { recursive: true });
  await writeFile(join(ws, 'workspace.json'), JSON.stringify({ folder: 'file:///work/proj' }));
  const file = join(ws, 'chatSessions', name);
  await writeFile(file, ops.map((o) => JSON.stringify(o)).join('\n') + tail);
  return file;
}

async function read(file: string) {
  return vscodeChat.read(at(await vscodeChat.discover(file), 0, `discover(${file})`));
}

describe('vscode op-log replay', () => {
  it('replays every kind: snapshot, set, push with and without truncation, delete', async () => {
    const [s] = nonEmpty(await read(await writeOps(opLog())));
    expect(s.source).toMatchObject({ tool: 'vscode', id: 'sess-ops', project: '/work/proj' });
    expect(s.problems).toEqual([]);
    expect(s.createdAt).toBe(new Date(T0).toISOString());
    expect(s.model).toBe('copilot/gpt-test');
    expect(s.events.map((e) => e.kind)).toEqual(['user', 'assistant', 'title', 'user', 'agent', 'agent', 'agent']);
    expect(at(s.events, 1).content).toEqual([
      { type: 'text', text: 'General ' },
      { type: 'text', text: 'Kenobi.' },
    ]);
    expect(title(s.events)).toBe('Greetings');
    expect(toolPairs(s.events)).toBe(1);
    expect(Object.hasOwn(at(s.events, 3).raw as object, 'pendingFlag')).toBe(false);
    const blocks = s.events.slice(4).flatMap((e) => (e.messages as { content: Record<string, unknown>[] }[]).flatMap((m) => m.content));
    expect(blocks.find((b) => b.type === 'tool_use')).toMatchObject({ id: 'call-1', name: 'listFiles', input: { folder: '.' } });
  });

  it('a log read at every line gives the earlier events as a prefix; a pending request maps to its user message only', async () => {
    const ops = opLog();
    const full = bare(at(await read(await writeOps(ops)), 0).events);
    for (let n = 1; n <= ops.length; n++) {
      const got = await read(await writeOps(ops.slice(0, n)));
      const events = got.length ? bare(at(got, 0).events) : [];
      expect(full.slice(0, events.length), `after ${n} ops`).toEqual(events);
    }
    const pending = await read(await writeOps(ops.slice(0, 7)));
    expect(at(pending, 0).events.map((e) => e.kind)).toEqual(['user']);
  });

  it('inputState keystrokes change nothing mapped', async () => {
    const ops = opLog();
    const quiet = ops.filter((o) => !(Array.isArray(o.k) && o.k[0] === 'inputState'));
    expect(bare(at(await read(await writeOps(ops)), 0).events)).toEqual(bare(at(await read(await writeOps(quiet)), 0).events));
  });

  it('a reset in place (a new snapshot, fewer requests) maps the new state, whose first turn differs', async () => {
    const ops = [
      ...opLog(),
      {
        kind: 0,
        v: {
          version: 3,
          sessionId: 'sess-ops',
          creationDate: T0 + 600_000,
          requests: [{ ...req(9, 'Fresh start'), modelState: { value: 1 }, response: [md('ok')] }],
        },
      },
    ];
    const [s] = nonEmpty(await read(await writeOps(ops)));
    expect(userTexts(s.events)).toEqual(['Fresh start']);
    expect(s.createdAt).toBe(new Date(T0 + 600_000).toISOString());
  });

  it('a half-written last line is skipped and reported; the events before it stand', async () => {
    const ops = opLog();
    const before = bare(at(await read(await writeOps(ops)), 0).events);
    const [s] = nonEmpty(await read(await writeOps(ops, 'sess-ops.jsonl', '\n{"kind":2,"k":["requests"],"v":[{"requestId":"half')));
    expect(bare(s.events)).toEqual(before);
    expect(s.problems).toEqual([
      `Line ${ops.length + 1} is a torn last line (VS Code may still be writing it); it is read again next time.`,
    ]);
  });

  it('ops that do not fit are kept raw where they came and counted, never thrown', async () => {
    const ops = [
      ...opLog(),
      { kind: 1, k: ['requests', 7, 'x'], v: 1 },
      { kind: 2, k: ['customTitle'], v: [1] },
      { kind: 9, k: ['a'] },
      { kind: 1, k: [] },
    ];
    const [s] = nonEmpty(await read(await writeOps(ops)));
    expect(turns(s.events)).toBe(2);
    expect(s.problems).toEqual(['4 changes in the log did not fit the session; they are kept as records of their own.']);
    const kept = s.events.filter((e) => e.type === 'source-record');
    expect(kept.map((e) => e.raw)).toEqual(ops.slice(-4));
    expect(s.events.slice(-4)).toEqual(kept);
    // Of the four, only the op of a kind the log never had is a kind never seen (format drift);
    // the other three are known kinds whose paths did not fit, reported above.
    const unknown = new Map<string, UnknownKind>();
    countUnknownKinds(vscodeChat, s, unknown);
    expect([...unknown.values()]).toEqual([{ tool: 'vscode', version: '', kind: 'op 9', count: 1 }]);
  });

  it('__proto__ in an op path or a snapshot never reaches a prototype', async () => {
    const ops = [
      ...opLog(),
      { kind: 1, k: ['__proto__', 'polluted'], v: 'op' },
      { kind: 1, k: ['requests', 0, '__proto__'], v: { polluted: 'own' } },
      { kind: 2, k: ['constructor', 'prototype', 'polluted'], v: ['x'] },
      JSON.parse('{"kind":1,"k":["requests",1,"message","__proto__"],"v":{"polluted":"msg"}}'),
    ];
    const [s] = nonEmpty(await read(await writeOps(ops)));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    // A request's own `__proto__` key is data, carried with the rest of the request on the answer.
    expect(Object.getPrototypeOf(at(s.events, 0).raw)).toBe(Object.prototype);
    const raw = at(s.events, 1).raw as Record<string, unknown>;
    expect(Object.getPrototypeOf(raw)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(raw, '__proto__')?.value).toEqual({ polluted: 'own' });
    expect(turns(s.events)).toBe(2);
  });

  it('the v3 document: customTitle is the title, after the requests', async () => {
    const doc = {
      version: 3,
      sessionId: 'v3',
      creationDate: T0,
      customTitle: 'Renamed',
      requests: [{ ...req(1, 'q'), modelState: undefined, result: { metadata: {} }, response: [md('a')] }],
    };
    const ws = join(dir, 'User/workspaceStorage/h');
    await mkdir(join(ws, 'chatSessions'), { recursive: true });
    await writeFile(join(ws, 'workspace.json'), JSON.stringify({ workspace: 'file:///work/multi/app.code-workspace' }));
    await writeFile(join(ws, 'chatSessions/v3.json'), JSON.stringify(doc));
    const [s] = nonEmpty(await readAll(vscodeChat, dir));
    expect(s.source.project).toBe('/work/multi');
    expect(s.events.map((e) => e.kind)).toEqual(['user', 'assistant', 'title']);
    // A torn document is a problem, not a throw.
    await writeFile(join(ws, 'chatSessions/v3.json'), JSON.stringify(doc).slice(0, 40));
    const [torn] = nonEmpty(await readAll(vscodeChat, dir));
    expect(torn.problems[0]).toMatch(/not complete JSON/);
  });
});

describe('vscode discovery', () => {
  it('finds workspace and empty-window chats; a .jsonl replaces the .json it was migrated from', async () => {
    await writeOps(opLog());
    const chats = join(dir, 'User/workspaceStorage/abc/chatSessions');
    await writeFile(join(chats, 'sess-ops.json'), JSON.stringify({ version: 3, sessionId: 'sess-ops', requests: [] }));
    const empty = join(dir, 'User/globalStorage/emptyWindowChatSessions');
    await mkdir(empty, { recursive: true });
    await writeFile(
      join(empty, 'e1.jsonl'),
      JSON.stringify({
        kind: 0,
        v: { sessionId: 'e1', creationDate: T0, requests: [{ ...req(1, 'no folder'), modelState: { value: 1 }, response: [md('fine')] }] },
      }) + '\n',
    );
    const files = await vscodeChat.discover(dir);
    expect(files.map((f) => f.path.slice(dir.length))).toEqual([
      '/User/globalStorage/emptyWindowChatSessions/e1.jsonl',
      '/User/workspaceStorage/abc/chatSessions/sess-ops.jsonl',
    ]);
    const sessions = await readAll(vscodeChat, join(dir, 'User'));
    expect(sessions.find((s) => s.source.id === 'e1')!.source.project).toBe(homedir());
    expect(sessions.find((s) => s.source.id === 'e1')!.problems).toEqual([]);
  });

  it('an unreadable chatSessions folder is an error, not an empty list; a missing root throws', async () => {
    await writeOps(opLog());
    const chats = join(dir, 'User/workspaceStorage/abc/chatSessions');
    await expect(vscodeChat.discover(join(dir, 'nope'))).rejects.toThrow(/ENOENT/);
    await chmod(chats, 0o000);
    try {
      if (process.getuid?.() === 0) {
        await chmod(dir, 0o755);
        const r = spawnSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `import('${process.cwd()}/dist/import/vscode-chat.js').then((m) => m.vscodeChat.discover(${JSON.stringify(dir)})).then(() => process.exit(0), (e) => { console.error(e.code); process.exit(3); })`,
          ],
          { uid: 65534, gid: 65534, encoding: 'utf8' },
        );
        expect(r.stderr.trim()).toBe('EACCES');
        expect(r.status).toBe(3);
      } else {
        await expect(vscodeChat.discover(dir)).rejects.toThrow(/EACCES/);
      }
    } finally {
      await chmod(chats, 0o755);
    }
  });

  it('defaultRoots names VS Code, Insiders, VSCodium and code-server user-data folders', () => {
    const roots = vscodeChat.defaultRoots({}, '/home/u');
    if (process.platform === 'linux') {
      expect(roots).toEqual(
        expect.arrayContaining([
          '/home/u/.config/Code',
          '/home/u/.config/Code - Insiders',
          '/home/u/.config/VSCodium',
          '/home/u/.local/share/code-server',
        ]),
      );
      expect(vscodeChat.defaultRoots({ XDG_CONFIG_HOME: '/x', XDG_DATA_HOME: '/d' }, '/home/u')).toEqual(
        expect.arrayContaining(['/x/Code', '/d/code-server']),
      );
    }
    expect(toolOf('vscode')!.resume).toBeUndefined();
  });
});
