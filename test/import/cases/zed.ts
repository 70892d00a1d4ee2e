// Contract cases of the Zed importer: threads.db built by tools/fixtures/zed-schema.mjs, which
// follows Zed's published schema (crates/agent/src/db.rs; Zed cannot be installed here): a 0.3.0
// thread stored zstd-compressed and a 0.2.0 thread stored as JSON.
import { cp, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

async function layout(dir: string): Promise<string> {
  const root = join(dir, 'zed');
  await mkdir(join(root, 'threads'), { recursive: true });
  await cp(join(FIXTURES, 'zed', 'threads.db'), join(root, 'threads', 'threads.db'));
  return root;
}

export const cases: ContractCase[] = [
  {
    name: 'zed threads.db (schema-built): a 0.3.0 zstd thread with a tool call, a 0.2.0 JSON thread',
    tool: 'zed',
    real: false,
    setup: layout,
    // The earlier state: our copy before the 0.2.0 thread was written.
    async earlier(dir) {
      const root = await layout(dir);
      const Database = createRequire(import.meta.url)('better-sqlite3') as new (p: string) => { exec(s: string): void; close(): void };
      const w = new Database(join(root, 'threads', 'threads.db'));
      w.exec("DELETE FROM threads WHERE data_type = 'json'");
      w.close();
      return root;
    },
    sessions: [
      {
        id: '0195a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
        project: '/home/dev/demo',
        turns: 2,
        title: 'List the files',
        toolPairs: 1,
        compactions: 0,
        userTexts: ['List the files in this folder', 'what is in a.txt'],
      },
      {
        id: '5f2b9d2e-1c3a-4b5d-9e8f-7a6b5c4d3e2f',
        project: '/home/dev/hello',
        turns: 1,
        title: 'Explain a function',
        userTexts: ['Explain what main does'],
      },
    ],
  },
];
