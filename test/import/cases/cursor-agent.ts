// Contract cases of the Cursor agent CLI importer: public transcripts (test/fixtures/import/
// cursor-agent/, PROVENANCE.tsv) laid out as ~/.cursor/projects/<encoded cwd>/agent-transcripts/.
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

async function layout(dir: string, files: [string, string][]): Promise<string> {
  const root = join(dir, '.cursor');
  const folder = join(root, 'projects', 'home-dev-demo', 'agent-transcripts');
  await mkdir(folder, { recursive: true });
  // Written in place, as the CLI appends to a transcript: the importer takes a session's birth
  // from the file's creation time (the lines carry none), which a new file would move.
  for (const [f, id] of files) await copyFile(join(FIXTURES, 'cursor-agent', f), join(folder, `${id}.jsonl`));
  return root;
}

const A = '3f1c2b7e-8a9d-4e6f-b1c2-d3e4f5a6b7c8';
const B = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

export const cases: ContractCase[] = [
  {
    name: 'cursor-agent transcripts (public): two turns with a call; schema drift with a tool-result and unknown blocks',
    tool: 'cursor-agent',
    real: false,
    setup: (dir) =>
      layout(dir, [
        ['as_cursor_small.jsonl', A],
        ['as_cursor_schema_drift.jsonl', B],
      ]),
    sessions: [
      { id: A, project: '/home/dev/demo', turns: 2, title: null, toolPairs: 0, userTexts: ['List the files.', 'Run ls.'] },
      { id: B, project: '/home/dev/demo', turns: 1, toolPairs: 1, userTexts: ['explain the latest build issue'] },
    ],
  },
];
