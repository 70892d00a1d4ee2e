// Contract cases of the Aider importer: the public .aider.chat.history.md fixtures
// (test/fixtures/import/aider/PROVENANCE.tsv) placed at a repository's root. Aider has no ids:
// ours are derived from the file's path and each chat's header line, so the expected ids are
// computed from where setup() put the file.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContractCase, ExpectedSession } from '../case.js';
import { FIXTURES } from '../layout.js';
import { aiderSessionId } from '../../../server/import/aider.js';

async function repo(dir: string, fixture: string, keepLines?: number): Promise<string> {
  const root = join(dir, 'repo');
  await mkdir(root, { recursive: true });
  const text = await readFile(join(FIXTURES, 'aider', fixture), 'utf8');
  const out = keepLines === undefined ? text : text.split('\n').slice(0, keepLines).join('\n') + '\n';
  await writeFile(join(root, '.aider.chat.history.md'), out);
  return root;
}

/** A case whose sessions' ids follow the file setup() wrote (the last one: cases run one at a time). */
function aiderCase(
  name: string,
  fixture: string,
  earlierLines: number,
  sessions: (Omit<ExpectedSession, 'id'> & { line: number })[],
): ContractCase {
  let file = '';
  return {
    name,
    tool: 'aider',
    real: false,
    setup: async (dir) => {
      const root = await repo(dir, fixture);
      file = join(root, '.aider.chat.history.md');
      return root;
    },
    earlier: (dir) => repo(dir, fixture, earlierLines),
    get sessions() {
      return sessions.map(({ line, ...s }) => ({ ...s, id: aiderSessionId(file, line) }));
    },
  };
}

export const cases: ContractCase[] = [
  aiderCase('aider: three chats, a heading inside an answer, an empty chat (agentsview, public)', 'agentsview_aider_chat_history.md', 17, [
    { line: 2, turns: 1, title: null, compactions: 0, toolPairs: 0, userTexts: ['add a retry to the webhook'] },
    { line: 18, turns: 1, title: null, compactions: 0, toolPairs: 0, userTexts: ['make the timeout configurable'] },
  ]),
  aiderCase(
    "aider's own dev log: a headless start, multi-line inputs, edit blocks (Aider-AI/aider excerpt, public)",
    'aider_repo_chat_history_EXCERPT.md',
    102,
    [
      { line: 1, turns: 1, title: null, compactions: 0, userTexts: ['# Fix any errors below, if possible.'] },
      { line: 103, turns: 2, title: null, compactions: 0, userTexts: ['Use the Spinner instead of the inlined custom spinner', '/diff'] },
      { line: 218, turns: 2, title: null, compactions: 0, userTexts: ['hi', 'hi'] },
    ],
  ),
];
