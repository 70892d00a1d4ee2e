// The Continue importer's own test: Continue rewrites its session document in place, and its
// compaction drops the turns it summarised from the file. Importing before and after such a
// rewrite must keep every turn we had and add the summary as one compact event.
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../server/store/store.js';
import { listSessions } from '../../server/listing/history.js';
import { textOf } from '../../server/format/events.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import { cases, compactedRoot } from './cases/continue.js';
import { at } from '../helpers/items.js';

const continueDev = importerOf('continue')!;

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('continue: a document rewritten by a compaction', () => {
  it('keeps the turns imported before the rewrite and appends the summary once', async () => {
    const base = await mkdtemp(join(tmpdir(), 'lcs-continue-'));
    dirs.push(base);
    const store = new SessionStore({ root: join(base, 'store'), agent: 'test' });
    const ledger = join(base, 'ledger.json');
    const from = await at(cases, 0).setup(join(base, 'src'));
    await runImport(store, [{ importer: continueDev, roots: [from] }], { ledger });
    await compactedRoot(join(base, 'src'));
    const second = await runImport(store, [{ importer: continueDev, roots: [from] }], { ledger });
    expect(second.updated).toBe(1);
    const listed = await listSessions(store.root, {});
    const main = [];
    for (const e of listed.sessions) {
      const r = await store.read(e.id);
      if ((r.meta.source as { id: string }).id === 'dd471311-99d9-4e6e-a5e6-1c7f2f2505bd') main.push(r.events.map((x) => x.event));
    }
    expect(main).toHaveLength(1);
    const events = at(main, 0);
    const users = events.filter((e) => e.kind === 'user').map((e) => textOf((e as { content: unknown }).content));
    expect(users).toEqual([
      'Please run a TOOL: print a word in the terminal.',
      'Thanks. What did it print?',
      'One more question after the compaction.',
      'A question after the compaction.',
    ]);
    expect(events.filter((e) => e.kind === 'compact')).toHaveLength(1);
    // A third run over the same document changes nothing.
    const third = await runImport(store, [{ importer: continueDev, roots: [from] }], { ledger });
    expect(third.imported + third.updated).toBe(0);
  });
});

describe('continue: a session missing from sessions.json', () => {
  it('keeps one id across rewrites that move its file time (from its sessionId, never a file time)', async () => {
    const { readFile, rm: remove, utimes, writeFile } = await import('node:fs/promises');
    const base = await mkdtemp(join(tmpdir(), 'lcs-continue-'));
    dirs.push(base);
    const store = new SessionStore({ root: join(base, 'store'), agent: 'test' });
    const ledger = join(base, 'ledger.json');
    const from = await at(cases, 0).setup(join(base, 'src'));
    const sessions = join(from, 'sessions');
    await remove(join(sessions, 'sessions.json'));
    const file = join(sessions, 'dd471311-99d9-4e6e-a5e6-1c7f2f2505bd.json');
    await utimes(file, new Date('2026-03-01T10:00:00Z'), new Date('2026-03-01T10:00:00Z'));
    await runImport(store, [{ importer: continueDev, roots: [from] }], { ledger });
    // Continue rewrites the document every turn: same content, a later file time.
    await writeFile(file, await readFile(file));
    await utimes(file, new Date('2026-03-01T10:07:00Z'), new Date('2026-03-01T10:07:00Z'));
    const again = await runImport(store, [{ importer: continueDev, roots: [from] }], { ledger });
    expect(again.imported).toBe(0);
    const listed = await listSessions(store.root, {});
    const copies = listed.sessions.filter((e) => e.source?.id === 'dd471311-99d9-4e6e-a5e6-1c7f2f2505bd');
    expect(copies).toHaveLength(1);
  });
});
