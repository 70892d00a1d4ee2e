// The engine's id rule at its edge: two sources born in the same second whose derived ids meet
// each get a session of their own (the second probes the next id), on every run.
import { it, expect } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../server/store/store.js';
import { listSessions } from '../../server/listing/history.js';
import { importedId, runImport } from '../../server/import/engine.js';
import type { Importer, MappedSession, SourceFile } from '../../server/import/types.js';

const T = '2026-01-01T00:00:00.000Z';

it('two sources whose derived ids collide get two sessions, found again on the next run', async () => {
  const seen = new Map<string, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair; i++) {
    const id = importedId(T, { tool: 'test', id: `s${i}` });
    const other = seen.get(id);
    if (other) pair = [other, `s${i}`];
    else seen.set(id, `s${i}`);
  }
  const tmp = await mkdtemp(join(tmpdir(), 'lcs-engine-'));
  try {
    const files: SourceFile[] = pair.map((id) => ({ path: join(tmp, `${id}.log`), size: 1, mtimeNs: 1n }));
    const importer: Importer = {
      tool: 'test',
      label: 'Test',
      defaultRoots: () => [],
      discover: async () => files,
      read: async (f): Promise<MappedSession[]> => {
        const id = f.path.replace(/^.*\/|\.log$/g, '');
        return [
          {
            source: { tool: 'test', path: f.path, id, project: tmp },
            createdAt: T,
            events: [{ kind: 'user', t: T, content: `hello from ${id}`, raw: { id } }],
            problems: [],
          },
        ];
      },
    };
    const store = new SessionStore({ root: join(tmp, 'store') });
    const o = { ledger: join(tmp, 'ledger.json') };
    // The ledger's tail signature reads each source file: they must exist.
    for (const f of files) await writeFile(f.path, 'x');
    expect(await runImport(store, [{ importer, roots: [tmp] }], o)).toMatchObject({ imported: 2, unchanged: 0 });
    await rm(o.ledger);
    expect(await runImport(store, [{ importer, roots: [tmp] }], o)).toMatchObject({ imported: 0, updated: 0, unchanged: 2 });
    const listed = (await listSessions(store.root, {})).sessions;
    expect(listed.map((s) => s.source?.id).sort()).toEqual([...pair].sort());
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});
