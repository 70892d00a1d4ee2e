// The resume planner: given a stored session's events and the model's context window, decide
// what the model sees when the session is resumed. Three tiers (the design's Phase 3):
//   1. verbatim     T <= B: the arrays rebuilt exactly as appended; no model call.
//   2. incremental  the last compact event's briefing + the events after its coversThrough.
//   3. compact      cut the head at a user-message boundary that orphans no tool pair, keep the
//                   last turns verbatim, and ask the caller to summarise the head, in pieces that
//                   each fit the summariser's window (planResume says what the pieces are,
//                   summaryRequest what one call sends, rollingCompact what a finished piece
//                   appends, applyBriefing builds the context from the last piece's briefing).
// Plain functions over plain data. Depends on events.ts, content.ts, tokens.ts, soft-cap.ts and pieces.ts only: no fs, no clock, no
// JSON-RPC, no model calls. The caller (sidecar, CLI, tests) does the I/O and appends the
// compact event that applyBriefing hands back.

import { oneLine, type CompactEvent, type SeqEvent, type SessionEvent } from '../format/events.js';
import { countAll, countWith, countForSeq, estimateTokens, type SeqTokenCounts, type TokenCounter } from './tokens.js';
import { withoutToolPayloads } from '../format/soft-cap.js';
import { packPieces, shortenToFit, type TurnSpan } from './pieces.js';
import { contentOf, toolIdsOf } from '../format/content.js';

// ---------------------------------------------------------------------------------------------
// Constants: every string the model or the user sees is fixed here, so output is deterministic.

export const DEFAULT_BUDGET_RATIO = 0.4;
export const DEFAULT_KEEP_TURNS = 6;
/** Tier-3 summaries whose estimated input exceeds this many tokens need the user's consent. */
export const DEFAULT_CONSENT_THRESHOLD = 50_000;
/** Upper bound of the default briefing allowance (tokens of briefing text, per copy). */
export const DEFAULT_MAX_BRIEFING_TOKENS = 2_000;

/** The one chat line shown after a tier-3 resume (for the user; the model gets the briefing). */
export const TIER3_NOTE = 'Resumed from summary — full transcript in History.';
/** The chat line shown after a tier-2 resume: an earlier summary stands in for the head. */
export const TIER2_NOTE = 'Resumed from an earlier summary — full transcript in History.';

/** First line of the briefing message the model sees in tiers 2 and 3. */
export const BRIEFING_HEADER =
  '[Summary of the earlier part of this session. It replaces that part of the transcript in your context; the full transcript is kept in History.]';

/** Marker event types that become an honesty line when they fall in the resumed context. */
export const HONESTY_TYPES = ['interrupted', 'reload', 'reaped'] as const;
export type HonestyType = (typeof HONESTY_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// Shapes.

/**
 * An entry of the rebuilt chat `conversation`: a user event becomes {role:'user', content} and
 * an assistant event {role:'assistant', content}, `content` being the stored value itself (same
 * reference). Other fields of the event (t, contextFiles, model, ...) are not part of the
 * message. Notes and briefings are {role:'user', content: string} objects made by the planner.
 */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: unknown;
}

/** A message the planner writes itself (a briefing or an honesty line). */
export interface NoteMessage {
  role: 'user';
  content: string;
}

/** An honesty line placed in a resumed context, with the marker event it stands for. */
export interface HonestyNote {
  seq: number;
  type: HonestyType;
  line: string;
}

/**
 * What the model sees after a resume. `conversation` is the chat array, `agentMessages` the
 * agent loop's array: the concatenation of every agent event's `messages`, each element the
 * stored object itself. An honesty line sits in both arrays at its marker's position; a briefing
 * (tiers 2 and 3) is the first element of both.
 * `estimate` is the token estimate of both arrays together (conservative: a client that sends
 * only one of them to the model spends less).
 */
export interface ResumedContext {
  conversation: unknown[];
  agentMessages: unknown[];
  estimate: number;
  notes: HonestyNote[];
}

interface PlanBase {
  /** W: the model's context window, as the client said. */
  window: number;
  /** B = floor(W * budgetRatio): what the resumed context may spend. */
  budget: number;
  /** T: the estimate of the whole stored transcript, rebuilt verbatim (the tier-1 context). */
  transcriptTokens: number;
}

/** Tier 1: T <= B. Resume on `context` as is; no summary, no cost. */
export interface VerbatimPlan extends PlanBase {
  tier: 1;
  context: ResumedContext;
  chatNote: null;
}

/** Tier 2: the last compact event's briefing + everything after its coversThrough fits B. */
export interface IncrementalPlan extends PlanBase {
  tier: 2;
  context: ResumedContext;
  /** Seq of the compact event whose briefing was used. */
  compactSeq: number;
  coversThrough: number;
  chatNote: typeof TIER2_NOTE;
}

/** One summarise call: a piece of the head, with the briefing so far first. */
export interface SummaryRequest {
  /** The briefing so far first (a prior compact event's, or the previous piece's), then the
   *  piece's user/assistant/agent messages and honesty lines exactly as they would appear in a
   *  context: verbatim references, except in a piece that had to be shortened. */
  messages: unknown[];
  /** For the summariser (system or final user prompt). Mentions maxBriefingTokens, the piece,
   *  and what was shortened. */
  instructions: string;
  /** Estimated input of this call (messages + instructions); at most the plan's inputLimit. */
  inputTokens: number;
  /** Seq of the piece's last event (or the prior compact's coversThrough when the head holds
   *  only the prior briefing): its briefing covers everything through it. */
  coversThrough: number;
  /** Tokens allowed for the briefing text. A longer briefing is cut. */
  maxBriefingTokens: number;
  /** Which call this is: index from 0, of `count`; the last one's briefing is the final one. */
  piece: { index: number; count: number };
  /** Set when one turn was larger than a piece and was shortened to fit. */
  shortened?: { toolOutputs: number; messages: number };
}

/** A piece of the head, as planned (its messages are made by summaryRequest). */
export interface SummaryPiece {
  index: number;
  coversThrough: number;
  /** The call's estimated input, counting the briefing so far at its largest. */
  inputTokens: number;
  /** One turn larger than a piece: its request is shortened. */
  oversized: boolean;
}

/** What the caller must have summarised before a tier-3 resume can finish. */
export interface SummaryPlan {
  pieces: SummaryPiece[];
  /** Summarise calls (pieces.length). */
  calls: number;
  /** Estimated input over every call: the consent figure. */
  inputTokens: number;
  /** Seq of the head's last event (or the prior compact's coversThrough when the head holds
   *  only the prior briefing). Goes into the final compact event. */
  coversThrough: number;
  /** Tokens reserved for the briefing text, in every piece. */
  maxBriefingTokens: number;
  /** The summariser's window (summaryWindow, default the window W). */
  window: number;
  /** Every call's input is at most this: the summariser's window less room for the answer. */
  inputLimit: number;
}

/** Tier 3: summarise the pieces in order (summaryRequest, rollingCompact), then call
 *  applyBriefing(plan, last briefing). */
export interface CompactPlan extends PlanBase {
  tier: 3;
  summary: SummaryPlan;
  /** The verbatim tail (no briefing yet); `tail.estimate` excludes the briefing. */
  tail: ResumedContext;
  /** Seq of the tail's first event (always a user event); null when nothing fits verbatim. */
  tailStartSeq: number | null;
  /** Turns kept verbatim (<= keepTurns; fewer when the budget demands it). */
  keptTurns: number;
  /** The compact event whose briefing was folded into the head (tier 2 overflowed), or null. */
  priorCompactSeq: number | null;
  chatNote: typeof TIER3_NOTE;
}

export type ResumePlan = VerbatimPlan | IncrementalPlan | CompactPlan;

export interface PlanOptions {
  /** W: the model's context window in tokens (> 0). */
  window: number;
  /** B = floor(W * budgetRatio); in (0, 1], default 0.4. */
  budgetRatio?: number;
  /** At most this many turns stay verbatim in tier 3 (integer >= 0), default 6. */
  keepTurns?: number;
  /** Tokens reserved for the briefing text in tier 3 (integer >= 1). Default
   *  min(2000, floor(B / 8)); clamped so that the briefing (in both arrays) fits B. */
  briefingAllowance?: number;
  /** Counts one message; default characters / 4 over its JSON. */
  counter?: TokenCounter;
  /** Exact counts by seq for user, assistant and agent events: the tokens of the message(s) the
   *  event contributes. Honesty lines and briefings are always counted with `counter`. */
  tokenCounts?: SeqTokenCounts;
  /** Tokens the transcript holds before the first of `events`, at least (default 0): the
   *  caller read only the events from a compact event on, and bounded the rest with
   *  floorTokens. Added to T, so a transcript known to exceed B is never planned as tier 1. */
  earlierTokens?: number;
  /** The summariser's context window in tokens (integer > 0), default `window`. Each
   *  summarise call's input stays within it less maxBriefingTokens (room for the answer). */
  summaryWindow?: number;
}

/** The result of the second tier-3 step. */
export interface AppliedBriefing {
  context: ResumedContext;
  /** The event to append (the store stamps `t`). Its briefing is the one in `context`. */
  compact: { kind: 'compact'; briefing: string; coversThrough: number };
  /** True when the briefing was longer than maxBriefingTokens or the budget allowed and was cut (ends with "…"). */
  briefingTrimmed: boolean;
  chatNote: typeof TIER3_NOTE;
}

// ---------------------------------------------------------------------------------------------
// Messages the planner writes.

/** The message that carries a briefing, first in both arrays. */
export function briefingMessage(briefing: string): NoteMessage {
  return { role: 'user', content: `${BRIEFING_HEADER}\n\n${briefing}` };
}

/**
 * The one line the model sees for a marker event, or null when the event is not one that
 * needs telling (checkpoint, sealed, ...). Deterministic: the same event, the same line.
 */
export function honestyLine(event: SessionEvent): string | null {
  if (event.kind !== 'event') return null;
  switch (event.type) {
    case 'interrupted':
      return '[Note: the agent run was interrupted here. Tool calls in flight did not finish and their state was lost; check before relying on it.]';
    case 'reload':
      return '[Note: the editor reloaded here. Background commands and MCP servers started before this point are no longer running.]';
    case 'reaped': {
      const e = event as Record<string, unknown>;
      const raw = typeof e.command === 'string' ? e.command : typeof e.name === 'string' ? e.name : '';
      const what = oneLine(raw, 80).replace(/`/g, "'");
      const label = what ? ` (\`${what}\`)` : '';
      return `[Note: a background command${label} was stopped here. It is no longer running; restart it if you still need it.]`;
    }
    default:
      return null;
  }
}

/** What one summarise call's instructions say besides the fixed text. */
export interface InstructionOptions {
  /** The call's place among the calls of one resume (said only when there are several). */
  piece?: { index: number; count: number };
  /** The first message is a briefing of what came before: fold it in. */
  foldsBriefing?: boolean;
  /** What was cut from the piece to fit the summariser's window. */
  shortened?: { toolOutputs: number; messages: number };
}

/** The summariser's instructions, asking for at most `maxTokens` tokens. */
export function summaryInstructions(maxTokens: number, o: InstructionOptions = {}): string {
  const lines = [
    "Summarise the conversation above so that the work can continue from your summary alone: it will replace this part of the transcript in the model's context.",
  ];
  if (o.piece && o.piece.count > 1) {
    lines.push(
      `This is part ${o.piece.index + 1} of ${o.piece.count} of the earlier session, summarised in order${o.piece.index + 1 < o.piece.count ? '; later parts follow and will be summarised with yours' : '; it is the last part'}.`,
    );
  }
  if (o.foldsBriefing) {
    lines.push(
      'The first message is the summary of everything before these messages: your summary replaces it too, so carry over what it says that still matters.',
    );
  }
  if (o.shortened && (o.shortened.toolOutputs > 0 || o.shortened.messages > 0)) {
    lines.push(
      `This part was shortened to fit your window: ${o.shortened.toolOutputs} tool outputs were elided (oldest first) and ${o.shortened.messages} messages were cut, each marked where it was; do not guess what they said.`,
    );
  }
  lines.push(
    "Keep: the user's goals, requests and constraints; decisions and their reasons; files created or changed and their current state; commands run and their outcomes; errors still open; names, values and facts that later work depends on; anything the user asked to remember.",
    'Say what was running (commands, servers, tool calls) and that none of it is running now.',
    'Drop pleasantries, superseded attempts and tool output that no longer matters.',
    `Write plain prose and short lists, no preamble, at most ${maxTokens} tokens.`,
  );
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Tool pairs and cut points.

/**
 * The tool-call ids an event mentions, as a call or as a result, in any provider's shape
 * (content.ts reads them): the ids a cut must not separate.
 */
export function toolIds(event: SessionEvent): string[] {
  const c = contentOf(event);
  return c ? [...toolIdsOf(c.value)] : [];
}

/**
 * Every index where `events` may be cut (head = events[0..k), tail = events[k..]): k is a user
 * event and no tool id is mentioned both before k and at/after k. Ascending. The end of the
 * list (k = events.length, an empty tail) is always a legal cut and is not listed.
 * A turn, for keepTurns, starts at one of these points.
 */
export function cutPoints(events: readonly SeqEvent[]): number[] {
  const n = events.length;
  const first = new Map<string, number>();
  const last = new Map<string, number>();
  events.forEach(({ event }, i) => {
    for (const id of toolIds(event)) {
      if (!first.has(id)) first.set(id, i);
      last.set(id, i);
    }
  });
  // A pair spanning events f..l forbids every cut k with f < k <= l.
  const open = new Int32Array(n + 2);
  for (const [id, f] of first) {
    const l = last.get(id)!;
    if (l > f) {
      open[f + 1]!++;
      open[l + 1]!--;
    }
  }
  const cuts: number[] = [];
  let spanning = 0;
  for (let k = 0; k < n; k++) {
    spanning += open[k]!;
    if (spanning === 0 && events[k]!.event.kind === 'user') cuts.push(k);
  }
  return cuts;
}

/**
 * The boundary picker: the index where the verbatim tail starts when the last `keepTurns`
 * turns are kept. It aims at the keepTurns-th user event from the end; if cutting there would
 * orphan a tool pair, it moves to the previous user event that is a legal cut (keeping more
 * text, never fewer turns than asked). With no legal cut at or before the aim it takes the
 * first legal cut after it, and with none at all the end (an empty tail, `events.length`).
 * keepTurns <= 0 gives `events.length`. The budget is not its concern (planResume's is).
 */
export function pickBoundary(events: readonly SeqEvent[], keepTurns: number): number {
  const n = events.length;
  if (keepTurns <= 0) return n;
  const users: number[] = [];
  events.forEach(({ event }, i) => {
    if (event.kind === 'user') users.push(i);
  });
  if (users.length === 0) return n;
  const aim = users[Math.max(0, users.length - keepTurns)]!;
  const cuts = cutPoints(events);
  let best = -1;
  for (const c of cuts) {
    if (c <= aim) best = c;
    else break;
  }
  if (best >= 0) return best;
  return cuts.find((c) => c > aim) ?? n;
}

// ---------------------------------------------------------------------------------------------
// Rebuilding.

interface Item {
  seq: number;
  event: SessionEvent;
  chat: ChatMessage | null;
  agent: readonly unknown[];
  note: { type: HonestyType; line: string } | null;
  /** Tokens of `chat` and `agent` (or the client's count for the seq). */
  own: number;
  /** Tokens of one copy of the note message. */
  noteTokens: number;
}

/** Context cost of an item: its messages, and its note in both arrays. */
const costOf = (it: Item): number => it.own + 2 * it.noteTokens;

/**
 * The default estimate of an event's own messages, by event object. Events are plain data that
 * nothing mutates (elision makes copies), and a resume may plan the same events twice (the
 * sidecar plans the events after a compact event, then again with what precedes them bounded):
 * the estimate is a JSON.stringify of every message, the planner's main cost.
 */
const OWN_ESTIMATES = new WeakMap<SessionEvent, number>();

function analyse(se: SeqEvent, counter: TokenCounter, counts: SeqTokenCounts | undefined): Item {
  const { seq, event } = se;
  let chat: ChatMessage | null = null;
  let agent: readonly unknown[] = [];
  let note: Item['note'] = null;
  if (event.kind === 'user') chat = { role: 'user', content: event.content };
  else if (event.kind === 'assistant') chat = { role: 'assistant', content: event.content };
  else if (event.kind === 'agent') agent = event.messages;
  else if (event.kind === 'event') {
    const line = honestyLine(event);
    if (line !== null) note = { type: event.type as HonestyType, line };
  }
  let own = 0;
  if (chat !== null || agent.length > 0) {
    const given = countForSeq(counts, seq);
    if (given !== undefined) own = given;
    else if (counter === estimateTokens && OWN_ESTIMATES.has(event)) own = OWN_ESTIMATES.get(event)!;
    else {
      own = (chat !== null ? countWith(counter, chat) : 0) + countAll(counter, agent);
      if (counter === estimateTokens) OWN_ESTIMATES.set(event, own);
    }
  }
  const noteTokens = note === null ? 0 : countWith(counter, noteMessage(note.line));
  return { seq, event, chat, agent, note, own, noteTokens };
}

/**
 * The least an event can cost in a plan of its whole session, however the soft cap elides it:
 * its cost with every tool-result payload removed (a load only ever swaps a payload for a
 * shorter marker, and counting is monotone in the JSON's length). Exact for everything but
 * agent events; a client's count for the seq is taken as it is, as planResume does.
 */
export function floorTokens(se: SeqEvent, counts?: SeqTokenCounts, counter: TokenCounter = estimateTokens): number {
  const { event } = se;
  if (event.kind === 'agent' && Array.isArray(event.messages) && countForSeq(counts, se.seq) === undefined) {
    return costOf(analyse({ seq: se.seq, event: { ...event, messages: withoutToolPayloads(event.messages) } }, counter, counts));
  }
  return costOf(analyse(se, counter, counts));
}

function noteMessage(line: string): NoteMessage {
  return { role: 'user', content: line };
}

/** The messages of one item in order (for the summariser: the note once). */
function messagesOf(it: Item): unknown[] {
  const out: unknown[] = [];
  if (it.chat) out.push(it.chat);
  for (const m of it.agent) out.push(m);
  if (it.note) out.push(noteMessage(it.note.line));
  return out;
}

function buildContext(items: readonly Item[], briefing: string | null, counter: TokenCounter): ResumedContext {
  const conversation: unknown[] = [];
  const agentMessages: unknown[] = [];
  const notes: HonestyNote[] = [];
  let estimate = 0;
  if (briefing !== null) {
    conversation.push(briefingMessage(briefing));
    agentMessages.push(briefingMessage(briefing));
    estimate += 2 * countWith(counter, briefingMessage(briefing));
  }
  for (const it of items) {
    if (it.chat) conversation.push(it.chat);
    for (const m of it.agent) agentMessages.push(m);
    if (it.note) {
      conversation.push(noteMessage(it.note.line));
      agentMessages.push(noteMessage(it.note.line));
      notes.push({ seq: it.seq, type: it.note.type, line: it.note.line });
    }
    estimate += costOf(it);
  }
  return { conversation, agentMessages, estimate, notes };
}

/**
 * The tier-1 context of `events` whatever its size: both arrays rebuilt as appended, with
 * honesty lines. For viewers and exports that want the model's view of a whole session.
 */
export function rebuildContext(
  events: readonly SeqEvent[],
  options: { counter?: TokenCounter; tokenCounts?: SeqTokenCounts } = {},
): ResumedContext {
  const counter = options.counter ?? estimateTokens;
  return buildContext(
    events.map((e) => analyse(e, counter, options.tokenCounts)),
    null,
    counter,
  );
}

// ---------------------------------------------------------------------------------------------
// The planner.

/**
 * Plans the resume of a session. `events` are in file order (seq 0 = the first line after the
 * meta line; gaps where a line was unreadable are fine). Throws RangeError on invalid options,
 * or when tier 3 is needed and B cannot hold even an empty briefing: every plan it returns fits
 * the budget.
 */
export function planResume(events: readonly SeqEvent[], options: PlanOptions): ResumePlan {
  const W = options.window;
  const ratio = options.budgetRatio ?? DEFAULT_BUDGET_RATIO;
  const keepTurns = options.keepTurns ?? DEFAULT_KEEP_TURNS;
  if (!Number.isFinite(W) || W <= 0) throw new RangeError(`window must be a positive number, got ${W}`);
  if (!Number.isFinite(ratio) || ratio <= 0 || ratio > 1) {
    throw new RangeError(`budgetRatio must be in (0, 1], got ${ratio}`);
  }
  if (!Number.isInteger(keepTurns) || keepTurns < 0) {
    throw new RangeError(`keepTurns must be an integer >= 0, got ${keepTurns}`);
  }
  const allowanceOption = options.briefingAllowance;
  if (allowanceOption !== undefined && (!Number.isInteger(allowanceOption) || allowanceOption < 1)) {
    throw new RangeError(`briefingAllowance must be an integer >= 1, got ${allowanceOption}`);
  }

  const B = Math.floor(W * ratio);
  const counter = options.counter ?? estimateTokens;
  const items = events.map((e) => analyse(e, counter, options.tokenCounts));
  const earlier = options.earlierTokens ?? 0;
  if (!Number.isFinite(earlier) || earlier < 0) throw new RangeError(`earlierTokens must be a finite number >= 0, got ${earlier}`);
  let T = earlier;
  for (const it of items) T += costOf(it);
  const base: PlanBase = { window: W, budget: B, transcriptTokens: T };

  if (T <= B) return { tier: 1, ...base, context: buildContext(items, null, counter), chatNote: null };

  let remainder: readonly Item[] = items;
  let prior: { seq: number; briefing: string; coversThrough: number } | null = null;
  for (let i = items.length - 1; i >= 0; i--) {
    const ev = items[i]!.event;
    if (ev.kind === 'compact') {
      const c = ev as CompactEvent;
      prior = { seq: items[i]!.seq, briefing: c.briefing, coversThrough: c.coversThrough };
      break;
    }
  }
  if (prior !== null) {
    const through = prior.coversThrough;
    remainder = items.filter((it) => it.seq > through);
    const context = buildContext(remainder, prior.briefing, counter);
    if (context.estimate <= B) {
      return {
        tier: 2,
        ...base,
        context,
        compactSeq: prior.seq,
        coversThrough: prior.coversThrough,
        chatNote: TIER2_NOTE,
      };
    }
  }
  const summaryWindow = options.summaryWindow ?? W;
  if (!Number.isInteger(summaryWindow) || summaryWindow <= 0) {
    throw new RangeError(`summaryWindow must be an integer > 0, got ${summaryWindow}`);
  }
  return planCompaction(base, remainder, prior, keepTurns, allowanceOption, counter, summaryWindow);
}

function planCompaction(
  base: PlanBase,
  items: readonly Item[],
  prior: { seq: number; briefing: string; coversThrough: number } | null,
  keepTurns: number,
  allowanceOption: number | undefined,
  counter: TokenCounter,
  summaryWindow: number,
): CompactPlan {
  const B = base.budget;
  // The briefing sits in both arrays. Reserve room for its header plus the allowance, and at
  // least for the shortest briefing applyBriefing can produce ("…").
  const emptyBriefing = countWith(counter, briefingMessage(''));
  const shortest = countWith(counter, briefingMessage('…'));
  if (2 * shortest > B) {
    throw new RangeError(`context budget ${B} is too small to hold a briefing (needs ${2 * shortest} tokens)`);
  }
  const maxAllowance = Math.max(1, Math.floor(B / 2) - emptyBriefing);
  const allowance = Math.min(allowanceOption ?? Math.max(1, Math.min(DEFAULT_MAX_BRIEFING_TOKENS, Math.floor(B / 8))), maxAllowance);
  const reserve = Math.min(B, 2 * Math.max(shortest, emptyBriefing + allowance));

  const n = items.length;
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + costOf(items[i]!);

  const seqEvents: SeqEvent[] = items.map((it) => ({ seq: it.seq, event: it.event }));
  const cuts = cutPoints(seqEvents);
  // With no prior briefing the head must hold something to summarise.
  const minCut = prior === null ? 1 : 0;
  const start = Math.max(pickBoundary(seqEvents, keepTurns), minCut);
  const candidates = [...cuts.filter((c) => c >= start), n];
  const cut = candidates.find((c) => suffix[c]! + reserve <= B) ?? n;

  const head = items.slice(0, cut);
  const tailItems = items.slice(cut);
  const turnStarts = [0, ...cuts.filter((c) => c > 0 && c < cut), cut];
  const pieces = planPieces(head, turnStarts, prior, allowance, summaryWindow, counter);
  const coversThrough = head.length > 0 ? head[head.length - 1]!.seq : prior!.coversThrough;
  const plan: CompactPlan = {
    tier: 3,
    ...base,
    summary: {
      pieces: pieces.pieces,
      calls: pieces.pieces.length,
      inputTokens: pieces.pieces.reduce((sum, p) => sum + p.inputTokens, 0),
      coversThrough,
      maxBriefingTokens: allowance,
      window: summaryWindow,
      inputLimit: pieces.limit,
    },
    tail: buildContext(tailItems, null, counter),
    tailStartSeq: tailItems.length > 0 ? tailItems[0]!.seq : null,
    keptTurns: cuts.filter((c) => c >= cut).length,
    priorCompactSeq: prior === null ? null : prior.seq,
    chatNote: TIER3_NOTE,
  };
  PLAN_HEADS.set(plan, { head, spans: pieces.spans, prior: prior?.briefing ?? null, counter, tail: tailItems });
  return plan;
}

// ---------------------------------------------------------------------------------------------
// Pieces: the head summarised in calls that each fit the summariser's window.

/** What summaryRequest needs of a plan and is not part of its plain data. */
interface HeadOf {
  head: readonly Item[];
  /** Item ranges [from, to) of the head, one per piece. */
  spans: readonly { from: number; to: number }[];
  prior: string | null;
  counter: TokenCounter;
  /** The items kept verbatim after the briefing. */
  tail: readonly Item[];
}
const PLAN_HEADS = new WeakMap<CompactPlan, HeadOf>();

/** The largest a briefing message may be: the empty one plus maxBriefingTokens. */
function briefingBound(allowance: number, counter: TokenCounter): number {
  return countWith(counter, briefingMessage('')) + allowance;
}

/**
 * A briefing cut (by code points, ending with "…") to the longest start for which `fits`
 * holds; the briefing itself when it fits. `fits` must hold for "…".
 */
function cutToFit(briefing: string, fits: (b: string) => boolean): { used: string; trimmed: boolean } {
  if (fits(briefing)) return { used: briefing, trimmed: false };
  const chars = Array.from(briefing);
  const cutTo = (k: number) => chars.slice(0, k).join('').trimEnd() + '…';
  let lo = 0;
  let hi = chars.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(cutTo(mid))) lo = mid;
    else hi = mid - 1;
  }
  return { used: cutTo(lo), trimmed: true };
}

/** A briefing cut to maxBriefingTokens (its message at most the bound). */
function fitBriefing(briefing: string, allowance: number, counter: TokenCounter): string {
  const bound = briefingBound(allowance, counter);
  return cutToFit(briefing, (b) => countWith(counter, briefingMessage(b)) <= bound).used;
}

/** The longest instructions a call can get, for the room a piece leaves. */
function longestInstructions(allowance: number, counter: TokenCounter): number {
  const most = { index: 999_998, count: 999_999 };
  return countWith(
    counter,
    summaryInstructions(allowance, { piece: most, foldsBriefing: true, shortened: { toolOutputs: 9_999_999, messages: 9_999_999 } }),
  );
}

function planPieces(
  head: readonly Item[],
  turnStarts: readonly number[],
  prior: { briefing: string } | null,
  allowance: number,
  summaryWindow: number,
  counter: TokenCounter,
): { pieces: SummaryPiece[]; spans: { from: number; to: number }[]; limit: number } {
  const limit = summaryWindow - allowance;
  const instructions = longestInstructions(allowance, counter);
  const bound = briefingBound(allowance, counter);
  const priorTokens = prior === null ? 0 : countWith(counter, briefingMessage(fitBriefing(prior.briefing, allowance, counter)));
  const firstRoom = limit - instructions - priorTokens;
  const room = limit - instructions - bound;
  if (Math.min(firstRoom, room) < MIN_PIECE_ROOM) {
    throw new RangeError(
      `summaryWindow ${summaryWindow} is too small to summarise in pieces (needs at least ${allowance + instructions + Math.max(bound, priorTokens) + MIN_PIECE_ROOM} tokens)`,
    );
  }
  const turns: TurnSpan[] = [];
  for (let t = 0; t + 1 < turnStarts.length; t++) {
    let tokens = 0;
    for (let i = turnStarts[t]!; i < turnStarts[t + 1]!; i++) tokens += head[i]!.own + head[i]!.noteTokens;
    turns.push({ from: turnStarts[t]!, to: turnStarts[t + 1]!, tokens });
  }
  const spans = turns.length > 0 ? packPieces(turns, firstRoom, room) : [{ from: 0, to: 0, tokens: 0, oversized: false }];
  const pieces = spans.map((sp, index): SummaryPiece => {
    const before = index === 0 ? priorTokens : bound;
    const roomHere = index === 0 ? firstRoom : room;
    return {
      index,
      coversThrough: sp.to > 0 ? head[sp.to - 1]!.seq : ((prior as { coversThrough?: number } | null)?.coversThrough ?? -1),
      inputTokens: instructions + before + Math.min(sp.tokens, roomHere),
      oversized: sp.oversized,
    };
  });
  return { pieces, spans: spans.map(({ from, to }) => ({ from, to })), limit };
}

/** A piece's own messages must have at least this much room beside the instructions and briefing. */
const MIN_PIECE_ROOM = 1;

/**
 * The summarise call for piece `index` of a tier-3 plan: the briefing so far first (for the
 * first piece the prior compact event's, if any; after it `briefingSoFar`, the previous piece's
 * briefing, cut to maxBriefingTokens), then the piece's messages, shortened if the piece is one
 * turn larger than its room. Its inputTokens never exceed summary.inputLimit. Throws RangeError
 * for an index out of range, or when a later piece has no briefing so far.
 */
export function summaryRequest(plan: CompactPlan, index: number, briefingSoFar?: string): SummaryRequest {
  const h = PLAN_HEADS.get(plan);
  const count = plan.summary.calls;
  if (!h || !Number.isInteger(index) || index < 0 || index >= count) throw new RangeError(`no piece ${index} in this plan`);
  const { counter } = h;
  const allowance = plan.summary.maxBriefingTokens;
  const soFar = index === 0 ? h.prior : briefingSoFar;
  if (index > 0 && (soFar === undefined || soFar === null || soFar.trim() === ''))
    throw new RangeError(`piece ${index} needs the briefing of piece ${index - 1}`);
  const messages: unknown[] = [];
  let inputTokens = 0;
  if (soFar !== null && soFar !== undefined) {
    const m = briefingMessage(fitBriefing(soFar, allowance, counter));
    messages.push(m);
    inputTokens += countWith(counter, m);
  }
  const span = h.spans[index]!;
  const own: unknown[] = [];
  let ownTokens = 0;
  for (let i = span.from; i < span.to; i++) {
    own.push(...messagesOf(h.head[i]!));
    ownTokens += h.head[i]!.own + h.head[i]!.noteTokens;
  }
  const piece = { index, count };
  const foldsBriefing = messages.length > 0;
  let shortened: SummaryRequest['shortened'];
  const room = plan.summary.inputLimit - inputTokens - longestInstructions(allowance, counter);
  if (ownTokens > room) {
    const s = shortenToFit(own, room, counter);
    own.length = 0;
    own.push(...s.messages);
    ownTokens = s.tokens;
    shortened = { toolOutputs: s.toolOutputs, messages: s.cutMessages };
  }
  messages.push(...own);
  const instructions = summaryInstructions(allowance, { piece, foldsBriefing, shortened });
  inputTokens += ownTokens + countWith(counter, instructions);
  return {
    messages,
    instructions,
    inputTokens,
    coversThrough: plan.summary.pieces[index]!.coversThrough,
    maxBriefingTokens: allowance,
    piece,
    ...(shortened ? { shortened } : {}),
  };
}

/**
 * The events of piece `index` of a tier-3 plan and the briefing that comes before them (as
 * summaryRequest puts it first, cut to maxBriefingTokens), for a caller that sends the
 * summariser the piece in a provider's shape (resume/context.ts) rather than as stored.
 */
export function pieceEvents(plan: CompactPlan, index: number, briefingSoFar?: string): { events: SeqEvent[]; briefing: string | null } {
  const h = PLAN_HEADS.get(plan);
  if (!h || !Number.isInteger(index) || index < 0 || index >= plan.summary.calls) throw new RangeError(`no piece ${index} in this plan`);
  const soFar = index === 0 ? h.prior : briefingSoFar;
  const span = h.spans[index]!;
  const events: SeqEvent[] = [];
  for (let i = span.from; i < span.to; i++) events.push({ seq: h.head[i]!.seq, event: h.head[i]!.event });
  const briefing = soFar === null || soFar === undefined ? null : fitBriefing(soFar, plan.summary.maxBriefingTokens, h.counter);
  return { events, briefing };
}

/** The events a tier-3 plan keeps verbatim after the briefing (its tail), in order. */
export function tailEvents(plan: CompactPlan): SeqEvent[] {
  return (PLAN_HEADS.get(plan)?.tail ?? []).map((it) => ({ seq: it.seq, event: it.event }));
}

/** The compact event a finished piece (not the last) appends: its briefing, cut to maxBriefingTokens. */
export interface RollingCompact {
  kind: 'compact';
  briefing: string;
  coversThrough: number;
  rolling: true;
}

/**
 * The event to append when piece `index` (not the last) has its briefing: a compact event
 * covering through the piece's last event, marked `rolling`, so that an interrupted resume
 * goes on from it (as a tier-2 or tier-3 prior briefing). Throws RangeError on an empty
 * briefing or for the last piece (applyBriefing's).
 */
export function rollingCompact(plan: CompactPlan, index: number, briefing: string): RollingCompact {
  if (briefing.trim() === '') throw new RangeError('the briefing is empty');
  if (!Number.isInteger(index) || index < 0 || index >= plan.summary.calls - 1)
    throw new RangeError(`piece ${index} is not a rolling piece of this plan`);
  const h = PLAN_HEADS.get(plan);
  const used = fitBriefing(briefing, plan.summary.maxBriefingTokens, h?.counter ?? estimateTokens);
  return { kind: 'compact', briefing: used, coversThrough: plan.summary.pieces[index]!.coversThrough, rolling: true };
}

/**
 * Tier 3, last step: the resumed context (briefing message first in both arrays, then the
 * verbatim tail) and the compact event to append, from the last piece's briefing. A briefing
 * longer than maxBriefingTokens or too long for the budget is cut
 * (by code points, ending with "…") so that the context always fits; the compact event carries
 * the briefing as used, so a later tier-2 resume reproduces this context. `counter` must be the
 * one the plan was made with. Throws RangeError on an empty briefing: a summariser that
 * returned nothing failed, and nothing should be appended.
 */
export function applyBriefing(plan: CompactPlan, briefing: string, counter: TokenCounter = estimateTokens): AppliedBriefing {
  if (briefing.trim() === '') throw new RangeError('the briefing is empty');
  const cost = (b: string) => plan.tail.estimate + 2 * countWith(counter, briefingMessage(b));
  // The budget, and maxBriefingTokens (planned room for "…" at least: both hold for it).
  const bound = briefingBound(plan.summary.maxBriefingTokens, counter);
  const { used, trimmed } = cutToFit(briefing, (b) => cost(b) <= plan.budget && countWith(counter, briefingMessage(b)) <= bound);
  const context: ResumedContext = {
    conversation: [briefingMessage(used), ...plan.tail.conversation],
    agentMessages: [briefingMessage(used), ...plan.tail.agentMessages],
    estimate: cost(used),
    notes: [...plan.tail.notes],
  };
  return {
    context,
    compact: { kind: 'compact', briefing: used, coversThrough: plan.summary.coversThrough },
    briefingTrimmed: trimmed,
    chatNote: TIER3_NOTE,
  };
}

/** True when a tier-3 plan's summary input (over every piece) exceeds `threshold` tokens: ask the user first. */
export function needsConsent(plan: ResumePlan, threshold: number = DEFAULT_CONSENT_THRESHOLD): boolean {
  return plan.tier === 3 && plan.summary.inputTokens > threshold;
}
