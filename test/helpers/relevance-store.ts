// The relevance store: every importer contract case's fixtures (test/import/cases/, the real
// tools' files and the public ones from /work/shared/fixtures copied under test/fixtures/import)
// imported into one store, as a user who imported every tool would have it. The relevance test
// (test/search/search-relevance.test.ts) and `npm run bench`'s quality table search it.

import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../server/store/store.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import type { ContractCase } from '../import/case.js';

/** Builds the store under `dir` (dir/store); returns its root. */
export async function buildRelevanceStore(dir: string): Promise<string> {
  const casesDir = fileURLToPath(new URL('../import/cases/', import.meta.url));
  const cases: ContractCase[] = [];
  for (const f of (await readdir(casesDir)).filter((n) => n.endsWith('.ts')).sort())
    cases.push(...((await import(join(casesDir, f))) as { cases: ContractCase[] }).cases);
  const root = join(dir, 'store');
  const store = new SessionStore({ root, agent: 'test' });
  let n = 0;
  for (const c of cases) {
    const src = join(dir, 'src', String(++n));
    await mkdir(src, { recursive: true });
    const from = await c.setup(src);
    await runImport(store, [{ importer: importerOf(c.tool)!, roots: [from] }], { ledger: join(dir, 'ledger.json') });
  }
  await store.releaseAll();
  await store.flushIndex();
  await writeOwn(root);
  return root;
}

/** A session of our own (no source tool), keyed in the relevance set by its title; its project a folder beside the store. */
interface Own {
  title: string;
  project: string;
  /** Days before 2026-12-01 the session happened. */
  ago: number;
  turns: { user: string; agent?: unknown[]; assistant?: string }[];
}

const tool = (id: string, name: string, input: unknown, output: string) => [
  { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] },
];

/**
 * Sessions as our own sidecar writes them, for the questions the issue was filed over: a session
 * about a docstring in util.py among sessions that only mention util.py or docstrings in passing,
 * and a "No such file or directory" error among sessions that merely say "or" inside "forked".
 */
export const OWN: Own[] = [
  {
    title: 'Add a docstring to util.py',
    project: 'toolkit',
    ago: 40,
    turns: [
      {
        user: 'Please add a docstring to parse_args in util.py explaining each option.',
        agent: tool(
          't1',
          'Edit',
          {
            file_path: 'src/util.py',
            old_string: 'def parse_args(argv):',
            new_string: 'def parse_args(argv):\n    """Parse the command line."""',
          },
          'ok',
        ),
        assistant: 'I added a docstring to parse_args in util.py; it names every option.',
      },
      { user: 'Also a module docstring at the top of util.py', assistant: 'Done: util.py now opens with a module docstring.' },
    ],
  },
  {
    title: 'Speed up the file walker',
    project: 'toolkit',
    ago: 2,
    turns: [
      {
        user: 'The walker is slow on big trees, make it faster.',
        agent: tool('t2', 'Bash', { command: 'ls src' }, 'cli.py\nutil.py\nwalker.py\nREADME.md'),
        assistant: 'I cached the stat calls in walker.py; util.py needed no change.',
      },
    ],
  },
  {
    title: 'Docs for the HTTP client',
    project: 'webapp',
    ago: 5,
    turns: [{ user: 'Write docstrings for every public method of client.ts', assistant: 'Added docstrings (TSDoc) to client.ts.' }],
  },
  {
    title: 'Deploy script fails on CI',
    project: 'webapp',
    ago: 12,
    turns: [
      {
        user: 'deploy.sh fails with: ./build/out: No such file or directory',
        agent: tool('t3', 'Bash', { command: './deploy.sh' }, 'cp: cannot stat ./build/out: No such file or directory'),
        assistant: 'The build folder is missing: deploy.sh must run npm run build first.',
      },
    ],
  },
  {
    title: 'Plain follow-up in a forked session',
    project: 'webapp',
    ago: 1,
    turns: [
      {
        user: 'In this forked session, is the directory layout or the file naming the better place to start?',
        assistant: 'Start with the file naming; the directory layout follows.',
      },
    ],
  },
  {
    title: 'Flaky refund test',
    project: 'payments',
    ago: 20,
    turns: [
      {
        user: 'test_refund is flaky with redis, sometimes it times out',
        assistant: 'The redis connection pool is shared between tests; an idempotency key per test fixes the flaky refund.',
      },
    ],
  },
  {
    title: 'Redis cache eviction',
    project: 'payments',
    ago: 3,
    turns: [{ user: 'Which eviction policy should the redis cache use?', assistant: 'allkeys-lru fits a cache.' }],
  },
  // Newer sessions that hold a query's words in passing, as a real history does: a recency
  // order puts them first, a ranking should not.
  {
    title: 'Lint the whole repo',
    project: 'toolkit',
    ago: 1,
    turns: [
      {
        user: 'Run pylint over the repo and fix the errors, ignore the style warnings.',
        agent: tool(
          't4',
          'Bash',
          { command: 'pylint src' },
          'src/cli.py:1:0: C0114: Missing module docstring\nsrc/util.py:40:4: W0612: Unused variable tmp\nsrc/walker.py:12:0: E0401: Unable to import yaml',
        ),
        assistant: 'Fixed the import error in walker.py and the unused variable; the style warnings are left as you asked.',
      },
    ],
  },
  {
    title: 'Where do fixtures go',
    project: 'webapp',
    ago: 0,
    turns: [
      {
        user: 'Is there such a thing as one fixture file per test directory, or no convention at all?',
        assistant: 'No fixed rule: one file per directory works, or a shared folder; such choices are about taste.',
      },
    ],
  },
  {
    title: 'Log webhook payloads',
    project: 'payments',
    ago: 0,
    turns: [
      {
        user: 'Log every webhook payload we receive, redacted.',
        agent: tool('t5', 'Bash', { command: 'npm test' }, 'PASS webhook.test.ts\n  logs payloads (3 ms)\n  retry header kept (1 ms)'),
        assistant: 'Payloads are logged with secrets redacted.',
      },
    ],
  },
];

/** Writes OWN into the store at `root`, dated from 2026-12-01 back. */
export async function writeOwn(root: string): Promise<void> {
  const store = new SessionStore({ root, agent: 'test' });
  const day = Date.parse('2026-12-01T12:00:00Z');
  for (const s of OWN) {
    const project = join(dirname(root), 'projects', s.project);
    await mkdir(project, { recursive: true });
    const meta = await store.create({ project });
    let t = day - s.ago * 86_400_000;
    const at = () => new Date((t += 60_000)).toISOString();
    const events: unknown[] = [{ kind: 'title', t: at(), title: s.title, source: 'user' }];
    for (const turn of s.turns) {
      events.push({ kind: 'user', t: at(), content: turn.user });
      if (turn.agent) events.push({ kind: 'agent', t: at(), messages: turn.agent });
      if (turn.assistant) events.push({ kind: 'assistant', t: at(), content: [{ type: 'text', text: turn.assistant }] });
    }
    await store.append(meta.id, events);
  }
  await store.releaseAll();
  await store.flushIndex();
}
