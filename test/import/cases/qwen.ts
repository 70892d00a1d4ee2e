// Contract cases of the Qwen Code importer: the files the real Qwen Code wrote
// (tools/fixtures/qwen.mjs: a shell tool call, -r resuming by id, /compress, a turn after it;
// 0.24.4 also a subagent run through the agent tool and `-r ID --fork-session`).
// No public fixtures of Qwen Code's format were found in other projects' test data.

import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

const REAL = join(FIXTURES, 'qwen', 'real-0.15.10');
const CHATS = 'projects/-tmp-levelcode-fixture-qwen/chats';
const FILE = 'aa3a70e4-cc08-4cb3-8cf2-15aa19cda16d.jsonl';

/** ~/.qwen as Qwen Code lays it out; keep: only the first lines of the session file. */
async function realRoot(dir: string, keep?: number, real = REAL): Promise<string> {
  const root = join(dir, '.qwen');
  await cp(join(real, 'projects'), join(root, 'projects'), { recursive: true });
  if (keep !== undefined) {
    const file = join(root, CHATS, FILE);
    const lines = (await readFile(file, 'utf8')).split('\n');
    await writeFile(file, lines.slice(0, keep).join('\n') + '\n');
  }
  return root;
}

export const cases: ContractCase[] = [
  {
    name: 'qwen 0.15.10: shell tool call, -r resume, /compress (real)',
    tool: 'qwen',
    real: true,
    setup: (dir) => realRoot(dir),
    earlier: (dir) => realRoot(dir, 8), // up to the first answer
    sessions: [
      {
        id: 'aa3a70e4-cc08-4cb3-8cf2-15aa19cda16d',
        project: '/tmp/levelcode-fixture/qwen',
        turns: 3,
        title: null,
        compactions: 1,
        toolPairs: 1,
        userTexts: [
          'Please run a TOOL: print a word with the shell.',
          'Thanks. What did it print?',
          'One more question after the compression.',
        ],
      },
    ],
  },
];

const REAL24 = join(FIXTURES, 'qwen', 'real-0.24.4');
const PARENT24 = '587bb8e3-8ea7-495e-9815-cfd52a2c8df3';
const TEXTS24 = [
  'Please run a TOOL: print a word with the shell.',
  'Thanks. What did it print?',
  'One more question after the compression.',
  'Ask a SUBAGENT to list the files.',
];

cases.push({
  name: 'qwen 0.24.4: -r resume, /compress, a subagent (a sidechain beside its call), --fork-session (linked) (real)',
  tool: 'qwen',
  real: true,
  clean: true,
  setup: (dir) => realRoot(dir, undefined, REAL24),
  sessions: [
    {
      id: PARENT24,
      project: '/tmp/levelcode-fixture/qwen',
      turns: 4,
      title: null,
      compactions: 1,
      toolPairs: 3,
      sidechains: 1,
      userTexts: TEXTS24,
    },
    {
      id: 'c6be2011-9b1b-4db3-83e4-3188aab3b905',
      project: '/tmp/levelcode-fixture/qwen',
      turns: 5,
      compactions: 1,
      forkedFrom: PARENT24,
      forkTurn: 4,
      userTexts: [...TEXTS24, 'A question in a fork'],
    },
  ],
});
