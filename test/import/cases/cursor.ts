// Contract cases of the Cursor editor importer: a user-data folder built by
// test/fixtures/import/cursor/build-schema.mjs, which follows the schema public readers of
// Cursor's state.vscdb document (Cursor is not run here): a newer chat (headers + bubbles) with a
// tool call and its result, an older chat with its conversation inline, a chat with a garbage
// bubble, an empty chat (skipped), in two workspaces.
import { cp, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

export const A = 'a1b2c3d4-0001-4000-8000-00000000000a';
export const C = 'c1b2c3d4-0003-4000-8000-00000000000c';

export async function cursorLayout(dir: string): Promise<string> {
  const root = join(dir, 'Cursor');
  await mkdir(root, { recursive: true });
  await cp(join(FIXTURES, 'cursor', 'User'), join(root, 'User'), { recursive: true });
  return root;
}

type Db = { prepare(s: string): { get(...a: unknown[]): unknown; run(...a: unknown[]): unknown }; close(): void };
export function openWritable(path: string): Db {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (p: string) => Db;
  return new Database(path);
}

export const cases: ContractCase[] = [
  {
    name: 'cursor state.vscdb (schema-built): headers + bubbles with a tool call, inline conversation, a garbage bubble, an empty chat',
    tool: 'cursor',
    real: false,
    setup: cursorLayout,
    // The earlier state: chat A before its second prompt, chat C not yet started.
    async earlier(dir) {
      const root = await cursorLayout(dir);
      const db = openWritable(join(root, 'User', 'globalStorage', 'state.vscdb'));
      const row = db.prepare('SELECT value FROM cursorDiskKV WHERE key = ?').get(`composerData:${A}`) as { value: string };
      const doc = JSON.parse(row.value) as { fullConversationHeadersOnly: unknown[] };
      doc.fullConversationHeadersOnly = doc.fullConversationHeadersOnly.slice(0, 3);
      db.prepare('UPDATE cursorDiskKV SET value = ? WHERE key = ?').run(JSON.stringify(doc), `composerData:${A}`);
      db.prepare("DELETE FROM cursorDiskKV WHERE key IN (?, ?) OR key LIKE 'composerData:c1%'").run(
        `bubbleId:${A}:a-u2`,
        `bubbleId:${A}:a-a2`,
      );
      db.close();
      return root;
    },
    sessions: [
      {
        id: A,
        project: '/home/dev/demo',
        turns: 2,
        title: 'List the files',
        toolPairs: 1,
        compactions: 0,
        userTexts: ['List the files in this folder', 'What is in a.txt?'],
      },
      {
        id: 'b1b2c3d4-0002-4000-8000-00000000000b',
        project: '/home/dev/hello world',
        turns: 1,
        title: 'Explain main',
        userTexts: ['Explain what main does'],
      },
      { id: C, project: '/home/dev/demo', turns: 1, title: 'Rename foo', userTexts: ['Rename foo to bar'] },
    ],
  },
];
