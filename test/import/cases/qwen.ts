// Contract cases of the Qwen Code importer: the file the real Qwen Code 0.15.10 wrote
// (tools/fixtures/qwen.mjs: a shell tool call, -r resuming by id, /compress, a turn after it).
// No public fixtures of Qwen Code's format were found in other projects' test data.

import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

const REAL = join(FIXTURES, 'qwen', 'real-0.15.10');
const CHATS = 'projects/-tmp-levelcode-fixture-qwen/chats';
const FILE = 'aa3a70e4-cc08-4cb3-8cf2-15aa19cda16d.jsonl';

/** ~/.qwen as Qwen Code lays it out; keep: only the first lines of the session file. */
async function realRoot(dir: string, keep?: number): Promise<string> {
  const root = join(dir, '.qwen');
  await cp(join(REAL, 'projects'), join(root, 'projects'), { recursive: true });
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
