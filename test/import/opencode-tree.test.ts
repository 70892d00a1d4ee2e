// opencode's JSON tree (1.1 and older, storage/session|message|part): a subagent's session, and
// its own subagent, are read with the session they ran under, as sidechains beside the task
// call that started them; one source a History row.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importerOf } from '../../server/import/registry.js';

const opencode = importerOf('opencode')!;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lcs-opencode-tree-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(path: string, value: unknown): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, JSON.stringify(value));
}

/** A session with one user prompt and one assistant message of the given parts. */
async function session(id: string, parent: string | null, t: number, prompt: string, parts: Record<string, unknown>[]): Promise<void> {
  const s = join(root, 'storage');
  await put(join(s, 'session', 'proj', `${id}.json`), {
    id,
    version: '1.1.0',
    projectID: 'proj',
    directory: '/work/app',
    parentID: parent,
    title: `${id} title`,
    time: { created: t, updated: t + 9000 },
  });
  await put(join(s, 'message', id, `msg_${id}_u.json`), { id: `msg_${id}_u`, sessionID: id, role: 'user', time: { created: t + 1000 } });
  await put(join(s, 'part', `msg_${id}_u`, 'prt_1.json'), { id: 'prt_1', type: 'text', text: prompt, time: { start: t + 1000 } });
  await put(join(s, 'message', id, `msg_${id}_a.json`), {
    id: `msg_${id}_a`,
    sessionID: id,
    role: 'assistant',
    time: { created: t + 2000 },
  });
  for (const [i, p] of parts.entries()) await put(join(s, 'part', `msg_${id}_a`, `prt_${i + 1}.json`), { id: `prt_${i + 1}`, ...p });
}

const task = (child: string, t: number) => ({
  type: 'tool',
  tool: 'task',
  callID: `call_${child}`,
  state: {
    status: 'completed',
    input: { prompt: 'look' },
    output: 'done',
    metadata: { sessionId: child },
    time: { start: t, end: t + 500 },
  },
});

it('a subagent session and its own subagent are sidechains of the one row, beside their task calls', async () => {
  const T = 1_760_000_000_000;
  await session('ses_main', null, T, 'Find the bug', [
    task('ses_sub', T + 3000),
    { type: 'text', text: 'Fixed it.', time: { start: T + 8000 } },
  ]);
  await session('ses_sub', 'ses_main', T + 3000, 'Look in src/', [
    task('ses_deep', T + 4000),
    { type: 'text', text: 'Sub answer', time: { start: T + 6000 } },
  ]);
  await session('ses_deep', 'ses_sub', T + 4000, 'Grep for it', [{ type: 'text', text: 'Deep answer', time: { start: T + 4500 } }]);

  const files = await opencode.discover(root);
  expect(files).toHaveLength(1);
  const sessions = await opencode.read(files[0]!);
  expect(sessions.map((s) => s.source.id)).toEqual(['ses_main']);
  const events = sessions[0]!.events;
  const text = (e: (typeof events)[number]) => JSON.stringify(e);
  const at = (needle: string) => events.findIndex((e) => text(e).includes(needle));
  // In the order a reader needs: the call, the subagent's work (its own subagent inside it), the answer.
  expect(at('call_ses_sub')).toBeLessThan(at('Look in src/'));
  expect(at('Look in src/')).toBeLessThan(at('Deep answer'));
  expect(at('Deep answer')).toBeLessThan(at('Fixed it.'));
  for (const needle of ['Look in src/', 'Sub answer', 'Grep for it', 'Deep answer'])
    expect(events[at(needle)], needle).toMatchObject({ kind: 'agent', sidechain: true });
  // Only the main session's prompt is a turn.
  expect(events.filter((e) => e.kind === 'user').map((e) => e.content)).toEqual(['Find the bug']);
});
