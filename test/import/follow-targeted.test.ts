// A follower's run after a watch names a session file it already knows is targeted: only that
// source is stat'ed and read (the engine's `sources`), the rest of the tool's folder is not
// discovered again; a new file, or a watch event without a name, is a full run. Real Claude
// Code files (test/fixtures/import/claude-code/real-1.0.128), a real store, real fs.watch.

import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { followImports } from '../../server/import/follow.js';
import { type ImportReport, runImport, type Source } from '../../server/import/engine.js';
import { IMPORTERS } from '../../server/import/registry.js';
import { SessionStore } from '../../server/store/store.js';
import { FIXTURES } from './layout.js';

const REAL = join(FIXTURES, 'claude-code', 'real-1.0.128');
const UUID = '81de8f02-0841-48b1-9a80-29d83a4a2fd3';
const claudeCode = IMPORTERS.find((i) => i.tool === 'claude-code')!;
let tmp = '';
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function setup() {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-follow-targeted-'));
  const home = join(tmp, 'claude');
  cpSync(REAL, home, { recursive: true });
  const session = join(home, 'projects', '-tmp-levelcode-fixture-demo', `${UUID}.jsonl`);
  const store = new SessionStore({ root: join(tmp, 'store') });
  return { home, session, store, jobs: [{ importer: claudeCode, roots: [home] }], ledger: join(tmp, 'ledger.json') };
}

/** One more turn of the session, as Claude Code appends it (its last record, answered again). */
function appendTurn(session: string, tag: string): void {
  const last = JSON.parse(readFileSync(session, 'utf8').trimEnd().split('\n').pop()!);
  const now = new Date().toISOString();
  appendFileSync(
    session,
    `${JSON.stringify({ ...last, parentUuid: last.uuid, type: 'user', message: { role: 'user', content: `appended ${tag}` }, uuid: `${tag}-u`, timestamp: now })}\n`,
  );
}

it('the engine imports the sources it is given, stat-ed again, without discovering the rest', async () => {
  const w = setup();
  let found: Source[] = [];
  const first = await runImport(w.store, w.jobs, { ledger: w.ledger, onDiscovered: (s) => (found = s) });
  expect(first.imported).toBeGreaterThan(0);
  expect(found.map((s) => s.file.path)).toContain(w.session);
  appendTurn(w.session, 'engine');
  const one = found.filter((s) => s.file.path === w.session);
  const r = await runImport(w.store, w.jobs, { ledger: w.ledger, sources: one });
  expect(r).toMatchObject({ imported: 0, updated: 1, unchanged: 0, problems: [] });
  expect(r.tools).toEqual([expect.objectContaining({ tool: 'claude-code', found: 1, updated: 1 })]);
  // The full run after it finds nothing new: the targeted run's ledger entry holds.
  const again = await runImport(w.store, w.jobs, { ledger: w.ledger });
  expect(again).toMatchObject({ imported: 0, updated: 0 });
  // A source that is gone is left out of a targeted run, not an error.
  rmSync(w.session);
  const gone = await runImport(w.store, w.jobs, { ledger: w.ledger, sources: one });
  expect(gone).toMatchObject({ imported: 0, updated: 0, problems: [] });
  expect(gone.tools).toEqual([]);
});

it('a follower imports a grown session alone, and a new session file with a full run', async () => {
  const w = setup();
  const reports: ImportReport[] = [];
  let heard = () => {};
  const onReport = (r: ImportReport) => (reports.push(r), heard());
  const f = followImports(w.store, w.jobs, { debounceMs: 50, pollMs: 3_600_000, sweepMs: 3_600_000, onReport });
  try {
    expect(f.mode).toBe('watch');
    // Resolves on the report (onReport) that makes `ok` true, or at once when one already did.
    const until = (ok: () => boolean) =>
      new Promise<void>((resolve) => {
        heard = () => ok() && resolve();
        heard();
      });
    await until(() => reports.length > 0);
    const sources = reports[0]!.tools[0]!.found;
    expect(sources).toBeGreaterThan(1);
    appendTurn(w.session, 'follow');
    await until(() => reports.some((r) => r.updated === 1));
    const grown = reports.find((r) => r.updated === 1)!;
    expect(grown.tools[0]).toMatchObject({ found: 1, updated: 1 });
    // A file not seen before: the run discovers the folder again.
    cpSync(w.session, join(w.home, 'projects', '-tmp-levelcode-fixture-demo', '0a1b2c3d-0000-4000-8000-000000000001.jsonl'));
    await until(() => reports.some((r) => r.tools[0]!.found === sources + 1));
  } finally {
    f.close();
  }
});
