// Contract cases of the opencode importer: the public JSON-tree fixture (test/fixtures/import/
// opencode/, PROVENANCE.tsv) and the SQLite database the real opencode 1.2.27 wrote
// (real-1.2.27/, made by tools/fixtures/opencode.mjs).
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

async function db(dir: string): Promise<string> {
  const root = join(dir, 'opencode');
  await mkdir(root, { recursive: true });
  await cp(join(FIXTURES, 'opencode', 'real-1.2.27', 'opencode.db'), join(root, 'opencode.db'));
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
    setup: db,
    // The earlier state: our copy of the database before the second session was written.
    async earlier(dir) {
      const root = await db(dir);
      const Database = createRequire(import.meta.url)('better-sqlite3') as new (p: string) => { exec(s: string): void; close(): void };
      const w = new Database(join(root, 'opencode.db'));
      w.exec(
        `DELETE FROM part WHERE session_id = '${SES2}'; DELETE FROM message WHERE session_id = '${SES2}'; DELETE FROM session WHERE id = '${SES2}';`,
      );
      w.close();
      return root;
    },
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
