// session/resume with a `target`, through the real sidecar: each tier's messages pass the
// target's validator (test/support/validators.ts), the summariser of tier 3 is sent the same
// shape, repairs and dropped parts are said in `note`, the store is never rewritten, and an
// unknown target is InvalidParams listing the known ones.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startSidecar, workspace, ResponseError, fileOf, sessionWith } from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';
import { TARGETS } from '../../server/resume/targets.js';
import { VALIDATORS } from '../support/validators.js';

afterEach(cleanup);

type Ev = Record<string, unknown> & { kind: string };
const FACT = 'FACT: the deploy key lives in vault/prod';

/** Turns each with a chat answer that mirrors the agent loop's call (as LevelCode records it). */
function chat(turns: number, pad: number): Ev[] {
  const out: Ev[] = [];
  const filler = 'lorem ipsum '.repeat(pad);
  for (let i = 0; i < turns; i++) {
    out.push({ kind: 'user', content: i === 0 ? `${FACT}\nstart ${filler}` : `turn ${i} ${filler}` });
    out.push({
      kind: 'assistant',
      content: [
        { type: 'text', text: `Working on ${i}.` },
        { type: 'tool_use', id: `t${i}`, name: 'bash', input: { cmd: `make ${i}` } },
      ],
    });
    out.push({
      kind: 'agent',
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: `t${i}`, name: 'bash', input: { cmd: `make ${i}` } }],
          usage: { input_tokens: 1 },
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `built ${i} ${filler}` }] },
      ],
    });
    out.push({ kind: 'assistant', content: [{ type: 'text', text: `Done ${i}.` }] });
  }
  return out;
}

function summariser(p: { messages: unknown[] }): { briefing: string } {
  return { briefing: JSON.stringify(p.messages).includes('FACT:') ? FACT : 'nothing' };
}

describe('session/resume target', () => {
  it('tier 1: every target passes its validator; the pair stays the default', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root, trace: 'messages' });
    const events: Ev[] = [
      ...chat(2, 1),
      { kind: 'agent', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'lost', name: 'bash', input: {} }] }] },
      { kind: 'event', type: 'interrupted' },
      { kind: 'agent', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nobody', content: 'stray' }] }] },
      { kind: 'user', content: 'and now?' },
    ];
    const id = await sessionWith(s, project, events, { settleTitle: true });
    const before = readFileSync(fileOf(root, id), 'utf8');
    const plain = await s.call(P.sessionResume, { id, contextWindow: 100_000 });
    expect(plain.messages).toBeUndefined();
    expect(plain.conversation.length).toBeGreaterThan(0);
    for (const target of TARGETS) {
      const r = await s.call(P.sessionResume, { id, contextWindow: 100_000, target });
      expect(r.tier).toBe(1);
      expect(r.target).toBe(target);
      expect(VALIDATORS[target](r.messages!), target).toEqual([]);
      expect(r.conversation).toEqual([]);
      expect(r.note).toContain('1 tool call had no recorded result');
      expect(r.note).toContain('1 tool result without a call turned into text');
      expect(r.changes).toMatchObject({ 'missing tool result': 1, 'orphan tool result': 1 });
      // The mirrored call is one call, answered once.
      expect(JSON.stringify(r.messages).match(/make 0/g)).toHaveLength(1);
    }
    expect(readFileSync(fileOf(root, id), 'utf8')).toBe(before);
    await s.stop();
  });

  it('an unknown target is InvalidParams naming the known ones', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root });
    const id = await sessionWith(s, project, chat(1, 1));
    const err = await s.call(P.sessionResume, { id, contextWindow: 1000, target: 'anthropic-v9' as never }).catch((e) => e);
    expect(err).toBeInstanceOf(ResponseError);
    expect((err as ResponseError<unknown>).code).toBe(RpcErrorCodes.InvalidParams);
    for (const t of ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'vscode-lm', 'neutral', 'levelcode'])
      expect(JSON.stringify(err)).toContain(t);
    await s.stop();
  });

  it('tier 3 and then tier 2: the summariser and the resumed model get the same shape, both valid', async () => {
    for (const target of ['anthropic', 'gemini', 'openai-responses'] as const) {
      const { root, project } = workspace();
      const s = await startSidecar({ root, callbacks: ['summarize'], editor: { summarize: summariser } });
      const id = await sessionWith(s, project, chat(12, 60));
      const r = await s.call(P.sessionResume, { id, contextWindow: 6_000, keepTurns: 3, target });
      expect(r.tier).toBe(3);
      expect(VALIDATORS[target](r.messages!), target).toEqual([]);
      expect(JSON.stringify(r.messages)).toContain(FACT);
      expect(r.note).toMatch(/^Resumed from summary/);
      const calls = s.editor.calls.items.filter((c) => c.method === 'session/summarize');
      expect(calls.length).toBeGreaterThan(0);
      for (const c of calls) {
        const sent = c.params as { messages: unknown[]; target: string };
        expect(sent.target).toBe(target);
        expect(VALIDATORS[target](sent.messages), `summariser in ${target}`).toEqual([]);
        // Each tool call once: the chat mirror and the agent loop are one call.
        const text = JSON.stringify(sent.messages);
        for (const m of text.matchAll(/make (\d+)/g)) expect(text.split(`make ${m[1]}`).length - 1).toBe(1);
      }
      const again = await s.call(P.sessionResume, { id, contextWindow: 6_000, keepTurns: 3, target });
      expect(again.tier).toBe(2);
      expect(VALIDATORS[target](again.messages!)).toEqual([]);
      expect(JSON.stringify(again.messages)).toContain(FACT);
      await s.stop();
    }
  });

  it('the two-step flow hands out needsSummary in the target shape', async () => {
    const { root, project } = workspace();
    const s = await startSidecar({ root, trace: 'messages' });
    const id = await sessionWith(s, project, chat(12, 60), { settleTitle: true });
    const r = await s.call(P.sessionResume, { id, contextWindow: 6_000, keepTurns: 3, target: 'openai-chat' });
    expect(r.needsSummary?.target).toBe('openai-chat');
    expect(VALIDATORS['openai-chat'](r.needsSummary!.messages)).toEqual([]);
    let step = r;
    while (step.needsSummary) step = await s.call(P.sessionCompact, { id, briefing: FACT, coversThrough: step.needsSummary.coversThrough });
    expect(step.target).toBe('openai-chat');
    expect(VALIDATORS['openai-chat'](step.messages!)).toEqual([]);
    expect(JSON.stringify(step.messages)).toContain(FACT);
    await s.stop();
  });
});
