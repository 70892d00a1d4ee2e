// Fields of an imported event written as parts of its raw record (format/derived.ts): the
// rule on plain data, then real Claude Code and Codex files imported and read back: every event
// as the importer mapped it, the tool's content written once, `raw` the record verbatim.
import { describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OF_RAW, restoreFromRaw, shareWithRaw } from '../../server/format/derived.js';
import { serializeLine } from '../../server/format/events.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import type { MappedEvent } from '../../server/import/types.js';
import { SessionStore } from '../../server/store/store.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'import');

describe('shareWithRaw and restoreFromRaw', () => {
  const message = { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'Bash', input: { command: 'ls' } }] };
  const raw = { type: 'assistant', uuid: 'u1', message };

  it('names a field that is a part of raw, in its place, and puts it back there as a copy', () => {
    const ev = { kind: 'agent', t: 'T', messages: [message], sidechain: true, raw };
    const line = shareWithRaw(ev);
    expect(Object.keys(line)).toEqual(['kind', 't', OF_RAW, 'sidechain', 'raw']);
    expect(line[OF_RAW]).toEqual({ messages: [['message']] });
    expect(ev.messages[0]).toBe(message); // the event itself is not changed
    const back = restoreFromRaw(JSON.parse(serializeLine(line)));
    expect(back).toEqual(ev);
    expect(Object.keys(back)).toEqual(['kind', 't', 'messages', 'sidechain', 'raw']);
    expect(back.messages[0]).not.toBe(back.raw.message); // changing one never changes the other
  });

  it('shares a long string equal to one in raw, never a short one or a value that only looks alike', () => {
    const long = 'a prompt long enough to be worth a reference, as most prompts are';
    const withLong = shareWithRaw({ kind: 'user', t: 'T', content: long, raw: { message: { content: long } } });
    expect(withLong[OF_RAW]).toEqual({ content: ['message', 'content'] });
    expect(shareWithRaw({ kind: 'user', t: 'T', content: 'hi', raw: { message: { content: 'hi' } } })).not.toHaveProperty(OF_RAW);
    const lookalike = { kind: 'agent', t: 'T', messages: [{ ...message }], raw };
    expect(shareWithRaw(lookalike)).toBe(lookalike); // equal but not the same object: written whole
  });

  it('leaves out a field whose path leads nowhere, and keeps a field the line states itself', () => {
    expect(restoreFromRaw({ kind: 'user', t: 'T', ofRaw: { content: ['message', 'nope'] }, raw })).toEqual({ kind: 'user', t: 'T', raw });
    expect(restoreFromRaw({ kind: 'user', t: 'T', content: 'own', ofRaw: { content: ['uuid'] }, raw })).toMatchObject({ content: 'own' });
    const plain = { kind: 'user', t: 'T', content: 'x' };
    expect(restoreFromRaw(plain)).toBe(plain);
  });
});

describe('an import writes the tool content once and reads back what it mapped', () => {
  const files = [
    ['claude-code', 'ccl_sidechain_integrated.jsonl'],
    ['claude-code', 'as_small_many_line_types.jsonl'],
    ['codex', 'ccl_rollout_structured_tools.jsonl'],
    ['codex', 'localpush_rollout_multiturn_websearch.jsonl'],
  ] as const;
  for (const [tool, name] of files)
    it(`${tool} ${name}`, async () => {
      const tmp = await mkdtemp(join(tmpdir(), 'lcs-ofraw-'));
      try {
        const importer = importerOf(tool)!;
        const source = join(FIXTURES, tool, name);
        const store = new SessionStore({ root: join(tmp, 'store') });
        const report = await runImport(store, [{ importer, roots: [source] }], { ledger: join(tmp, 'ledger.json') });
        expect(report.imported).toBeGreaterThan(0);
        const mapped = new Map<string, MappedEvent[]>();
        for (const f of await importer.discover(source))
          for (const s of await importer.read(f)) mapped.set(`${s.source.id}\0${s.variant ?? ''}`, s.events);
        let shared = 0;
        for (const { id, source: src } of report.sessions) {
          const want = mapped.get(`${src.id}\0${(src as { variant?: string }).variant ?? ''}`)!;
          const got = (await store.read(id)).events.map((e) => e.event as Record<string, unknown>);
          expect(got.length).toBe(want.length);
          got.forEach((ev, i) => {
            const w = want[i] as Record<string, unknown>;
            for (const k of Object.keys(w)) if (k !== 't' && k !== 'coversThrough') expect(ev[k], `event ${i} ${k}`).toEqual(w[k]);
            expect(ev).not.toHaveProperty(OF_RAW);
          });
          // On disk: a field named under ofRaw is not written again, and raw is the record whole.
          const dir = join(store.root, (await readdir(store.root)).find((d) => !d.startsWith('.'))!);
          const lines = (await readFile(join(dir, `${id}.jsonl`), 'utf8')).trimEnd().split('\n').slice(1);
          lines.forEach((l, i) => {
            const o = JSON.parse(l) as Record<string, unknown>;
            if (!o[OF_RAW]) return;
            shared++;
            for (const k of Object.keys(o[OF_RAW] as object)) expect(o).not.toHaveProperty(k);
            expect(o.raw).toEqual(want[i]!.raw);
          });
        }
        expect(shared).toBeGreaterThan(0);
      } finally {
        await rm(tmp, { recursive: true, force: true });
      }
    });
});

describe("ofRaw is the store's own", () => {
  it('an event sent in with ofRaw is refused, naming the field, and nothing is written', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'lcs-ofraw-in-'));
    try {
      const store = new SessionStore({ root: join(tmp, 'store') });
      const { id } = await store.create({ project: tmp });
      const ev = { kind: 'user', t: '2026-12-07T00:00:00.000Z', content: 'hi', [OF_RAW]: { content: ['x'] }, raw: { x: 'hi' } };
      await expect(store.append(id, [ev as never])).rejects.toMatchObject({
        code: 'invalid-events',
        message: /ofRaw is written by the store only/,
      });
      expect((await store.read(id, { tail: 0 })).totalEvents).toBe(0);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
