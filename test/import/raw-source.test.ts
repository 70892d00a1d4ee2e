// An imported record's `raw` written from the source line's own bytes (import/jsonl.ts
// sourceLineOf, store.ts validateImported): the cut around `raw` is serializeLine's line on
// plain data; a Claude Code file written the way JSON.stringify never writes (blanks, escapes,
// `1.0`, CRLF, non-ASCII) is imported with each record's line verbatim, read back as mapped, and
// neither a re-import without the ledger nor a grown file's run duplicates a record.
import { describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeAroundRaw, serializeLine } from '../../server/format/events.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import { SessionStore } from '../../server/store/store.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'import', 'claude-code', 'as_small_many_line_types.jsonl');

describe('serializeAroundRaw', () => {
  const raw = { type: 'user', n: 1, s: 'é\u2028"' };
  const cases: Record<string, unknown>[] = [
    { kind: 'user', t: 'T', content: 'hi', raw },
    { t: 'T', raw, kind: 'event', type: 'source-record' },
    { kind: 'agent', t: 'T', ofRaw: { messages: [['message']] }, raw, sidechain: true, gone: undefined },
    { kind: 'user', raw, content: 'no time' },
    JSON.parse('{"kind":"user","t":"T","__proto__":{"x":1},"raw":{"a":1},"after":[1,{"b":null}]}'),
  ];
  it("cuts serializeLine's line around raw, whatever the order of the keys", () => {
    for (const ev of cases) {
      const cut = serializeAroundRaw(ev)!;
      expect(cut.head + JSON.stringify(ev.raw) + cut.tail).toBe(serializeLine(ev));
    }
  });
  it('has nothing to cut without raw', () => {
    expect(serializeAroundRaw({ kind: 'user', t: 'T', content: 'x' })).toBeUndefined();
    expect(serializeAroundRaw({ kind: 'user', t: 'T', raw: undefined })).toBeUndefined();
  });
});

/** A record as JSON.stringify never writes it: blanks after every colon and comma, escaped letters. */
function unusual(line: string, i: number): string {
  const spaced = JSON.stringify(JSON.parse(line), null, 1).replace(/\n */g, ' '); // a newline of the text is always escaped
  const escaped = spaced.replace(/"type"/, '"\\u0074ype"');
  return i % 3 === 0 ? escaped.replace(/^\{/, '{"ratio": 1.0, "word": "caf\\u00e9 — ☕", ') : escaped;
}

describe('an import writes each record from its own line', () => {
  it('keeps the bytes, reads back as mapped, and never writes a record twice', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'lcs-rawsource-'));
    try {
      const lines = (await readFile(FIXTURE, 'utf8')).trimEnd().split('\n');
      const source = join(tmp, 'ses_stage0_small.jsonl');
      const text = lines.map(unusual);
      const half = Math.floor(text.length / 2);
      await writeFile(source, text.slice(0, half).join('\r\n') + '\r\n');
      const importer = importerOf('claude-code')!;
      const store = new SessionStore({ root: join(tmp, 'store') });
      const ledger = join(tmp, 'ledger.json');
      const run = () => runImport(store, [{ importer, roots: [source] }], { ledger });
      expect(await run()).toMatchObject({ imported: 1, problems: [] });
      // The grown file's new records go through the append path.
      await appendFile(source, text.slice(half).join('\r\n') + '\r\n');
      const grown = await run();
      expect(grown).toMatchObject({ imported: 0, updated: 1 });
      const id = grown.sessions[0]!.id;

      const dir = join(store.root, (await readdir(store.root)).find((d) => !d.startsWith('.'))!);
      const ours = (await readFile(join(dir, `${id}.jsonl`), 'utf8')).trimEnd().split('\n').slice(1);
      const mapped = (await importer.read((await importer.discover(source))[0]!))[0]!.events;
      expect(ours.length).toBe(mapped.length);
      let verbatim = 0;
      for (const l of ours) {
        const at = text.findIndex((s) => l.includes(`"raw":${s}`));
        if (at >= 0) verbatim++;
      }
      expect(verbatim).toBe(ours.length); // every event of this file is made from one line
      const read = (await store.read(id)).events.map((e) => e.event as Record<string, unknown>);
      read.forEach((ev, i) => {
        const want = mapped[i] as Record<string, unknown>;
        for (const k of Object.keys(want)) if (k !== 't' && k !== 'coversThrough') expect(ev[k], `event ${i} ${k}`).toEqual(want[k]);
      });

      // Without the ledger every record is compared by its signature: nothing new.
      await rm(ledger);
      expect(await run()).toMatchObject({ imported: 0, updated: 0, unchanged: 1 });
      expect((await store.read(id, { tail: 0 })).totalEvents).toBe(mapped.length);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });
});
