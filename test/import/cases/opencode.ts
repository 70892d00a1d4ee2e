// Contract cases of the opencode importer: the public JSON-tree fixture (test/fixtures/import/
// opencode/, PROVENANCE.tsv) and the SQLite databases the real opencode 1.2.27 and 1.18.33 wrote
// (real-<version>/, made by tools/fixtures/opencode.mjs; 1.18.33 with a task subagent and a fork).
import { cp, mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

async function tree(dir: string, drop: string[] = []): Promise<string> {
  const root = join(dir, 'opencode');
  await mkdir(root, { recursive: true });
  await cp(join(FIXTURES, 'opencode', 'as_storage_v2_small'), join(root, 'storage'), { recursive: true });
  for (const d of drop) await rm(join(root, 'storage', d));
  return root;
}

async function db(dir: string, version = '1.2.27'): Promise<string> {
  const root = join(dir, 'opencode');
  await mkdir(root, { recursive: true });
  await cp(join(FIXTURES, 'opencode', `real-${version}`, 'opencode.db'), join(root, 'opencode.db'));
  return root;
}

/** The database without one session (what it held before that session was written). */
async function without(root: string, id: string): Promise<string> {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (p: string) => { exec(s: string): void; close(): void };
  const w = new Database(join(root, 'opencode.db'));
  w.exec(
    `DELETE FROM part WHERE session_id = '${id}'; DELETE FROM message WHERE session_id = '${id}'; DELETE FROM session WHERE id = '${id}';`,
  );
  w.close();
  return root;
}

const SES1 = 'ses_dc8de51dbffeMtpbiNZ0rbK6mH';
const SES2 = 'ses_dc8dab6d5ffemgBJf69liGkqNE';

export const cases: ContractCase[] = [
  {
    name: 'opencode 1.1 JSON tree (public): a text prompt, a completed bash call, a text answer, a title',
    tool: 'opencode',
    real: false,
    setup: (dir) => tree(dir),
    earlier: (dir) => tree(dir, ['part/m_assistant_small/002.json']),
    sessions: [
      { id: 's_stage0_small', project: '/tmp/repo', turns: 1, title: 'OpenCode Small', toolPairs: 1, compactions: 0, userTexts: ['Hello'] },
    ],
  },
  {
    name: 'opencode 1.2.27 opencode.db (real): run, run --continue, a second session',
    tool: 'opencode',
    real: true,
    setup: (dir) => db(dir),
    // The earlier state: our copy of the database before the second session was written.
    earlier: async (dir) => without(await db(dir), SES2),
    sessions: [
      {
        id: SES1,
        project: '/tmp/levelcode-fixture/demo',
        turns: 2,
        title: null,
        userTexts: ['Hello there, first question', 'And a second question'],
      },
      { id: SES2, project: '/tmp/levelcode-fixture/demo', turns: 1, title: null, userTexts: ['A second session of its own'] },
    ],
  },
];

const P18 = 'ses_db1629679ffef03QlfqvpJwOJ3';
const TEXTS18 = ['List the files here. TOOL', 'And what did it print?', 'Ask a SUBAGENT to list the files.'];

cases.push({
  name: 'opencode 1.18.33 opencode.db (real): a bash call, --continue, a task subagent (a sidechain), --fork (linked), a second session',
  tool: 'opencode',
  real: true,
  clean: true,
  setup: (dir) => db(dir, '1.18.33'),
  earlier: async (dir) => without(await db(dir, '1.18.33'), 'ses_db161d77cffefE3gC2zU0rf4rd'),
  sessions: [
    {
      id: P18,
      project: '/tmp/levelcode-fixture/demo',
      turns: 3,
      title: 'Fixture session',
      toolPairs: 3,
      sidechains: 1,
      userTexts: TEXTS18,
    },
    {
      id: 'ses_db162049bffefMbpEuvlgprKw0',
      project: '/tmp/levelcode-fixture/demo',
      turns: 4,
      forkedFrom: P18,
      forkTurn: 3,
      userTexts: [...TEXTS18, 'A question in a fork'],
    },
    { id: 'ses_db161d77cffefE3gC2zU0rf4rd', project: '/tmp/levelcode-fixture/demo', turns: 1, userTexts: ['A second session of its own'] },
  ],
});
