// Conformance: progress ($/progress through window/workDoneProgress/create, or on a client-given
// workDoneToken), cancellation ($/cancelRequest -> -32800 on export, search and resume), and the
// session/summarize callback of a tier-3 resume, gated by the client's capability, with the
// consent step. Deterministic: the fake editor holds its answers until the test has acted.

import { readFileSync, existsSync } from 'node:fs';

import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanup,
  startSidecar,
  workspace,
  CancellationTokenSource,
  type Sidecar,
  fileOf,
  sessionWith as newSession,
} from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';

afterEach(cleanup);

const USER = (text: string) => ({ kind: 'user', content: text });
const ASSISTANT = (text: string) => ({ kind: 'assistant', content: text });

/** 12 turns of ~800 characters: about 2,600 tokens, far above a 2,000-token window's budget. */
function longChat(fact = 'The deploy key lives in vault path secret/deploy.'): unknown[] {
  const events: unknown[] = [USER(`${fact} ${'context '.repeat(40)}`), ASSISTANT('noted. ' + 'ok '.repeat(100))];
  for (let i = 1; i < 12; i++) events.push(USER(`turn ${i} ${'words '.repeat(60)}`), ASSISTANT(`reply ${i} ${'more '.repeat(60)}`));
  return events;
}

const sessionWith = (s: Sidecar, project: string, events: unknown[]) => newSession(s, project, events, { settleTitle: true });

describe('progress', () => {
  it('creates a work-done progress when the client supports it, begins and ends it', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ trace: 'messages', root, workDoneProgress: true });
    const id = await sessionWith(s, project, [USER('hello')]);
    await s.call(P.sessionExport, { id, format: 'markdown' });
    const token = await s.editor.progressCreated.waitFor();
    expect(await s.editor.progress.waitFor((p) => p.token === token && p.value.kind === 'begin')).toMatchObject({
      value: { title: 'Exporting session' },
    });
    await s.editor.progress.waitFor((p) => p.token === token && p.value.kind === 'end');
    await s.stop();
  });

  it('reports on a workDoneToken the client gave, without creating one', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ trace: 'messages', root, workDoneProgress: true });
    const id = await sessionWith(s, project, [USER('hello')]);
    await s.call(P.sessionResume, { id, contextWindow: 10_000, workDoneToken: 'tok-1' });
    await s.editor.progress.waitFor((p) => p.token === 'tok-1' && p.value.kind === 'begin');
    await s.editor.progress.waitFor((p) => p.token === 'tok-1' && p.value.kind === 'end');
    expect(s.editor.progressCreated.items).toEqual([]);
    await s.stop();
  });

  it('sends no progress to a client without the capability', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ trace: 'messages', root });
    const id = await sessionWith(s, project, [USER('hello')]);
    await s.call(P.sessionSearch, { query: 'hello' });
    await s.call(P.sessionExport, { id, format: 'json' });
    expect(s.editor.progressCreated.items).toEqual([]);
    expect(s.editor.progress.items).toEqual([]);
    await s.stop();
  });
});

describe('cancellation', () => {
  const cases: [string, (id: string) => unknown][] = [
    ['session/export', (id) => ({ id, format: 'markdown' })],
    ['session/search', () => ({ query: 'hello' })],
    ['session/resume', (id) => ({ id, contextWindow: 10_000 })],
    ['session/reindex', () => ({})],
  ];
  for (const [method, params] of cases) {
    it(`${method} ends with -32800 when cancelled mid-way, and writes nothing`, async () => {
      const { root, project } = workspace();
      const owner = await startSidecar({ trace: 'messages', root });
      const id = await sessionWith(owner, project, [USER('hello'), ASSISTANT('hi')]);
      await owner.call(P.sessionSeal, { id });
      const before = readFileSync(fileOf(root, id));
      // The request stops at its progress-create round-trip, which the editor holds.
      const s = await startSidecar({ trace: 'messages', root, workDoneProgress: true, editor: { holdProgressCreate: true } });
      const cts = new CancellationTokenSource();
      const pending = s.error(method, params(id), cts);
      await s.editor.progressCreated.waitFor();
      cts.cancel();
      s.editor.release();
      const e = await pending;
      expect(e.code).toBe(RpcErrorCodes.RequestCancelled);
      expect(readFileSync(fileOf(root, id))).toEqual(before);
      if (method === 'session/resume') expect(existsSync(fileOf(root, id) + '.lock')).toBe(false); // not taken
      // The sidecar serves on.
      expect((await s.call(P.sessionList, { project })).sessions).toHaveLength(1);
      await Promise.all([s.stop(), owner.stop()]);
    });
  }
});

describe('resume tier 3: the summarize callback', () => {
  it('summarises the head through a client that answers "summarize", appends a compact event', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({
      root,
      trace: 'messages',
      callbacks: ['summarize'],
      editor: {
        summarize: (p) => {
          const head = JSON.stringify(p.messages);
          const fact = /vault path secret\/deploy/.test(head) ? 'Deploy key: vault path secret/deploy.' : 'nothing';
          return { briefing: `Briefing. ${fact}` };
        },
      },
    });
    const id = await sessionWith(s, project, longChat());
    const r = await s.call(P.sessionResume, { id, contextWindow: 2_000, summaryWindow: 100_000 });
    expect(r.tier).toBe(3);
    expect(r.note).toBe('Resumed from summary — full transcript in History.');
    expect(JSON.stringify(r.conversation[0])).toContain('Deploy key: vault path secret/deploy.');
    expect(JSON.stringify(r.conversation)).not.toContain('The deploy key lives in vault');
    expect(r.tokens!.transcript).toBeGreaterThan(r.tokens!.budget);
    const call = (await s.editor.calls.waitFor((c) => c.method === 'session/summarize')).params as any;
    expect(call.id).toBe(id);
    expect(typeof call.instructions).toBe('string');
    const last = JSON.parse(readFileSync(fileOf(root, id), 'utf8').trimEnd().split('\n').pop()!);
    expect(last).toMatchObject({ kind: 'compact', briefing: 'Briefing. Deploy key: vault path secret/deploy.' });
    // The next resume uses that briefing (tier 2) without asking again.
    const again = await s.call(P.sessionResume, { id, contextWindow: 2_000 });
    expect(again.tier).toBe(2);
    expect(s.editor.calls.items.filter((c) => c.method === 'session/summarize')).toHaveLength(1);
    await s.stop();
  });

  it('never sends session/summarize to a client that did not advertise it: the two-step flow instead', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ trace: 'messages', root, editor: { summarize: () => ({ briefing: 'should not be asked' }) } });
    const id = await sessionWith(s, project, longChat());
    const before = readFileSync(fileOf(root, id));
    const r = await s.call(P.sessionResume, { id, contextWindow: 2_000, summaryWindow: 100_000 });
    expect(r).toMatchObject({ id, tier: 3, conversation: [], agentMessages: [], readOnly: false });
    const need = r.needsSummary!;
    expect(JSON.stringify(need.messages)).toContain('vault path secret/deploy');
    expect(need.inputTokens).toBeGreaterThan(0);
    expect(readFileSync(fileOf(root, id))).toEqual(before);
    expect(s.editor.calls.items.filter((c) => c.method === 'session/summarize')).toEqual([]);

    const wrong = await s.error('session/compact', { id, briefing: 'x', coversThrough: need.coversThrough + 1 });
    expect(wrong.code).toBe(RpcErrorCodes.ContentModified);
    expect(readFileSync(fileOf(root, id))).toEqual(before);

    const done = await s.call(P.sessionCompact, {
      id,
      briefing: 'Deploy key: vault path secret/deploy.',
      coversThrough: need.coversThrough,
    });
    expect(done).toMatchObject({ id, tier: 3, note: 'Resumed from summary — full transcript in History.' });
    expect(JSON.stringify(done.conversation[0])).toContain('Deploy key: vault path secret/deploy.');
    const last = JSON.parse(readFileSync(fileOf(root, id), 'utf8').trimEnd().split('\n').pop()!);
    expect(last).toMatchObject({ kind: 'compact', coversThrough: need.coversThrough });
    expect((await s.error('session/compact', { id, briefing: 'again', coversThrough: need.coversThrough })).code).toBe(
      RpcErrorCodes.ContentModified,
    );
    expect((await s.call(P.sessionResume, { id, contextWindow: 2_000 })).tier).toBe(2);
    await s.stop();
  });

  it('session/compact refuses a briefing for a session that changed since resume asked for it', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ trace: 'messages', root });
    const id = await sessionWith(s, project, longChat());
    const need = (await s.call(P.sessionResume, { id, contextWindow: 2_000 })).needsSummary!;
    await s.call(P.sessionAppend, { id, events: [USER('one more turn')] });
    const e = await s.error('session/compact', { id, briefing: 'stale', coversThrough: need.coversThrough });
    expect(e.code).toBe(RpcErrorCodes.ContentModified);
    expect(readFileSync(fileOf(root, id), 'utf8')).not.toContain('"kind":"compact"');
    await s.stop();
  });

  it('a read-only session that needs a summary answers FeatureUnavailable (open a copy instead)', async () => {
    const { root, project } = workspace();
    const a = await startSidecar({ trace: 'messages', root });
    const id = await sessionWith(a, project, longChat());
    const b = await startSidecar({ trace: 'messages', root, callbacks: ['summarize'], editor: { summarize: () => ({ briefing: 'b' }) } });
    const e = await b.error('session/resume', { id, contextWindow: 2_000 });
    expect(e.code).toBe(RpcErrorCodes.FeatureUnavailable);
    expect(e.data).toMatchObject({ tier: 3 });
    const copy = await b.call(P.sessionResume, { id, contextWindow: 2_000, copy: true });
    expect(copy).toMatchObject({ tier: 3, forkedFrom: id, readOnly: false });
    await Promise.all([a.stop(), b.stop()]);
  });

  it('asks for consent above the threshold, then summarises with confirm: true', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({
      root,
      trace: 'messages',
      callbacks: ['summarize'],
      env: { LEVELCODE_SESSIONS_CONSENT_TOKENS: '100' },
      editor: { summarize: () => ({ briefing: 'short briefing' }) },
    });
    const id = await sessionWith(s, project, longChat());
    const before = readFileSync(fileOf(root, id));
    const ask = await s.call(P.sessionResume, { id, contextWindow: 2_000 });
    expect(ask).toMatchObject({ tier: 3, conversation: [], agentMessages: [], needsConfirmation: { threshold: 100 } });
    expect(ask.needsConfirmation!.inputTokens).toBeGreaterThan(100);
    expect(readFileSync(fileOf(root, id))).toEqual(before);
    expect(s.editor.calls.items.filter((c) => c.method === 'session/summarize')).toEqual([]);
    const go = await s.call(P.sessionResume, { id, contextWindow: 2_000, confirm: true });
    expect(go.tier).toBe(3);
    expect(go.needsConfirmation).toBeUndefined();
    await s.stop();
  });

  it('a failed or cancelled summary leaves the file byte-identical', async () => {
    const { root, project } = workspace();
    let answer: (v: unknown) => void = () => {};
    let mode: 'fail' | 'hold' = 'fail';
    const s = await startSidecar({
      root,
      trace: 'messages',
      callbacks: ['summarize'],
      editor: {
        summarize: () => {
          if (mode === 'fail') throw new Error('model unavailable');
          return new Promise((r) => (answer = r));
        },
      },
    });
    const id = await sessionWith(s, project, longChat());
    const before = readFileSync(fileOf(root, id));
    const failed = await s.error('session/resume', { id, contextWindow: 2_000 });
    expect(failed.code).toBe(RpcErrorCodes.CallbackFailed);
    expect(readFileSync(fileOf(root, id))).toEqual(before);

    mode = 'hold';
    const cts = new CancellationTokenSource();
    const pending = s.error('session/resume', { id, contextWindow: 2_000 }, cts);
    await s.editor.calls.waitFor(
      (c) => c.method === 'session/summarize' && s.editor.calls.items.filter((x) => x.method === 'session/summarize').length === 2,
    );
    cts.cancel();
    answer({ briefing: 'too late' });
    expect((await pending).code).toBe(RpcErrorCodes.RequestCancelled);
    expect(readFileSync(fileOf(root, id))).toEqual(before);
    await s.stop();
  });
});
