// The listing's fold (store/digest.ts) reads most lines by their head only: agent and
// assistant lines, and `event` lines of a type the digest does not read (an importer's
// `source-record`). Its entry must be what folding every event, parsed whole, gives; and an
// imported line's fields restored for it (without a copy) must leave the event as a reader gets it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryFromFile, syncEntryReader } from '../../server/store/entries.js';
import { emptyDigest, foldEvents, readSession } from '../../server/store/reader.js';
import { serializeLine } from '../../server/format/events.js';
import { shareWithRaw } from '../../server/format/derived.js';

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-fold-'));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const ID = '2026-07-28T09-12-33-8f3k';
const meta = { kind: 'meta', v: 1, id: ID, project: '/p', createdAt: '2026-07-28T09:12:33.000Z', title: null };
const record = (i: number) => ({
  timestamp: `2026-07-28T10:00:${String(i).padStart(2, '0')}.000Z`,
  type: 'event_msg',
  payload: { n: i, text: 'x'.repeat(200) },
});
const user = (t: string, text: string) => {
  const raw = { type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } };
  return shareWithRaw({ kind: 'user', t, content: raw.message.content, raw });
};

function write(events: Record<string, unknown>[]): string {
  const file = join(tmp, `${ID}.jsonl`);
  writeFileSync(file, [meta, ...events].map((e) => `${serializeLine(e)}\n`).join(''));
  return file;
}

async function bothWays(file: string) {
  const st = statSync(file, { bigint: true });
  const fromFold = await entryFromFile(file, ID, Number(st.size), st.mtimeNs);
  const fromSync = (await syncEntryReader())({ file, id: ID, bytes: Number(st.size), mtimeNs: st.mtimeNs });
  const read = await readSession(file);
  const whole = foldEvents(
    emptyDigest(read.meta, 0),
    read.events.map((e) => e.event),
    [],
    0,
  );
  return { fromFold, fromSync, whole, read };
}

describe("the listing's fold", () => {
  it('gives the digest of every event parsed whole, skipping source records by their head', async () => {
    const file = write([
      user('2026-07-28T10:00:00.000Z', 'first question of the session, long enough to be shared with raw'),
      { kind: 'event', t: '2026-07-28T10:00:01.000Z', type: 'source-record', raw: record(1) },
      { kind: 'event', t: '2026-07-28T10:00:02.000Z', type: 'pin' },
      { kind: 'event', t: '2026-07-28T10:00:03.000Z', type: 'source-record', raw: record(3) },
      { kind: 'agent', t: '2026-07-28T10:00:04.000Z', messages: [{ role: 'assistant', content: 'ok' }] },
      { kind: 'event', t: '2026-07-28T10:00:05.000Z', type: 'archive' },
      { kind: 'event', t: '2026-07-28T10:00:06.000Z', type: 'source-record', raw: record(6) },
      user('2026-07-28T10:00:07.000Z', 'second question, after the archive: the session is back in History'),
      { kind: 'event', t: '2026-07-28T10:00:08.000Z', type: 'interrupted' },
      { kind: 'event', t: '2026-07-28T10:00:09.000Z', type: 'source-record', raw: record(9) },
    ]);
    const { fromFold, fromSync, whole, read } = await bothWays(file);
    expect(read.problems).toEqual([]);
    for (const k of ['turns', 'updatedAt', 'preview', 'firstUser', 'title', 'pinned', 'archived', 'unarchivedAt', 'interrupted'] as const) {
      expect(fromFold[k], k).toEqual(whole[k]);
      expect(fromSync[k], k).toEqual(whole[k]);
    }
    expect(fromFold).toMatchObject({ turns: 2, pinned: true, archived: false, interrupted: true, lines: 10, bad: 0 });
    expect(fromFold.firstUser).toMatch(/^first question/);
    expect(fromFold.preview).toMatch(/^second question/);
    // The reader's events are their own copies: the content is not the raw record's object.
    const u = read.events[0]!.event as unknown as { content: unknown; raw: { message: { content: unknown } } };
    expect(u.content).toEqual(u.raw.message.content);
    expect(u.content).not.toBe(u.raw.message.content);
  });

  it('parses an event whose head does not name its type, and counts it bad when it is not an event', async () => {
    const file = write([
      { kind: 'event', t: '2026-07-28T10:00:01.000Z', note: 'n', type: 'pin' },
      { kind: 'event', t: '2026-07-28T10:00:02.000Z', type: 'unpin', t2: 1 },
      { kind: 'event', t: '2026-07-28T10:00:03.000Z', note: 'no type at all' },
    ]);
    const { fromFold, fromSync } = await bothWays(file);
    expect(fromFold).toMatchObject({ pinned: false, lines: 3, bad: 1 });
    expect(fromSync).toMatchObject({ pinned: false, lines: 3, bad: 1 });
  });
});
