// Tests of the resume planner (server/resume/resume.ts) and the token estimate (tokens.ts):
// the tier boundaries with a fake tokenizer, the incremental path, the cut picker and tool
// pairs, keepTurns shrinking, consent, honesty lines, verbatim rebuilding, and a seeded property
// test of the tier-3 cut. Pure data in, pure data out: no files, no sidecar.

import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { SeqEvent, SessionEvent } from '../../server/format/events.js';
import {
  applyBriefing,
  briefingMessage,
  cutPoints,
  honestyLine,
  needsConsent,
  pickBoundary,
  planResume,
  floorTokens,
  rebuildContext,
  rollingCompact,
  summaryRequest,
  toolIds,
  TIER2_NOTE,
  TIER3_NOTE,
  type CompactPlan,
  type ResumePlan,
} from '../../server/resume/resume.js';
import { estimateTokens, jsonLength, countForSeq, type TokenCounter } from '../../server/resume/tokens.js';
import { elideToCap } from '../../server/format/soft-cap.js';
import { at } from '../helpers/items.js';

// ---------------------------------------------------------------------------------------------
// Helpers.

const T0 = '2026-07-28T09:12:33.000Z';
const user = (content: unknown): SessionEvent => ({ kind: 'user', t: T0, content }) as SessionEvent;
const assistant = (content: unknown): SessionEvent => ({ kind: 'assistant', t: T0, content }) as SessionEvent;
const agent = (...messages: unknown[]): SessionEvent => ({ kind: 'agent', t: T0, messages });
const marker = (type: string, extra: Record<string, unknown> = {}): SessionEvent =>
  ({ kind: 'event', t: T0, type, ...extra }) as SessionEvent;
const compact = (briefing: string, coversThrough: number): SessionEvent => ({
  kind: 'compact',
  t: T0,
  briefing,
  coversThrough,
});

/** Numbers events from `start`, one apart unless `seqs` says otherwise. */
function numbered(events: SessionEvent[], seqs?: number[]): SeqEvent[] {
  return events.map((event, i) => ({ seq: seqs ? at(seqs, i) : i, event }));
}

/** The fake tokenizer: one token per '#' in the JSON. Headers, notes and roles cost nothing. */
const hashes: TokenCounter = (v) => (JSON.stringify(v) ?? '').split('#').length - 1;
const h = (n: number) => '#'.repeat(n);

function expectTier3(plan: ResumePlan): CompactPlan {
  expect(plan.tier).toBe(3);
  return plan as CompactPlan;
}

// Anthropic-style agent messages.
const toolUse = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'run', input: {} }] });
const toolResult = (id: string) => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }],
});

// ---------------------------------------------------------------------------------------------

describe('tokens', () => {
  it('estimates characters / 4 over the JSON, rounding up', () => {
    expect(jsonLength('abc')).toBe(5); // "abc" with its quotes
    expect(estimateTokens('abc')).toBe(2);
    expect(estimateTokens({ role: 'user', content: 'x' })).toBe(Math.ceil(29 / 4));
    expect(estimateTokens(undefined)).toBe(0);
  });

  it('reads per-seq counts from a Map or an object', () => {
    expect(countForSeq(new Map([[3, 7]]), 3)).toBe(7);
    expect(countForSeq({ 3: 7 }, 3)).toBe(7);
    expect(countForSeq({ 3: 7 }, 4)).toBeUndefined();
    expect(() => countForSeq({ 3: -1 }, 3)).toThrow(RangeError);
  });

  it('lets per-seq counts override the counter for message events', () => {
    const events = numbered([user(h(10)), assistant(h(10))]);
    const plan = planResume(events, { window: 100, counter: hashes, tokenCounts: { 0: 1, 1: 2 } });
    expect(plan.transcriptTokens).toBe(3);
  });
});

describe('tier boundary', () => {
  // W = 100, ratio 0.4: B = 40.
  const session = (last: number) => numbered([user(h(10)), assistant(h(10)), user(h(10)), assistant(h(last))]);

  it('T == B resumes verbatim', () => {
    const plan = planResume(session(10), { window: 100, counter: hashes });
    expect(plan.budget).toBe(40);
    expect(plan.transcriptTokens).toBe(40);
    expect(plan.tier).toBe(1);
    expect(plan.chatNote).toBeNull();
  });

  it('T == B + 1 does not', () => {
    const plan = planResume(session(11), { window: 100, counter: hashes });
    expect(plan.transcriptTokens).toBe(41);
    const p3 = expectTier3(plan);
    expect(p3.chatNote).toBe(TIER3_NOTE);
    expect(TIER3_NOTE).toBe('Resumed from summary \u2014 full transcript in History.');
  });

  it('uses budgetRatio', () => {
    const plan = planResume(session(10), { window: 100, budgetRatio: 0.39, counter: hashes });
    expect(plan.budget).toBe(39);
    expect(plan.tier).toBe(3);
  });

  it('refuses nonsense options', () => {
    const events = session(10);
    expect(() => planResume(events, { window: 0 })).toThrow(RangeError);
    expect(() => planResume(events, { window: 100, budgetRatio: 1.5 })).toThrow(RangeError);
    expect(() => planResume(events, { window: 100, keepTurns: -1 })).toThrow(RangeError);
    expect(() => planResume(events, { window: 100, briefingAllowance: 0 })).toThrow(RangeError);
  });
});

describe('verbatim rebuild (tier 1)', () => {
  it('rebuilds both arrays exactly as appended, by reference', () => {
    const blocks = [{ type: 'text', text: 'fix the bug' }];
    const answer = [{ type: 'text', text: 'done' }];
    const m1 = { role: 'user', content: 'fix the bug' };
    const m2 = toolUse('t1');
    const m3 = toolResult('t1');
    const m4 = { role: 'assistant', content: [{ type: 'text', text: 'done' }], extra: { keep: true } };
    const events = numbered(
      [user(blocks), agent(m1, m2), agent(m3, m4), assistant(answer), marker('checkpoint', { n: 1 }), { kind: 'title', t: T0, title: 'x' }],
      [0, 1, 3, 4, 7, 8],
    );
    const plan = planResume(events, { window: 1_000_000 });
    expect(plan.tier).toBe(1);
    if (plan.tier !== 1) return;
    const { conversation, agentMessages, notes } = plan.context;
    expect(conversation).toStrictEqual([
      { role: 'user', content: blocks },
      { role: 'assistant', content: answer },
    ]);
    expect((conversation[0] as { content: unknown }).content).toBe(blocks);
    expect((conversation[1] as { content: unknown }).content).toBe(answer);
    expect(agentMessages).toStrictEqual([m1, m2, m3, m4]);
    agentMessages.forEach((m, i) => expect(m).toBe([m1, m2, m3, m4][i]));
    expect(notes).toEqual([]);
    expect(plan.context.estimate).toBe(plan.transcriptTokens);
  });

  it('rebuildContext gives the tier-1 view of any session, whatever its size', () => {
    const events = numbered([user(h(30)), assistant(h(30)), marker('reload'), user(h(30))]);
    const plan = planResume(events, { window: 1_000_000, counter: hashes });
    const ctx = rebuildContext(events, { counter: hashes });
    expect(plan.tier === 1 && plan.context).toStrictEqual(ctx);
    expect(ctx.estimate).toBe(90);
    expect(planResume(events, { window: 100, counter: hashes }).tier).toBe(3);
  });

  it('counts the estimate as the sum over both arrays', () => {
    const events = numbered([user('hello'), agent({ role: 'user', content: 'hello' }), assistant('hi')]);
    const plan = planResume(events, { window: 1_000_000 });
    if (plan.tier !== 1) throw new Error('expected tier 1');
    const sum = [...plan.context.conversation, ...plan.context.agentMessages].reduce<number>((s, m) => s + estimateTokens(m), 0);
    expect(plan.context.estimate).toBe(sum);
  });
});

describe('incremental (tier 2)', () => {
  const events = (coversThrough: number) =>
    numbered([user(h(20)), assistant(h(20)), user(h(20)), assistant(h(20)), compact(h(5), coversThrough), user(h(5)), assistant(h(5))]);

  it('resumes on the last briefing plus the events after coversThrough', () => {
    const evs = events(3);
    const plan = planResume(evs, { window: 100, counter: hashes });
    expect(plan.tier).toBe(2);
    if (plan.tier !== 2) return;
    expect(plan.chatNote).toBe(TIER2_NOTE);
    expect(plan.compactSeq).toBe(4);
    expect(plan.coversThrough).toBe(3);
    expect(plan.context.conversation).toStrictEqual([
      briefingMessage(h(5)),
      { role: 'user', content: h(5) },
      { role: 'assistant', content: h(5) },
    ]);
    expect(plan.context.agentMessages).toStrictEqual([briefingMessage(h(5))]);
    expect(plan.context.estimate).toBe(20); // briefing in both arrays + 10
  });

  it('uses the last compact event when there are several', () => {
    const evs = numbered([user(h(30)), compact(h(1), 0), user(h(30)), compact(h(2), 2), user(h(3))]);
    const plan = planResume(evs, { window: 100, counter: hashes });
    expect(plan.tier).toBe(2);
    if (plan.tier !== 2) return;
    expect(plan.compactSeq).toBe(3);
    expect(plan.context.conversation[0]).toStrictEqual(briefingMessage(h(2)));
    expect(plan.context.conversation).toHaveLength(2);
  });

  it('falls through to tier 3 over the remainder, folding the old briefing into the head', () => {
    const evs = events(1);
    const plan = expectTier3(planResume(evs, { window: 100, counter: hashes }));
    expect(plan.priorCompactSeq).toBe(4);
    // Remainder = seq 2..6 (50 + briefing 10 > 40); the tail is the last turn.
    expect(plan.tailStartSeq).toBe(5);
    expect(plan.summary.calls).toBe(1);
    const request = summaryRequest(plan, 0);
    expect(request.messages[0]).toStrictEqual(briefingMessage(h(5)));
    expect(request.messages.slice(1)).toStrictEqual([
      { role: 'user', content: h(20) },
      { role: 'assistant', content: h(20) },
    ]);
    expect(plan.summary.coversThrough).toBe(4);
    const applied = applyBriefing(plan, h(3), hashes);
    expect(applied.context.conversation).toStrictEqual([
      briefingMessage(h(3)),
      { role: 'user', content: h(5) },
      { role: 'assistant', content: h(5) },
    ]);
    expect(applied.context.estimate).toBe(16);
    expect(applied.compact).toStrictEqual({ kind: 'compact', briefing: h(3), coversThrough: 4 });
  });

  it('after the compact event is appended, tier 2 rebuilds the same context', () => {
    const evs = events(1);
    const plan = expectTier3(planResume(evs, { window: 100, counter: hashes }));
    const applied = applyBriefing(plan, h(3), hashes);
    const after = [...evs, { seq: 7, event: { ...applied.compact, t: T0 } as SessionEvent }];
    const again = planResume(after, { window: 100, counter: hashes });
    expect(again.tier).toBe(2);
    if (again.tier !== 2) return;
    expect(again.context).toStrictEqual(applied.context);
  });
});

describe('tool pairs and the boundary picker', () => {
  it('finds tool ids in Anthropic, OpenAI Chat and OpenAI Responses shapes', () => {
    expect(toolIds(agent(toolUse('a'), toolResult('a')))).toEqual(['a']);
    expect(
      toolIds(
        agent(
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function' }] },
          { role: 'tool', tool_call_id: 'call_2', content: 'x' },
        ),
      ),
    ).toEqual(['call_1', 'call_2']);
    expect(toolIds(agent({ type: 'function_call', call_id: 'r1' }, { type: 'function_call_output', call_id: 'r2' }))).toEqual(['r1', 'r2']);
    expect(toolIds(assistant([{ type: 'server_tool_use', id: 's1' }]))).toEqual(['s1']);
    expect(toolIds(user([{ type: 'tool_result', tool_use_id: 'u1' }]))).toEqual(['u1']);
    expect(toolIds(user('plain'))).toEqual([]);
    expect(toolIds(marker('reload'))).toEqual([]);
  });

  // A run left a tool_use open; the user spoke; the next agent event carries the result.
  const straddling = (style: 'anthropic' | 'openai') =>
    numbered([
      user('u0'), // 0
      assistant('a0'), // 1
      user('u1'), // 2
      style === 'anthropic'
        ? agent(toolUse('A'))
        : agent({ role: 'assistant', content: null, tool_calls: [{ id: 'A', type: 'function' }] }), // 3
      user('u2'), // 4 — cutting here would orphan A
      style === 'anthropic' ? agent(toolResult('A')) : agent({ role: 'tool', tool_call_id: 'A', content: 'ok' }), // 5
      user('u3'), // 6
      assistant('a3'), // 7
    ]);

  for (const style of ['anthropic', 'openai'] as const) {
    it(`a cut that would orphan a tool pair moves to the previous user boundary (${style})`, () => {
      const evs = straddling(style);
      expect(cutPoints(evs)).toEqual([0, 2, 6]);
      expect(pickBoundary(evs, 1)).toBe(6);
      expect(pickBoundary(evs, 2)).toBe(2); // aims at u2 (4), moves back to u1 (2)
      expect(pickBoundary(evs, 3)).toBe(2);
      expect(pickBoundary(evs, 4)).toBe(0);
      expect(pickBoundary(evs, 99)).toBe(0);
      expect(pickBoundary(evs, 0)).toBe(evs.length);
    });
  }

  it('takes the next legal cut when none precedes the aim, and the end when there is none', () => {
    const evs = numbered([agent(toolUse('A')), user('u1'), agent(toolResult('A')), user('u2')]);
    expect(cutPoints(evs)).toEqual([3]);
    expect(pickBoundary(evs, 2)).toBe(3);
    const none = numbered([agent(toolUse('A')), user('u1'), agent(toolResult('A'))]);
    expect(pickBoundary(none, 2)).toBe(3);
    expect(pickBoundary(numbered([assistant('x')]), 2)).toBe(1);
  });

  it('the planner keeps the tail whole around a straddling pair', () => {
    const evs = numbered([
      user(h(30)), // 0
      assistant(h(30)), // 1
      user(h(2)), // 2
      agent(toolUse('A#')), // 3 (one token)
      user(h(2)), // 4
      agent(toolResult('A#')), // 5
      user(h(2)), // 6
      assistant(h(2)), // 7
    ]);
    const plan = expectTier3(planResume(evs, { window: 100, keepTurns: 2, counter: hashes, briefingAllowance: 5 }));
    expect(plan.tailStartSeq).toBe(2);
    expect(plan.keptTurns).toBe(2); // u1 and u3 start turns; u2 does not
    expect(plan.summary.coversThrough).toBe(1);
    expect(plan.tail.agentMessages).toHaveLength(2);
  });
});

describe('keepTurns shrinks to fit', () => {
  // n turns of `size` tokens each (a user and an assistant event of size / 2).
  const turns = (n: number, size: number) =>
    numbered(Array.from({ length: n }, (_, i) => [user(h(size / 2) + `u${i}`), assistant(h(size / 2) + `a${i}`)]).flat());

  it('keeps all keepTurns when they fit', () => {
    const plan = expectTier3(planResume(turns(10, 2), { window: 40, counter: hashes, keepTurns: 3, briefingAllowance: 2 }));
    expect(plan.budget).toBe(16);
    expect(plan.keptTurns).toBe(3);
    expect(plan.tailStartSeq).toBe(14);
    expect(plan.tail.estimate).toBe(6);
  });

  it('keeps fewer turns when briefing + tail would not fit', () => {
    const plan = expectTier3(planResume(turns(8, 20), { window: 100, counter: hashes, keepTurns: 6, briefingAllowance: 4 }));
    // B = 40, reserve 2 * 4 = 8; one turn (20) fits, two (40) do not.
    expect(plan.keptTurns).toBe(1);
    expect(plan.tailStartSeq).toBe(14);
    const applied = applyBriefing(plan, h(4), hashes);
    expect(applied.context.estimate).toBe(28);
    expect(applied.briefingTrimmed).toBe(false);
  });

  it('keeps nothing verbatim when even the last turn does not fit', () => {
    const plan = expectTier3(planResume(turns(3, 40), { window: 100, counter: hashes, briefingAllowance: 4 }));
    expect(plan.keptTurns).toBe(0);
    expect(plan.tailStartSeq).toBeNull();
    expect(plan.summary.coversThrough).toBe(5);
    const applied = applyBriefing(plan, h(4), hashes);
    expect(applied.context.conversation).toStrictEqual([briefingMessage(h(4))]);
    expect(applied.context.agentMessages).toStrictEqual([briefingMessage(h(4))]);
  });

  it('cuts a briefing that would break the budget, and refuses an empty one', () => {
    const plan = expectTier3(planResume(turns(8, 20), { window: 100, counter: hashes, keepTurns: 6, briefingAllowance: 4 }));
    const applied = applyBriefing(plan, h(50), hashes);
    expect(applied.briefingTrimmed).toBe(true);
    expect(applied.context.estimate).toBeLessThanOrEqual(plan.budget);
    // Cut to maxBriefingTokens (4), within the budget's 10 (20 + 2 * 10 = 40).
    expect(applied.compact.briefing).toBe(h(4) + '…');
    expect(() => applyBriefing(plan, '  \n', hashes)).toThrow(RangeError);
  });

  it('nothing of the summarised head stays verbatim in the result', () => {
    const evs = turns(8, 20);
    const plan = expectTier3(planResume(evs, { window: 100, counter: hashes, briefingAllowance: 4 }));
    const applied = applyBriefing(plan, h(4), hashes);
    const headContents = evs.filter((e) => e.seq < plan.tailStartSeq!).map((e) => (e.event as unknown as { content: string }).content);
    const seen = applied.context.conversation.map((m) => (m as { content: unknown }).content);
    for (const c of headContents) expect(seen).not.toContain(c);
  });
});

describe('cost consent', () => {
  it('asks when the summary input exceeds the threshold', () => {
    const evs = numbered(Array.from({ length: 20 }, (_, i) => user(h(10) + i)));
    const plan = expectTier3(planResume(evs, { window: 100, counter: hashes }));
    const input = plan.summary.inputTokens;
    expect(input).toBeGreaterThan(0);
    expect(needsConsent(plan, input)).toBe(false);
    expect(needsConsent(plan, input - 1)).toBe(true);
  });

  it('defaults to 50k tokens and never asks for tiers 1 and 2', () => {
    const big = 'x'.repeat(4_000); // ~1000 tokens a message
    const evs = numbered(Array.from({ length: 120 }, (_, i) => (i % 2 ? assistant(big) : user(big + i))));
    const plan = expectTier3(planResume(evs, { window: 128_000 }));
    expect(plan.summary.inputTokens).toBeGreaterThan(50_000);
    expect(needsConsent(plan)).toBe(true);
    const small = expectTier3(planResume(evs.slice(0, 40), { window: 20_000 }));
    expect(small.summary.inputTokens).toBeLessThan(50_000);
    expect(needsConsent(small)).toBe(false);
    expect(needsConsent(planResume(evs.slice(0, 2), { window: 128_000 }), 0)).toBe(false);
  });
});

describe('honesty lines', () => {
  it('gives one fixed line for interrupted, reload and reaped, nothing for other markers', () => {
    expect(honestyLine(marker('interrupted'))).toBe(
      '[Note: the agent run was interrupted here. Tool calls in flight did not finish and their state was lost; check before relying on it.]',
    );
    expect(honestyLine(marker('reload'))).toBe(
      '[Note: the editor reloaded here. Background commands and MCP servers started before this point are no longer running.]',
    );
    expect(honestyLine(marker('reaped', { command: 'npm run dev\nmore' }))).toBe(
      '[Note: a background command (`npm run dev`) was stopped here. It is no longer running; restart it if you still need it.]',
    );
    expect(honestyLine(marker('reaped'))).toBe(
      '[Note: a background command was stopped here. It is no longer running; restart it if you still need it.]',
    );
    expect(honestyLine(marker('checkpoint', { n: 3 }))).toBeNull();
    expect(honestyLine(marker('sealed'))).toBeNull();
    expect(honestyLine(user('interrupted'))).toBeNull();
  });

  it('puts each line once in each array, where its event was', () => {
    const m1 = { role: 'user', content: 'go' };
    const evs = numbered([
      user('go'),
      agent(m1),
      marker('interrupted'),
      marker('checkpoint', { n: 1 }),
      marker('reload'),
      user('again'),
      marker('reaped', { command: 'vite' }),
    ]);
    const plan = planResume(evs, { window: 1_000_000 });
    if (plan.tier !== 1) throw new Error('expected tier 1');
    const line = (e: SessionEvent) => ({ role: 'user', content: honestyLine(e) });
    expect(plan.context.conversation).toStrictEqual([
      { role: 'user', content: 'go' },
      line(at(evs, 2).event),
      line(at(evs, 4).event),
      { role: 'user', content: 'again' },
      line(at(evs, 6).event),
    ]);
    expect(plan.context.agentMessages).toStrictEqual([m1, line(at(evs, 2).event), line(at(evs, 4).event), line(at(evs, 6).event)]);
    expect(plan.context.notes.map((n) => [n.seq, n.type])).toEqual([
      [2, 'interrupted'],
      [4, 'reload'],
      [6, 'reaped'],
    ]);
  });

  it('in tier 3, lines in the head go to the summariser and lines in the tail stay', () => {
    const evs = numbered([user(h(30)), marker('reload'), assistant(h(30)), user(h(2)), marker('interrupted')]);
    const plan = expectTier3(planResume(evs, { window: 100, counter: hashes, briefingAllowance: 4 }));
    expect(plan.tailStartSeq).toBe(3);
    expect(summaryRequest(plan, 0).messages).toContainEqual({ role: 'user', content: honestyLine(marker('reload')) });
    const applied = applyBriefing(plan, 'brief', hashes);
    expect(applied.context.notes.map((n) => n.type)).toEqual(['interrupted']);
    expect(applied.context.conversation.at(-1)).toStrictEqual({ role: 'user', content: honestyLine(marker('interrupted')) });
  });
});

// ---------------------------------------------------------------------------------------------
// Pieces (issue 29): a head larger than the summariser's window is summarised in calls that fit.

describe('pieces', () => {
  /** Turns of a user line, then an agent turn with a tool pair (output of `out` characters). */
  function toolTurns(n: number, out: number): SeqEvent[] {
    const evs: SessionEvent[] = [];
    for (let i = 0; i < n; i++) {
      evs.push(user(`turn ${i} ${'w'.repeat(400)}`));
      evs.push(
        agent(toolUse(`t${i}`), {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `out ${i} ${'o'.repeat(out)}` }],
        }),
      );
      evs.push(assistant(`done ${i}`));
    }
    return numbered(evs);
  }

  /** Every request of a plan, each piece given the previous piece's briefing. */
  function requests(plan: CompactPlan): ReturnType<typeof summaryRequest>[] {
    const out: ReturnType<typeof summaryRequest>[] = [];
    for (let i = 0; i < plan.summary.calls; i++)
      out.push(summaryRequest(plan, i, i === 0 ? undefined : `briefing of part ${i} ${'b'.repeat(20_000)}`));
    return out;
  }

  it('cuts a head ten windows long into pieces that each fit, at user boundaries, every message once and in order', () => {
    const evs = toolTurns(120, 1_200);
    const plan = expectTier3(planResume(evs, { window: 4_000, summaryWindow: 2_000 }));
    const { summary } = plan;
    expect(summary.inputLimit).toBe(2_000 - summary.maxBriefingTokens);
    expect(summary.calls).toBeGreaterThanOrEqual(10);
    const rs = requests(plan);
    const sent: unknown[] = [];
    rs.forEach((r, i) => {
      expect(r.inputTokens).toBeLessThanOrEqual(summary.inputLimit);
      const recount = r.messages.reduce<number>((n, m) => n + estimateTokens(m), estimateTokens(r.instructions));
      expect(r.inputTokens).toBe(recount);
      expect(r.inputTokens).toBeLessThanOrEqual(at(summary.pieces, i).inputTokens);
      expect(r.piece).toEqual({ index: i, count: summary.calls });
      expect(r.shortened).toBeUndefined();
      const own = i === 0 ? r.messages : r.messages.slice(1);
      if (i > 0) expect((r.messages[0] as { content: string }).content).toContain(`briefing of part ${i}`);
      expect((own[0] as { role: string; content: string }).content).toMatch(/^turn \d+ /);
      sent.push(...own);
    });
    const head = evs.filter((e) => e.seq <= summary.coversThrough);
    const expected = head.flatMap(({ event: e }) =>
      e.kind === 'agent' ? e.messages : [{ role: e.kind, content: (e as { content: unknown }).content }],
    );
    expect(sent).toStrictEqual(expected);
    expect(summary.pieces.map((p) => p.coversThrough)).toStrictEqual([...summary.pieces.map((p) => p.coversThrough)].sort((a, b) => a - b));
    expect(summary.pieces.at(-1)!.coversThrough).toBe(summary.coversThrough);
    expect(summary.inputTokens).toBe(summary.pieces.reduce((n, p) => n + p.inputTokens, 0));
    // The briefing so far is cut to maxBriefingTokens, so the next piece still fits.
    expect(estimateTokens(at(rs, 1).messages[0])).toBeLessThanOrEqual(estimateTokens(briefingMessage('')) + summary.maxBriefingTokens);
  });

  it('shortens a turn larger than a piece: its oldest tool outputs first, and says so', () => {
    const evs = numbered([
      user('start'),
      agent(
        toolUse('a'),
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'A'.repeat(6_000) }] },
        toolUse('b'),
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: 'B'.repeat(6_000) }] },
        toolUse('c'),
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: 'C'.repeat(1_000) }] },
      ),
      user('next'),
      assistant('ok'),
    ]);
    const plan = expectTier3(planResume(evs, { window: 3_000, keepTurns: 1, summaryWindow: 2_000 }));
    expect(plan.summary.calls).toBe(1);
    expect(at(plan.summary.pieces, 0).oversized).toBe(true);
    const r = summaryRequest(plan, 0);
    expect(r.inputTokens).toBeLessThanOrEqual(plan.summary.inputLimit);
    expect(r.shortened).toEqual({ toolOutputs: 2, messages: 0 });
    expect(r.instructions).toContain('2 tool outputs were elided (oldest first)');
    const text = JSON.stringify(r.messages);
    expect(text).not.toContain('AAAA');
    expect(text).not.toContain('BBBB');
    expect(text).toContain('C'.repeat(1_000));
    expect(text).toContain('[tool output elided for the summariser: 6000 characters');
    // The stored events are untouched.
    expect(JSON.stringify(evs)).toContain('A'.repeat(6_000));
  });

  it('cuts the longest messages when eliding every tool output is not enough', () => {
    const evs = numbered([user('x'.repeat(20_000)), assistant('y'.repeat(20_000)), user('next'), assistant('ok')]);
    const plan = expectTier3(planResume(evs, { window: 3_000, keepTurns: 1, summaryWindow: 2_000 }));
    const r = summaryRequest(plan, 0);
    expect(r.inputTokens).toBeLessThanOrEqual(plan.summary.inputLimit);
    expect(r.shortened).toEqual({ toolOutputs: 0, messages: 2 });
    expect(JSON.stringify(r.messages)).toContain('[message cut for the summariser:');
  });

  it('a rolling compact covers through its piece; planning again from it gives the remaining pieces', () => {
    const evs = toolTurns(60, 1_200);
    const opts = { window: 4_000, summaryWindow: 2_000 };
    const plan = expectTier3(planResume(evs, opts));
    expect(plan.summary.calls).toBeGreaterThan(4);
    expect(() => rollingCompact(plan, plan.summary.calls - 1, 'x')).toThrow(RangeError);
    expect(() => summaryRequest(plan, 1)).toThrow(RangeError);
    const ev = rollingCompact(plan, 2, 'FACT ' + 'z'.repeat(40_000));
    expect(ev).toMatchObject({ kind: 'compact', coversThrough: at(plan.summary.pieces, 2).coversThrough, rolling: true });
    expect(estimateTokens(briefingMessage(ev.briefing))).toBeLessThanOrEqual(
      estimateTokens(briefingMessage('')) + plan.summary.maxBriefingTokens,
    );
    const again = expectTier3(planResume([...evs, { seq: evs.length, event: { ...ev, t: T0 } as SessionEvent }], opts));
    expect(again.priorCompactSeq).toBe(evs.length);
    expect(again.summary.pieces.map((p) => p.coversThrough)).toStrictEqual(plan.summary.pieces.slice(3).map((p) => p.coversThrough));
    expect((summaryRequest(again, 0).messages[0] as { content: string }).content).toContain('FACT ');
    expect(again.tailStartSeq).toBe(plan.tailStartSeq);
  });

  it('refuses a summary window that cannot hold the instructions and a briefing', () => {
    expect(() => planResume(toolTurns(20, 1_000), { window: 4_000, summaryWindow: 300 })).toThrow(/summaryWindow 300 is too small/);
    expect(() => planResume(toolTurns(20, 1_000), { window: 4_000, summaryWindow: 1.5 })).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------
// Property: for random sessions, tier 3 cuts at a user event, never inside a tool pair, and the
// resumed context fits B. fast-check prints the seed and path on failure; FC_SEED replays one.

interface TurnSpec {
  userLen: number;
  mode: 'chat' | 'agent';
  style: 'anthropic' | 'openai';
  tools: number;
  openCall: boolean; // leave one call open; its result comes in the next agent event
  replyLen: number;
  marker: 'none' | 'interrupted' | 'reload' | 'reaped' | 'checkpoint';
  gap: boolean;
}

const turnArb: fc.Arbitrary<TurnSpec> = fc.record({
  userLen: fc.integer({ min: 1, max: 3_000 }),
  mode: fc.constantFrom('chat', 'agent'),
  style: fc.constantFrom('anthropic', 'openai'),
  tools: fc.integer({ min: 0, max: 3 }),
  openCall: fc.boolean(),
  replyLen: fc.integer({ min: 0, max: 4_000 }),
  marker: fc.constantFrom('none', 'none', 'none', 'interrupted', 'reload', 'reaped', 'checkpoint'),
  gap: fc.boolean(),
});

function buildSession(turns: TurnSpec[], compactAt: number | null): SeqEvent[] {
  const out: SeqEvent[] = [];
  let seq = 0;
  let pending: { id: string; style: TurnSpec['style'] } | null = null;
  let callNo = 0;
  const push = (event: SessionEvent) => out.push({ seq: seq++, event });
  const use = (id: string, style: TurnSpec['style']) =>
    style === 'anthropic'
      ? toolUse(id)
      : { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'run', arguments: '{}' } }] };
  const result = (id: string, style: TurnSpec['style']) =>
    style === 'anthropic' ? toolResult(id) : { role: 'tool', tool_call_id: id, content: 'ok' };

  turns.forEach((t, i) => {
    if (t.gap) seq++; // an unreadable line
    push(user('u'.repeat(t.userLen)));
    if (t.mode === 'chat') {
      push(assistant([{ type: 'text', text: 'a'.repeat(t.replyLen) }]));
    } else {
      const msgs: unknown[] = [{ role: 'user', content: 'u'.repeat(Math.min(t.userLen, 50)) }];
      if (pending) {
        msgs.push(result(pending.id, pending.style));
        pending = null;
      }
      for (let k = 0; k < t.tools; k++) {
        const id = `call_${callNo++}`;
        msgs.push(use(id, t.style), result(id, t.style));
      }
      msgs.push({ role: 'assistant', content: 'r'.repeat(t.replyLen) });
      if (t.openCall) {
        const id = `call_${callNo++}`;
        msgs.push(use(id, t.style));
        pending = { id, style: t.style };
      }
      push(agent(...msgs));
    }
    if (t.marker !== 'none') push(marker(t.marker, t.marker === 'reaped' ? { command: 'npm run dev' } : {}));
    if (compactAt === i) push(compact('b'.repeat(200), Math.max(0, seq - 3)));
  });
  return out;
}

describe('property: tier-3 cut', () => {
  it('starts the tail at a user event, never inside a tool pair, and fits B', () => {
    const seedEnv = process.env.FC_SEED;
    fc.assert(
      fc.property(
        fc.array(turnArb, { minLength: 1, maxLength: 30 }),
        fc.option(fc.nat({ max: 29 }), { nil: null }),
        fc.integer({ min: 1_000, max: 20_000 }),
        fc.constantFrom(0.2, 0.4, 0.7, 1),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 40_000 }),
        (turns, compactAt, window, budgetRatio, keepTurns, briefingLen) => {
          const events = buildSession(turns, compactAt);
          const plan = planResume(events, { window, budgetRatio, keepTurns });
          const B = plan.budget;
          if (plan.tier === 1) {
            expect(plan.context.estimate).toBe(plan.transcriptTokens);
            expect(plan.transcriptTokens).toBeLessThanOrEqual(B);
            return;
          }
          if (plan.tier === 2) {
            expect(plan.context.estimate).toBeLessThanOrEqual(B);
            return;
          }
          expect(plan.transcriptTokens).toBeGreaterThan(B);
          expect(plan.keptTurns).toBeLessThanOrEqual(keepTurns);
          // The head is what the planner summarises: after the prior compact's coversThrough.
          const prior = plan.priorCompactSeq === null ? null : events.find((e) => e.seq === plan.priorCompactSeq)!;
          const from = prior ? (prior.event as { coversThrough: number }).coversThrough : -1;
          const tailStart = plan.tailStartSeq ?? Infinity;
          const head = events.filter((e) => e.seq > from && e.seq < tailStart);
          const tail = events.filter((e) => e.seq >= tailStart);
          if (plan.tailStartSeq !== null) expect(at(tail, 0).event.kind).toBe('user');
          if (prior === null) expect(head.length).toBeGreaterThan(0);
          const headIds = new Set(head.flatMap((e) => toolIds(e.event)));
          for (const e of tail) for (const id of toolIds(e.event)) expect(headIds.has(id)).toBe(false);
          expect(plan.summary.coversThrough).toBe(head.length ? at(head, head.length - 1).seq : from);

          const applied = applyBriefing(plan, 'b'.repeat(briefingLen));
          const { conversation, agentMessages, estimate } = applied.context;
          expect(estimate).toBeLessThanOrEqual(B);
          const recount = [...conversation, ...agentMessages].reduce<number>((s, m) => s + estimateTokens(m), 0);
          expect(estimate).toBe(recount);
          // Nothing of the head is in the result by reference.
          const headObjects = new Set<unknown>(
            head.flatMap((e) => (e.event.kind === 'agent' ? e.event.messages : e.event.kind === 'assistant' ? [e.event.content] : [])),
          );
          for (const m of agentMessages) expect(headObjects.has(m)).toBe(false);
          for (const m of conversation) expect(headObjects.has((m as { content: unknown }).content)).toBe(false);
        },
      ),
      { numRuns: 300, seed: seedEnv === undefined ? undefined : Number(seedEnv) },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// What the sidecar uses to plan from a compact event without reading a long session whole: the
// tokens before the events given (earlierTokens), bounded from below (floorTokens).

describe('planning from a compact event: earlierTokens and floorTokens', () => {
  const tail = numbered([compact(h(5), 3), user(h(5)), assistant(h(5))], [4, 5, 6]);

  it('earlierTokens counts toward T: a tail that fits is tier 1 alone, tier 2 once what precedes it is known to be too big', () => {
    expect(planResume(tail, { window: 100, counter: hashes }).tier).toBe(1);
    const plan = planResume(tail, { window: 100, counter: hashes, earlierTokens: 80 });
    expect(plan.tier).toBe(2);
    expect(plan.transcriptTokens).toBe(80 + 10); // a compact event is not transcript
    // The same context as a plan over the whole session.
    const whole = planResume([...numbered([user(h(20)), assistant(h(20)), user(h(20)), assistant(h(20))]), ...tail], {
      window: 100,
      counter: hashes,
    });
    expect(whole.tier).toBe(2);
    if (plan.tier !== 2 || whole.tier !== 2) return;
    expect(plan.context).toStrictEqual(whole.context);
    expect(plan.compactSeq).toBe(whole.compactSeq);
  });

  it('refuses an earlierTokens that is not a finite number >= 0', () => {
    for (const bad of [-1, Number.NaN, Infinity]) {
      expect(() => planResume(tail, { window: 100, earlierTokens: bad })).toThrow(RangeError);
    }
  });

  it("floorTokens is the exact cost of chat events and notes, and the client's count when given", () => {
    const u = { seq: 0, event: user('hello there') };
    const plan = planResume([u], { window: 1e6 });
    expect(floorTokens(u)).toBe(plan.transcriptTokens);
    expect(floorTokens({ seq: 1, event: marker('interrupted') })).toBe(
      planResume([{ seq: 1, event: marker('interrupted') }], { window: 1e6 }).transcriptTokens,
    );
    expect(floorTokens({ seq: 2, event: agent(toolUse('a'), toolResult('a')) }, { 2: 7 })).toBe(7);
  });

  it("property: floorTokens never exceeds the event's cost however the soft cap elides it", () => {
    const payload = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc.array(fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 200 }) }), { maxLength: 3 }),
    );
    const message = fc.oneof(
      fc.record({ role: fc.constant('assistant'), content: fc.string({ maxLength: 200 }) }),
      fc.record({ role: fc.constant('tool'), tool_call_id: fc.string({ maxLength: 8 }), content: payload }),
      fc.record({
        role: fc.constant('user'),
        content: fc.array(
          fc.oneof(
            fc.record({ type: fc.constant('tool_result'), tool_use_id: fc.string({ maxLength: 8 }), content: payload }),
            fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 100 }) }),
          ),
          { maxLength: 4 },
        ),
      }),
    );
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), fc.nat({ max: 6000 }), (messages, cap) => {
        const se: SeqEvent = { seq: 3, event: agent(...messages) };
        const floor = floorTokens(se);
        const size = Buffer.byteLength(JSON.stringify(se.event));
        for (const c of [0, cap, size]) {
          const elided = elideToCap([se], size, c).events;
          expect(floor).toBeLessThanOrEqual(planResume(elided, { window: 1e9 }).transcriptTokens);
        }
      }),
      { numRuns: 300 },
    );
  });
});
