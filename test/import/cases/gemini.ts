// Contract cases of the Gemini CLI importer: the public fixtures (other projects' test data) and
// the files the real Gemini CLI wrote (tools/fixtures/gemini.mjs: 0.20.2's whole-file JSON,
// 0.61.0's JSONL log with a compression, and 0.61.0 resuming a session 0.20.2 wrote).

import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContractCase } from '../case.js';

export const GEMINI_FIXTURES = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../fixtures/import/gemini');
const REAL = join(GEMINI_FIXTURES, 'real');

/** Copies one of the real data folders (a ~/.gemini as the CLI left it) into dir. */
async function realRoot(name: string, dir: string): Promise<string> {
  const root = join(dir, '.gemini');
  await cp(join(REAL, name), root, { recursive: true });
  return root;
}

/** One public fixture laid out as ~/.gemini/tmp/<hash>/chats/session-*.json(l). */
async function publicRoot(file: string, dir: string, transform?: (text: string) => string): Promise<string> {
  const root = join(dir, '.gemini');
  const chats = join(root, 'tmp', 'abc123def456', 'chats');
  await mkdir(chats, { recursive: true });
  const text = await readFile(join(GEMINI_FIXTURES, 'public', file), 'utf8');
  const ext = file.endsWith('.jsonl') ? '.jsonl' : '.json';
  await writeFile(join(chats, `session-2026-01-01T10-00-fixture${ext}`), transform ? transform(text) : text);
  return root;
}

const P020 = '/tmp/levelcode-gemini-fixture/v0.20.2/project';
const P061 = '/tmp/levelcode-gemini-fixture/v0.61.0/project';

export const cases: ContractCase[] = [
  {
    name: 'gemini 0.20.2: whole-file JSON, tool calls, two resumes (real)',
    tool: 'gemini',
    real: true,
    setup: (dir) => realRoot('v0.20.2', dir),
    earlier: async (dir) => {
      // The file as 0.20.2 left it after the first run: it rewrites the whole document each turn.
      const root = await realRoot('v0.20.2', dir);
      const { path, doc } = await firstJson(root);
      doc.messages = doc.messages.slice(0, 3);
      await writeFile(path, JSON.stringify(doc, null, 2));
      return root;
    },
    sessions: [
      {
        id: 'f5e51530-b864-432f-89d6-cb61a2931028',
        project: P020,
        turns: 3,
        title: null,
        compactions: 0,
        toolPairs: 2,
        userTexts: ['Create notes.txt containing hello, please.', 'Now run ls and tell me what is there.', 'Thanks, that is all.'],
      },
    ],
  },
  {
    name: 'gemini 0.61.0: JSONL log, resumes, a compression (real)',
    tool: 'gemini',
    real: true,
    clean: true,
    setup: (dir) => realRoot('v0.61.0', dir),
    earlier: async (dir) => {
      const root = await realRoot('v0.61.0', dir);
      const file = join(root, 'tmp/project/chats', LOG061);
      const lines = (await readFile(file, 'utf8')).split('\n');
      await writeFile(file, lines.slice(0, 11).join('\n') + '\n'); // up to the first answer
      return root;
    },
    sessions: [
      {
        id: '38e1a30c-8658-4e73-b345-4b9f6b965bc9',
        project: P061,
        turns: 3,
        title: null,
        compactions: 1,
        toolPairs: 2,
        userTexts: ['Create notes.txt containing hello, please.', 'Now run ls and tell me what is there.', 'Thanks, that is all.'],
      },
    ],
  },
  {
    name: 'gemini 0.61.0 resuming a 0.20.2 session: .json converted to .jsonl, hash folder migrated (real)',
    tool: 'gemini',
    real: true,
    setup: (dir) => realRoot('v0.20.2-resumed-by-v0.61.0', dir),
    sessions: [
      {
        id: 'f5e51530-b864-432f-89d6-cb61a2931028',
        project: P020,
        turns: 4,
        title: null,
        compactions: 0,
        toolPairs: 2,
        userTexts: ['Create notes.txt containing hello, please.', 'Thanks, that is all.', 'Continuing with the new version.'],
      },
    ],
  },
  {
    name: 'gemini JSON with a summary (polylogue, public)',
    tool: 'gemini',
    real: false,
    setup: (dir) => publicRoot('polylogue_gemini_cli_session_min.json', dir),
    sessions: [
      {
        id: 'origin-matrix-gemini-cli',
        turns: 1,
        title: 'Origin capability matrix',
        compactions: 0,
        toolPairs: 0,
        userTexts: ['Prove the parser claim.'],
      },
    ],
  },
  {
    name: 'gemini JSON with thoughts and tool results (agentsview, public)',
    tool: 'gemini',
    real: false,
    setup: (dir) => publicRoot('agentsview_gemini_tool_calls_with_results.json', dir),
    sessions: [{ id: 'sess-uuid-tool-results', turns: 1, title: null, compactions: 0, toolPairs: 2, userTexts: ['Read the planning doc'] }],
  },
  {
    name: 'gemini JSON with thoughts only (agentsview, public)',
    tool: 'gemini',
    real: false,
    setup: (dir) => publicRoot('agentsview_gemini_thinking_only.json', dir),
    sessions: [{ id: 'sess-uuid-thinking', turns: 1, title: null, compactions: 0, toolPairs: 0, userTexts: ['Explain how this works'] }],
  },
  {
    name: 'gemini JSONL 0.40 with $set lines (agent-sessions, public)',
    tool: 'gemini',
    real: false,
    setup: (dir) => publicRoot('as_gemini_jsonl_v040.jsonl', dir),
    earlier: (dir) => publicRoot('as_gemini_jsonl_v040.jsonl', dir, (t) => t.split('\n').slice(0, 3).join('\n') + '\n'),
    sessions: [
      { id: 'gemini_stage0_jsonl', turns: 1, title: null, compactions: 0, toolPairs: 1, userTexts: ['Say hello and list files.'] },
    ],
  },
  {
    // 0.61 writes `session-<minute>-<id8>.jsonl` (a header and a $set of the session context)
    // each time a --resume starts in a later minute, while the turns go on in the first file.
    name: 'gemini 0.61.0: a resume stub file of the same sessionId is no row of its own (real, plus the stub 0.61 writes)',
    tool: 'gemini',
    real: true,
    clean: true,
    setup: async (dir) => {
      const root = await realRoot('v0.61.0', dir);
      const chats = join(root, 'tmp/project/chats');
      const lines = (await readFile(join(chats, LOG061), 'utf8')).split('\n');
      const header = JSON.parse(lines[0]!) as Record<string, unknown>;
      const stub = [
        JSON.stringify({ ...header, startTime: '2026-12-02T08:09:12.000Z', lastUpdated: '2026-12-02T08:09:12.000Z' }),
        lines[1],
      ];
      await writeFile(join(chats, 'session-2026-12-02T08-09-38e1a30c.jsonl'), stub.join('\n') + '\n');
      return root;
    },
    sessions: [{ id: '38e1a30c-8658-4e73-b345-4b9f6b965bc9', project: P061, turns: 3, compactions: 1, toolPairs: 2 }],
  },
  {
    // A subagent's log (kind: "subagent") in chats/<parent id>/: part of its parent's session,
    // as a sidechain beside the moment it ran, never a row of its own. Built from the real
    // 0.61.0 log (its records re-headed as a subagent's; the layout is 0.61's).
    name: 'gemini 0.61.0: a subagent log in chats/<parent id>/ is a sidechain of its parent (real records, subagent layout)',
    tool: 'gemini',
    real: true,
    setup: async (dir) => {
      const root = await realRoot('v0.61.0', dir);
      const chats = join(root, 'tmp/project/chats');
      const lines = (await readFile(join(chats, LOG061), 'utf8')).split('\n');
      const header = JSON.parse(lines[0]!) as Record<string, unknown>;
      const sub = [
        JSON.stringify({ ...header, sessionId: 'subagent-0001', kind: 'subagent', startTime: '2026-12-02T08:04:43.800Z' }),
        lines[2], // a user message
        lines[9], // and an answer
      ];
      await mkdir(join(chats, String(header.sessionId)), { recursive: true });
      await writeFile(join(chats, String(header.sessionId), 'subagent-0001.jsonl'), sub.join('\n') + '\n');
      return root;
    },
    sessions: [{ id: '38e1a30c-8658-4e73-b345-4b9f6b965bc9', project: P061, turns: 3, compactions: 1, toolPairs: 2, sidechains: 1 }],
  },
];

/**
 * The real 0.20.2 session split across two files of one sessionId, as older versions (and a
 * resume started in a later minute) leave it: the first file with the first exchange, a later
 * `session-<minute>-<id8>.json` with the rest (its first message repeated, as a resumed list is).
 */
async function splitRoot(dir: string, whole: boolean): Promise<string> {
  const root = await realRoot('v0.20.2', dir);
  const { path, doc } = await firstJson(root);
  const messages = doc.messages;
  doc.messages = messages.slice(0, 3);
  await writeFile(path, JSON.stringify(doc, null, 2));
  if (whole) {
    const later = { ...doc, startTime: '2026-12-02T08:07:10.000Z', messages: messages.slice(2) };
    await writeFile(join(dirname(path), 'session-2026-12-02T08-07-f5e51530.json'), JSON.stringify(later, null, 2));
  }
  return root;
}

cases.push({
  name: 'gemini 0.20.2: one sessionId split across two files is one session (real records, split as older versions do)',
  tool: 'gemini',
  real: true,
  setup: (dir) => splitRoot(dir, true),
  earlier: (dir) => splitRoot(dir, false),
  sessions: [
    {
      id: 'f5e51530-b864-432f-89d6-cb61a2931028',
      project: P020,
      turns: 3,
      title: null,
      compactions: 0,
      toolPairs: 2,
      userTexts: ['Create notes.txt containing hello, please.', 'Now run ls and tell me what is there.', 'Thanks, that is all.'],
    },
  ],
});

// Resumed minutes apart by the real CLIs (tools/fixtures/gemini.mjs, real waits): 0.61.0 wrote a
// stub session-<minute>-<id8>.jsonl for each resume that started in a later minute (a header and
// the <session_context>) while the turns went on in the first file; 0.20.2 one file throughout.
const TEXTS = ['Create notes.txt containing hello, please.', 'Now run ls and tell me what is there.', 'Thanks, that is all.'];
cases.push(
  {
    name: 'gemini 0.61.0 resumed minutes apart: two real stub files, one session (real)',
    tool: 'gemini',
    real: true,
    clean: true,
    setup: (dir) => realRoot('v0.61.0-minutes-apart', dir),
    sessions: [
      {
        id: 'ebe5e94d-4d6c-4451-a928-3de5538ccb75',
        project: '/tmp/levelcode-gemini-fixture/v0.61.0-minutes-apart/project',
        turns: 3,
        title: null,
        toolPairs: 2,
        userTexts: TEXTS,
      },
    ],
  },
  {
    name: 'gemini 0.20.2 resumed minutes apart: one document (real)',
    tool: 'gemini',
    real: true,
    setup: (dir) => realRoot('v0.20.2-minutes-apart', dir),
    earlier: async (dir) => {
      // After the first run: 0.20.2 rewrites the whole document each turn.
      const root = await realRoot('v0.20.2-minutes-apart', dir);
      const chats = join(root, 'tmp/a992cd49acf8a1a9bddeabc97a4fd31312496a2ad148b8ad1403822e3d4fef86/chats');
      const path = join(chats, 'session-2026-12-07T04-05-0d9994ab.json');
      const doc = JSON.parse(await readFile(path, 'utf8')) as { messages: unknown[] };
      doc.messages = doc.messages.slice(0, 3);
      await writeFile(path, JSON.stringify(doc, null, 2));
      return root;
    },
    sessions: [
      {
        id: '0d9994ab-528f-45b4-8fd1-e1204adeccf5',
        project: '/tmp/levelcode-gemini-fixture/v0.20.2-minutes-apart/project',
        turns: 3,
        title: null,
        toolPairs: 2,
        userTexts: TEXTS,
      },
    ],
  },
);

export const LOG061 = 'session-2026-12-02T08-04-38e1a30c.jsonl';

export async function firstJson(root: string): Promise<{ path: string; doc: { messages: unknown[] } & Record<string, unknown> }> {
  const dir = join(root, 'tmp/cc4924a4ff62018ed2e16c98a82c3d36e9098207bbf4c5b9cad1d4df772ec8c1/chats');
  const path = join(dir, 'session-2026-12-02T08-04-f5e51530.json');
  return { path, doc: JSON.parse(await readFile(path, 'utf8')) };
}
