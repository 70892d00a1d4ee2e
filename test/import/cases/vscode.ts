// Contract cases of the VS Code chat importer: the sessions real code-server wrote through a test
// chat participant (tools/fixtures/vscode.mjs: VS Code's own op-log JSONL), and the public v3
// JSON and exported-chat fixtures laid out as a user-data folder with a workspace.json.

import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContractCase, ExpectedSession } from '../case.js';
import { at } from '../../helpers/items.js';

export const VSCODE_FIXTURES = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../fixtures/import/vscode');
const REAL = join(VSCODE_FIXTURES, 'real');

/** The real sessions, found in the fixture folder (their ids change when the script runs again). */
function realSessions(): { hash: string; file: string; id: string; requests: number; texts: string[]; tools: number }[] {
  const ws = join(REAL, 'User/workspaceStorage');
  const out = [];
  for (const hash of readdirSync(ws)) {
    for (const file of readdirSync(join(ws, hash, 'chatSessions')).sort()) {
      const text = readFileSync(join(ws, hash, 'chatSessions', file), 'utf8');
      const texts = [...text.matchAll(/"message":\{"text":"(@fixture [^"]*)"/g)].map((m) => at(m, 1));
      const uniq = [...new Set(texts)];
      const tools = new Set([...text.matchAll(/"toolCallId":"([^"]+)"/g)].map((m) => m[1])).size;
      out.push({ hash, file, id: file.replace(/\.jsonl?$/, ''), requests: uniq.length, texts: uniq, tools });
    }
  }
  return out.filter((s) => s.requests > 0);
}

export const REAL_SESSIONS = realSessions();

/** A public fixture as User/workspaceStorage/<hash>/chatSessions/<name>, with workspace.json. */
async function publicRoot(file: string, dir: string, name = file): Promise<string> {
  const ws = join(dir, 'Code/User/workspaceStorage/0123456789abcdef');
  await mkdir(join(ws, 'chatSessions'), { recursive: true });
  await writeFile(join(ws, 'workspace.json'), JSON.stringify({ folder: 'file:///work/demo%20project' }));
  await writeFile(join(ws, 'chatSessions', name), await readFile(join(VSCODE_FIXTURES, 'public', file), 'utf8'));
  return join(dir, 'Code');
}

const publicCase = (file: string, session: ExpectedSession, name?: string): ContractCase => ({
  name: `vscode ${file} (public)`,
  tool: 'vscode',
  real: false,
  setup: (dir) => publicRoot(file, dir, name),
  sessions: [{ project: '/work/demo project', ...session }],
});

export const cases: ContractCase[] = [
  {
    name: 'vscode: op-log JSONL written by code-server 4.139.1 through a chat participant with a tool (real)',
    tool: 'vscode',
    real: true,
    setup: async (dir) => {
      await cp(REAL, join(dir, 'code-server'), { recursive: true });
      return join(dir, 'code-server');
    },
    sessions: REAL_SESSIONS.map((s) => ({
      id: s.id,
      turns: s.requests,
      title: null,
      compactions: 0,
      toolPairs: s.tools,
      userTexts: s.texts,
    })),
  },
  publicCase('chatsessions_v3_synthetic_ask.json', {
    id: 'test-session-001',
    turns: 2,
    title: null,
    compactions: 0,
    toolPairs: 0,
    userTexts: ['How do I create a React component with TypeScript?', 'Can you show me how to add state to this component?'],
  }),
  publicCase('chatsessions_v3_synthetic_edit_mode.json', {
    id: 'test-session-002',
    turns: 3,
    title: null,
    compactions: 0,
    toolPairs: 0,
    userTexts: ['Create a Python function to calculate fibonacci numbers', 'Add unit tests for the fibonacci function'],
  }),
  publicCase('export_mcp_tool_error_cyrillic.json', {
    id: 'export_mcp_tool_error_cyrillic',
    turns: 1,
    title: null,
    compactions: 0,
    toolPairs: 1,
    userTexts: ['вызови метод update_entry_fields, но вызови так чтобы было 400 ошибка '],
  }),
  publicCase('export_simple_two_turns.json', {
    id: 'export_simple_two_turns',
    turns: 2,
    title: null,
    compactions: 0,
    toolPairs: 0,
    userTexts: ['hi', 'hello'],
  }),
  publicCase('export_in_progress_tool.json', {
    id: 'export_in_progress_tool',
    turns: 1,
    title: null,
    compactions: 0,
    toolPairs: 0, // still running: the answer is not mapped until it finishes
    userTexts: ['Найди информацию о снежных барсах в интернете'],
  }),
];
