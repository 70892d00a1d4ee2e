// Contract cases of the Cline and Roo Code importers: a session the real cline CLI 3.0.65 wrote
// (tools/fixtures/cline.mjs, against the fake model API: a shell call, a spawn_agent subagent), task folders built by
// tools/fixtures/cline-built.mjs following the extensions' published layout (built-*, not written
// by the extensions), laid out as a VS Code user-data folder.

import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

const CLINE_ID = 'saoudrizwan.claude-dev';
const ROO_ID = 'rooveterinaryinc.roo-cline';
const TASK = '1767603600000';
const ROO_TASK = '0199f2d4-7c1e-7a6b-9f00-5e1d2c3b4a59';

/** <dir>/Code/User/globalStorage/<ext>/ copied from the built fixture; returns the user-data folder. */
async function userData(dir: string, built: string, ext: string): Promise<string> {
  const root = join(dir, 'Code');
  await cp(join(FIXTURES, 'cline', built, ext), join(root, 'User', 'globalStorage', ext), { recursive: true });
  return root;
}

/** The same task as the extension left it earlier: its API history rewritten with fewer messages. */
async function cut(dir: string, built: string, ext: string, task: string, keep: number): Promise<string> {
  const root = await userData(dir, built, ext);
  const file = join(root, 'User', 'globalStorage', ext, 'tasks', task, 'api_conversation_history.json');
  await writeFile(file, JSON.stringify(JSON.parse(await readFile(file, 'utf8')).slice(0, keep)));
  return root;
}

export const cases: ContractCase[] = [
  {
    // Written against the fake API (tools/fixtures/cline.mjs): 3.0.65 resumes only
    // interactively or over ACP, so the subagent's prompt opens a session of its own.
    name: 'cline CLI 3.0.65: a run_commands call; spawn_agent, its agent_*.messages.json a sidechain (real)',
    tool: 'cline',
    real: true,
    clean: true,
    setup: async (dir) => {
      await cp(join(FIXTURES, 'cline', 'real-3.0.65', 'data'), join(dir, '.cline', 'data'), { recursive: true });
      return join(dir, '.cline', 'data');
    },
    // Before the subagent ran: cline rewrites <id>.messages.json whole; agent_*.messages.json not there yet.
    earlier: async (dir) => {
      const data = join(dir, '.cline', 'data');
      await cp(join(FIXTURES, 'cline', 'real-3.0.65', 'data'), data, { recursive: true });
      const session = join(data, 'sessions', '1796615717976_btvo6');
      await rm(join(session, 'agent_1796615718591_v9svfs.messages.json'));
      const file = join(session, '1796615717976_btvo6.messages.json');
      const doc = JSON.parse(await readFile(file, 'utf8')) as { messages: unknown[] };
      doc.messages = doc.messages.slice(0, 2);
      await writeFile(file, JSON.stringify(doc, null, 2));
      return data;
    },
    sessions: [
      {
        id: '1796615713949_anry7',
        project: '/tmp/levelcode-fixture/cline',
        turns: 1,
        compactions: 0,
        toolPairs: 1,
        userTexts: ['List the files here. TOOL'],
      },
      {
        id: '1796615717976_btvo6',
        project: '/tmp/levelcode-fixture/cline',
        turns: 1,
        compactions: 0,
        toolPairs: 2,
        sidechains: 1,
        userTexts: ['Ask a SUBAGENT to list the files.'],
      },
    ],
  },
  {
    name: 'cline 3.x task folders with taskHistory.json, native and XML tool results (built)',
    tool: 'cline',
    real: false,
    setup: (dir) => userData(dir, 'built-cline', CLINE_ID),
    earlier: (dir) => cut(dir, 'built-cline', CLINE_ID, TASK, 3),
    sessions: [
      {
        id: TASK,
        project: '/work/cline demo',
        turns: 2,
        title: null,
        compactions: 0,
        toolPairs: 2,
        userTexts: ['Add a greet() function to src/app.ts', 'thanks, that is all'],
      },
      {
        id: '1767607200000',
        project: '/work/other',
        turns: 1,
        title: null,
        compactions: 0,
        toolPairs: 0,
        userTexts: ['What does src/app.ts export?'],
      },
    ],
  },
  {
    name: 'roo-code 3.x task folder with a condensed context (built)',
    tool: 'roo-code',
    real: false,
    setup: (dir) => userData(dir, 'built-roo', ROO_ID),
    earlier: (dir) => cut(dir, 'built-roo', ROO_ID, ROO_TASK, 4),
    sessions: [
      {
        id: ROO_TASK,
        project: '/work/roo demo',
        turns: 2,
        title: null,
        compactions: 1,
        toolPairs: 1,
        userTexts: ['List the files', 'now count them'],
      },
    ],
  },
];
