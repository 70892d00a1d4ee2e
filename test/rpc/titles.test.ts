// Issue 4's titles through the real sidecar: after the second user turn (in the background,
// after the append is answered) or on seal, whichever comes first; the client's model through
// session/title when it advertised `title`, else (or on failure or timeout) the first user
// message, cut; one title event per session; a rename by the user wins over a late model title.
// Waits are for events: the fake editor's recorded calls and the sidecar's log line
// "session <id> titled after its second user turn (<source>)".

import { readFileSync, existsSync } from 'node:fs';

import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startSidecar, workspace, type Sidecar, type StartOptions, fileOf } from '../helpers/sidecar.js';
import * as P from '../../server/rpc/protocol.js';
import { at } from '../helpers/items.js';

afterEach(cleanup);

const USER = (text: string) => ({ kind: 'user', content: text });
const ASSISTANT = (text: string) => ({ kind: 'assistant', content: [{ type: 'text', text }] });

function start(o: Partial<StartOptions> & { root: string }): Promise<Sidecar> {
  return startSidecar({ trace: 'messages', ...o });
}

function titleEvents(root: string, id: string): { title: string; source?: string }[] {
  return readFileSync(fileOf(root, id), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((e) => e.kind === 'title');
}

const titleCalls = (s: Sidecar) => s.editor.calls.items.filter((c) => c.method === 'session/title');

/** A title callback whose answers the test releases. */
function heldTitles(): { answer: (v: unknown) => void; title: () => Promise<unknown> } {
  const waiting: ((v: unknown) => void)[] = [];
  const ready: unknown[] = [];
  return {
    answer: (v) => {
      const w = waiting.shift();
      if (w) w(v);
      else ready.push(v);
    },
    title: () => (ready.length ? Promise.resolve(ready.shift()) : new Promise((r) => waiting.push(r))),
  };
}

describe('titles after the second user turn', () => {
  it("asks the client's model after the append is answered, and appends one title event (source model)", async () => {
    const { root, project } = workspace();
    const held = heldTitles();
    const s = await start({ root, callbacks: ['title'], editor: { title: held.title } });
    const { id } = await s.call(P.sessionNew, { project });
    await s.call(P.sessionAppend, { id, events: [USER('Add idempotency to RefundService'), ASSISTANT('Use a Redis key.')] });
    expect(titleCalls(s)).toEqual([]); // one user turn: not yet
    // The title model is held: the append is answered anyway (the title is not on its path).
    const ack = await s.call(P.sessionAppend, { id, events: [USER('and the tests?')] });
    expect(ack).toEqual({ appended: 1, firstSeq: 2, lastSeq: 2 });
    const call = (await s.editor.calls.waitFor((c) => c.method === 'session/title')).params as Record<string, unknown>;
    expect(call).toMatchObject({
      id,
      maxTokens: 200,
      messages: [
        { role: 'user', text: 'Add idempotency to RefundService' },
        { role: 'assistant', text: 'Use a Redis key.' },
        { role: 'user', text: 'and the tests?' },
      ],
    });
    expect(call.instructions).toContain('6 words, imperative, no punctuation');
    expect(titleEvents(root, id)).toEqual([]);
    held.answer({ title: 'Title: "Make refunds idempotent."' });
    expect(await s.titleSettled(id)).toBe('model');
    expect(titleEvents(root, id)).toMatchObject([{ title: 'Make refunds idempotent', source: 'model' }]);
    expect((await s.call(P.sessionList, { project })).sessions[0]).toMatchObject({ title: 'Make refunds idempotent', titled: true });
    await s.stop();
  });

  it('falls back to the first user message without a title client, when it fails, and when it times out', async () => {
    const { root, project } = workspace();
    const plain = await start({ root, editor: { title: () => ({ title: 'never asked' }) } });
    const { id: a } = await plain.call(P.sessionNew, { project });
    await plain.call(P.sessionAppend, { id: a, events: [USER('How do I add idempotency to refunds?\nmore lines'), USER('second')] });
    expect(await plain.titleSettled(a)).toBe('fallback');
    expect(titleEvents(root, a)).toMatchObject([{ title: 'How do I add idempotency to refunds?', source: 'fallback' }]);
    expect(titleCalls(plain)).toEqual([]);
    await plain.stop();

    const failing = await start({ root, callbacks: ['title'] }); // the fake editor refuses
    const { id: b } = await failing.call(P.sessionNew, { project });
    await failing.call(P.sessionAppend, { id: b, events: [USER('x'.repeat(200)), USER('second')] });
    expect(await failing.titleSettled(b)).toBe('fallback');
    expect(titleEvents(root, b)).toMatchObject([{ title: 'x'.repeat(79) + '…', source: 'fallback' }]);
    await failing.stop();

    const slow = await start({
      root,
      callbacks: ['title'],
      env: { LEVELCODE_SESSIONS_TITLE_TIMEOUT_MS: '100' },
      editor: { title: () => new Promise(() => {}) },
    });
    const { id: c } = await slow.call(P.sessionNew, { project });
    await slow.call(P.sessionAppend, { id: c, events: [USER('slow model'), USER('second')] });
    expect(await slow.titleSettled(c)).toBe('fallback');
    expect(titleEvents(root, c)).toMatchObject([{ title: 'slow model', source: 'fallback' }]);
    await slow.stop();
  });

  it('titles a session once: more turns, concurrent appends and the seal add no second title', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['title'], editor: { title: () => ({ title: 'Fix the refund flow' }) } });
    const { id } = await s.call(P.sessionNew, { project });
    await s.call(P.sessionAppend, { id, events: [USER('one')] });
    await Promise.all([2, 3, 4, 5].map((n) => s.call(P.sessionAppend, { id, events: [USER(`turn ${n}`), ASSISTANT(`answer ${n}`)] })));
    expect(await s.titleSettled(id)).toBe('model');
    await s.call(P.sessionAppend, { id, events: [USER('turn 6')] });
    expect(await s.call(P.sessionSeal, { id })).toEqual({ id, title: 'Fix the refund flow', titleSource: 'existing' });
    expect(titleEvents(root, id)).toHaveLength(1);
    expect(titleCalls(s)).toHaveLength(1);
    await s.stop();
  });

  it('a seal while the second-turn title is being made waits for it: one title event', async () => {
    const { root, project } = workspace();
    const held = heldTitles();
    const s = await start({ root, callbacks: ['title'], editor: { title: held.title } });
    const { id } = await s.call(P.sessionNew, { project });
    await s.call(P.sessionAppend, { id, events: [USER('one'), USER('two')] });
    await s.editor.calls.waitFor((c) => c.method === 'session/title');
    const sealed = s.call(P.sessionSeal, { id });
    held.answer({ title: 'Count to two' });
    expect(await sealed).toEqual({ id, title: 'Count to two', titleSource: 'existing' });
    expect(titleEvents(root, id)).toMatchObject([{ title: 'Count to two', source: 'model' }]);
    expect(titleCalls(s)).toHaveLength(1);
    await s.stop();
  });

  it('a rename by the user wins over a model title that arrives after it', async () => {
    const { root, project } = workspace();
    const held = heldTitles();
    const s = await start({ root, callbacks: ['title'], editor: { title: held.title } });
    const { id } = await s.call(P.sessionNew, { project });
    await s.call(P.sessionAppend, { id, events: [USER('one'), USER('two')] });
    await s.editor.calls.waitFor((c) => c.method === 'session/title');
    expect(await s.call(P.sessionRename, { id, title: 'My own name' })).toEqual({ id, title: 'My own name' });
    held.answer({ title: 'Late model title' });
    expect(await s.titleSettled(id)).toBe('existing');
    expect(titleEvents(root, id)).toEqual([expect.objectContaining({ title: 'My own name', source: 'user' })]);
    expect(at((await s.call(P.sessionList, { project })).sessions, 0).title).toBe('My own name');
    await s.stop();
  });

  it('a session renamed before its second turn is never titled by the sidecar', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['title'], editor: { title: () => ({ title: 'should not be asked' }) } });
    const { id } = await s.call(P.sessionNew, { project });
    await s.call(P.sessionAppend, { id, events: [USER('one')] });
    await s.call(P.sessionRename, { id, title: 'Named early' });
    await s.call(P.sessionAppend, { id, events: [USER('two'), USER('three')] });
    expect(await s.call(P.sessionSeal, { id })).toEqual({ id, title: 'Named early', titleSource: 'existing' });
    expect(titleEvents(root, id)).toHaveLength(1);
    expect(titleCalls(s)).toEqual([]);
    await s.stop();
  });
});

describe('titles on seal', () => {
  it('titles a one-turn session on seal (the seal comes first), with the model', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['title'], editor: { title: () => ({ title: 'Ship the release notes' }) } });
    const { id } = await s.call(P.sessionNew, { project });
    await s.call(P.sessionAppend, { id, events: [USER('write the release notes'), ASSISTANT('done')] });
    expect(await s.call(P.sessionSeal, { id })).toEqual({ id, title: 'Ship the release notes', titleSource: 'model' });
    expect(titleEvents(root, id)).toMatchObject([{ title: 'Ship the release notes', source: 'model' }]);
    await s.stop();
  });

  it('a title in flight at shutdown is written (the fallback) before the locks are released', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['title'], editor: { title: () => new Promise(() => {}) } });
    const { id } = await s.call(P.sessionNew, { project });
    await s.call(P.sessionAppend, { id, events: [USER('first words'), USER('second')] });
    await s.editor.calls.waitFor((c) => c.method === 'session/title');
    expect(await s.stop()).toEqual({ code: 0, signal: null });
    expect(titleEvents(root, id)).toMatchObject([{ title: 'first words', source: 'fallback' }]);
    expect(existsSync(fileOf(root, id) + '.lock')).toBe(false);
  });
});
