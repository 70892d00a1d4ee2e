// Contract cases of the Cline and Roo Code importers: a session the real cline CLI 3.0.65 wrote
// (tools/fixtures/cline.mjs; its model call failed offline, so the answer is cline's error), task folders built by
// tools/fixtures/cline-built.mjs following the extensions' published layout (built-*, not written
// by the extensions), laid out as a VS Code user-data folder.

import { cp, readFile, writeFile } from 'node:fs/promises';
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
    name: 'cline CLI 3.0.65: sessions/<id>/<id>.messages.json, the model unreachable offline (real)',
    tool: 'cline',
    real: true,
    setup: async (dir) => {
      await cp(join(FIXTURES, 'cline', 'real-3.0.65', 'data'), join(dir, '.cline', 'data'), { recursive: true });
      return join(dir, '.cline', 'data');
    },
    sessions: [
      {
        id: '1796221684529_ep9nq',
        project: '/tmp/i-ext-cline/proj',
        turns: 1,
        title: null,
        compactions: 0,
        toolPairs: 0,
        userTexts: ['Say hello'],
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
