// Contract cases of the Cursor agent CLI importer: public transcripts (test/fixtures/import/
// cursor-agent/, PROVENANCE.tsv) laid out as ~/.cursor/projects/<encoded cwd>/agent-transcripts/,
// and a chats/<hash>/<agent id>/store.db built by test/fixtures/import/cursor-agent/
// build-store-schema.mjs, which follows the schema public readers of the CLI's store document.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ContractCase } from '../case.js';
import { FIXTURES } from '../layout.js';

async function layout(dir: string, files: [string, string][]): Promise<string> {
  const root = join(dir, '.cursor');
  const folder = join(root, 'projects', 'home-dev-demo', 'agent-transcripts');
  await mkdir(folder, { recursive: true });
  // Written in place, as the CLI appends: a transcript's birth is its file's creation time, which
  // copying over the file (fs.cp) would renew.
  for (const [f, id] of files) await writeFile(join(folder, `${id}.jsonl`), await readFile(join(FIXTURES, 'cursor-agent', f)));
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

export const AGENT = '7c1e4f2a-5b3d-4e6f-9a8b-1c2d3e4f5a6b';
export const STORE = join('chats', 'caa990f2469364441262014be4057c2a', AGENT, 'store.db');

export async function storeLayout(dir: string): Promise<string> {
  const root = join(dir, '.cursor');
  await mkdir(root, { recursive: true });
  await cp(join(FIXTURES, 'cursor-agent', 'chats'), join(root, 'chats'), { recursive: true });
  return root;
}

type Db = {
  prepare(s: string): { get(...a: unknown[]): unknown; all(...a: unknown[]): unknown[]; run(...a: unknown[]): unknown };
  close(): void;
};

cases.push({
  name: 'cursor-agent store.db (schema-built): meta in hex JSON, a protobuf root over JSON messages, a tool call',
  tool: 'cursor-agent',
  real: false,
  setup: storeLayout,
  // The earlier state: meta pointing at the root the database kept from before the second prompt.
  async earlier(dir) {
    const root = await storeLayout(dir);
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (p: string) => Db;
    const db = new Database(join(root, STORE));
    const meta = JSON.parse(
      Buffer.from((db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value: string }).value, 'hex').toString(),
    );
    const roots = (db.prepare('SELECT id, data FROM blobs').all() as { id: string; data: Buffer }[]).filter((r) => r.data[0] === 0x0a);
    meta.latestRootBlobId = roots.find((r) => r.id !== meta.latestRootBlobId)!.id;
    db.prepare("UPDATE meta SET value = ? WHERE key = '0'").run(Buffer.from(JSON.stringify(meta)).toString('hex'));
    db.close();
    return root;
  },
  sessions: [
    {
      id: AGENT,
      project: '/home/dev/demo',
      turns: 2,
      title: 'List the files',
      toolPairs: 1,
      userTexts: ['List the files here', 'thanks, delete b.txt'],
    },
  ],
});
