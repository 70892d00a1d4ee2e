// The import contract: one suite that every importer passes (the unstorage pattern: one suite,
// every driver). It runs every case of every importer found in test/import/cases/*.ts through
// the real engine into a real store in a temp folder, and checks what History shows (turns,
// titles, in order), what the events carry (tool pairs, compactions, the raw record of each),
// and what later runs do: nothing on an unchanged source, only the new records on a grown one,
// a torn last line read once it is whole, an unknown record kind kept raw, hostile keys kept
// as plain data, and nothing lost when the source is deleted.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFile, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../server/store/store.js';
import { listSessions } from '../../server/listing/history.js';
import { refreshIndex } from '../../server/listing/catalog.js';
import { loadIndexSync } from '../../server/store/entries.js';
import { projectFolders } from '../../server/store/files.js';
import { toolIds } from '../../server/resume/resume.js';
import { textOf, type SessionEvent } from '../../server/format/events.js';
import { runImport, eventSignature, type ImportReport } from '../../server/import/engine.js';
import { IMPORTERS, importerOf } from '../../server/import/registry.js';
import type { Importer, SourceFile } from '../../server/import/types.js';
import type { ContractCase, ExpectedSession } from './case.js';
import { renderMarkdown } from '../../server/export/export.js';
import { blocks } from '../../server/format/content.js';
import { SEPARATOR } from '../../server/export/markdown.js';
import { at } from '../helpers/items.js';

const casesDir = fileURLToPath(new URL('./cases/', import.meta.url));
const all: ContractCase[] = [];
for (const f of (await readdir(casesDir)).filter((n) => n.endsWith('.ts')).sort()) {
  const mod = (await import(join(casesDir, f))) as { cases: ContractCase[] };
  all.push(...mod.cases);
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-import-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

let n = 0;
/** A fresh world: a source folder, a store and a ledger of its own. */
function world() {
  const base = join(tmp, `w${++n}`);
  return {
    src: join(base, 'src'),
    store: new SessionStore({ root: join(base, 'store'), agent: 'test' }),
    ledger: join(base, 'ledger.json'),
  };
}

async function run(w: ReturnType<typeof world>, importer: Importer, from: string, o: { dryRun?: boolean } = {}): Promise<ImportReport> {
  return runImport(w.store, [{ importer, roots: [from] }], { ledger: w.ledger, ...o });
}

interface Ours {
  id: string;
  source: { tool: string; id: string; project: string; path: string; variant?: string };
  events: SessionEvent[];
  turns: number;
  title: string | null;
  forkedFrom?: { id: string; turn: number };
  markdown: string;
}

async function ours(w: ReturnType<typeof world>): Promise<Ours[]> {
  const listed = await listSessions(w.store.root, {});
  const out: Ours[] = [];
  for (const e of listed.sessions) {
    const r = await w.store.read(e.id);
    out.push({
      id: e.id,
      source: r.meta.source as Ours['source'],
      events: r.events.map((x) => x.event),
      turns: e.turns,
      title: e.titled ? e.title : null,
      ...(e.forkedFrom ? { forkedFrom: e.forkedFrom } : {}),
      markdown: renderMarkdown(r.meta, r.events),
    });
  }
  return out;
}

const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Our session made from an expected one: found by the tool's id and the variant. */
function find(got: Ours[], exp: ExpectedSession, tool: string): Ours {
  const hit = got.filter((s) => s.source?.tool === tool && s.source.id === exp.id && (s.source.variant ?? '') === (exp.variant ?? ''));
  expect(
    hit.map((s) => s.source.id),
    `one session of ${tool} ${exp.id}${exp.variant ? ` (${exp.variant})` : ''}`,
  ).toEqual([exp.id]);
  return at(hit, 0);
}

/** tool_use/tool_result (or call/output) pairs: ids mentioned by two events or more. */
function toolPairs(events: SessionEvent[]): number {
  const seen = new Map<string, number>();
  for (const ev of events) for (const id of toolIds(ev)) seen.set(id, (seen.get(id) ?? 0) + 1);
  return [...seen.values()].filter((c) => c >= 2).length;
}

function checkExpected(got: Ours[], c: ContractCase): void {
  for (const exp of c.sessions) {
    const s = find(got, exp, c.tool);
    expect(s.turns, `turns of ${exp.id}`).toBe(exp.turns);
    if (exp.project !== undefined) expect(s.source.project).toBe(exp.project);
    if (exp.title !== undefined) expect(s.title).toBe(exp.title);
    if (exp.compactions !== undefined) expect(s.events.filter((e) => e.kind === 'compact').length).toBe(exp.compactions);
    if (exp.toolPairs !== undefined) expect(toolPairs(s.events)).toBe(exp.toolPairs);
    if (exp.forkedFrom !== undefined) {
      const parent = got.find((p) => p.source?.tool === c.tool && p.source.id === exp.forkedFrom && !p.source.variant);
      expect(parent, `the parent ${exp.forkedFrom} of ${exp.id}`).toBeTruthy();
      expect(s.forkedFrom?.id, `${exp.id} is linked to its parent`).toBe(parent!.id);
      if (exp.forkTurn !== undefined) expect(s.forkedFrom?.turn, `the turn ${exp.id} forks at`).toBe(exp.forkTurn);
    } else expect(s.forkedFrom, `${exp.id} is no fork`).toBeUndefined();
    if (exp.thinking) {
      const thoughts = s.events.flatMap((e) =>
        blocks(e)
          .filter((p) => p.kind === 'thinking')
          .map((p) => p.text ?? ''),
      );
      for (const want of exp.thinking) expect(thoughts.join('\n'), `thinking of ${exp.id}`).toContain(want);
    }
    if (exp.sidechains !== undefined) expect(sidechainRuns(s.events), `sidechains of ${exp.id}`).toBe(exp.sidechains);
    if (exp.userTexts) {
      const texts = s.events.filter((e) => e.kind === 'user').map((e) => textOf((e as { content: unknown }).content));
      let at = 0;
      for (const want of exp.userTexts) {
        const i = texts.findIndex((t, k) => k >= at && t.includes(want));
        expect(i, `user text ${JSON.stringify(want)} in order`).toBeGreaterThanOrEqual(at);
        at = i + 1;
      }
    }
  }
}

/** Subagent transcripts placed in a session: runs of sidechain events among the conversation. */
function sidechainRuns(events: SessionEvent[]): number {
  let runs = 0;
  let inRun = false;
  for (const e of events) {
    const side = (e as { sidechain?: unknown }).sidechain === true;
    if (side && !inRun) runs++;
    if (e.kind !== 'event') inRun = side;
  }
  return runs;
}

/** Every source record we hold, by signature: what a run added must be new, and nothing twice. */
function signatures(s: Ours[]): string[] {
  return s.flatMap((x) => x.events.map((e) => eventSignature(e as never))).sort();
}

async function sourceFiles(importer: Importer, from: string): Promise<SourceFile[]> {
  return importer.discover(from);
}

async function sizes(w: ReturnType<typeof world>): Promise<number[]> {
  const got = await ours(w);
  return Promise.all(got.map(async (s) => (await stat(await w.store.pathOf(s.id))).size));
}

describe.each(all.map((c) => [c.name, c] as const))('import contract: %s', (_name, c) => {
  const importer = importerOf(c.tool)!;

  it('names a known importer', () => {
    expect(importer, `an importer named ${c.tool} in server/import/registry.ts`).toBeTruthy();
  });

  it('imports the sessions with their turns, titles, tool pairs and compactions in order', async () => {
    const w = world();
    const from = await c.setup(w.src);
    const r = await run(w, importer, from);
    expect(r.imported).toBe(c.sessions.length);
    // History's index, written by the import from the events in hand (no file read back), is
    // what a rebuild from the files gives.
    let indexed = 0;
    for (const dir of projectFolders(w.store.root)) {
      const written = [...loadIndexSync(dir).entries.values()].sort(byId);
      const rebuilt = (await refreshIndex(dir, { rebuild: true, write: false })).entries.sort(byId);
      expect(written, `the index of ${dir}`).toEqual(rebuilt);
      indexed += written.length;
    }
    expect(indexed).toBe(c.sessions.length);
    const got = await ours(w);
    checkExpected(got, c);
    // Every event keeps the record it came from; every meta line names its source.
    for (const s of got) {
      expect(s.source.path.startsWith(w.src)).toBe(true);
      for (const e of s.events) expect((e as { raw?: unknown }).raw, `raw of a ${e.kind} event`).not.toBeUndefined();
    }
  });

  // Only the newest fixtures (c.clean) promise this; older ones define no such test (never a skip).
  if (c.clean)
    it('imports clean: one row a conversation, no 0-turn row, no unknown kind, no tool internals shown', async () => {
      const w = world();
      const from = await c.setup(w.src);
      const r = await run(w, importer, from);
      expect(r.unknownKinds, 'record kinds the importer has never seen').toEqual([]);
      const got = await ours(w);
      expect(got.map((s) => s.source.id).sort(), 'one History row a conversation').toEqual(c.sessions.map((s) => s.id).sort());
      for (const s of got) {
        expect(s.turns, `${s.source.id} has turns`).toBeGreaterThan(0);
        if (s.title) expect(s.title).not.toMatch(/<command-name>|<task-notification>|<\/?summary>|\\\[/);
        expect(s.markdown).not.toContain('source-record');
        expect(s.markdown, 'no sanitiser guard line').not.toContain(SEPARATOR);
        expect(s.markdown).not.toMatch(
          /<task-notification>|<command-name>|<local-command-caveat>|Assistant \(<synthetic>\)|No response requested\./,
        );
      }
    });

  it('a dry run writes nothing and counts what a real run would import', async () => {
    const w = world();
    const from = await c.setup(w.src);
    const r = await run(w, importer, from, { dryRun: true });
    expect(r.imported).toBe(c.sessions.length);
    expect(await ours(w)).toEqual([]);
  });

  it('is idempotent: a second run, with or without the ledger, changes nothing', async () => {
    const w = world();
    const from = await c.setup(w.src);
    await run(w, importer, from);
    const before = await sizes(w);
    const again = await run(w, importer, from);
    expect([again.imported, again.updated]).toEqual([0, 0]);
    expect(again.unchanged).toBeGreaterThanOrEqual(c.sessions.length);
    await rm(w.ledger);
    const reread = await run(w, importer, from);
    expect([reread.imported, reread.updated]).toEqual([0, 0]);
    expect(await sizes(w)).toEqual(before);
  });

  it('a source that grew between runs gets only its new records', async () => {
    const w = world();
    const one = world();
    const from = await c.setup(one.src);
    await run(one, importer, from);
    const whole = signatures(await ours(one));
    // The earlier state: the case's own, or each JSONL source cut to its first half of lines.
    let fromW: string;
    if (c.earlier) fromW = await c.earlier(w.src);
    else {
      fromW = await c.setup(w.src);
      for (const f of await sourceFiles(importer, fromW)) {
        const text = await readFile(f.path, 'utf8');
        const lines = text.replace(/\n$/, '').split('\n');
        await writeFile(
          f.path,
          lines
            .slice(0, Math.floor(lines.length / 2))
            .map((l) => l + '\n')
            .join(''),
        );
      }
    }
    const first = await run(w, importer, fromW);
    expect(first.problems.filter((p) => /unreadable|cannot/.test(p.message))).toEqual([]);
    await c.setup(w.src);
    const grown = await run(w, importer, fromW);
    expect(grown.imported + grown.updated).toBeGreaterThan(0);
    const got = await ours(w);
    // Held once each: every record of the whole source, and nothing twice.
    const held = signatures(got);
    if (c.earlier) {
      // A source rewritten in place: what we had stays, what is new is added once.
      for (const s of whole) expect(held).toContain(s);
      checkExpected(got, c);
    } else expect(held).toEqual(whole);
  });

  it('a torn last line is left for a later run, then read once; an unknown record kind is kept raw', async () => {
    const w = world();
    const from = await c.setup(w.src);
    const files = (await sourceFiles(importer, from)).filter((f) => f.path.endsWith('.jsonl'));
    if (files.length === 0) return expect(c.tool).not.toBe('claude-code'); // whole-file JSON sources: their own cases
    await run(w, importer, from);
    // The file of a session that was imported (an empty file of the tool makes none).
    const target = at(await ours(w), 0).source.path;
    // The tool writes whole lines: one that ends without its newline has been finished by it.
    if (!(await readFile(target, 'utf8')).endsWith('\n')) {
      await appendFile(target, '\n');
      await run(w, importer, from);
    }
    const before = await ours(w);
    const line =
      '{"type":"levelcode-contract-unknown","timestamp":"2030-01-01T00:00:00.000Z","payload":' +
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"note":"a record kind no importer knows"}}';
    await appendFile(target, line.slice(0, 40));
    const torn = await run(w, importer, from);
    expect(torn.problems.some((p) => /torn/.test(p.message))).toBe(true);
    expect(signatures(await ours(w))).toEqual(signatures(before));
    await appendFile(target, line.slice(40) + '\n');
    const whole = await run(w, importer, from);
    expect(whole.updated).toBe(1);
    const after = await ours(w);
    const added = after.flatMap((s) => s.events).filter((e) => JSON.stringify((e as { raw?: unknown }).raw) === line);
    expect(added.length, 'the unknown record held once, verbatim').toBe(1);
    const held = added[0] as { raw?: { payload: Record<string, unknown> } };
    const payload = held.raw!.payload;
    expect(Object.hasOwn(payload, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('deleting the source never deletes ours', async () => {
    const w = world();
    const from = await c.setup(w.src);
    await run(w, importer, from);
    const before = await ours(w);
    await rm(w.src, { recursive: true, force: true });
    const r = await run(w, importer, from);
    expect(r.problems.length).toBeGreaterThan(0);
    expect(await ours(w)).toEqual(before);
  });
});

// Item 3 of the contract: every importer says which record kinds it maps and which it keeps
// hidden, and how to name a record's kind, so a kind it has never seen is counted (engine.ts).
it.each(IMPORTERS.map((i) => [i.tool, i] as const))('%s declares its record kinds', (_tool, i) => {
  expect(i.kinds, 'kinds: {mapped, hidden}').toBeDefined();
  expect(i.kinds!.mapped.length).toBeGreaterThan(0);
  expect(typeof i.kindOf).toBe('function');
});
