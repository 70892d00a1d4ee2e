// Issue 4 through the real sidecar process: the three resume tiers (exact arrays, incremental,
// compact-on-resume through the summarize callback and through the two-step flow, which append
// the same compact event), cut rules seen from outside (user boundary, tool pairs whole, the
// budget, nothing of the head verbatim), honesty lines, the consent step and its threshold
// (initializationOptions, per call), client-supplied token counts, failures that leave the file
// byte-identical, and the design's exit test: a ~200k-token session resumed into a 128k window.
//
// The fake editor's summariser is deterministic: it copies the lines containing "FACT:" from
// the messages it is sent, so a fact reaches the resumed context only if the head was really
// summarised. Every wait is for an event (an answer, a callback, a log line), never for a time.

import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanup,
  startSidecar,
  workspace,
  CancellationTokenSource,
  ResponseError,
  type Sidecar,
  type StartOptions,
  fileOf,
  sessionWith as newSession,
} from '../helpers/sidecar.js';
import { RpcErrorCodes } from '../../server/rpc/errors.js';
import * as P from '../../server/rpc/protocol.js';
import { BRIEFING_HEADER, TIER2_NOTE, TIER3_NOTE, honestyLine, planResume } from '../../server/resume/resume.js';
import { estimateTokens } from '../../server/resume/tokens.js';
import type { SessionEvent } from '../../server/format/events.js';
import { at } from '../helpers/items.js';

afterEach(cleanup);

// ---------------------------------------------------------------------------------------------
// Helpers

type Ev = Record<string, unknown> & { kind: string };
const USER = (content: unknown): Ev => ({ kind: 'user', content });
const ASSISTANT = (content: unknown): Ev => ({ kind: 'assistant', content });
const AGENT = (...messages: unknown[]): Ev => ({ kind: 'agent', messages });
const MARK = (type: string, extra: Record<string, unknown> = {}): Ev => ({ kind: 'event', type, ...extra });
const toolUse = (id: string, cmd = 'ls') => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'bash', input: { cmd } }] });
const toolResult = (id: string, out = 'ok') => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: out }] });

const FACT = 'FACT: the deploy password is hunter2-zebra';
const FACT_MESSAGE = `We are setting up the deploy pipeline.\n${FACT}\nKeep it safe. HEAD-ONLY-MARKER ${'background '.repeat(60)}`;

/** The fake editor's summariser: the lines with "FACT:" in what it was sent. */
function factSummary(p: { messages: unknown[] }): { briefing: string } {
  const lines = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') for (const l of v.split('\n')) if (l.includes('FACT:')) lines.add(l.trim());
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(p.messages);
  return { briefing: lines.size ? [...lines].join('\n') : 'No facts recorded.' };
}

function start(o: Partial<StartOptions> & { root: string }): Promise<Sidecar> {
  return startSidecar({ trace: 'messages', ...o });
}

/** The events of a session file (seq order), `t` removed. */
function eventsOf(root: string, id: string): Ev[] {
  return readFileSync(fileOf(root, id), 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => {
      const { t: _t, ...rest } = JSON.parse(l) as Ev;
      return rest as Ev;
    });
}

/** The chat and agent arrays a tier-1 resume of `events` must give (the planner's contract). */
function expectedArrays(events: Ev[]): { conversation: unknown[]; agentMessages: unknown[] } {
  const conversation: unknown[] = [];
  const agentMessages: unknown[] = [];
  for (const e of events) {
    if (e.kind === 'user' || e.kind === 'assistant') conversation.push({ role: e.kind, content: e.content });
    else if (e.kind === 'agent') agentMessages.push(...(e.messages as unknown[]));
    else if (e.kind === 'event') {
      const line = honestyLine({ ...e, t: '2026-01-01T00:00:00.000Z' } as SessionEvent);
      if (line) {
        conversation.push({ role: 'user', content: line });
        agentMessages.push({ role: 'user', content: line });
      }
    }
  }
  return { conversation, agentMessages };
}

/** Tokens of a resumed context as the planner counts them (both arrays). */
const contextTokens = (r: { conversation: unknown[]; agentMessages: unknown[] }): number =>
  [...r.conversation, ...r.agentMessages].reduce<number>((n, m) => n + estimateTokens(m), 0);

/** Tool ids used and answered in an array of messages. */
function toolBalance(messages: unknown[]): { uses: Set<string>; results: Set<string> } {
  const uses = new Set<string>();
  const results = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (o.type === 'tool_use' && typeof o.id === 'string') uses.add(o.id);
    if (o.type === 'tool_result' && typeof o.tool_use_id === 'string') results.add(o.tool_use_id);
    Object.values(o).forEach(walk);
  };
  walk(messages);
  return { uses, results };
}

const summarizeCalls = (s: Sidecar) => s.editor.calls.items.filter((c) => c.method === 'session/summarize');

/** `turns` turns of about `chars` + 400 characters each (chars / 4 tokens and some), with a tool
 *  pair in every agent event. The first user message is FACT_MESSAGE. */
function chat(turns: number, chars: number, first: string = FACT_MESSAGE): Ev[] {
  const events: Ev[] = [];
  for (let i = 0; i < turns; i++) {
    const pad = 'lorem ipsum '.repeat(Math.max(1, Math.floor(chars / 3 / 12)));
    events.push(USER(i === 0 ? first : `turn ${i}: please continue. ${pad}`));
    events.push(
      ASSISTANT([
        { type: 'text', text: `Working on turn ${i}.` },
        { type: 'tool_use', id: `t${i}`, name: 'bash', input: { cmd: `make step${i}` } },
      ]),
    );
    events.push(AGENT(toolUse(`t${i}`, `make step${i}`), toolResult(`t${i}`, `built step ${i} ${pad}`)));
    events.push(ASSISTANT([{ type: 'text', text: `Turn ${i} done. ${pad}` }]));
  }
  return events;
}

// ---------------------------------------------------------------------------------------------

const sessionWith = (s: Sidecar, project: string, events: Ev[], batch = 1_000) =>
  newSession(s, project, events, { batch, settleTitle: true });

describe('tier 1: verbatim', () => {
  it('rebuilds both arrays exactly as appended, with one honesty line per interrupted, reload and reaped event', async () => {
    const { root, project } = workspace();
    const s = await start({ root });
    const events: Ev[] = [
      USER([
        { type: 'text', text: 'Add idempotency to RefundService' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0=' } },
      ]),
      ASSISTANT([
        { type: 'thinking', thinking: 'look first', signature: 'sig' },
        { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'refund.rb' } },
      ]),
      AGENT(toolUse('toolu_01'), toolResult('toolu_01', 'class RefundService; end')),
      ASSISTANT([{ type: 'text', text: 'Use a Redis SET NX key.', citations: null }]),
      MARK('checkpoint', { n: 3 }),
      MARK('interrupted', { reason: 'new chat' }),
      USER('and the tests?'),
      MARK('reload'),
      MARK('reaped', { command: 'npm run dev' }),
      ASSISTANT('plain string content, kept as a string'),
    ];
    const id = await sessionWith(s, project, events);
    const r = await s.call(P.sessionResume, { id, contextWindow: 200_000 });
    expect(r.tier).toBe(1);
    expect(r.note).toBeUndefined();
    const want = expectedArrays(events);
    expect(r.conversation).toEqual(want.conversation);
    expect(r.agentMessages).toEqual(want.agentMessages);
    // One line each, where the event was, in both arrays; nothing for checkpoint.
    const lines = (r.conversation as { content: unknown }[]).filter((m) => typeof m.content === 'string' && m.content.startsWith('[Note:'));
    expect(lines.map((m) => m.content)).toEqual([
      '[Note: the agent run was interrupted here. Tool calls in flight did not finish and their state was lost; check before relying on it.]',
      '[Note: the editor reloaded here. Background commands and MCP servers started before this point are no longer running.]',
      '[Note: a background command (`npm run dev`) was stopped here. It is no longer running; restart it if you still need it.]',
    ]);
    expect(
      (r.agentMessages as { content: unknown }[]).filter((m) => typeof m.content === 'string' && m.content.startsWith('[Note:')),
    ).toHaveLength(3);
    expect(r.tokens).toEqual({ transcript: contextTokens(r), budget: 80_000, window: 200_000 });
    await s.stop();
  });

  it('resumes verbatim at T == B and plans tier 3 at T == B + 1 (budgetRatio 1)', async () => {
    const { root, project } = workspace();
    const s = await start({ root });
    const id = await sessionWith(s, project, [USER('x'.repeat(400)), ASSISTANT('y'.repeat(400)), USER('z'.repeat(40))]);
    const T = (await s.call(P.sessionResume, { id, contextWindow: 1_000_000 })).tokens!.transcript;
    const at = await s.call(P.sessionResume, { id, contextWindow: T, budgetRatio: 1 });
    expect(at).toMatchObject({ tier: 1, tokens: { transcript: T, budget: T } });
    // (A summariser with a window of its own: this window cannot hold the instructions.)
    const over = await s.call(P.sessionResume, { id, contextWindow: T - 1, budgetRatio: 1, summaryWindow: 100_000 });
    expect(over.tier).toBe(3);
    expect(over.needsSummary).toBeDefined();
    await s.stop();
  });

  it("uses the client's own token counts by seq", async () => {
    const { root, project } = workspace();
    const s = await start({ root });
    const id = await sessionWith(s, project, [USER('short'), ASSISTANT('short'), USER('also short')]);
    expect((await s.call(P.sessionResume, { id, contextWindow: 10_000 })).tier).toBe(1);
    const r = await s.call(P.sessionResume, { id, contextWindow: 10_000, tokenCounts: { '0': 9_000 } });
    expect(r.tokens!.transcript).toBeGreaterThan(9_000);
    expect(r.tier).toBe(3);
    expect((await s.error('session/resume', { id, contextWindow: 10_000, tokenCounts: { first: 1 } })).code).toBe(
      RpcErrorCodes.InvalidParams,
    );
    await s.stop();
  });
});

describe('tier 3 and tier 2', () => {
  it('through the callback: cuts at a user boundary, keeps tool pairs whole, fits B, sends the head and keeps none of it', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['summarize'], editor: { summarize: factSummary } });
    const events = chat(14, 800);
    const id = await sessionWith(s, project, events);
    const r = await s.call(P.sessionResume, { id, contextWindow: 6_000, keepTurns: 4 });
    expect(r).toMatchObject({ tier: 3, note: TIER3_NOTE, readOnly: false });
    const compact = eventsOf(root, id).at(-1)!;
    expect(compact).toMatchObject({ kind: 'compact', briefing: FACT });
    const through = compact.coversThrough as number;
    // The head went to the summariser verbatim, in context order.
    const call = at(summarizeCalls(s), 0).params as { messages: unknown[]; instructions: string; id: string };
    expect(call.id).toBe(id);
    expect(call.messages).toEqual(headMessages(events.slice(0, through + 1)));
    // The tail starts at a user event, is verbatim, and keeps at most keepTurns turns.
    const tail = events.slice(through + 1);
    expect(at(tail, 0).kind).toBe('user');
    expect(tail.filter((e) => e.kind === 'user').length).toBeLessThanOrEqual(4);
    const want = expectedArrays(tail);
    const brief = { role: 'user', content: `${BRIEFING_HEADER}\n\n${FACT}` };
    expect(r.conversation).toEqual([brief, ...want.conversation]);
    expect(r.agentMessages).toEqual([brief, ...want.agentMessages]);
    // Within the budget; every tool_use answered inside the tail; the head absent.
    expect(contextTokens(r)).toBeLessThanOrEqual(r.tokens!.budget);
    const bal = toolBalance([...r.conversation, ...r.agentMessages]);
    expect([...bal.results].every((id) => bal.uses.has(id))).toBe(true);
    expect(JSON.stringify(r)).not.toContain('HEAD-ONLY-MARKER');
    await s.stop();
  });

  it('never cuts between a tool_use and its tool_result, even when the aim falls there', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['summarize'], editor: { summarize: () => ({ briefing: 'head summary' }) } });
    const big = 'words '.repeat(300);
    const small = 'words '.repeat(20);
    // The last user turn answers a tool_use of the turn before it (Anthropic's tool_result in a user message).
    const events: Ev[] = [
      USER(`first ${big}`),
      ASSISTANT(`one ${big}`),
      USER(`second ${small}`),
      ASSISTANT([
        { type: 'text', text: `two ${small}` },
        { type: 'tool_use', id: 'toolu_span', name: 'bash', input: {} },
      ]),
      USER([{ type: 'tool_result', tool_use_id: 'toolu_span', content: `out ${small}` }]),
      ASSISTANT(`three ${small}`),
    ];
    const id = await sessionWith(s, project, events);
    const r = await s.call(P.sessionResume, { id, contextWindow: 2_000, keepTurns: 1 });
    expect(r.tier).toBe(3);
    // keepTurns 1 aims at seq 4, which would orphan toolu_span: the cut moves to seq 2.
    expect(eventsOf(root, id).at(-1)).toMatchObject({ kind: 'compact', coversThrough: 1 });
    expect(r.conversation.slice(1)).toEqual(expectedArrays(events.slice(2)).conversation);
    await s.stop();
  });

  it('through the two-step flow (no summarize callback): the same compact event and context as the callback', async () => {
    const events = chat(10, 600);
    const params = { contextWindow: 4_000, keepTurns: 3 };
    // Path A: the callback.
    const a = workspace();
    const withCb = await start({ root: a.root, callbacks: ['summarize'], editor: { summarize: factSummary } });
    const idA = await sessionWith(withCb, a.project, events);
    const viaCallback = await withCb.call(P.sessionResume, { id: idA, ...params });
    // Path B: two steps.
    const b = workspace();
    const twoStep = await start({ root: b.root, editor: { summarize: () => ({ briefing: 'never asked' }) } });
    const idB = await sessionWith(twoStep, b.project, events);
    const before = readFileSync(fileOf(b.root, idB));
    const first = await twoStep.call(P.sessionResume, { id: idB, ...params });
    expect(first).toMatchObject({ tier: 3, conversation: [], agentMessages: [] });
    expect(first.note).toBeUndefined();
    expect(readFileSync(fileOf(b.root, idB))).toEqual(before);
    const need = first.needsSummary!;
    expect(need.instructions).toContain(`at most ${need.maxBriefingTokens} tokens`);
    expect(need.messages).toEqual((at(summarizeCalls(withCb), 0).params as { messages: unknown[] }).messages);
    const done = await twoStep.call(P.sessionCompact, { id: idB, coversThrough: need.coversThrough, briefing: factSummary(need).briefing });
    expect(summarizeCalls(twoStep)).toEqual([]);
    expect(done).toMatchObject({ tier: 3, note: TIER3_NOTE });
    expect(done.conversation).toEqual(viaCallback.conversation);
    expect(done.agentMessages).toEqual(viaCallback.agentMessages);
    expect(eventsOf(b.root, idB).at(-1)).toEqual(eventsOf(a.root, idA).at(-1));
    expect(eventsOf(b.root, idB).filter((e) => e.kind === 'compact')).toHaveLength(1);
    await Promise.all([withCb.stop(), twoStep.stop()]);
  });

  it('tier 2: the last briefing plus the events after coversThrough, without asking again', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['summarize'], editor: { summarize: factSummary } });
    const id = await sessionWith(s, project, chat(10, 600));
    await s.call(P.sessionResume, { id, contextWindow: 4_000, keepTurns: 3 });
    const more: Ev[] = [USER('one more question'), ASSISTANT([{ type: 'text', text: 'one more answer' }]), MARK('interrupted')];
    await s.call(P.sessionAppend, { id, events: more });
    const stored = eventsOf(root, id);
    const compactSeq = stored.findIndex((e) => e.kind === 'compact');
    const through = at(stored, compactSeq).coversThrough as number;
    const r = await s.call(P.sessionResume, { id, contextWindow: 4_000, keepTurns: 3 });
    expect(r).toMatchObject({ tier: 2, note: TIER2_NOTE });
    const want = expectedArrays(stored.slice(through + 1));
    const brief = { role: 'user', content: `${BRIEFING_HEADER}\n\n${FACT}` };
    expect(r.conversation).toEqual([brief, ...want.conversation]);
    expect(r.agentMessages).toEqual([brief, ...want.agentMessages]);
    expect(r.conversation.at(-1)).toEqual({
      role: 'user',
      content: honestyLine({ kind: 'event', type: 'interrupted', t: '' } as SessionEvent),
    });
    // Planned from the compact event on: the events it covers were read only until they were
    // known not to fit, so T is a lower bound of the whole transcript's, and above the budget.
    const wholeT = planResume(
      stored.map((event, seq) => ({ seq, event: event as SessionEvent })),
      { window: 4_000, keepTurns: 3 },
    ).transcriptTokens;
    expect(r.tokens!.transcript).toBeGreaterThan(r.tokens!.budget);
    expect(r.tokens!.transcript).toBeLessThan(wholeT); // the whole session was not read
    expect(summarizeCalls(s)).toHaveLength(1);
    expect(eventsOf(root, id)).toEqual(stored);
    // A window the whole transcript fits: verbatim again (tier 1 wins over the briefing).
    const wide = await s.call(P.sessionResume, { id, contextWindow: 1_000_000 });
    expect(wide.tier).toBe(1);
    expect(wide.conversation).toEqual(expectedArrays(stored).conversation);
    expect(wide.agentMessages).toEqual(expectedArrays(stored).agentMessages);
    await s.stop();
  });
});

describe('tier 1 after a compact event', () => {
  it('is still chosen when the covered lines are long but hold little transcript (a large loose field): the whole session is read', async () => {
    const { root, project } = workspace();
    const s = await start({ root });
    const blob = 'z'.repeat(60_000); // not transcript: a field the planner never sends
    const events: Ev[] = [
      { ...USER('first question'), attachmentsBlob: blob },
      ASSISTANT('first answer'),
      { kind: 'compact', briefing: 'an earlier summary', coversThrough: 1 },
      USER('next question'),
      ASSISTANT('next answer'),
    ];
    const id = await sessionWith(s, project, events);
    // B = 8,000 tokens: the 60 KB line looks too big to fit (15,000 tokens at four bytes a
    // token), but what it sends counts a handful: the whole transcript fits, so tier 1.
    const r = await s.call(P.sessionResume, { id, contextWindow: 20_000 });
    const stored = eventsOf(root, id);
    expect(r.tier).toBe(1);
    expect(r.conversation).toEqual(expectedArrays(stored).conversation);
    expect(r.agentMessages).toEqual(expectedArrays(stored).agentMessages);
    expect(r.tokens!.transcript).toBe(
      planResume(
        stored.map((event, seq) => ({ seq, event: event as SessionEvent })),
        { window: 20_000 },
      ).transcriptTokens,
    );
    await s.stop();
  });
});

/** The messages of the head as the summariser gets them (chat, agent messages, notes, in order). */
function headMessages(events: Ev[]): unknown[] {
  const out: unknown[] = [];
  for (const e of events) {
    if (e.kind === 'user' || e.kind === 'assistant') out.push({ role: e.kind, content: e.content });
    else if (e.kind === 'agent') out.push(...(e.messages as unknown[]));
    else if (e.kind === 'event') {
      const line = honestyLine({ ...e, t: '' } as SessionEvent);
      if (line) out.push({ role: 'user', content: line });
    }
  }
  return out;
}

describe('consent', () => {
  it('asks above the threshold set in initializationOptions, and a call may override it', async () => {
    const { root, project } = workspace();
    const s = await start({
      root,
      callbacks: ['summarize'],
      initializationOptions: { consentThreshold: 500 },
      editor: { summarize: factSummary },
    });
    const id = await sessionWith(s, project, chat(10, 600));
    const before = readFileSync(fileOf(root, id));
    const ask = await s.call(P.sessionResume, { id, contextWindow: 4_000 });
    expect(ask).toMatchObject({ tier: 3, conversation: [], agentMessages: [], needsConfirmation: { threshold: 500 } });
    expect(ask.needsConfirmation!.inputTokens).toBeGreaterThan(500);
    expect(ask.needsSummary).toBeUndefined();
    expect(summarizeCalls(s)).toEqual([]);
    expect(readFileSync(fileOf(root, id))).toEqual(before);
    // Per call: a threshold above the input does not ask.
    const high = await s.call(P.sessionResume, { id, contextWindow: 4_000, consentThreshold: 1_000_000 });
    expect(high).toMatchObject({ tier: 3, note: TIER3_NOTE });
    expect(high.needsConfirmation).toBeUndefined();
    await s.stop();
  });

  it('defaults to 50k tokens; two-step clients get needsConfirmation, then needsSummary after confirm', async () => {
    const { root, project } = workspace();
    const s = await start({ root });
    const id = await sessionWith(s, project, chat(50, 6_000));
    const ask = await s.call(P.sessionResume, { id, contextWindow: 32_000 });
    expect(ask.needsConfirmation).toMatchObject({ threshold: 50_000 });
    expect(ask.needsConfirmation!.inputTokens).toBeGreaterThan(50_000);
    expect(ask.needsSummary).toBeUndefined();
    const go = await s.call(P.sessionResume, { id, contextWindow: 32_000, confirm: true });
    expect(go.needsConfirmation).toBeUndefined();
    // The consent figure is the whole cost: every piece's input, and how many calls.
    const { calls, inputTokens } = ask.needsConfirmation!;
    expect(go.needsSummary!.piece).toEqual({ index: 0, count: calls });
    expect(calls).toBeGreaterThan(1);
    expect(go.needsSummary!.inputTokens).toBeLessThanOrEqual(32_000);
    expect(go.needsSummary!.inputTokens * calls).toBeGreaterThan(inputTokens / 2);
    await s.stop();
  });

  it('a question takes no ownership: after "Start fresh instead" another window may write the session', async () => {
    const { root, project } = workspace();
    const writer = await start({ root });
    const id = await sessionWith(writer, project, chat(10, 600));
    await writer.stop(); // releases the session
    const b = await start({ root, initializationOptions: { consentThreshold: 100 } });
    const ask = await b.call(P.sessionResume, { id, contextWindow: 4_000 });
    expect(ask).toMatchObject({ tier: 3, readOnly: false, needsConfirmation: { threshold: 100 } });
    // The user declines; a third window appends to the session without a locked error.
    const c = await start({ root });
    await expect(c.call(P.sessionAppend, { id, events: [USER('carry on here')] })).resolves.toMatchObject({ appended: 1 });
    await Promise.all([b.stop(), c.stop()]);
  });

  it('with copy: true asks before making the copy, so confirming makes exactly one copy', async () => {
    const { root, project } = workspace();
    const owner = await start({ root });
    const id = await sessionWith(owner, project, chat(10, 600));
    const b = await start({
      root,
      callbacks: ['summarize'],
      initializationOptions: { consentThreshold: 100 },
      editor: { summarize: factSummary },
    });
    const ask = await b.call(P.sessionResume, { id, contextWindow: 4_000, copy: true });
    expect(ask).toMatchObject({ id, tier: 3, needsConfirmation: { threshold: 100 }, readOnly: true });
    expect((await b.call(P.sessionList, { project })).sessions).toHaveLength(1);
    const go = await b.call(P.sessionResume, { id, contextWindow: 4_000, copy: true, confirm: true });
    expect(go).toMatchObject({ tier: 3, forkedFrom: id, readOnly: false, note: TIER3_NOTE });
    expect((await b.call(P.sessionList, { project })).sessions).toHaveLength(2);
    await Promise.all([owner.stop(), b.stop()]);
  });
});

describe('a summary that fails leaves the session file byte-identical', () => {
  const cases: [string, () => unknown, number][] = [
    ['the callback answers an error', () => Promise.reject(new ResponseError(-32603, 'model unavailable')), RpcErrorCodes.CallbackFailed],
    [
      'the callback is cancelled on the client',
      () => Promise.reject(new ResponseError(RpcErrorCodes.RequestCancelled, 'the user cancelled')),
      RpcErrorCodes.RequestCancelled,
    ],
    ['the callback answers an empty briefing', () => ({ briefing: '   ' }), RpcErrorCodes.CallbackFailed],
    ['the callback answers no briefing', () => ({ summary: 'wrong field' }), RpcErrorCodes.CallbackFailed],
  ];
  for (const [what, answer, code] of cases) {
    it(`when ${what}`, async () => {
      const { root, project } = workspace();
      const s = await start({ root, callbacks: ['summarize'], editor: { summarize: answer } });
      const id = await sessionWith(s, project, chat(10, 600));
      const before = readFileSync(fileOf(root, id));
      const e = await s.error('session/resume', { id, contextWindow: 4_000 });
      expect(e.code).toBe(code);
      expect(e.message).toMatch(/summar|cancel/i);
      expect(readFileSync(fileOf(root, id))).toEqual(before);
      await s.stop();
    });
  }

  it('when the client cancels the resume (-32800) while the summary is being made, even if the answer comes later', async () => {
    const { root, project } = workspace();
    let answer: (v: unknown) => void = () => {};
    const s = await start({ root, callbacks: ['summarize'], editor: { summarize: () => new Promise((r) => (answer = r)) } });
    const id = await sessionWith(s, project, chat(10, 600));
    const before = readFileSync(fileOf(root, id));
    const cts = new CancellationTokenSource();
    const pending = s.error('session/resume', { id, contextWindow: 4_000 }, cts);
    await s.editor.calls.waitFor((c) => c.method === 'session/summarize');
    cts.cancel();
    expect((await pending).code).toBe(RpcErrorCodes.RequestCancelled);
    answer({ briefing: 'too late' });
    // The sidecar serves on, and the late answer wrote nothing.
    expect((await s.call(P.sessionResume, { id, contextWindow: 200_000 })).tier).toBe(1);
    expect(readFileSync(fileOf(root, id))).toEqual(before);
    await s.stop();
  });

  it('session/compact refuses a blank briefing and writes nothing', async () => {
    const { root, project } = workspace();
    const s = await start({ root });
    const id = await sessionWith(s, project, chat(10, 600));
    const before = readFileSync(fileOf(root, id));
    const need = (await s.call(P.sessionResume, { id, contextWindow: 4_000 })).needsSummary!;
    expect((await s.error('session/compact', { id, briefing: '  ', coversThrough: need.coversThrough })).code).toBe(
      RpcErrorCodes.InvalidParams,
    );
    expect(readFileSync(fileOf(root, id))).toEqual(before);
    await s.stop();
  });
});

describe("the design's exit test", () => {
  it('a ~200k-token session resumes into a 128k window via tier 3; a fact only in the head arrives through the briefing', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['summarize'], editor: { summarize: factSummary } });
    const events = chat(100, 7_600);
    const id = await sessionWith(s, project, events, 40);

    // The consent step first (the summary would read far more than 50k tokens).
    const ask = await s.call(P.sessionResume, { id, contextWindow: 128_000 });
    expect(ask.needsConfirmation!.inputTokens).toBeGreaterThan(50_000);
    expect(ask.tokens!.transcript).toBeGreaterThan(190_000);
    expect(ask.tokens!.transcript).toBeLessThan(260_000);
    expect(summarizeCalls(s)).toEqual([]);

    expect(ask.needsConfirmation!.calls).toBe(2);

    const r = await s.call(P.sessionResume, { id, contextWindow: 128_000, confirm: true });
    expect(r).toMatchObject({
      tier: 3,
      note: 'Resumed from summary — full transcript in History.',
      tokens: { window: 128_000, budget: 51_200 },
    });
    // The head (~190k tokens) went in two pieces that each fit the 128k window; the first had
    // the fact, the second the first's briefing.
    const calls = summarizeCalls(s).map((c) => c.params as { messages: unknown[]; instructions: string; piece: unknown });
    expect(calls.map((c) => c.piece)).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ]);
    for (const c of calls)
      expect(c.messages.reduce<number>((n, m) => n + estimateTokens(m), estimateTokens(c.instructions))).toBeLessThanOrEqual(128_000);
    expect(JSON.stringify(calls[0])).toContain('HEAD-ONLY-MARKER');
    expect(JSON.stringify(calls[1])).not.toContain('HEAD-ONLY-MARKER');
    expect(at(calls, 1).messages[0]).toEqual({ role: 'user', content: `${BRIEFING_HEADER}\n\n${FACT}` });
    // The fact reaches the model through the briefing, first in both arrays...
    expect(r.conversation[0]).toEqual({ role: 'user', content: `${BRIEFING_HEADER}\n\n${FACT}` });
    expect(r.agentMessages[0]).toEqual(r.conversation[0]);
    // ...and only there: its original message is not in the resumed context.
    const rest = JSON.stringify([r.conversation.slice(1), r.agentMessages.slice(1)]);
    expect(rest).not.toContain('hunter2-zebra');
    expect(JSON.stringify(r)).not.toContain('HEAD-ONLY-MARKER');
    expect(r.conversation).not.toContainEqual({ role: 'user', content: FACT_MESSAGE });
    // It fits the budget, and the tail is whole.
    expect(contextTokens(r)).toBeLessThanOrEqual(51_200);
    const bal = toolBalance(r.agentMessages);
    expect([...bal.uses].sort()).toEqual([...bal.results].sort());
    // The full transcript stays on disk, and the next resume reuses the briefing.
    const stored = eventsOf(root, id).filter((e) => e.kind !== 'title'); // the background title landed somewhere
    expect(stored.slice(0, events.length)).toEqual(events);
    expect(stored.slice(events.length)).toMatchObject([
      { kind: 'compact', briefing: FACT, rolling: true },
      { kind: 'compact', briefing: FACT },
    ]);
    expect(stored.at(-1)!.rolling).toBeUndefined();
    const again = await s.call(P.sessionResume, { id, contextWindow: 128_000 });
    expect(again).toMatchObject({ tier: 2 });
    expect(JSON.stringify(again.conversation[0])).toContain('hunter2-zebra');
    expect(summarizeCalls(s)).toHaveLength(2);
    await s.stop();
  });

  it('the same through the two-step flow', async () => {
    const { root, project } = workspace();
    const s = await start({ root, initializationOptions: { consentThreshold: 1_000_000 } });
    const id = await sessionWith(s, project, chat(100, 7_600), 40);
    let r = await s.call(P.sessionResume, { id, contextWindow: 128_000 });
    // session/compact answers the next piece's needsSummary until the last.
    const pieces: unknown[] = [];
    while (r.needsSummary) {
      const need = r.needsSummary;
      pieces.push(need.piece);
      expect(need.inputTokens).toBeLessThanOrEqual(128_000);
      r = await s.call(P.sessionCompact, { id, coversThrough: need.coversThrough, briefing: factSummary(need).briefing });
    }
    expect(pieces).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ]);
    expect(r).toMatchObject({ tier: 3, note: TIER3_NOTE });
    expect(r.conversation[0]).toEqual({ role: 'user', content: `${BRIEFING_HEADER}\n\n${FACT}` });
    expect(JSON.stringify([r.conversation.slice(1), r.agentMessages.slice(1)])).not.toContain('hunter2-zebra');
    expect(contextTokens(r)).toBeLessThanOrEqual(51_200);
    await s.stop();
  });
});
