// Contract cases of the GitHub Copilot CLI importer: the session the real Copilot CLI 1.0.102
// wrote offline with a BYOK provider (tools/fixtures/copilot-cli.mjs: a bash tool call,
// --continue, --resume ID, /compact; no GitHub sign-in needed).

import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

const REAL = join(FIXTURES, 'copilot-cli', 'real-1.0.102');
const ID = 'b7bc4fc5-f830-48cd-af6b-bae596415b8a';

async function realRoot(dir: string, keep?: number): Promise<string> {
  const root = join(dir, '.copilot');
  await cp(join(REAL, 'session-state'), join(root, 'session-state'), { recursive: true });
  if (keep !== undefined) {
    const file = join(root, 'session-state', ID, 'events.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n');
    await writeFile(file, lines.slice(0, keep).join('\n') + '\n');
  }
  return root;
}

export const cases: ContractCase[] = [
  {
    name: 'copilot-cli 1.0.102: bash tool call, --continue, --resume, /compact, a task subagent (real, offline BYOK)',
    tool: 'copilot-cli',
    real: true,
    clean: true,
    setup: (dir) => realRoot(dir),
    earlier: (dir) => realRoot(dir, 9), // up to the tool's result
    sessions: [
      {
        id: ID,
        project: '/tmp/levelcode-fixture/copilot',
        turns: 4,
        title: null,
        compactions: 1,
        // The bash call, the task call, and the subagent's own bash call.
        toolPairs: 3,
        sidechains: 1,
        userTexts: [
          'Please run a TOOL: print a word with the shell.',
          'Thanks. What did it print?',
          'One more question after resuming by id.',
          'Ask a SUBAGENT to list the files.',
        ],
      },
    ],
  },
  {
    // Recent releases log the model's reasoning (reasoningText) on assistant.message and the
    // records of a subagent with its agentId: the real 1.0.102 file with one of each added.
    name: 'copilot-cli 1.0.102: reasoningText is thinking; records with an agentId are a sidechain (real, two records added)',
    tool: 'copilot-cli',
    real: true,
    setup: async (dir) => {
      const root = await realRoot(dir);
      const file = join(root, 'session-state', ID, 'events.jsonl');
      const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
      const i = lines.findIndex((l) => l.includes('"type":"assistant.message"'));
      const rec = JSON.parse(lines[i]!) as { data: Record<string, unknown>; timestamp: string; id: string };
      lines[i] = JSON.stringify({ ...rec, data: { ...rec.data, reasoningText: 'Pondering which shell word to print.' } });
      const sub = { ...rec, id: `${rec.id}-sub`, data: { content: 'A subagent looked around.', agentId: 'agent-7', toolRequests: [] } };
      lines.splice(i + 1, 0, JSON.stringify(sub));
      await writeFile(file, lines.join('\n') + '\n');
      return root;
    },
    sessions: [
      {
        id: ID,
        project: '/tmp/levelcode-fixture/copilot',
        turns: 4,
        compactions: 1,
        toolPairs: 3,
        // The added record, after the first answer, and the real subagent.
        sidechains: 2,
        thinking: ['Pondering which shell word to print.'],
      },
    ],
  },
];
