// The resume workflow (server/resume/workflow.ts) in-process: a real store in a temp dir and a
// plain `summarize` function, no sidecar, no process. Tiers 1 to 3, consent before anything is
// written, the callback flow piece by piece, the two-step flow (resumeSession's needsSummary,
// then continueCompaction), and the failures: an empty briefing, a summariser that fails or a
// resume cancelled after k pieces keeping exactly those k, a briefing no flow waits for.

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SeqEvent } from '../../server/format/events.js';
import { TIER2_NOTE, TIER3_NOTE } from '../../server/resume/resume.js';
import {
  continueCompaction,
  PendingResumes,
  type PieceRequest,
  ResumeError,
  type ResumeRequest,
  resumeSession,
} from '../../server/resume/workflow.js';
import { SessionStore } from '../../server/store/store.js';

/** The resume's window; the head of `session(40)` is several of these. */
const WINDOW = 3_000;
const FACT = 'FACT: the staging database is pg-stage-7 on port 6432';

let tmp: string;
let store: SessionStore;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-workflow-'));
  await mkdir(join(tmp, 'project'));
  store = new SessionStore({ root: join(tmp, 'store'), agent: 'test' });
});
afterAll(async () => {
  await store.releaseAll();
  await rm(tmp, { recursive: true, force: true });
});

/** `turns` turns of ~600 tokens, each with a tool pair; the fact only in the first message. */
function turns(n: number): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  const pad = 'lorem ipsum '.repeat(60);
  for (let i = 0; i < n; i++) {
    events.push({ kind: 'user', content: i === 0 ? `Set up the staging deploy.\n${FACT}\nTURN-${i} ${pad}` : `TURN-${i}: go on. ${pad}` });
    events.push({ kind: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'bash', input: { cmd: `make s${i}` } }] });
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

async function session(n: number): Promise<string> {
  const meta = await store.create({ project: join(tmp, 'project') });
  await store.append(meta.id, turns(n));
  await store.release(meta.id);
  return meta.id;
}

const all = async (id: string): Promise<SeqEvent[]> => (await store.load(id)).events;
const compacts = (events: SeqEvent[]) =>
  events.filter((e) => e.event.kind === 'compact').map((e) => e.event as { rolling?: true; coversThrough: number; briefing: string });

/** A summariser that copies the "FACT:" lines it was sent (so a fact survives only if every piece carried it on). */
function summariser(o: { failAt?: number; empty?: boolean; onCall?: (r: PieceRequest) => void } = {}) {
  const calls: PieceRequest[] = [];
  const summarize = async (r: PieceRequest): Promise<string> => {
    calls.push(r);
    o.onCall?.(r);
    if (r.piece.index === o.failAt) throw new Error('the model is unavailable');
    if (o.empty) return ' ';
    const facts = new Set([...JSON.stringify(r.messages).matchAll(/FACT:[^"\\]*/g)].map((m) => m[0].trim()));
    return [...facts, `(piece ${r.piece.index} through seq ${r.coversThrough})`].join('\n');
  };
  return { calls, summarize };
}

const ask = (id: string, more: Partial<ResumeRequest> = {}): ResumeRequest => ({
  id,
  contextWindow: WINDOW,
  consentThreshold: 1_000_000,
  ...more,
});

describe('resumeSession', () => {
  it('tier 1: the whole conversation, the lock taken, nothing written', async () => {
    const id = await session(2);
    const before = await all(id);
    const r = await resumeSession(ask(id), { store, pending: new PendingResumes() });
    expect(r).toMatchObject({ id, tier: 1, readOnly: false, problems: [] });
    expect(r.conversation.length).toBeGreaterThan(0);
    expect(r.tokens.transcript).toBeLessThanOrEqual(r.tokens.budget);
    expect(store.holds(id)).toBe(true);
    expect(await all(id)).toEqual(before);
    await store.release(id);
  });

  it('tier 3 above the threshold asks first: needsConfirmation, no summary, no write, no lock kept', async () => {
    const id = await session(40);
    const before = await all(id);
    const s = summariser();
    const r = await resumeSession(ask(id, { consentThreshold: 1_000 }), { store, pending: new PendingResumes(), summarize: s.summarize });
    expect(r.tier).toBe(3);
    expect(r.needsConfirmation).toMatchObject({ threshold: 1_000 });
    expect(r.needsConfirmation!.calls).toBeGreaterThan(1);
    expect(r.needsConfirmation!.inputTokens).toBeGreaterThan(1_000);
    expect(s.calls).toEqual([]);
    expect(await all(id)).toEqual(before);
    expect(store.holds(id)).toBe(false);
  });

  it('tier 3 through summarize: one call a piece in order, a rolling compact each but the last, then tier 2 from it', async () => {
    const id = await session(40);
    const before = await all(id);
    const s = summariser();
    const progress: string[] = [];
    const r = await resumeSession(ask(id, { consentThreshold: 1_000, confirm: true, target: 'anthropic' }), {
      store,
      pending: new PendingResumes(),
      summarize: s.summarize,
      progress: (m) => progress.push(m),
    });
    const n = s.calls.length;
    expect(n).toBeGreaterThan(1);
    expect(s.calls.map((c) => c.piece)).toEqual([...Array(n).keys()].map((index) => ({ index, count: n })));
    expect(s.calls.every((c) => c.id === id && c.target === 'anthropic')).toBe(true);
    expect(progress).toEqual([...Array(n).keys()].map((i) => `Summarising part ${i + 1} of ${n} of the earlier session`));
    // The file grew by exactly n compact events, n-1 of them rolling, each after the transcript.
    const after = await all(id);
    expect(after.slice(0, before.length)).toEqual(before);
    const added = compacts(after.slice(before.length));
    expect(added).toHaveLength(n);
    expect(added.map((c) => c.rolling === true)).toEqual([...Array(n).keys()].map((i) => i < n - 1));
    expect(added.map((c) => c.coversThrough)).toEqual(s.calls.map((c) => c.coversThrough));
    // The fact of the first piece reached the context through every piece's briefing.
    expect(r).toMatchObject({ tier: 3, target: 'anthropic', conversation: [], agentMessages: [] });
    expect(r.note?.startsWith(TIER3_NOTE)).toBe(true);
    expect(JSON.stringify(r.messages)).toContain(FACT);
    // The next resume starts from that compact event: tier 2, no summary.
    const again = summariser();
    const r2 = await resumeSession(ask(id), { store, pending: new PendingResumes(), summarize: again.summarize });
    expect(r2.tier).toBe(2);
    expect(r2.note).toBe(TIER2_NOTE);
    expect(again.calls).toEqual([]);
    expect(JSON.stringify(r2.conversation)).toContain(FACT);
    await store.release(id);
  });

  it('a summariser failing at piece k keeps the k pieces before; the next resume goes on from them', async () => {
    const id = await session(40);
    const before = await all(id);
    const s = summariser({ failAt: 2 });
    await expect(resumeSession(ask(id), { store, pending: new PendingResumes(), summarize: s.summarize })).rejects.toThrow(
      'the model is unavailable',
    );
    const kept = compacts((await all(id)).slice(before.length));
    expect(kept).toHaveLength(2);
    expect(kept.every((c) => c.rolling)).toBe(true);
    expect(kept.map((c) => c.coversThrough)).toEqual(s.calls.slice(0, 2).map((c) => c.coversThrough));

    const next = summariser();
    const r = await resumeSession(ask(id), { store, pending: new PendingResumes(), summarize: next.summarize });
    expect(r.tier).toBe(3);
    // Fewer pieces this time, the first of them after the last kept briefing, which it carries.
    expect(next.calls.length).toBe(s.calls[0]!.piece.count - 2);
    expect(next.calls[0]!.coversThrough).toBe(s.calls[2]!.coversThrough);
    expect(JSON.stringify(next.calls[0]!.messages)).toContain(FACT);
    await store.release(id);
  });

  it('cancelled during piece 1: the signal rejects the resume, piece 0 is kept and piece 1 writes nothing', async () => {
    const id = await session(40);
    const before = await all(id);
    const ac = new AbortController();
    const s = summariser({ onCall: (r) => r.piece.index === 1 && ac.abort(new Error('cancelled by the user')) });
    await expect(
      resumeSession(ask(id), { store, pending: new PendingResumes(), summarize: s.summarize, signal: ac.signal }),
    ).rejects.toThrow('cancelled by the user');
    expect(s.calls).toHaveLength(2);
    expect(compacts((await all(id)).slice(before.length))).toHaveLength(1);
    await store.release(id);
  });

  it('an empty briefing is ResumeError empty-summary and appends nothing', async () => {
    const id = await session(40);
    const before = await all(id);
    const s = summariser({ empty: true });
    const err = await resumeSession(ask(id), { store, pending: new PendingResumes(), summarize: s.summarize }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResumeError);
    expect(err).toMatchObject({ code: 'empty-summary', message: 'the summary of part 1 is empty; the session is unchanged' });
    expect(await all(id)).toEqual(before);
    await store.release(id);
  });

  it('a request the planner refuses is ResumeError invalid with its message', async () => {
    const id = await session(2);
    const err = await resumeSession(ask(id, { budgetRatio: 2 }), { store, pending: new PendingResumes() }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invalid', message: 'budgetRatio must be in (0, 1], got 2' });
    await store.release(id);
  });
});

describe('the two-step flow: needsSummary, then continueCompaction', () => {
  it('hands out each piece in turn, appends each briefing, ends in the resumed context and forgets the plan', async () => {
    const id = await session(40);
    const before = await all(id);
    const pending = new PendingResumes();
    let r = await resumeSession(ask(id), { store, pending });
    expect(r).toMatchObject({ tier: 3, conversation: [], agentMessages: [] });
    expect(await all(id)).toEqual(before);
    const count = r.needsSummary!.piece.count;
    expect(count).toBeGreaterThan(1);
    const s = summariser();
    for (let i = 0; i < count; i++) {
      const need = r.needsSummary!;
      expect(need.piece).toEqual({ index: i, count });
      expect(pending.get(id)?.piece).toBe(i);
      const briefing = await s.summarize({ ...need, id } as PieceRequest);
      r = await continueCompaction({ store, pending }, { id, coversThrough: need.coversThrough, briefing });
    }
    expect(r.needsSummary).toBeUndefined();
    expect(r.note).toBe(TIER3_NOTE);
    expect(JSON.stringify(r.conversation)).toContain(FACT);
    expect(compacts((await all(id)).slice(before.length))).toHaveLength(count);
    expect(pending.get(id)).toBeUndefined();
    await store.release(id);
  });

  it('a briefing no flow waits for, or for a session changed since, is refused with a resume-again message', async () => {
    const id = await session(40);
    const pending = new PendingResumes();
    const r = await resumeSession(ask(id), { store, pending });
    const { coversThrough } = r.needsSummary!;
    await expect(continueCompaction({ store, pending }, { id, coversThrough: coversThrough + 1, briefing: 'b' })).rejects.toMatchObject({
      code: 'not-awaited',
      message: `no summary of ${id} through seq ${coversThrough + 1} is awaited (the session changed, or the sidecar restarted): resume again`,
    });
    await store.append(id, [{ kind: 'user', content: 'one more turn' }]);
    const before = await all(id);
    await expect(continueCompaction({ store, pending }, { id, coversThrough, briefing: 'b' })).rejects.toMatchObject({
      code: 'changed',
      message: `${id} changed since session/resume asked for its summary: resume again`,
    });
    expect(pending.get(id)).toBeUndefined();
    expect(await all(id)).toEqual(before);
    await store.release(id);
  });
});
