// Claude Code's own order: lines its TUI wrote before the prompt they answer are read after it
// (their parentUuid), and a subagent's transcript sits right after the call that started it
// (agent-<id>.meta.json's toolUseId), on the real 2.1.332 session (tools/fixtures/claude-code.mjs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importerOf } from '../../server/import/registry.js';
import { textOf } from '../../server/format/events.js';
import type { MappedEvent } from '../../server/import/types.js';
import { FIXTURES } from './layout.js';

const SLUG = '-tmp-levelcode-fixture-demo';
const ID = 'dd86d04a-f5ed-4609-8a32-ebd6c3e70b4e';
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-cc-order-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function session(dir: string, edit?: (lines: string[]) => string[]): Promise<MappedEvent[]> {
  const root = join(tmp, dir, '.claude');
  await cp(join(FIXTURES, 'claude-code', 'real-2.1.332', 'projects'), join(root, 'projects'), { recursive: true });
  const file = join(root, 'projects', SLUG, `${ID}.jsonl`);
  if (edit) await writeFile(file, edit((await readFile(file, 'utf8')).trimEnd().split('\n')).join('\n') + '\n');
  const importer = importerOf('claude-code')!;
  const files = await importer.discover(root);
  const sessions = (await Promise.all(files.map((f) => importer.read(f)))).flat();
  return sessions.find((s) => s.source.id === ID)!.events;
}

const says = (e: MappedEvent, text: string) =>
  (JSON.stringify(e.kind === 'user' ? textOf(e.content) : (e.messages ?? e.content)) ?? '').includes(text);

describe('claude-code order', () => {
  it('reads answer lines written before their prompt after it, by parentUuid', async () => {
    // The TUI's order: the first answer lines (uuid 8f942a1e…, 09b7dd64…) before the prompt and
    // the attachments their parentUuid chain goes back to.
    const events = await session('tui', (lines) => {
      const at = lines.findIndex((l) => l.includes('"Running it."'));
      const answer = lines.slice(at, at + 2);
      const prompt = lines.findIndex((l) => l.includes('"content":"List the files here. TOOL"'));
      const rest = lines.filter((_, i) => i < at || i >= at + 2);
      return [...rest.slice(0, prompt), ...answer, ...rest.slice(prompt)];
    });
    const prompt = events.findIndex((e) => e.kind === 'user' && says(e, 'List the files here. TOOL'));
    const answer = events.findIndex((e) => says(e, 'Running it.'));
    expect(prompt).toBeGreaterThanOrEqual(0);
    expect(answer, 'the answer after the prompt it answers').toBeGreaterThan(prompt);
  });

  it('places a subagent transcript right after the call that started it', async () => {
    const events = await session('sub');
    const call = events.findIndex((e) => e.kind === 'agent' && !e.sidechain && JSON.stringify(e.messages).includes('"name":"Agent"'));
    expect(call).toBeGreaterThanOrEqual(0);
    expect(events[call + 1]?.sidechain, 'the subagent right after its call').toBe(true);
    expect(says(events[call + 1]!, 'TOOL: list the files here')).toBe(true);
  });
});
