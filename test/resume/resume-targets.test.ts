// Every importer's fixtures, resumed into every target, judged by that target's validator
// (test/support/validators.ts, written from the providers' API references). Each contract
// case of test/import/cases/ is imported into a real store in a temp folder, read back, made
// a neutral conversation (format/conversation.ts) and rendered (resume/targets.ts). A result
// table tool x target is written to test-artifacts/targets-table.md for the record.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../server/store/store.js';
import { listSessions } from '../../server/listing/history.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import { toConversation } from '../../server/format/conversation.js';
import { render, TARGETS } from '../../server/resume/targets.js';
import { honestyLine } from '../../server/resume/resume.js';
import type { SeqEvent } from '../../server/format/events.js';
import type { ContractCase } from '../import/case.js';
import { VALIDATORS } from '../support/validators.js';

const casesDir = fileURLToPath(new URL('../import/cases/', import.meta.url));
const all: ContractCase[] = [];
for (const f of (await readdir(casesDir)).filter((n) => n.endsWith('.ts')).sort()) {
  all.push(...((await import(join(casesDir, f))) as { cases: ContractCase[] }).cases);
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-targets-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
  const tools = [...new Set(all.map((c) => c.tool))];
  const lines = [`| tool | sessions | ${TARGETS.join(' | ')} |`, `|---|---|${TARGETS.map(() => '---').join('|')}|`];
  for (const tool of tools) {
    const row = table.get(tool);
    if (!row) continue;
    lines.push(`| ${tool} | ${row.sessions} | ${TARGETS.map((t) => `${row.ok[t] ?? 0}/${row.sessions}`).join(' | ')} |`);
  }
  await mkdir('test-artifacts', { recursive: true });
  await writeFile('test-artifacts/targets-table.md', `${lines.join('\n')}\n`);
});

const table = new Map<string, { sessions: number; ok: Record<string, number> }>();

let n = 0;
async function imported(c: ContractCase): Promise<{ id: string; events: SeqEvent[] }[]> {
  const base = join(tmp, `w${++n}`);
  const store = new SessionStore({ root: join(base, 'store'), agent: 'test' });
  const from = await c.setup(join(base, 'src'));
  await runImport(store, [{ importer: importerOf(c.tool)!, roots: [from] }], { ledger: join(base, 'ledger.json') });
  const out = [];
  for (const e of (await listSessions(store.root, {})).sessions) out.push({ id: e.id, events: (await store.read(e.id)).events });
  return out;
}

describe.each(all.map((c) => [c.name, c] as const))('resume targets: %s', (_name, c) => {
  it('every session renders into every target and passes its validator', async () => {
    const sessions = await imported(c);
    expect(sessions.length).toBeGreaterThan(0);
    const row = table.get(c.tool) ?? { sessions: 0, ok: {} };
    table.set(c.tool, row);
    row.sessions += sessions.length;
    for (const s of sessions) {
      const conv = toConversation(s.events, { markerLine: honestyLine });
      for (const target of TARGETS) {
        const r = render(conv, target);
        const errs = VALIDATORS[target](r.messages);
        expect(errs, `${c.tool} ${s.id} -> ${target}`).toEqual([]);
        row.ok[target] = (row.ok[target] ?? 0) + 1;
      }
    }
  });
});
