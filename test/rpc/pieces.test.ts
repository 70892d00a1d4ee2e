// Issue 29 through the real sidecar process: a head many times larger than the summariser's
// window is summarised in pieces that each fit it, through the summarize callback and through
// the two-step flow. The fake editor's model refuses any request larger than its window (as
// vscode.lm does past maxInputTokens), and summarises by copying the lines with "FACT:" (so a
// fact reaches the resumed context only if every piece carried it on). Interrupted resumes
// (cancelled, failed, the sidecar stopped) go on from the last rolling briefing on the next
// try without asking for a finished piece twice; the file only ever grows by compact events.
// Every wait is for an event, never for a time.

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
import { BRIEFING_HEADER, TIER3_NOTE } from '../../server/resume/resume.js';
import { estimateTokens } from '../../server/resume/tokens.js';
import { at } from '../helpers/items.js';

afterEach(cleanup);

type Ev = Record<string, unknown> & { kind: string };
type Summarize = {
  id: string;
  messages: unknown[];
  instructions: string;
  piece?: { index: number; count: number };
  coversThrough?: number;
  shortened?: unknown;
};

/** The summariser's window, and the resume's: the head below is over ten of these. */
const WINDOW = 3_000;
const FACT = 'FACT: the staging database is pg-stage-7 on port 6432';

/** What a request costs the fake model: its messages and instructions, estimated. */
const inputOf = (p: { messages: unknown[]; instructions: string }) =>
  p.messages.reduce<number>((n, m) => n + estimateTokens(m), estimateTokens(p.instructions));

/** The fake model: refuses a request over `window`; else the "FACT:" lines it was sent. */
function model(window = WINDOW) {
  return (p: Omit<Summarize, 'id'>) => {
    const n = inputOf(p);
    if (n > window) throw new ResponseError(-32603, `input of ${n} tokens exceeds the model's window of ${window}`);
    const lines = new Set<string>();
    const walk = (v: unknown): void => {
      if (typeof v === 'string') for (const l of v.split('\n')) if (l.includes('FACT:')) lines.add(l.slice(l.indexOf('FACT:')).trim());
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    walk(p.messages);
    return { briefing: [...lines, `(through seq ${p.coversThrough})`].join('\n') };
  };
}

/** `turns` turns of ~600 tokens, each with a tool pair; the fact only in the first message. */
function session(turns: number): Ev[] {
  const events: Ev[] = [];
  for (let i = 0; i < turns; i++) {
    const pad = 'lorem ipsum '.repeat(60);
    events.push({ kind: 'user', content: i === 0 ? `Set up the staging deploy.\n${FACT}\nTURN-${i} ${pad}` : `TURN-${i}: go on. ${pad}` });
    events.push({
      kind: 'assistant',
      content: [
        { type: 'text', text: `On it (${i}).` },
        { type: 'tool_use', id: `t${i}`, name: 'bash', input: { cmd: `make s${i}` } },
      ],
    });
    events.push({
      kind: 'agent',
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'bash', input: { cmd: `make s${i}` } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `built ${i} ${pad}` }] },
      ],
    });
  }
  return events;
}

const start = (o: Partial<StartOptions> & { root: string }): Promise<Sidecar> => startSidecar({ trace: 'messages', ...o });
const sessionWith = (s: Sidecar, project: string, events: Ev[]) => newSession(s, project, events, { batch: 500, settleTitle: true });
const summarizeCalls = (s: Sidecar) =>
  s.editor.calls.items.filter((c) => c.method === 'session/summarize').map((c) => c.params as Summarize);

/** The TURN-n markers a request carries (the briefing so far carries none: it is facts only). */
const turnsIn = (p: { messages: unknown[] }) => [...JSON.stringify(p.messages).matchAll(/TURN-(\d+)/g)].map((m) => Number(m[1]));

/** The session file's lines after the transcript's, parsed; and a check that the transcript's bytes are untouched. */
function appendedSince(root: string, id: string, before: Buffer): Ev[] {
  const now = readFileSync(fileOf(root, id));
  expect(now.subarray(0, before.length)).toEqual(before);
  return now
    .subarray(before.length)
    .toString('utf8')
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Ev);
}

const contextTokens = (r: { conversation: unknown[]; agentMessages: unknown[] }): number =>
  [...r.conversation, ...r.agentMessages].reduce<number>((n, m) => n + estimateTokens(m), 0);

describe('a head ten windows long, through the summarize callback', () => {
  it('resumes into that window: every request fits, a fact of the first piece reaches the context, the file only grows by compact events', async () => {
    const { root, project } = workspace();
    const s = await start({ root, callbacks: ['summarize'], editor: { summarize: model() } });
    const id = await sessionWith(s, project, session(80));
    const before = readFileSync(fileOf(root, id));

    const ask = await s.call(P.sessionResume, { id, contextWindow: WINDOW, consentThreshold: 20_000 });
    expect(ask.tokens!.transcript).toBeGreaterThan(10 * WINDOW);
    const { calls, inputTokens } = ask.needsConfirmation!;
    expect(calls).toBeGreaterThanOrEqual(10);
    expect(inputTokens).toBeGreaterThan(10 * WINDOW);
    expect(summarizeCalls(s)).toEqual([]);
    expect(readFileSync(fileOf(root, id))).toEqual(before);

    const r = await s.call(P.sessionResume, {
      id,
      contextWindow: WINDOW,
      consentThreshold: 20_000,
      confirm: true,
      workDoneToken: 'resume-1',
    });
    expect(r).toMatchObject({ tier: 3, note: TIER3_NOTE });
    expect(r.conversation[0]).toEqual(r.agentMessages[0]);
    expect((r.conversation[0] as { content: string }).content.startsWith(`${BRIEFING_HEADER}\n\n${FACT}\n`)).toBe(true);
    expect(contextTokens(r)).toBeLessThanOrEqual(r.tokens!.budget);

    // As many calls as consented to, in order, each within the window, each turn sent once.
    const sent = summarizeCalls(s);
    expect(sent).toHaveLength(calls);
    expect(sent.map((c) => c.piece)).toEqual(sent.map((_, index) => ({ index, count: calls })));
    for (const c of sent) expect(inputOf(c)).toBeLessThanOrEqual(WINDOW);
    const seen = sent.flatMap(turnsIn);
    expect(new Set(seen).size).toBe(seen.length);
    // Progress piece by piece.
    const reports = s.editor.progress.items.filter((p) => p.token === 'resume-1' && p.value.message).map((p) => p.value.message);
    for (let i = 1; i <= calls; i++) expect(reports).toContain(`Summarising part ${i} of ${calls} of the earlier session`);

    // The transcript is whole; after it, one rolling compact event per piece but the last, then the final one.
    const added = appendedSince(root, id, before);
    expect(added.map((e) => e.kind)).toEqual(Array(calls).fill('compact'));
    expect(added.slice(0, -1).every((e) => e.rolling === true)).toBe(true);
    expect(added.at(-1)!.rolling).toBeUndefined();
    expect(added.map((e) => e.coversThrough)).toEqual(sent.map((c) => c.coversThrough));
    for (const e of added) expect(String(e.briefing)).toContain(FACT);

    // The next resume is tier 2 on the final briefing, without a call.
    const again = await s.call(P.sessionResume, { id, contextWindow: WINDOW });
    expect(again.tier).toBe(2);
    expect(summarizeCalls(s)).toHaveLength(calls);
    await s.stop();
  });

  it('shortens a turn larger than a piece (its tool outputs elided first) and says so in the request', async () => {
    const { root, project } = workspace();
    const s = await start({
      root,
      callbacks: ['summarize'],
      editor: { summarize: model() },
      initializationOptions: { consentThreshold: 10_000_000 },
    });
    const events = session(12);
    (events[5] as Ev & { messages: { content: { content: string }[] }[] }).messages[1]!.content[0]!.content =
      `huge output ${'x'.repeat(4 * 3 * WINDOW)}`;
    const id = await sessionWith(s, project, events);
    const r = await s.call(P.sessionResume, { id, contextWindow: WINDOW });
    expect(r.tier).toBe(3);
    const sent = summarizeCalls(s);
    for (const c of sent) expect(inputOf(c)).toBeLessThanOrEqual(WINDOW);
    const short = sent.filter((c) => c.shortened);
    expect(short).toHaveLength(1);
    expect(at(short, 0).shortened).toMatchObject({ toolOutputs: 1, messages: 0 });
    expect(at(short, 0).instructions).toContain('1 tool outputs were elided (oldest first)');
    expect(JSON.stringify(at(short, 0).messages)).toContain('[tool output elided for the summariser:');
    expect(turnsIn(at(short, 0))).toContain(1);
    expect(readFileSync(fileOf(root, id), 'utf8')).toContain('x'.repeat(4 * 3 * WINDOW));
    await s.stop();
  });
});

describe('an interrupted compaction goes on from where it stopped', () => {
  it('cancelled during the fourth piece: three rolling briefings kept; a new sidecar asks only for the rest', async () => {
    const { root, project } = workspace();
    let answered = 0;
    let cancelNow: () => void = () => {};
    const answer = model();
    const s = await start({
      root,
      callbacks: ['summarize'],
      initializationOptions: { consentThreshold: 10_000_000 },
      editor: {
        summarize: (p) => {
          if (answered === 3) {
            cancelNow();
            return new Promise(() => {}); // the model never answers: the resume is cancelled meanwhile
          }
          answered++;
          return answer(p as Summarize);
        },
      },
    });
    const id = await sessionWith(s, project, session(80));
    const before = readFileSync(fileOf(root, id));
    const cts = new CancellationTokenSource();
    cancelNow = () => cts.cancel();
    const e = await s.error('session/resume', { id, contextWindow: WINDOW }, cts);
    expect(e.code).toBe(RpcErrorCodes.RequestCancelled);
    const first = summarizeCalls(s);
    expect(first).toHaveLength(4);
    const kept = appendedSince(root, id, before);
    expect(kept).toHaveLength(3);
    expect(kept.every((k) => k.kind === 'compact' && k.rolling === true)).toBe(true);
    expect(kept.map((k) => k.coversThrough)).toEqual(first.slice(0, 3).map((c) => c.coversThrough));
    await s.stop();

    // A new sidecar (the editor restarted): the consent figure is what is left; no piece twice.
    const s2 = await start({ root, callbacks: ['summarize'], editor: { summarize: model() } });
    const ask = await s2.call(P.sessionResume, { id, contextWindow: WINDOW, consentThreshold: 0 });
    const total = at(first, 0).piece!.count;
    expect(ask.needsConfirmation!.calls).toBe(total - 3);
    const r = await s2.call(P.sessionResume, { id, contextWindow: WINDOW, consentThreshold: 0, confirm: true });
    expect(r.tier).toBe(3);
    expect((r.conversation[0] as { content: string }).content).toContain(FACT);
    const rest = summarizeCalls(s2);
    expect(rest).toHaveLength(total - 3);
    expect(at(rest, 0).messages[0]).toEqual({ role: 'user', content: `${BRIEFING_HEADER}\n\n${at(kept, 2).briefing}` });
    const done = first.slice(0, 3).flatMap(turnsIn);
    for (const c of rest) for (const t of turnsIn(c)) expect(done).not.toContain(t);
    expect(new Set([...done, ...rest.flatMap(turnsIn)]).size).toBe(done.length + rest.flatMap(turnsIn).length);
    const added = appendedSince(root, id, before);
    expect(added).toHaveLength(3 + rest.length);
    expect(added.at(-1)).toMatchObject({ kind: 'compact', coversThrough: rest.at(-1)!.coversThrough });
    await s2.stop();
  });

  it('a model that fails on a piece: CallbackFailed, the pieces before it kept, the one that failed not written', async () => {
    const { root, project } = workspace();
    let n = 0;
    const answer = model();
    const s = await start({
      root,
      callbacks: ['summarize'],
      initializationOptions: { consentThreshold: 10_000_000 },
      editor: { summarize: (p) => (++n === 3 ? Promise.reject(new ResponseError(-32603, 'rate limited')) : answer(p as Summarize)) },
    });
    const id = await sessionWith(s, project, session(80));
    const before = readFileSync(fileOf(root, id));
    const e = await s.error('session/resume', { id, contextWindow: WINDOW });
    expect(e.code).toBe(RpcErrorCodes.CallbackFailed);
    expect(e.message).toContain('the 2 parts summarised before are kept');
    expect(appendedSince(root, id, before).map((k) => k.rolling)).toEqual([true, true]);
    // The same sidecar, again: piece 3 onwards.
    const r = await s.call(P.sessionResume, { id, contextWindow: WINDOW });
    expect(r.tier).toBe(3);
    const calls = summarizeCalls(s);
    expect(at(calls, 3).coversThrough).toBe(at(calls, 2).coversThrough);
    expect(turnsIn(at(calls, 3))).toEqual(turnsIn(at(calls, 2)));
    await s.stop();
  });
});

describe('the two-step flow', () => {
  it('session/compact answers the next piece until the last; stopped after two, a new sidecar goes on from the second', async () => {
    const { root, project } = workspace();
    const s = await start({ root, initializationOptions: { consentThreshold: 10_000_000 } });
    const id = await sessionWith(s, project, session(80));
    const before = readFileSync(fileOf(root, id));
    const summarise = model();
    let r = await s.call(P.sessionResume, { id, contextWindow: WINDOW });
    const count = r.needsSummary!.piece.count;
    expect(count).toBeGreaterThanOrEqual(10);
    const firstRun: number[] = [];
    for (let i = 0; i < 2; i++) {
      const need = r.needsSummary!;
      expect(need.piece).toEqual({ index: i, count });
      expect(need.inputTokens).toBeLessThanOrEqual(WINDOW);
      expect(inputOf(need)).toBe(need.inputTokens);
      firstRun.push(...turnsIn(need));
      r = await s.call(P.sessionCompact, { id, coversThrough: need.coversThrough, briefing: summarise(need).briefing });
      expect(r).toMatchObject({ tier: 3, conversation: [], agentMessages: [] });
    }
    // A briefing for a piece already recorded is refused.
    expect((await s.error('session/compact', { id, briefing: 'again', coversThrough: -1 + r.needsSummary!.coversThrough })).code).toBe(
      RpcErrorCodes.ContentModified,
    );
    expect(appendedSince(root, id, before).map((e) => e.rolling)).toEqual([true, true]);
    await s.stop();

    const s2 = await start({ root, initializationOptions: { consentThreshold: 10_000_000 } });
    r = await s2.call(P.sessionResume, { id, contextWindow: WINDOW });
    expect(r.needsSummary!.piece).toEqual({ index: 0, count: count - 2 });
    let pieces = 0;
    while (r.needsSummary) {
      const need = r.needsSummary;
      expect(inputOf(need)).toBeLessThanOrEqual(WINDOW);
      for (const t of turnsIn(need)) expect(firstRun).not.toContain(t);
      r = await s2.call(P.sessionCompact, { id, coversThrough: need.coversThrough, briefing: summarise(need).briefing });
      pieces++;
    }
    expect(pieces).toBe(count - 2);
    expect(r).toMatchObject({ tier: 3, note: TIER3_NOTE });
    expect((r.conversation[0] as { content: string }).content).toContain(FACT);
    expect(contextTokens(r)).toBeLessThanOrEqual(r.tokens!.budget);
    const added = appendedSince(root, id, before);
    expect(added).toHaveLength(count);
    expect(added.filter((e) => e.rolling === true)).toHaveLength(count - 1);
    await s2.stop();
  });

  it('a summary window the client names: pieces fit it, not the resume window', async () => {
    const { root, project } = workspace();
    const s = await start({ root, initializationOptions: { consentThreshold: 10_000_000 } });
    const id = await sessionWith(s, project, session(30));
    const small = await s.call(P.sessionResume, { id, contextWindow: 100_000, budgetRatio: 0.05, summaryWindow: 2_000 });
    const large = await s.call(P.sessionResume, { id, contextWindow: 100_000, budgetRatio: 0.05 });
    expect(small.needsSummary!.inputTokens).toBeLessThanOrEqual(2_000);
    expect(small.needsSummary!.piece.count).toBeGreaterThan(large.needsSummary!.piece.count);
    expect(large.needsSummary!.piece.count).toBe(1);
    expect((await s.error('session/resume', { id, contextWindow: 100_000, budgetRatio: 0.05, summaryWindow: 200 })).code).toBe(
      RpcErrorCodes.InvalidParams,
    );
    await s.stop();
  });
});
