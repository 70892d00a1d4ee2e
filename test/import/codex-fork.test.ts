// A Codex fork resumes as Codex resumes it: its rollout holds only what came after the fork
// (forked_from_id, forked_from_ordinal_exclusive), so the import follows the parent's history;
// the conversation a resume sends is the parent's turns then the fork's, not two messages.
// On the real 0.171.0 rollouts (tools/fixtures/codex.mjs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../server/store/store.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import { listSessions } from '../../server/listing/history.js';
import { toConversation } from '../../server/format/conversation.js';
import { FIXTURES } from './layout.js';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-codex-fork-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('codex fork', () => {
  it('resumes with its parent history followed, and lists its real turns', async () => {
    const src = join(tmp, '.codex');
    await cp(join(FIXTURES, 'codex', 'real-0.171.0', 'sessions'), join(src, 'sessions'), { recursive: true });
    const store = new SessionStore({ root: join(tmp, 'store'), agent: 'test' });
    await runImport(store, [{ importer: importerOf('codex')!, roots: [src] }], { ledger: join(tmp, 'ledger.json') });
    const rows = (await listSessions(store.root, {})).sessions;
    const fork = rows.find((r) => r.forkedFrom)!;
    expect(fork, 'the fork is linked').toBeTruthy();
    expect(fork.turns).toBe(4);
    const { messages } = toConversation((await store.read(fork.id)).events);
    const texts = messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.parts));
    expect(texts[0]).toContain('List the files here. TOOL');
    expect(texts[texts.length - 1]).toContain('A question in a fork');
    expect(messages.length, 'more than the fork file two messages').toBeGreaterThan(4);
  });
});
