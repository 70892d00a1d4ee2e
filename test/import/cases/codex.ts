// Contract cases of the Codex importer: the public fixtures (test/fixtures/import/codex/,
// PROVENANCE.tsv) and the rollouts the real CLI wrote (real-<version>/, made by
// tools/fixtures/codex.mjs).
import type { ContractCase } from '../case.js';
import { codexLayout } from '../layout.js';

const NAME = (id: string, day = '2026-02-23') => `rollout-${day}T00-00-00-${id}.jsonl`;

export const cases: ContractCase[] = [
  {
    name: 'codex: function, custom (apply_patch) and MCP tool calls with outputs; a future record kind',
    tool: 'codex',
    real: false,
    setup: (dir) =>
      codexLayout(dir, [{ file: 'ccl_rollout_structured_tools.jsonl', as: NAME('11111111-1111-4111-8111-111111111111', '2026-01-02') }]),
    sessions: [
      {
        id: '11111111-1111-4111-8111-111111111111',
        project: '/workspace/synthetic-project',
        turns: 1,
        title: null,
        toolPairs: 3,
        compactions: 0,
        userTexts: ['List the synthetic files.'],
      },
    ],
  },
  {
    name: 'codex: a line that is not JSON is kept as text, the rest imported',
    tool: 'codex',
    real: false,
    setup: (dir) =>
      codexLayout(dir, [{ file: 'ccl_rollout_malformed.jsonl', as: NAME('66666666-6666-4666-8666-666666666666', '2026-02-01') }], true),
    sessions: [{ id: '66666666-6666-4666-8666-666666666666', turns: 1, userTexts: ['Safe line before malformed input.'] }],
  },
  {
    name: 'codex 0.104 (real, redacted): a compaction with replacement_history, 38 turns',
    tool: 'codex',
    real: false,
    setup: (dir) =>
      codexLayout(dir, [{ file: 'localpush_rollout_compacted_LARGE.jsonl', as: NAME('019c8a59-e9dd-71f0-9ae3-4079fe9726a9') }]),
    sessions: [
      { id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9', project: '/redacted/path/59b923df4d', turns: 38, compactions: 1, toolPairs: 365 },
    ],
  },
  {
    name: 'codex 0.104 (real, redacted): interrupted with a call that has no output',
    tool: 'codex',
    real: false,
    setup: (dir) =>
      codexLayout(dir, [{ file: 'localpush_rollout_interrupted_small.jsonl', as: NAME('019c8a70-dda7-7f33-98ea-f30553347322') }]),
    sessions: [{ id: '019c8a70-dda7-7f33-98ea-f30553347322', turns: 1, toolPairs: 0 }],
  },
  {
    name: 'codex 0.104 (real, redacted): five turns, web searches, patches; and a short one beside it',
    tool: 'codex',
    real: false,
    setup: (dir) =>
      codexLayout(dir, [
        { file: 'localpush_rollout_multiturn_websearch.jsonl', as: NAME('019c8a4c-ed82-79a1-aa28-7738fc5ab61a') },
        { file: 'localpush_rollout_short.jsonl', as: NAME('019c8bfe-ec25-79e0-97d7-bda6a9c575ff') },
      ]),
    sessions: [
      { id: '019c8a4c-ed82-79a1-aa28-7738fc5ab61a', turns: 5, toolPairs: 104 },
      { id: '019c8bfe-ec25-79e0-97d7-bda6a9c575ff', turns: 1, toolPairs: 5 },
    ],
  },
];

// ---- rollouts the real CLI wrote (tools/fixtures/codex.mjs) ------------------------------------

const realRoot = (version: string) => async (dir: string) => {
  const { cp } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { FIXTURES } = await import('../layout.js');
  const root = join(dir, '.codex');
  await cp(join(FIXTURES, 'codex', `real-${version}`, 'sessions'), join(root, 'sessions'), { recursive: true });
  return root;
};
const PROJECT = '/tmp/levelcode-fixture/demo';

cases.push({
  name: 'codex 0.171.0 (real): a shell call, exec resume twice, an automatic compaction, exec fork (a pointer, not a copy)',
  tool: 'codex',
  real: true,
  setup: realRoot('0.171.0'),
  clean: true,
  sessions: [
    {
      id: '01a23813-dc7d-7a61-8c37-00d4308ddb9a',
      project: PROJECT,
      turns: 3,
      toolPairs: 1,
      compactions: 1,
      title: null,
      userTexts: ['List the files here. TOOL', 'And what did it print?', 'One more question on the same session'],
    },
    {
      id: '01a23813-e4d6-79e3-8b51-8e417b5e2e88',
      project: PROJECT,
      // The fork's file holds one turn; it goes on from its parent's three (followed, as Codex resumes it).
      turns: 4,
      forkTurn: 3,
      userTexts: ['List the files here. TOOL', 'One more question on the same session', 'A question in a fork'],
      forkedFrom: '01a23813-dc7d-7a61-8c37-00d4308ddb9a',
    },
    { id: '01a23813-e62c-7653-913d-2941332094fa', project: PROJECT, turns: 1, userTexts: ['A second session of its own'] },
  ],
});

// 0.58.0 writes an older layout: no ordinals or message metadata, `compacted` with only the
// summary `message` (no replacement_history), and no `exec fork`.
cases.push({
  name: 'codex 0.58.0 (real): a shell call, exec resume twice, an automatic compaction',
  tool: 'codex',
  real: true,
  setup: realRoot('0.58.0'),
  sessions: [
    {
      id: '01a23808-53c8-75b3-a98d-96fcd7aac6fe',
      project: PROJECT,
      turns: 3,
      toolPairs: 1,
      compactions: 1,
      title: null,
      userTexts: ['List the files here. TOOL', 'And what did it print?', 'One more question on the same session'],
    },
    { id: '01a23808-6d50-72c1-9cfa-b3de3605f0dc', project: PROJECT, turns: 1, userTexts: ['A second session of its own'] },
  ],
});
