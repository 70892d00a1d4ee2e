// Contract cases of the Claude Code importer: the public fixtures (test/fixtures/import/
// claude-code/, PROVENANCE.tsv) and the files the real CLI wrote (real-<version>/, made by
// tools/fixtures/claude-code.mjs).
import type { ContractCase } from '../case.js';
import { claudeLayout } from '../layout.js';

const one = (file: string) => (dir: string) => claudeLayout(dir, [file]);

export const cases: ContractCase[] = [
  {
    name: 'claude-code 2.x: a rewind (two prompts under one parent) and a compaction after it',
    tool: 'claude-code',
    real: false,
    setup: one('ccl_dag_compact_after_rewind.jsonl'),
    sessions: [
      {
        id: 'ccl_dag_compact_after_rewind',
        project: '/tmp',
        // The abandoned "First attempt" is kept as branch events, not turns.
        turns: 4,
        title: null,
        compactions: 1,
        toolPairs: 0,
        userTexts: ['Start', 'Second attempt', 'Keep going', 'After compaction'],
      },
    ],
  },
  {
    name: 'claude-code 1.0.x: odd lines, tool errors, commands and a summary line that titles it',
    tool: 'claude-code',
    real: false,
    setup: one('ccl_edge_cases.jsonl'),
    sessions: [
      {
        id: 'ccl_edge_cases',
        // A slash command's invocation (`<command-name>`) is not a turn: kept raw, hidden.
        turns: 4,
        title:
          'Tested various edge cases including markdown formatting, long text, tool errors, system messages, command outputs, special characters and emojis. All message types render correctly in the transcript viewer.',
        toolPairs: 1,
        userTexts: ["Here's a message", "Let's test a ver", 'Testing special'],
      },
    ],
  },
  {
    name: 'claude-code 2.0: an inline sidechain (Task subagent) between a tool call and its result',
    tool: 'claude-code',
    real: false,
    setup: one('ccl_sidechain_integrated.jsonl'),
    sessions: [{ id: 'ccl_sidechain_integrated', turns: 0, toolPairs: 1, title: null }],
  },
  {
    name: 'claude-code 2.x: many line kinds, custom and AI titles (the user’s wins), a compaction',
    tool: 'claude-code',
    real: false,
    setup: one('as_small_many_line_types.jsonl'),
    sessions: [{ id: 'as_small_many_line_types', turns: 5, title: 'Stage0 small fixture', compactions: 1, toolPairs: 1 }],
  },
  {
    name: 'claude-code 2.x: a subagent in <uuid>/subagents/ is part of its session',
    tool: 'claude-code',
    real: false,
    setup: (dir) => claudeLayout(dir, ['as_subagent_layout/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl']),
    sessions: [{ id: '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f', turns: 1, userTexts: ['Delegate a repo search'] }],
  },
  {
    name: 'claude-code: interrupted and meta lines are not turns; tool errors pair; a reused uuid is kept',
    tool: 'claude-code',
    real: false,
    setup: one('polylogue_normalization_main.jsonl'),
    sessions: [
      {
        id: 'polylogue_normalization_main',
        project: '/workspace/polylogue',
        // Every prompt line the tool wrote is kept, the one that reuses a uuid too.
        turns: 3,
        toolPairs: 2,
        userTexts: ['Review the parser.', 'An independent session.', 'Conflicting duplicate'],
      },
    ],
  },
  {
    name: 'claude-code 1.0.98 (real, redacted): string content with attachments',
    tool: 'claude-code',
    real: false,
    setup: one('mscopilotchat_real_v1_0_98.jsonl'),
    sessions: [
      { id: 'mscopilotchat_real_v1_0_98', project: '/Users/roblou/code/vscode-copilot-chat', turns: 1, userTexts: ['<attachments>'] },
    ],
  },
  {
    name: 'claude-code: minimal lines (no uuid, no session id), a line cut short in the middle',
    tool: 'claude-code',
    real: false,
    setup: one('agentsview_truncated_last_line.jsonl'),
    sessions: [{ id: 'agentsview_truncated_last_line', project: '/Users/alice/code/my-app', turns: 1, userTexts: ['hello'] }],
  },
];

// ---- files the real CLI wrote (tools/fixtures/claude-code.mjs) ---------------------------------

const realRoot = (version: string) => async (dir: string) => {
  const { cp } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { FIXTURES } = await import('../layout.js');
  const root = join(dir, '.claude');
  await cp(join(FIXTURES, 'claude-code', `real-${version}`, 'projects'), join(root, 'projects'), { recursive: true });
  return root;
};
const PROJECT = '/tmp/levelcode-fixture/demo';

cases.push(
  {
    name: 'claude-code 1.0.128 (real): a Bash call, --continue, --resume, /compact, --fork-session',
    tool: 'claude-code',
    real: true,
    setup: realRoot('1.0.128'),
    sessions: [
      {
        id: '81de8f02-0841-48b1-9a80-29d83a4a2fd3',
        project: PROJECT,
        turns: 4,
        compactions: 1,
        toolPairs: 1,
        // 1.0.x titles a session with a summary line (here the fake model's words, in the
        // <summary> wrapper of a compaction: no part of a title, cleaned away).
        title: 'The user asked for a file listing; the shell printed levelcode-fixture. Nothing is running.',
        userTexts: [
          'List the files here. TOOL',
          'And what did it print?',
          'One more question on the same session',
          'A question after the compaction',
        ],
      },
      // The fork: a file of its own that starts where the parent was compacted.
      {
        id: '5ff30d82-46f0-43f5-827c-715306cebace',
        project: PROJECT,
        turns: 2,
        // 1.0.x records no parent in a fork: it copies the parent's lines (their uuids) under its own id.
        userTexts: ['A question after', 'A question in a fork'],
      },
      { id: 'b23b2d70-45f9-4a13-9b74-d969594b87fa', project: PROJECT, turns: 1, title: null, userTexts: ['A second session of its own'] },
    ],
  },
  {
    name: 'claude-code 2.0.77 (real): the same runs; warmup subagents in agent-*.jsonl beside the sessions',
    tool: 'claude-code',
    real: true,
    setup: realRoot('2.0.77'),
    sessions: [
      {
        id: 'd0f24d64-764d-4023-ba32-95ce55eef1d0',
        project: PROJECT,
        turns: 4,
        compactions: 1,
        toolPairs: 1,
        title: null,
        userTexts: [
          'List the files here. TOOL',
          'And what did it print?',
          'One more question on the same session',
          'A question after the compaction',
        ],
      },
      {
        id: '7745c106-eec5-4247-9e5c-ba4aa4859f59',
        project: PROJECT,
        turns: 2,
        compactions: 1,
        userTexts: ['A question after', 'A question in a fork'],
        forkedFrom: 'd0f24d64-764d-4023-ba32-95ce55eef1d0',
      },
      { id: '82e0acc4-d7af-45b9-b89d-cdaa9878d3c5', project: PROJECT, turns: 1, userTexts: ['A second session of its own'] },
    ],
  },
  {
    name: 'claude-code 2.1.332 (real): new record kinds hidden, /compact, a fork, a background subagent and its task-notification',
    tool: 'claude-code',
    real: true,
    setup: realRoot('2.1.332'),
    clean: true,
    sessions: [
      {
        id: 'dd86d04a-f5ed-4609-8a32-ebd6c3e70b4e',
        project: PROJECT,
        // The subagent's report (a task-notification user line) and /compact are not turns.
        turns: 5,
        compactions: 1,
        toolPairs: 3,
        title: null,
        sidechains: 1,
        userTexts: [
          'List the files here. TOOL',
          'And what did it print?',
          'One more question on the same session',
          'A question after the compaction',
          'Ask a helper SUBAGENT',
        ],
      },
      {
        // 2.1 forks copy the compacted state only: it opens with the summary as its compaction.
        id: 'fd32eead-60bc-4b4f-8375-44eb1cd6f7b2',
        project: PROJECT,
        turns: 2,
        compactions: 1,
        userTexts: ['A question after the compaction', 'A question in a fork'],
        forkedFrom: 'dd86d04a-f5ed-4609-8a32-ebd6c3e70b4e',
      },
      { id: '6750b5a0-8094-4d69-b911-25bbaab678ff', project: PROJECT, turns: 1, userTexts: ['A second session of its own'] },
    ],
  },
);
