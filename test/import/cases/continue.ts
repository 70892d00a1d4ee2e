// Contract cases of the Continue importer: the files the real Continue CLI 1.5.47 wrote
// (tools/fixtures/continue.mjs: a terminal tool call, --resume, a turn after /compact, --fork),
// with the document as it stood after the second turn as the earlier state (Continue rewrites
// the whole file every turn); and a compaction built by this file from the real session the way
// Continue's compaction rewrites it (1.5.47 does not save a /compact made in -p mode).

import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

export const CONTINUE_REAL = join(FIXTURES, 'continue', 'real-1.5.47');
export const CN_MAIN = 'dd471311-99d9-4e6e-a5e6-1c7f2f2505bd';
const CN_FORK = 'c5cd0d43-6e67-4cc1-a205-bd042ac814ea';
const PROJECT = '/tmp/levelcode-fixture/continue';

/** ~/.continue with the sessions folder of one step (or the final one). */
async function realRoot(dir: string, step?: number): Promise<string> {
  const root = join(dir, '.continue');
  await mkdir(join(root, 'sessions'), { recursive: true });
  await cp(join(CONTINUE_REAL, step === undefined ? 'sessions' : join('steps', String(step))), join(root, 'sessions'), { recursive: true });
  return root;
}

/** The real session as Continue's compaction leaves it: the history replaced by the summary item, then a turn. */
export async function compactedRoot(dir: string): Promise<string> {
  const root = await realRoot(dir, 4);
  const file = join(root, 'sessions', `${CN_MAIN}.json`);
  const doc = JSON.parse(await readFile(file, 'utf8'));
  const summary = 'The user had a terminal command print levelcode-fixture and asked about it.';
  doc.history = [
    { message: { role: 'assistant', content: summary }, contextItems: [], conversationSummary: summary },
    {
      message: { role: 'user', content: 'A question after the compaction.' },
      contextItems: [],
      editorState: 'A question after the compaction.',
    },
    { message: { role: 'assistant', content: 'Answer after the compaction.' }, contextItems: [] },
  ];
  await writeFile(file, JSON.stringify(doc, null, 2));
  return root;
}

const TEXTS = ['Please run a TOOL: print a word in the terminal.', 'Thanks. What did it print?', 'One more question after the compaction.'];

export const cases: ContractCase[] = [
  {
    name: 'continue 1.5.47: terminal tool call, --resume, --fork, rewritten every turn (real)',
    tool: 'continue',
    real: true,
    setup: (dir) => realRoot(dir),
    earlier: (dir) => realRoot(dir, 2),
    sessions: [
      { id: CN_MAIN, project: PROJECT, turns: 3, title: null, compactions: 0, toolPairs: 1, userTexts: TEXTS },
      {
        id: CN_FORK,
        project: PROJECT,
        turns: 4,
        title: null,
        compactions: 0,
        toolPairs: 1,
        userTexts: [...TEXTS, 'A question in the fork.'],
      },
    ],
  },
  {
    name: "continue: a compaction rewrites the document (built from the real session by Continue's compaction shape)",
    tool: 'continue',
    real: false,
    setup: (dir) => compactedRoot(dir),
    sessions: [
      {
        id: CN_MAIN,
        project: PROJECT,
        turns: 1,
        title: null,
        compactions: 1,
        toolPairs: 0,
        userTexts: ['A question after the compaction.'],
      },
    ],
  },
];
