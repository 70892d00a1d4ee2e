// The digest folded from bytes (store/digest.ts: heads matched as bytes, only what must be parsed
// parsed, read synchronously or not) is the digest of a plain fold (below: the file split into
// lines, each head matched by the rules' regular expressions, the rest parsed by the reader), for
// every session file the importers make of every contract case (the real tools' files among
// them) and for odd lines: a user line mixing text and tool results, a tool result whose text
// holds `"type":"text"`, heads one byte off the canonical shape, unicode, a line longer than the
// read buffer, a torn last line. Read in small chunks too, so that every line crosses a read
// boundary somewhere. The first look (entries.ts firstLookReader) shows the same row for each of
// these files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../server/store/store.js';
import { projectFolders } from '../../server/store/files.js';
import { entryFromFile, firstLookReader, syncEntryReader, type IndexEntry } from '../../server/store/entries.js';
import {
  applyEvent,
  checkLine as check,
  digestOfBuffer,
  emptyDigest,
  foldDigest,
  foldDigestSync,
  parseEventLine,
  readMeta,
  type Digest,
} from '../../server/store/reader.js';
import { foldFdSync } from '../../server/store/digest.js';
import { PREFIX } from '../../server/store/lines.js';
import { openRegular } from '../../server/store/files.js';
import { serializeLine, type SessionEvent } from '../../server/format/events.js';
import { shareWithRaw } from '../../server/format/derived.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import type { ContractCase } from '../import/case.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-digest-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The head rules: a line's first PREFIX bytes, read as latin1 (a byte each), matched by these. */
const HEAD = /^\{"kind":"(user|assistant|agent|event|title|compact)","t":"([^"\\]{10,40})"/;
/** After an event's head: its type. Only the types the digest reads are parsed. */
const EVENT_TYPE = /^,"type":"([^"\\]{1,40})"/;
const DIGEST_EVENTS = ['pin', 'unpin', 'archive', 'unarchive', 'interrupted', 'reaped'];

/**
 * The reference: every complete line after the meta line, an assistant or agent head taken for
 * its time, a compaction or an event of another type counted only, any other line parsed.
 */
function plainFold(file: string, meta: { createdAt: string; title?: unknown }, metaEnd: number): Digest {
  const buf = readFileSync(file);
  const d = emptyDigest(meta, metaEnd);
  for (let s = metaEnd, e = buf.indexOf(10, s); e !== -1; s = e + 1, e = buf.indexOf(10, s)) {
    d.lines++;
    d.folded = e + 1;
    const head = buf.toString('latin1', s, Math.min(e, s + PREFIX));
    const m = HEAD.exec(head);
    const type = m?.[1] === 'event' ? EVENT_TYPE.exec(head.slice(m[0].length))?.[1] : undefined;
    if (m?.[1] === 'compact' || (type !== undefined && !DIGEST_EVENTS.includes(type))) continue;
    if (m?.[1] === 'assistant' || m?.[1] === 'agent') applyEvent(d, { kind: m[1], t: m[2] } as SessionEvent);
    else {
      const r = parseEventLine(buf.subarray(s, e), false);
      if ('event' in r) applyEvent(d, r.event);
      else d.bad++;
    }
  }
  return d;
}

/** The plain fold's digest of `file` (the reference), and every other way of folding it. */
async function everyWay(file: string) {
  const { meta, metaEnd } = await readMeta(file);
  const size = statSync(file).size;
  const reference = plainFold(file, meta, metaEnd);
  const fd = openSync(file, 'r');
  const ways: Record<string, Digest> = {};
  try {
    ways.sync = foldDigestSync(fd, emptyDigest(meta, metaEnd), size);
    for (const chunk of [97, 300, 4096]) ways[`chunk ${chunk}`] = foldFdSync(fd, emptyDigest(meta, metaEnd), size, { check }, chunk);
  } finally {
    closeSync(fd);
  }
  ways.async = await foldDigest(file, emptyDigest(meta, metaEnd));
  const fh = await openRegular(file);
  try {
    ways['async, to a size'] = await foldDigest(file, emptyDigest(meta, metaEnd), { fh, to: size });
  } finally {
    await fh.close();
  }
  const whole = digestOfBuffer(file, readFileSync(file));
  if (whole) ways.buffer = whole.d;
  const id = file.slice(file.lastIndexOf('/') + 1, -'.jsonl'.length);
  const mtimeNs = statSync(file, { bigint: true }).mtimeNs;
  const entry = await entryFromFile(file, id, size, mtimeNs);
  const syncEntry = (await syncEntryReader())({ file, id, bytes: size, mtimeNs });
  const look = (await firstLookReader())({ file, id, bytes: size, mtimeNs });
  return { reference, ways, entry, syncEntry, look };
}

/** What a History row shows of an entry (the first look is held to these). */
const shown = (e: IndexEntry) => ({
  id: e.id,
  project: e.project,
  model: e.model,
  turns: e.turns,
  updatedAt: e.updatedAt,
  title: e.title,
  firstUser: e.firstUser,
  pinned: e.pinned,
  archived: e.archived,
  forkedFrom: e.forkedFrom,
  source: e.source,
});

/**
 * Every fold of `file` gives the reference digest; the first look shows the same row, but for a
 * file with a line that is not valid (`valid: false`), where it may not (the CLI then says so).
 */
async function expectSame(file: string, valid = true) {
  const { reference, ways, entry, syncEntry, look } = await everyWay(file);
  for (const [way, d] of Object.entries(ways)) expect(d, `${way}: ${file}`).toEqual(reference);
  expect(syncEntry, file).toEqual(entry);
  if (valid) expect(shown(look), file).toEqual(shown(entry));
  else expect(shown(look), file).not.toEqual(shown(entry));
  return reference;
}

describe('the digest folded from bytes', () => {
  it('is the plain fold’s for every session the importers make of the contract cases', async () => {
    const casesDir = fileURLToPath(new URL('../import/cases/', import.meta.url));
    const cases: ContractCase[] = [];
    for (const f of (await readdir(casesDir)).filter((n) => n.endsWith('.ts')).sort())
      cases.push(...((await import(join(casesDir, f))) as { cases: ContractCase[] }).cases);
    expect(cases.filter((c) => c.real).length).toBeGreaterThan(0);
    const store = new SessionStore({ root: join(tmp, 'store'), agent: 'test' });
    let n = 0;
    for (const c of cases) {
      const src = join(tmp, 'src', String(n++));
      await mkdir(src, { recursive: true });
      const from = await c.setup(src);
      await runImport(store, [{ importer: importerOf(c.tool)!, roots: [from] }], { ledger: join(tmp, `ledger-${n}.json`) });
    }
    const files = projectFolders(store.root).flatMap((d) =>
      readdirSync(d)
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => join(d, f)),
    );
    expect(files.length).toBeGreaterThanOrEqual(cases.length);
    let turns = 0;
    for (const f of files) turns += (await expectSame(f)).turns;
    expect(turns).toBeGreaterThan(0);
  });

  describe('on odd lines', () => {
    const ID = '2026-07-28T09-12-33-8f3k';
    const meta = { kind: 'meta', v: 1, id: ID, project: '/p', createdAt: '2026-07-28T09:12:33.000Z', title: null };
    const t = (i: number) => `2026-07-28T10:${String(i).padStart(2, '0')}:00.000Z`;
    let k = 0;
    function write(lines: (Record<string, unknown> | string)[], tail = ''): string {
      const file = join(tmp, `odd-${++k}`, `${ID}.jsonl`);
      rmSync(join(tmp, `odd-${k}`), { recursive: true, force: true });
      mkdirSync(join(tmp, `odd-${k}`), { recursive: true });
      writeFileSync(file, [meta, ...lines].map((l) => `${typeof l === 'string' ? l : serializeLine(l)}\n`).join('') + tail);
      return file;
    }
    const result = (text: string) => ({ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text }] });

    it('counts a user line of tool results and text as a turn, one of tool results only not', async () => {
      const d = await expectSame(
        write([
          { kind: 'user', t: t(1), content: 'the first question' },
          { kind: 'assistant', t: t(2), content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }] },
          { kind: 'user', t: t(3), content: [result('{"type":"text","text":"not a prompt"}')] },
          { kind: 'user', t: t(4), content: [result('42'), { type: 'text', text: 'and a question beside it' }] },
          { kind: 'user', t: t(5), content: [{ type: 'function_call_output', call_id: 'c1', output: 'done' }] },
          { kind: 'agent', t: t(6), messages: [{ role: 'assistant', content: 'ok' }] },
        ]),
      );
      expect(d).toMatchObject({ turns: 2, lines: 6, bad: 0, updatedAt: t(6), firstUser: 'the first question' });
    });

    it('reads unicode and heads one byte off the canonical shape as the plain fold does', async () => {
      const d = await expectSame(
        write([
          { kind: 'user', t: t(1), content: 'café 日本語 🚀 \u202e' },
          `{"kind":"assistant","t":"${t(3)}x","content":"t not closed where the head ends"}`,
          `{"kind":"agent","t":"2026-07-28T10:04:00.000Z\\u0041","messages":[]}`,
          `{"kind":"agent","t":"short","messages":[]}`,
          `{"kind":"agentx","t":"${t(5)}","messages":[]}`,
          `{"t":"${t(6)}","kind":"assistant","content":"kind second"}`,
          `{"kind":"event","t":"${t(7)}","type":"pin"}`,
          `{"kind":"event","t":"${t(8)}","type":"${'p'.repeat(41)}"}`,
          `{"kind":"event","t":"${t(9)}","note":"type later","type":"unpin"}`,
          `{"kind":"title","t":"${t(10)}","title":"Renamed ✓","source":"user"}`,
          `{"kind":"compact","t":"${t(11)}","summary":"s","upTo":3}`,
          `{"kind":"event","t":"${t(13)}","type":"archive"}`,
          `{"kind":"event","t":"é${t(14).slice(1)}","type":"source-record","raw":{}}`,
        ]),
      );
      expect(d).toMatchObject({ pinned: false, title: 'Renamed ✓', archived: true, turns: 1, updatedAt: t(6) });
      expect(d.bad).toBeGreaterThan(0);
    });

    it('parses the user lines the first look takes for turns: one not valid, tool results spelled with an escape', async () => {
      const d = await expectSame(
        write([
          { kind: 'user', t: t(1), content: 'a question' },
          `{"kind":"user","t":"${t(1)}","content":[{"type":"tool\\u005fresult","tool_use_id":"x","content":"hidden"}]}`,
          `{"kind":"user","t":"${t(2)}","content":"not json`,
          `{"kind":"user","t":"${t(3)}","content":7}`, // valid: content is any JSON
          { kind: 'assistant', t: t(4), content: 'an answer' },
        ]),
        false,
      );
      expect(d).toMatchObject({ turns: 2, bad: 1, updatedAt: t(4) });
    });

    it('skips a line longer than the read buffer by its head, and keeps one it parses whole', async () => {
      const big = 'x'.repeat(3 << 20);
      const raw = { type: 'user', message: { role: 'user', content: [{ type: 'text', text: `a long prompt ${big}` }] } };
      const d = await expectSame(
        write([
          { kind: 'agent', t: t(1), messages: [{ role: 'assistant', content: big }] },
          { kind: 'event', t: t(2), type: 'source-record', raw: { big } },
          shareWithRaw({ kind: 'user', t: t(3), content: raw.message.content, raw }),
          { kind: 'assistant', t: t(4), content: big },
        ]),
      );
      expect(d).toMatchObject({ turns: 1, lines: 4, updatedAt: t(4) });
      expect(d.preview).toMatch(/^a long prompt x/);
    });

    it('does not fold a torn last line, long or short', async () => {
      for (const tail of [
        `{"kind":"user","t":"${t(9)}","content":"cut`,
        `{"kind":"agent","t":"${t(9)}","messages":"${'y'.repeat(2 << 20)}`,
      ]) {
        const d = await expectSame(write([{ kind: 'user', t: t(1), content: 'whole' }], tail));
        expect(d).toMatchObject({ lines: 1, turns: 1, updatedAt: t(1) });
      }
    });
  });
});
