// The client-to-server methods: each one validates nothing itself (server.ts did, against
// protocol.ts), calls the core and shapes the answer. Rules that the CLI would need too live in
// the core (store, resume planner, titles, export, fork), not here; what stays here is protocol
// work: paging cursors, ownership bookkeeping per connection, callbacks, progress, cancellation.
//
// Depends on the core and on the transport-neutral Context below; never on the connection.

import { ResponseError, CancellationTokenSource, type CancellationToken } from 'vscode-languageserver';
import { isStoreError } from '../core/errors.js';
import { textOf, type SeqEvent } from '../core/events.js';
import type { SessionStore } from '../core/store.js';
import { forkSession } from '../core/fork.js';
import { newestFirst } from '../core/catalog.js';
import { currentTitle, fallbackTitle, normalizeTitle, shouldGenerateTitle, titleInstructions, titleMaxTokens } from '../core/title.js';
import { planResume, applyBriefing, needsConsent, DEFAULT_CONSENT_THRESHOLD, type CompactPlan, type ResumePlan } from '../core/resume.js';
import { renderMarkdown, exportJson } from '../core/export.js';
import { searchSessions } from '../core/search.js';
import { RpcErrorCodes, rpcError } from './errors.js';
import * as P from './protocol.js';

// ---------------------------------------------------------------------------------------------
// What handlers may use.

export interface Progress {
  report(message: string, percentage?: number): void;
  done(): void;
  /** Cancelled when the user cancels from the client's progress UI. */
  readonly token: CancellationToken;
}

export interface Context {
  store: SessionStore;
  /** Callbacks the client said it answers. */
  callbacks: ReadonlySet<P.Callback>;
  /** A server-to-client request; rejects with the client's error or on cancellation. */
  ask<R>(method: string, params: unknown, token?: CancellationToken): Promise<R>;
  progress(workDoneToken: string | number | undefined, title: string): Promise<Progress>;
  log: { info(m: string): void; warn(m: string): void; debug(m: string): void };
  /** Milliseconds a title callback may take before the fallback title is used. */
  titleTimeoutMs: number;
  consentThreshold: number;
  /** Tier-3 plans waiting for session/compact (the two-step flow), by session id. */
  pendingCompactions: Map<string, PendingCompaction>;
}

export interface PendingCompaction {
  plan: CompactPlan;
  /** The file's size when planned: a session that changed since needs a new plan. */
  bytes: number;
  base: ResumeBase;
}

/** The fields of a resume result that do not depend on the tier. */
type ResumeBase = Pick<P.ResultOf<typeof P.sessionResume>, 'id' | 'readOnly' | 'heldBy' | 'problems' | 'forkedFrom' | 'tokens'>;

export type Handler<D extends P.RequestDescriptor> = (
  params: P.ParamsOf<D>,
  token: CancellationToken,
  ctx: Context,
) => Promise<P.ResultOf<D>>;

export function cancelled(): ResponseError<unknown> {
  return rpcError('RequestCancelled', 'Request cancelled');
}

function check(...tokens: CancellationToken[]): void {
  if (tokens.some((t) => t.isCancellationRequested)) throw cancelled();
}

/** One token cancelled when any of them is (the request's, the progress UI's). */
function anyOf(...tokens: CancellationToken[]): CancellationToken {
  const cts = new CancellationTokenSource();
  for (const t of tokens) {
    if (t.isCancellationRequested) cts.cancel();
    else t.onCancellationRequested(() => cts.cancel());
  }
  return cts.token;
}

function abortSignalOf(...tokens: CancellationToken[]): AbortSignal {
  const ac = new AbortController();
  for (const t of tokens) {
    if (t.isCancellationRequested) ac.abort();
    else t.onCancellationRequested(() => ac.abort());
  }
  return ac.signal;
}

/** Runs long work under a progress report, always ending it. */
async function withProgress<T>(
  ctx: Context,
  token: CancellationToken,
  workDoneToken: string | number | undefined,
  title: string,
  fn: (p: Progress) => Promise<T>,
): Promise<T> {
  const p = await ctx.progress(workDoneToken, title);
  try {
    check(token, p.token);
    return await fn(p);
  } catch (e) {
    // Aborted reads and searches reject with the signal's reason: the client sees -32800.
    check(token, p.token);
    throw e;
  } finally {
    p.done();
  }
}

// ---------------------------------------------------------------------------------------------
// Paging: an opaque cursor naming the last row of the previous page, so rows created meanwhile
// (they sort first) never shift the next page.

function encodeCursor(e: { updatedAt: string; id: string }): string {
  return Buffer.from(JSON.stringify([e.updatedAt, e.id])).toString('base64url');
}

function decodeCursor(c: string): { updatedAt: string; id: string } {
  try {
    const v = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string') return { updatedAt: v[0], id: v[1] };
  } catch {
    /* fall through */
  }
  throw new ResponseError(RpcErrorCodes.InvalidParams, 'Invalid params for session/list at cursor: not a cursor this server made', {
    issues: [{ code: 'custom', path: ['cursor'], message: 'not a cursor this server made' }],
  });
}

// ---------------------------------------------------------------------------------------------
// The methods.

const sessionNew: Handler<typeof P.sessionNew> = async (p, _t, { store }) => {
  const meta = await store.create({ project: p.project, model: p.model });
  return { id: meta.id, project: meta.project, createdAt: meta.createdAt };
};

const sessionAppend: Handler<typeof P.sessionAppend> = async (p, _t, { store }) => store.append(p.id, p.events);

const sessionList: Handler<typeof P.sessionList> = async (p, _t, { store }) => {
  const after = p.cursor === undefined ? undefined : decodeCursor(p.cursor);
  const { sessions, problems } = await store.list({ project: p.all ? undefined : p.project, all: p.all });
  const rows = after ? sessions.filter((s) => newestFirst(s, after) > 0) : sessions;
  const limit = p.limit ?? 100;
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  return { sessions: page, problems, ...(more ? { nextCursor: encodeCursor(page[page.length - 1]) } : {}) };
};

const DEFAULT_TAIL = 100;

const sessionRead: Handler<typeof P.sessionRead> = async (p, _t, { store }) => {
  const window = p.from !== undefined || p.to !== undefined ? { from: p.from, to: p.to } : { tail: p.tail ?? DEFAULT_TAIL };
  const r = await store.read(p.id, window);
  return { meta: r.meta, events: r.events, problems: r.problems, totalEvents: r.totalEvents, elided: r.elided };
};

const sessionFork: Handler<typeof P.sessionFork> = async (p, _t, { store }) => {
  const f = await forkSession(store, p.id);
  return { id: f.meta.id, project: f.meta.project, createdAt: f.meta.createdAt, forkedFrom: f.forkedFrom, copied: f.copied };
};

/**
 * Resume: take ownership (or answer read-only when another process holds the session), load,
 * plan with the core planner (server/core/resume.ts), and for tier 3 get the briefing through
 * the `summarize` callback. Seam for issue 4: the two-step flow (session/compact) for clients
 * without the callback; until then they get FeatureUnavailable with the figures.
 */
const sessionResume: Handler<typeof P.sessionResume> = async (p, token, ctx) =>
  withProgress(ctx, token, p.workDoneToken, 'Resuming session', async (progress) => {
    const { store } = ctx;
    const cancel = anyOf(token, progress.token);
    const id = p.copy ? (await forkSession(store, p.id)).meta.id : p.id;
    const owner = await takeOrReadOnly(store, id);
    const loaded = await store.load(id, { signal: abortSignalOf(cancel) });
    check(cancel);
    let plan: ResumePlan;
    try {
      plan = planResume(loaded.events, { window: p.contextWindow, budgetRatio: p.budgetRatio, keepTurns: p.keepTurns });
    } catch (e) {
      if (e instanceof RangeError) throw new ResponseError(RpcErrorCodes.InvalidParams, e.message, { issues: [] });
      throw e;
    }
    const base: ResumeBase = {
      id,
      ...owner,
      problems: loaded.problems,
      ...(p.copy ? { forkedFrom: p.id } : {}),
      tokens: { transcript: plan.transcriptTokens, budget: plan.budget, window: plan.window },
    };
    if (plan.tier !== 3) {
      const c = plan.context;
      return { ...base, tier: plan.tier, conversation: c.conversation, agentMessages: c.agentMessages, ...(plan.chatNote ? { note: plan.chatNote } : {}) };
    }
    if (owner.readOnly) {
      const figures = { tier: 3 as const, inputTokens: plan.summary.inputTokens, coversThrough: plan.summary.coversThrough };
      throw rpcError('FeatureUnavailable', 'this session needs a summary to resume, and this window cannot write it: open a copy', figures);
    }
    if (needsConsent(plan, ctx.consentThreshold) && p.confirm !== true) {
      const needsConfirmation = { inputTokens: plan.summary.inputTokens, threshold: ctx.consentThreshold };
      return { ...base, tier: 3, conversation: [], agentMessages: [], needsConfirmation };
    }
    if (!ctx.callbacks.has('summarize')) {
      // The two-step flow: the client summarises, then sends session/compact.
      ctx.pendingCompactions.set(id, { plan, bytes: (await store.get(id)).bytes, base });
      const { messages, instructions, inputTokens, coversThrough, maxBriefingTokens } = plan.summary;
      return { ...base, tier: 3, conversation: [], agentMessages: [], needsSummary: { messages, instructions, inputTokens, coversThrough, maxBriefingTokens } };
    }
    progress.report('Summarising the earlier part of the session');
    const briefing = await summarize(ctx, id, plan.summary, cancel);
    return compactAndResume(ctx, id, plan, briefing, base);
  });

/** Appends the compact event for `briefing` (cut to fit the budget) and answers the resumed context. */
async function compactAndResume(ctx: Context, id: string, plan: CompactPlan, briefing: string, base: ResumeBase): Promise<P.ResultOf<typeof P.sessionResume>> {
  const applied = applyBriefing(plan, briefing);
  await ctx.store.append(id, [applied.compact]);
  ctx.pendingCompactions.delete(id);
  const c = applied.context;
  return { ...base, tier: 3, conversation: c.conversation, agentMessages: c.agentMessages, note: applied.chatNote };
}

/** Second step of the two-step flow: the briefing for the plan session/resume handed out. */
const sessionCompact: Handler<typeof P.sessionCompact> = async (p, _t, ctx) => {
  const pending = ctx.pendingCompactions.get(p.id);
  if (!pending || pending.plan.summary.coversThrough !== p.coversThrough) {
    throw rpcError('ContentModified', `no summary of ${p.id} through seq ${p.coversThrough} is awaited (the session changed, or the sidecar restarted): resume again`);
  }
  if ((await ctx.store.get(p.id)).bytes !== pending.bytes) {
    ctx.pendingCompactions.delete(p.id);
    throw rpcError('ContentModified', `${p.id} changed since session/resume asked for its summary: resume again`);
  }
  return compactAndResume(ctx, p.id, pending.plan, p.briefing, pending.base);
};

/** Takes the session's lock; another owner (or a newer schema) makes the result read-only. */
async function takeOrReadOnly(store: SessionStore, id: string): Promise<{ readOnly: boolean; heldBy?: { pid?: number; host?: string } }> {
  if (store.holds(id)) return { readOnly: false };
  try {
    await store.acquire(id);
    return { readOnly: false };
  } catch (e) {
    if (!isStoreError(e, 'locked') && !isStoreError(e, 'schema-too-new')) throw e;
    const info = await store.lockInfo(id).catch(() => undefined);
    return info?.locked ? { readOnly: true, heldBy: { pid: info.pid, host: info.host } } : { readOnly: true };
  }
}

/** The `summarize` callback; any failure leaves the session unchanged (nothing is appended before it answers). */
async function summarize(
  ctx: Context,
  id: string,
  summary: { messages: unknown[]; instructions: string },
  cancel: CancellationToken,
): Promise<string> {
  try {
    const answer = await ctx.ask<unknown>(P.sessionSummarize.method, { id, messages: summary.messages, instructions: summary.instructions }, cancel);
    check(cancel);
    const parsed = P.sessionSummarize.result.safeParse(answer);
    if (!parsed.success) throw new Error('the answer has no briefing');
    return parsed.data.briefing;
  } catch (e) {
    check(cancel);
    const code = e instanceof ResponseError ? e.code : undefined;
    if (code === RpcErrorCodes.RequestCancelled) throw cancelled();
    throw rpcError('CallbackFailed', `session/summarize failed: ${(e as Error).message}; the session is unchanged`, { callback: 'summarize', code });
  }
}

const MIME = { markdown: 'text/markdown', json: 'application/json' } as const;

const sessionExport: Handler<typeof P.sessionExport> = async (p, token, ctx) =>
  withProgress(ctx, token, p.workDoneToken, 'Exporting session', async (progress) => {
    const r = await ctx.store.load(p.id, { signal: abortSignalOf(token, progress.token) });
    check(token, progress.token);
    progress.report(`Rendering ${r.events.length} events`, 50);
    const content =
      p.format === 'markdown'
        ? renderMarkdown(r.meta, r.events, { thinking: p.thinking, tools: p.tools, maxToolChars: p.maxToolChars })
        : JSON.stringify(exportJson(r.meta, r.events, r.problems), null, 2) + '\n';
    check(token, progress.token);
    return { content, format: p.format, mimeType: MIME[p.format] };
  });

const sessionSearch: Handler<typeof P.sessionSearch> = async (p, token, ctx) =>
  withProgress(ctx, token, p.workDoneToken, 'Searching sessions', async (progress) => {
    const project = p.all || p.project === undefined ? undefined : await ctx.store.realProject(p.project, false);
    const r = await searchSessions(ctx.store.root, p.query, {
      project,
      since: p.since,
      until: p.until,
      limit: p.limit ?? 100,
      signal: abortSignalOf(token, progress.token),
      onProgress: (done, total) => progress.report(`${done}/${total} sessions`, total > 0 ? Math.floor((done / total) * 100) : 100),
    });
    check(token, progress.token);
    return r;
  });

/** Rename appends, which takes the lock; a session we did not own before stays not ours. */
async function appendingAs<T>(store: SessionStore, id: string, fn: () => Promise<T>): Promise<T> {
  const owned = store.holds(id);
  try {
    return await fn();
  } finally {
    if (!owned && store.holds(id)) await store.release(id);
  }
}

const sessionRename: Handler<typeof P.sessionRename> = async (p, _t, { store }) => {
  await appendingAs(store, p.id, () => store.rename(p.id, p.title, 'user'));
  return { id: p.id, title: (await store.get(p.id)).title };
};

const sessionDelete: Handler<typeof P.sessionDelete> = async (p, _t, { store, pendingCompactions }) => {
  await store.delete(p.id);
  pendingCompactions.delete(p.id);
  return { id: p.id };
};

/** What New Chat does to the old session: a title if it has none, a sealed event, the lock let go. */
const sessionSeal: Handler<typeof P.sessionSeal> = async (p, token, ctx) => {
  const { store } = ctx;
  await store.acquire(p.id); // another owner: SessionLocked now, before asking any model
  ctx.pendingCompactions.delete(p.id);
  try {
    const { events } = await store.load(p.id);
    let title = currentTitle(events);
    let titleSource: 'existing' | 'model' | 'fallback' | 'none' = title === null ? 'none' : 'existing';
    if (title === null && shouldGenerateTitle(events, true)) {
      const generated = await askTitle(ctx, p.id, events, token);
      title = generated ?? fallbackTitle(events);
      titleSource = title === null ? 'none' : generated ? 'model' : 'fallback';
      if (title !== null) await store.rename(p.id, title, generated ? 'model' : 'fallback');
    }
    await store.append(p.id, [{ kind: 'event', type: 'sealed' }]);
    return { id: p.id, title: title ?? (await store.get(p.id)).title, titleSource };
  } finally {
    await store.release(p.id);
  }
};

/** The `title` callback, for a client that answers it; null on refusal, failure or timeout. */
async function askTitle(ctx: Context, id: string, events: readonly SeqEvent[], token: CancellationToken): Promise<string | null> {
  if (!ctx.callbacks.has('title')) return null;
  const messages: { role: 'user' | 'assistant'; text: string }[] = [];
  for (const { event } of events) {
    if (event.kind !== 'user' && event.kind !== 'assistant') continue;
    const text = textOf(event.content).trim();
    if (text) messages.push({ role: event.kind, text: text.slice(0, 2000) });
    if (messages.length >= 6) break;
  }
  // Cancelled on timeout, so that the client stops its model call too.
  const cts = new CancellationTokenSource();
  const sub = token.onCancellationRequested(() => cts.cancel());
  const timer = setTimeout(() => cts.cancel(), ctx.titleTimeoutMs);
  try {
    const answer = await ctx.ask<unknown>(
      P.sessionTitle.method,
      { id, messages, instructions: titleInstructions, maxTokens: titleMaxTokens },
      cts.token,
    );
    const parsed = P.sessionTitle.result.safeParse(answer);
    return parsed.success ? normalizeTitle(parsed.data.title) : null;
  } catch (e) {
    ctx.log.warn(`session/title failed (${(e as Error).message}); using the fallback title`);
    return null;
  } finally {
    clearTimeout(timer);
    sub.dispose();
    cts.dispose();
  }
}

// ---------------------------------------------------------------------------------------------

export interface Route {
  descriptor: P.RequestDescriptor;
  handler: (params: unknown, token: CancellationToken, ctx: Context) => Promise<unknown>;
}

function route<D extends P.RequestDescriptor>(descriptor: D, handler: Handler<D>): [string, Route] {
  return [descriptor.method, { descriptor, handler: handler as Route['handler'] }];
}

export const ROUTES: ReadonlyMap<string, Route> = new Map([
  route(P.sessionNew, sessionNew),
  route(P.sessionAppend, sessionAppend),
  route(P.sessionList, sessionList),
  route(P.sessionRead, sessionRead),
  route(P.sessionResume, sessionResume),
  route(P.sessionFork, sessionFork),
  route(P.sessionCompact, sessionCompact),
  route(P.sessionExport, sessionExport),
  route(P.sessionSearch, sessionSearch),
  route(P.sessionRename, sessionRename),
  route(P.sessionDelete, sessionDelete),
  route(P.sessionSeal, sessionSeal),
]);

export { DEFAULT_CONSENT_THRESHOLD };
