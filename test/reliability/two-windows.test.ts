// One writer per chat across windows (issue 43): two editor windows (two real sidecars on one
// store, as two VS Code windows or two code-server tabs run them) continue the same saved chat,
// each holding it only while it writes (`release: true`). Before, both appends landed and the
// file interleaved two diverging conversations. Now each append carries `expectedSeq`; the
// window that writes second is refused with SessionConflict (-33012, nothing written), and goes
// on in a copy (session/fork at its last turn) while the first keeps the chat.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, fileOf, startSidecar } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';
import { sandbox } from './door.js';

const s = sandbox('lcs-windows-');
afterEach(async () => {
  await cleanup();
});
// After every sidecar stopped (one may still be writing a title or its search cache before).
afterAll(() => rmSync(s.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

const user = (text: string) => ({ kind: 'user', content: text });
const answer = (text: string) => ({ kind: 'assistant', content: [{ type: 'text', text }] });

describe('two windows continuing one chat', () => {
  it('the second writer gets SessionConflict, nothing interleaves, and it goes on in a fork', async () => {
    const project = join(s.dir, 'project');
    mkdirSync(project);
    const env = s.env as Record<string, string>;
    const a = await startSidecar({ root: s.store, env, trace: 'messages' });
    const b = await startSidecar({ root: s.store, env });
    const { id } = await a.call(P.sessionNew, { project });
    const first = await a.call(P.sessionAppend, { id, events: [user('q1'), answer('a1')], release: true, expectedSeq: 0 });
    // Both windows have read the chat up to here: the next event is lastSeq + 1.
    const next = first.lastSeq + 1;
    const wa = await a.call(P.sessionAppend, { id, events: [user('from window A'), answer('A')], release: true, expectedSeq: next });
    expect(wa.firstSeq).toBe(next);
    // The sidecar titles the chat after its second user turn (a title event): window A's own
    // next turn is no conflict for that.
    await a.titleSettled(id);
    const wa2 = await a.call(P.sessionAppend, { id, events: [user('A again')], release: true, expectedSeq: wa.lastSeq + 1 });
    expect(wa2.appended).toBe(1);
    const refused = await b.error('session/append', { id, events: [user('from window B'), answer('B')], release: true, expectedSeq: next });
    expect(refused.code).toBe(-33013);
    // `turn`: the turns window B saw (q1/a1): its copy is forked there.
    expect(refused.data).toMatchObject({ reason: 'conflict', expectedSeq: next, turn: 1 });
    expect((refused.data as { nextSeq: number }).nextSeq).toBeGreaterThan(wa.lastSeq);
    expect(refused.message).toMatch(/continuing in another window/);
    expect((refused.data as { nextSeq: number }).nextSeq).toBeGreaterThan(wa2.lastSeq);
    // The refusal took no lock away from window A: with `release`, B gave it back.
    const wa3 = await a.call(P.sessionAppend, { id, events: [user('A after the refusal')], release: true, expectedSeq: wa2.lastSeq + 1 });
    expect(wa3.appended).toBe(1);
    const text = readFileSync(fileOf(s.store, id), 'utf8');
    expect(text).toContain('from window A');
    expect(text).not.toContain('from window B');
    // Window B goes on in a copy at its last turn.
    const fork = await b.call(P.sessionFork, { id, atTurn: (refused.data as { turn: number }).turn });
    const forkId = (fork as { id: string }).id;
    const wb = await b.call(P.sessionAppend, { id: forkId, events: [user('from window B'), answer('B')], release: true });
    expect(wb.appended).toBe(2);
    // Without expectedSeq an append is as before (no conflict check).
    const plain = await b.call(P.sessionAppend, { id, events: [user('no check')], release: true });
    expect(plain.appended).toBe(1);
  });

  it('a window whose chat another window now holds gets SessionLocked with the turn to fork at', async () => {
    const project = join(s.dir, 'project-held');
    mkdirSync(project);
    const env = s.env as Record<string, string>;
    const a = await startSidecar({ root: s.store, env });
    const b = await startSidecar({ root: s.store, env });
    const { id } = await a.call(P.sessionNew, { project });
    const first = await a.call(P.sessionAppend, {
      id,
      events: [user('q1'), answer('a1'), user('q2'), answer('a2'), { kind: 'title', title: 'held', source: 'user' }],
      release: true,
    });
    // Window A takes the chat and keeps it (an append without release holds the lock).
    await a.call(P.sessionAppend, { id, events: [user('A holds it')], expectedSeq: first.lastSeq + 1 });
    const refused = await b.error('session/append', { id, events: [user('from window B')], release: true, expectedSeq: first.lastSeq + 1 });
    expect(refused.code).toBe(-33004);
    expect(refused.data).toMatchObject({ expectedSeq: first.lastSeq + 1, turn: 2 });
    expect(readFileSync(fileOf(s.store, id), 'utf8')).not.toContain('from window B');
    const fork = await b.call(P.sessionFork, { id, atTurn: 2 });
    expect(readFileSync(fileOf(s.store, (fork as { id: string }).id), 'utf8')).not.toContain('A holds it');
  });
});
