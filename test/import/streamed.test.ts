// A Claude Code session file or a Codex rollout over STREAM_BYTES is read in two passes
// (claude-code.ts, codex.ts readStreamed) and written as its events are made again: the events
// are the very list the in-memory read gives (Claude Code: a line written before its parent, a
// rewind's abandoned branch, titles, a fork's parent; both: a line that is not JSON, one that is
// not UTF-8, a torn last line), and the store file the engine writes from them is byte for byte
// the one it writes from that list; a file that changes between the passes waits for a later run.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STREAM_BYTES } from '../../server/import/jsonl.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import type { Importer, MappedEvent, MappedSession } from '../../server/import/types.js';
import { SessionStore } from '../../server/store/store.js';

const ID = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
let tmp: string;
let root: string;
let file: string;

/** A session of prompts and tool results padded past STREAM_BYTES, with the cases above in it. */
function sessionLines(project: string): Buffer[] {
  const base = { isSidechain: false, userType: 'external', cwd: project, sessionId: ID, version: '2.0.14' };
  let n = 0;
  const t = () => new Date(Date.parse('2026-03-01T10:00:00Z') + n++ * 1000).toISOString();
  const line = (rec: Record<string, unknown>) => Buffer.from(`${JSON.stringify({ ...base, ...rec, timestamp: t() })}\n`);
  const out: Buffer[] = [];
  const prompt = (uuid: string, parent: string | null, text: string) =>
    line({ type: 'user', parentUuid: parent, uuid, message: { role: 'user', content: text } });
  const answer = (uuid: string, parent: string, text: string) =>
    line({
      type: 'assistant',
      parentUuid: parent,
      uuid,
      message: { role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text }] },
    });
  out.push(prompt('p0', null, 'first prompt of the parent session'));
  out.push(
    line({ type: 'user', parentUuid: 'p0', uuid: 'f0', sessionId: 'parent-session', message: { role: 'user', content: 'copied prompt' } }),
  );
  // An answer written before the prompt it answers (its parent comes later in the file).
  out.push(answer('a1', 'p1', 'the answer written first'));
  out.push(prompt('p1', 'f0', 'the prompt after it'));
  // A rewind: a second prompt under p1's answer; the branch holding the last line wins.
  out.push(prompt('r1', 'a1', 'an abandoned prompt'));
  out.push(answer('r1a', 'r1', 'an abandoned answer'));
  out.push(line({ type: 'custom-title', customTitle: '  A   title  ' }));
  out.push(Buffer.from('this line is not JSON\n'));
  out.push(Buffer.concat([Buffer.from('{"type":"system","uuid":"s1","content":"bad byte '), Buffer.from([0xff]), Buffer.from('"}\n')]));
  let parent = 'a1';
  let bytes = out.reduce((a, b) => a + b.length, 0);
  for (let k = 0; bytes < STREAM_BYTES + (1 << 20); k++) {
    const p = prompt(`k${k}`, parent, `prompt ${k}`);
    const tool = line({
      type: 'user',
      parentUuid: `k${k}`,
      uuid: `k${k}r`,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${k}`, content: `output ${k} `.repeat(4000) }] },
    });
    const a = answer(`k${k}a`, `k${k}r`, `answer ${k} café`);
    out.push(p, tool, a);
    bytes += p.length + tool.length + a.length;
    parent = `k${k}a`;
  }
  out.push(line({ type: 'summary', summary: 'a summary', leafUuid: parent }));
  out.push(Buffer.from('{"type":"user","torn'));
  return out;
}

/** A Codex rollout padded past STREAM_BYTES: prompts logged as event_msg, calls and their outputs. */
function rolloutLines(project: string): Buffer[] {
  let n = 0;
  const line = (type: string, payload: Record<string, unknown>) =>
    Buffer.from(
      `${JSON.stringify({ timestamp: new Date(Date.parse('2026-03-02T10:00:00Z') + n++ * 1000).toISOString(), type, payload })}\n`,
    );
  const out = [
    line('session_meta', { id: CODEX_ID, timestamp: '2026-03-02T09:59:00.000Z', cwd: project, cli_version: '0.46.0' }),
    line('turn_context', { cwd: project, model: 'gpt-5-codex' }),
    Buffer.from('not JSON either\n'),
    Buffer.concat([
      Buffer.from('{"type":"event_msg","payload":{"type":"note","text":"bad byte '),
      Buffer.from([0xfe]),
      Buffer.from('"}}\n'),
    ]),
  ];
  let bytes = out.reduce((a, b) => a + b.length, 0);
  for (let k = 0; bytes < STREAM_BYTES + (1 << 20); k++) {
    const more = [
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `prompt ${k}` }] }),
      line('event_msg', { type: 'user_message', message: `prompt ${k}` }),
      line('response_item', { type: 'function_call', name: 'shell', arguments: '{}', call_id: `c${k}` }),
      line('response_item', { type: 'function_call_output', call_id: `c${k}`, output: `output ${k} `.repeat(4000) }),
      line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${k}` }] }),
    ];
    out.push(...more);
    bytes += more.reduce((a, b) => a + b.length, 0);
  }
  out.push(Buffer.from('{"timestamp":"torn'));
  return out;
}

const CODEX_ID = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
let codexRoot: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-streamed-'));
  root = join(tmp, '.claude');
  const project = join(tmp, 'work');
  await mkdir(project, { recursive: true });
  const folder = join(root, 'projects', '-work');
  await mkdir(folder, { recursive: true });
  file = join(folder, `${ID}.jsonl`);
  await writeFile(file, Buffer.concat(sessionLines(project)));
  codexRoot = join(tmp, '.codex');
  const day = join(codexRoot, 'sessions', '2026', '03', '02');
  await mkdir(day, { recursive: true });
  await writeFile(join(day, `rollout-2026-03-02T10-00-00-${CODEX_ID}.jsonl`), Buffer.concat(rolloutLines(project)));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** The importer reading every file in memory, as it reads a file under STREAM_BYTES. */
function inMemory(i: Importer): Importer {
  return { ...i, read: (f) => i.read({ ...f, size: 0 }) };
}

async function eventsOf(s: MappedSession): Promise<MappedEvent[]> {
  if (!s.streamed) return s.events;
  const out: MappedEvent[] = [];
  for await (const e of s.streamed.events()) out.push(e);
  return out;
}

it.each([
  ['claude-code', () => root],
  ['codex', () => codexRoot],
])('%s: maps a large file in two passes to the list an in-memory read gives', async (tool, rootOf) => {
  const importer = importerOf(tool)!;
  const [f] = await importer.discover(rootOf());
  expect(f!.size).toBeGreaterThan(STREAM_BYTES);
  const [streamed] = await importer.read(f!);
  const [held] = await inMemory(importer).read(f!);
  expect(streamed!.streamed, 'read in two passes').toBeDefined();
  expect(held!.streamed).toBeUndefined();
  const a = await eventsOf(streamed!);
  expect(a).toHaveLength(streamed!.streamed!.count);
  expect(JSON.stringify(a)).toBe(JSON.stringify(held!.events));
  expect({ ...streamed!, events: [], streamed: undefined }).toEqual({ ...held!, events: [], streamed: undefined });
  expect(held!.problems).toHaveLength(2); // the line that is not JSON, the torn last line
  expect(a.some((e) => typeof e.rawBase64 === 'string')).toBe(true);
  if (tool === 'claude-code') {
    expect(held!.source.forkedFrom).toEqual({ id: 'parent-session', turn: 1 });
    expect(a.some((e) => e.kind === 'event' && e.type === 'branch')).toBe(true);
  }
  // Iterated again (the engine may), the same list.
  expect(JSON.stringify(await eventsOf(streamed!))).toBe(JSON.stringify(a));
});

it.each([
  ['claude-code', () => root],
  ['codex', () => codexRoot],
])('%s: writes the same store file from the streamed events as from the list', async (tool, rootOf) => {
  const importer = importerOf(tool)!;
  const files: string[] = [];
  for (const [name, i] of [
    ['streamed', importer],
    ['held', inMemory(importer)],
  ] as const) {
    const store = new SessionStore({ root: join(tmp, `store-${tool}-${name}`) });
    const r = await runImport(store, [{ importer: i, roots: [rootOf()] }], { ledger: join(tmp, `ledger-${tool}-${name}.json`) });
    expect(r).toMatchObject({ imported: 1, failed: 0 });
    const [dir] = (await readdir(store.root, { withFileTypes: true })).filter((d) => d.isDirectory() && !d.name.startsWith('.'));
    const [name1] = (await readdir(join(store.root, dir!.name))).filter((n) => n.endsWith('.jsonl') && !n.startsWith('.'));
    files.push((await readFile(join(store.root, dir!.name, name1!), 'utf8')).replace(/"importedAt":"[^"]*"/, ''));
  }
  expect(files[0]!.length).toBeGreaterThan(STREAM_BYTES);
  expect(files[0] === files[1], 'the same bytes').toBe(true);
});

it('leaves a file that changed between its two passes for the next run', async () => {
  const importer = importerOf('claude-code')!;
  const [f] = await importer.discover(root);
  const [s] = await importer.read(f!);
  const before = await readFile(file);
  try {
    // Rewritten in place between the passes: its lines are no longer the ones counted.
    await writeFile(file, Buffer.concat([Buffer.from(`${JSON.stringify({ type: 'system', uuid: 'x' })}\n`), before]));
    await expect(eventsOf(s!)).rejects.toThrow(/changed while it was read/);
  } finally {
    await writeFile(file, before);
  }
});
