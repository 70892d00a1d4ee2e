// The resume workflow, door-neutral: take the session (or answer read-only when another process
// holds it), load what the plan needs, plan (resume.ts), and for tier 3 ask consent when the
// summary is costly, then summarise the head piece by piece through a `summarize` function the
// door supplies, appending a rolling compact event after each piece but the last; or, without
// one, hand out the first piece (`needsSummary`) and keep the plan in PendingResumes until the
// door brings each briefing back (continueCompaction). The sidecar's session/resume and
// session/compact are thin over it; the ACP proxy uses summarizePieces for its own summariser.
// Nothing is written before a briefing is in hand: a failed or cancelled summary keeps the
// pieces appended before it and writes nothing for its own.
// Depends on the store, format and resume; never on a door (its errors are ResumeError, which
// each door maps to its own codes).

import type { SeqEvent, SessionEvent } from '../format/events.js';
import { isStoreError } from '../store/errors.js';
import { forkSession } from '../store/fork.js';
import type { ReadResult, ResumeLoad, SessionStore } from '../store/store.js';
import { contextMessages, contextRange, summaryMessages } from './context.js';
import {
  type AppliedBriefing,
  applyBriefing,
  type CompactPlan,
  floorTokens,
  needsConsent,
  type PlanOptions,
  planResume,
  type ResumePlan,
  type RollingCompact,
  rollingCompact,
  type SummaryRequest,
  summaryRequest,
  tailEvents,
} from './resume.js';
import type { ResumeTarget } from './targets.js';
import { CHARS_PER_TOKEN } from './tokens.js';

/** What a resume asks for (session/resume's params, less the protocol's own). */
export interface ResumeRequest {
  id: string;
  /** Resume a fresh copy (store/fork.ts) instead of the session itself. */
  copy?: boolean;
  /** The user agreed to a costly summary (the answer to `needsConfirmation`). */
  confirm?: boolean;
  target?: ResumeTarget;
  contextWindow: number;
  budgetRatio?: number;
  keepTurns?: number;
  tokenCounts?: PlanOptions['tokenCounts'];
  summaryWindow?: number;
  /** A summary reading more than this many tokens needs the user's consent first. */
  consentThreshold: number;
}

/** The plan's inputs that loadAndPlan reads. */
export type PlanRequest = Pick<ResumeRequest, 'contextWindow' | 'budgetRatio' | 'keepTurns' | 'tokenCounts' | 'summaryWindow'>;

/** A summarise request for one piece, in the resume's target, for session `id`. */
export type PieceRequest = SummaryRequest & { id: string; target?: ResumeTarget };

/**
 * One piece's briefing. A rejection fails the resume as it is (the door words its own error;
 * keptText says what is kept); the pieces appended before stay.
 */
export type Summarize = (request: PieceRequest, signal?: AbortSignal) => Promise<string>;

export interface ResumeDeps {
  store: SessionStore;
  pending: PendingResumes;
  /** Absent: the two-step flow (`needsSummary`, then continueCompaction). */
  summarize?: Summarize;
  progress?(message: string, percentage: number): void;
  /** Aborting rejects with the signal's reason; what was appended stays. */
  signal?: AbortSignal;
}

export type Holder = {
  pid?: number;
  host?: string;
};

// The outcome's parts are type aliases, not interfaces: session/resume's result is a loose object
// (an index signature), which only an alias satisfies structurally.

/** The fields of a resume's outcome that do not depend on the tier. */
export type ResumeBase = {
  id: string;
  target?: ResumeTarget;
  readOnly: boolean;
  heldBy?: Holder;
  problems: ReadResult['problems'];
  forkedFrom?: string;
  tokens: { transcript: number; budget: number; window: number };
};

/** The context in the request's target (resume/context.ts). */
export type Shaped = {
  conversation: unknown[];
  agentMessages: unknown[];
  messages?: unknown[];
  note?: string;
  changes?: Record<string, number>;
};

/** A piece for the client to summarise (the two-step flow); the arrays of the outcome are empty. */
export type NeedsSummary = Pick<
  SummaryRequest,
  'messages' | 'instructions' | 'inputTokens' | 'coversThrough' | 'maxBriefingTokens' | 'piece' | 'shortened'
> & { target?: ResumeTarget };

export type ResumeOutcome = ResumeBase &
  Shaped & {
    tier: 1 | 2 | 3;
    needsConfirmation?: { inputTokens: number; threshold: number; calls: number };
    needsSummary?: NeedsSummary;
  };

/** A tier-3 plan waiting for its briefings through continueCompaction, piece by piece. */
export interface PendingCompaction {
  plan: CompactPlan;
  /** The session's line count when planned, plus the rolling compact events this flow appended
   *  since (appends only add lines): a session that changed otherwise needs a new plan. */
  events: number;
  base: ResumeBase;
  /** The piece whose briefing is awaited, and the briefing of the one before (as appended). */
  piece: number;
  briefingSoFar?: string;
}

/** The two-step flows in progress, by session id (one per connection: plans die with it). */
export class PendingResumes {
  private readonly byId = new Map<string, PendingCompaction>();
  get(id: string): PendingCompaction | undefined {
    return this.byId.get(id);
  }
  set(id: string, p: PendingCompaction): void {
    this.byId.set(id, p);
  }
  /** A plan made void: the session was resumed anew, sealed or deleted. */
  forget(id: string): void {
    this.byId.delete(id);
  }
}

export type ResumeErrorCode = 'invalid' | 'needs-summary-read-only' | 'empty-summary' | 'not-awaited' | 'changed';

/**
 * A resume the workflow refuses: `invalid` (the request cannot be planned), `needs-summary-read-only`
 * (tier 3 where this process cannot write; data: tier, inputTokens, coversThrough), `empty-summary`,
 * `not-awaited` (no two-step flow waits for that briefing), `changed` (the session changed since).
 */
export class ResumeError extends Error {
  constructor(
    readonly code: ResumeErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ResumeError';
  }
}

/**
 * Resume session `r.id`: tiers 1 and 2 answer the context; tier 3 asks consent above the
 * threshold (nothing written, no lock kept), then summarises through `d.summarize`, or without
 * it answers the first piece to summarise (`needsSummary`) and waits in `d.pending`.
 */
export async function resumeSession(r: ResumeRequest, d: ResumeDeps): Promise<ResumeOutcome> {
  const { store } = d;
  if (r.copy && r.confirm !== true) {
    // Consent comes before the copy: answering needsConfirmation must write nothing, and the
    // client calls again with the same request plus confirm (one copy, not two).
    const { loaded, plan } = await loadAndPlan(store, r.id, r, d.signal);
    d.signal?.throwIfAborted();
    if (needsConsent(plan, r.consentThreshold)) {
      const info = await store.lockInfo(r.id).catch(() => undefined);
      const heldBy = info?.locked && !info.byUs ? { heldBy: { pid: info.pid, host: info.host } } : {};
      const base: ResumeBase = {
        id: r.id,
        ...(r.target ? { target: r.target } : {}),
        readOnly: !!info?.locked && !info.byUs,
        ...heldBy,
        problems: loaded.problems,
        tokens: tokensOf(plan),
      };
      return confirmationAnswer(base, plan as CompactPlan, r.consentThreshold);
    }
  }
  const id = r.copy ? (await forkSession(store, r.id)).meta.id : r.id;
  const heldBefore = store.holds(id);
  const owner = await takeOrReadOnly(store, id);
  const { loaded, plan } = await loadAndPlan(store, id, r, d.signal);
  d.signal?.throwIfAborted();
  const base: ResumeBase = {
    id,
    ...(r.target ? { target: r.target } : {}),
    ...owner,
    problems: loaded.problems,
    ...(r.copy ? { forkedFrom: r.id } : {}),
    tokens: tokensOf(plan),
  };
  if (plan.tier !== 3) return { ...base, tier: plan.tier, ...contextOf(plan, loaded.events, r.target) };
  if (owner.readOnly) {
    const figures = { tier: 3 as const, inputTokens: plan.summary.inputTokens, coversThrough: plan.summary.coversThrough };
    throw new ResumeError(
      'needs-summary-read-only',
      'this session needs a summary to resume, and this window cannot write it: open a copy',
      figures,
    );
  }
  if (needsConsent(plan, r.consentThreshold) && r.confirm !== true) {
    // The user may well choose "Start fresh instead": a question takes no ownership, so give
    // back a lock this call took (nothing was written; the confirmed call takes it again).
    if (!heldBefore && !r.copy) await store.release(id);
    return confirmationAnswer(base, plan, r.consentThreshold);
  }
  if (!d.summarize) {
    // The two-step flow: the client summarises piece by piece, each through continueCompaction.
    const first = requestOrInvalid(plan, 0);
    d.pending.set(id, { plan, events: loaded.totalEvents ?? -1, base, piece: 0 });
    return { ...base, tier: 3, conversation: [], agentMessages: [], needsSummary: needsSummaryOf(first, plan, base.target) };
  }
  // A two-step plan handed out earlier is void from here: this resume decides the compact events.
  d.pending.forget(id);
  const summarize = d.summarize;
  const applied = await summarizePieces(plan, {
    summarize: (i, soFar) => summarize({ ...inTarget(requestOrInvalid(plan, i, soFar), plan, base.target, soFar), id }, d.signal),
    append: (e) => store.append(id, [e]).then(() => undefined),
    signal: d.signal,
    onPiece: (i, n) =>
      d.progress?.(
        n > 1 ? `Summarising part ${i + 1} of ${n} of the earlier session` : 'Summarising the earlier part of the session',
        Math.floor((i / n) * 100),
      ),
  });
  return resumedFrom(applied, plan, base);
}

/**
 * The two-step flow's next step: the briefing of the piece resumeSession (or the previous call)
 * handed out. Before the last piece it appends a rolling compact event and answers the next
 * piece's needsSummary; for the last, the compact event and the context.
 */
export async function continueCompaction(
  d: Omit<ResumeDeps, 'summarize'>,
  a: { id: string; coversThrough: number; briefing: string },
): Promise<ResumeOutcome> {
  const pending = d.pending.get(a.id);
  if (!pending || pending.plan.summary.pieces[pending.piece]!.coversThrough !== a.coversThrough) {
    throw new ResumeError(
      'not-awaited',
      `no summary of ${a.id} through seq ${a.coversThrough} is awaited (the session changed, or the sidecar restarted): resume again`,
    );
  }
  // Append-only: the session is unchanged exactly when it still has as many lines as planned.
  if ((await d.store.read(a.id, { tail: 0 })).totalEvents !== pending.events) {
    d.pending.forget(a.id);
    throw new ResumeError('changed', `${a.id} changed since session/resume asked for its summary: resume again`);
  }
  const { plan } = pending;
  if (pending.piece === plan.summary.calls - 1) {
    const applied = appliedOrEmpty(plan, a.briefing);
    await d.store.append(a.id, [applied.compact]);
    d.pending.forget(a.id);
    return resumedFrom(applied, plan, pending.base);
  }
  const next = requestOrInvalid(plan, pending.piece + 1, rollingCompact(plan, pending.piece, a.briefing).briefing);
  const rolling = rollingOrEmpty(plan, pending.piece, a.briefing);
  await d.store.append(a.id, [rolling]);
  d.pending.set(a.id, { ...pending, events: pending.events + 1, piece: pending.piece + 1, briefingSoFar: rolling.briefing });
  return {
    ...pending.base,
    tier: 3,
    conversation: [],
    agentMessages: [],
    needsSummary: needsSummaryOf(next, plan, pending.base.target, rolling.briefing),
  };
}

/** Tier 3's answer once the last compact event is on disk: the flow is over. */
function resumedFrom(applied: AppliedBriefing, plan: CompactPlan, base: ResumeBase): ResumeOutcome {
  const events = tailEvents(plan);
  return { ...base, tier: 3, ...shaped(base.target, applied.context, events, { briefing: applied.compact.briefing }, applied.chatNote) };
}

/**
 * Summarises a tier-3 plan's pieces in order, each asked with the briefing so far, and appends
 * each piece's compact event before the next is asked for (rolling before the last), so that a
 * failure or cancellation after k pieces keeps those k and the next resume goes on from the
 * last of them. Answers the last piece's briefing applied (the context and its compact event).
 * An empty briefing is a ResumeError('empty-summary') and appends nothing.
 */
export async function summarizePieces(
  plan: CompactPlan,
  o: {
    summarize(index: number, briefingSoFar: string | undefined): Promise<string>;
    append(e: RollingCompact | AppliedBriefing['compact']): Promise<void>;
    signal?: AbortSignal;
    onPiece?(index: number, count: number): void;
  },
): Promise<AppliedBriefing> {
  const calls = plan.summary.calls;
  let soFar: string | undefined;
  for (let i = 0; i < calls; i++) {
    o.signal?.throwIfAborted();
    o.onPiece?.(i, calls);
    const briefing = await o.summarize(i, soFar);
    o.signal?.throwIfAborted();
    if (i === calls - 1) {
      const applied = appliedOrEmpty(plan, briefing);
      await o.append(applied.compact);
      return applied;
    }
    const rolling = rollingOrEmpty(plan, i, briefing);
    await o.append(rolling);
    soFar = rolling.briefing;
  }
  throw new Error('unreachable: a plan has at least one piece');
}

function rollingOrEmpty(plan: CompactPlan, index: number, briefing: string): RollingCompact {
  if (briefing.trim() === '') throw new ResumeError('empty-summary', `the summary of part ${index + 1} is empty; ${keptText(index)}`);
  return rollingCompact(plan, index, briefing);
}

function appliedOrEmpty(plan: CompactPlan, briefing: string): AppliedBriefing {
  if (briefing.trim() === '') throw new ResumeError('empty-summary', `the summary is empty; ${keptText(plan.summary.calls - 1)}`);
  return applyBriefing(plan, briefing);
}

/** What a failure after `done` pieces leaves. */
export function keptText(done: number): string {
  return done === 0
    ? 'the session is unchanged'
    : `the ${done} parts summarised before are kept (compact events); resuming again goes on from there`;
}

function requestOrInvalid(plan: CompactPlan, index: number, soFar?: string): SummaryRequest {
  try {
    return summaryRequest(plan, index, soFar);
  } catch (e) {
    if (e instanceof RangeError) throw new ResumeError('invalid', e.message);
    throw e;
  }
}

/** A summarise request with its messages in the resume's target (the summariser reads what the resumed model would). */
function inTarget(
  r: SummaryRequest,
  plan: CompactPlan,
  target: ResumeTarget | undefined,
  soFar?: string,
): SummaryRequest & { target?: ResumeTarget } {
  if (target === undefined || target === 'levelcode') return r;
  return { ...r, messages: summaryMessages(plan, r, target, soFar).messages, target };
}

function needsSummaryOf(request: SummaryRequest, plan: CompactPlan, target: ResumeTarget | undefined, soFar?: string): NeedsSummary {
  const r = inTarget(request, plan, target, soFar);
  const { messages, instructions, inputTokens, coversThrough, maxBriefingTokens, piece, shortened } = r;
  return {
    messages,
    instructions,
    ...(r.target ? { target: r.target } : {}),
    inputTokens,
    coversThrough,
    maxBriefingTokens,
    piece,
    ...(shortened ? { shortened } : {}),
  };
}

/**
 * The context of a tier-1 or tier-2 plan in `target` (tier 2: the briefing of its compact event,
 * then what follows it). Written once for the sidecar; the ACP proxy and the hand-off make
 * their conversation from the same events (context.ts contextRange).
 */
export function contextOf(plan: Exclude<ResumePlan, CompactPlan>, events: readonly SeqEvent[], target?: ResumeTarget): Shaped {
  return shaped(target, plan.context, events, contextRange(plan, events), plan.chatNote);
}

/**
 * The context of a plan in the client's target: `levelcode` is the planner's own pair of arrays;
 * every other target is made from the events the plan keeps (resume/context.ts), and its note
 * (what was dropped or repaired) follows the tier's chat line.
 */
function shaped(
  target: ResumeTarget | undefined,
  pair: { conversation: unknown[]; agentMessages: unknown[] },
  events: readonly SeqEvent[],
  range: { after?: number; briefing?: string | null },
  chatNote: string | null,
): Shaped {
  if (target === undefined || target === 'levelcode')
    return { conversation: pair.conversation, agentMessages: pair.agentMessages, ...(chatNote ? { note: chatNote } : {}) };
  const r = contextMessages(events, target, range);
  const note = [chatNote, r.note].filter((x) => x !== null).join(' ');
  return { conversation: [], agentMessages: [], messages: r.messages, ...(note ? { note } : {}), ...(r.note ? { changes: r.counts } : {}) };
}

/**
 * Loads what the plan needs and plans. A session with a compact event is read from the event
 * after its coversThrough (store.loadForResume: a long session is not read whole). When the
 * events from there on exceed B, so does the whole transcript, and tiers 2 and 3 need nothing
 * before coversThrough: that plan is the plan. When they fit B, the whole session might too
 * (tier 1 is preferred to a briefing): the events before are read newest first and counted at
 * their least (floorTokens: as if the soft cap had elided every tool output), and as soon as
 * that floor and the tail together pass B tier 1 is ruled out without reading further; a
 * session that might fit whole (or whose earlier bytes look like they fit) is loaded whole.
 * On the fast paths the plan's T (tokens.transcript) is a lower bound of the whole's, and
 * `loaded.earlier` visits the lines before the load (store.ts ResumeLoad).
 * A request the planner refuses (RangeError) is ResumeError('invalid').
 */
export async function loadAndPlan(
  store: SessionStore,
  id: string,
  p: PlanRequest,
  signal?: AbortSignal,
): Promise<{ loaded: ReadResult & Pick<Partial<ResumeLoad>, 'earlier'>; plan: ResumePlan }> {
  const fast = await store.loadForResume(id, { signal });
  if (fast.earlier) {
    const plan = planOrInvalid(fast.events, p);
    if (plan.tier !== 1) return { loaded: fast, plan };
    const room = plan.budget - plan.transcriptTokens;
    // Worth a try only when the earlier lines look too long to fit (a character a byte, four a
    // token: a guess, which only decides what is read; the floor alone rules tier 1 out).
    if (fast.earlierBytes / CHARS_PER_TOKEN > room) {
      // Any subset of the earlier events bounds them from below, so the cheapest go first:
      // lines other than agent turns (counted whole, and mostly short), then the agent turns,
      // whose bytes are mostly tool output that the floor does not count.
      let floor = 0;
      const visit = (line: { seq: number; event?: SessionEvent }): boolean => {
        if (line.event) floor += floorTokens({ seq: line.seq, event: line.event }, p.tokenCounts);
        return floor <= room;
      };
      await fast.earlier(visit, { want: (kind) => kind !== 'agent', signal });
      if (floor <= room) await fast.earlier(visit, { want: (kind) => kind === 'agent', signal });
      if (floor > room) return { loaded: fast, plan: planOrInvalid(fast.events, p, floor) };
    }
    const whole = await fast.whole({ signal });
    return { loaded: whole, plan: planOrInvalid(whole.events, p) };
  }
  return { loaded: fast, plan: planOrInvalid(fast.events, p) };
}

function planOrInvalid(events: readonly SeqEvent[], p: PlanRequest, earlierTokens = 0): ResumePlan {
  try {
    return planResume(events, {
      window: p.contextWindow,
      budgetRatio: p.budgetRatio,
      keepTurns: p.keepTurns,
      tokenCounts: p.tokenCounts,
      earlierTokens,
      summaryWindow: p.summaryWindow,
    });
  } catch (e) {
    if (e instanceof RangeError) throw new ResumeError('invalid', e.message);
    throw e;
  }
}

function tokensOf(plan: ResumePlan): ResumeBase['tokens'] {
  return { transcript: plan.transcriptTokens, budget: plan.budget, window: plan.window };
}

/** Tier 3 over the consent threshold: empty arrays, the figures, nothing written. */
function confirmationAnswer(base: ResumeBase, plan: CompactPlan, threshold: number): ResumeOutcome {
  const { inputTokens, calls } = plan.summary;
  return { ...base, tier: 3, conversation: [], agentMessages: [], needsConfirmation: { inputTokens, threshold, calls } };
}

/** Takes the session's lock; another owner (or a newer schema) makes the outcome read-only. */
async function takeOrReadOnly(store: SessionStore, id: string): Promise<{ readOnly: boolean; heldBy?: Holder }> {
  if (store.holds(id)) return { readOnly: false };
  try {
    await store.acquire(id);
    return { readOnly: false };
  } catch (e) {
    if (!isStoreError(e, 'locked') && !isStoreError(e, 'schema-too-new')) throw e;
    // The holder the refusal named (never looked up again: it may have let go meanwhile).
    const owner = isStoreError(e, 'locked') ? (e.data as { heldBy?: Holder } | undefined)?.heldBy : undefined;
    return owner
      ? {
          readOnly: true,
          heldBy: { ...(owner.pid !== undefined ? { pid: owner.pid } : {}), ...(owner.host !== undefined ? { host: owner.host } : {}) },
        }
      : { readOnly: true };
  }
}
