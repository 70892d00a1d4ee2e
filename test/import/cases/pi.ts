// Contract cases of the pi importer: the files the real pi 0.73.1 wrote (tools/fixtures/pi.mjs:
// a bash tool call, -c continuing, an RPC compaction and a turn after it) and two public
// fixtures (other projects' test data, provenance in test/fixtures/import/pi/PROVENANCE.tsv).

import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

const REAL = join(FIXTURES, 'pi', 'real-0.73.1');
const REAL_SLUG = '--tmp-levelcode-fixture-pi--';
const REAL_FILE = '2026-12-07T00-57-02-269Z_01a24e01-103d-7390-aeaa-b01a4e3cfab9.jsonl';

/** ~/.pi/agent as pi lays it out, with the real sessions folder; returns the agent folder. */
async function realRoot(dir: string, keep?: number): Promise<string> {
  const root = join(dir, '.pi', 'agent');
  await cp(join(REAL, 'sessions'), join(root, 'sessions'), { recursive: true });
  if (keep !== undefined) {
    const file = join(root, 'sessions', REAL_SLUG, REAL_FILE);
    const lines = (await readFile(file, 'utf8')).split('\n');
    await writeFile(file, lines.slice(0, keep).join('\n') + '\n');
  }
  return root;
}

/** One public fixture as ~/.pi/agent/sessions/--tmp-project--/<file>. */
async function publicRoot(dir: string, file: string, keep?: number): Promise<string> {
  const root = join(dir, '.pi', 'agent');
  const folder = join(root, 'sessions', '--tmp-project--');
  await mkdir(folder, { recursive: true });
  let text = await readFile(join(FIXTURES, 'pi', 'public', file), 'utf8');
  if (keep !== undefined) text = text.split('\n').slice(0, keep).join('\n') + '\n';
  await writeFile(join(folder, basename(file)), text);
  return root;
}

export const cases: ContractCase[] = [
  {
    name: 'pi 0.73.1: bash tool call, -c, RPC compaction, --fork (real)',
    tool: 'pi',
    real: true,
    clean: true,
    setup: (dir) => realRoot(dir),
    earlier: (dir) => realRoot(dir, 7), // up to the first answer
    sessions: [
      {
        id: '01a24e01-103d-7390-aeaa-b01a4e3cfab9',
        project: '/tmp/levelcode-fixture/pi',
        turns: 2,
        title: null,
        compactions: 1,
        toolPairs: 1,
        userTexts: ['Please run a TOOL: print a word with bash.', 'Thanks. What did it print?'],
      },
      {
        // --fork copies the parent's entries into a new file whose header names the parent.
        id: '01a24e01-48dd-77df-951f-db17edeff48f',
        project: '/tmp/levelcode-fixture/pi',
        turns: 3,
        compactions: 1,
        userTexts: ['Please run a TOOL', 'Thanks. What did it print?', 'A question in a fork.'],
        forkedFrom: '01a24e01-103d-7390-aeaa-b01a4e3cfab9',
      },
    ],
  },
  {
    name: 'pi session v3 with thinking, a compaction by index, a bad line (agentsview, public)',
    tool: 'pi',
    real: false,
    setup: (dir) => publicRoot(dir, 'agentsview_pi_session.jsonl'),
    earlier: (dir) => publicRoot(dir, 'agentsview_pi_session.jsonl', 4),
    sessions: [
      {
        id: 'pi-test-session-uuid',
        project: '/Users/alice/code/my-project',
        turns: 2,
        title: null,
        compactions: 1,
        toolPairs: 1,
        userTexts: ['Fix the login bug', 'Look good to you?'],
      },
    ],
  },
  {
    name: 'pi session v3 with two compactions (agent-sessions, public)',
    tool: 'pi',
    real: false,
    setup: (dir) => publicRoot(dir, 'as_pi_small_double_compaction.jsonl'),
    earlier: (dir) => publicRoot(dir, 'as_pi_small_double_compaction.jsonl', 5),
    sessions: [
      {
        id: '019e19b4-eb48-746a-aa6b-8dfcfa37954b',
        project: '/tmp/as-agent-fixture/project',
        turns: 2,
        title: null,
        compactions: 2,
        toolPairs: 0,
        userTexts: ['Read hello.py and summarize', 'Add one concise follow-up sentence.'],
      },
    ],
  },
];
