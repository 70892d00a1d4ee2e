// The client-to-server methods: each one validates nothing itself (server.ts did, against
// protocol.ts), calls the core and shapes the answer. Rules that the CLI would need too live in
// the core (store, the resume workflow, the listing query, titles, export, fork), not here; what
// stays here is protocol work: error codes, per-connection state, callbacks, progress, cancellation.
//
// Depends on the core and on the transport-neutral Context below; never on the connection.

import { CancellationTokenSource, ResponseError, type CancellationToken } from 'vscode-languageserver';
import { textOf, type SeqEvent } from '../format/events.js';
import type { SessionStore } from '../store/store.js';
import { forkSession } from '../store/fork.js';
import { labelOf } from '../import/tools.js';
import { CursorError, queryHistory } from '../listing/query.js';
import { setArchived, setPinned } from '../listing/lifecycle.js';
import type { History } from '../listing/history.js';
import { reindex } from '../listing/catalog.js';
import { parseZone, type Zone } from '../listing/view.js';
export { parseZone } from '../listing/view.js';
import { DEFAULT_IDLE_DAYS, ruleValue, runRetention } from '../listing/retention.js';
import { fallbackTitle, normalizeTitle, shouldGenerateTitle, titleInstructions, titleMaxTokens } from '../listing/title.js';
import { DEFAULT_CONSENT_THRESHOLD } from '../resume/resume.js';
import { continueCompaction, keptText, PendingResumes, type PieceRequest, ResumeError, resumeSession } from '../resume/workflow.js';
import { RpcErrorCodes, rpcError } from './errors.js';
import * as P from './protocol.js';
import type { LiveSearch } from './live-search.js';

// export.ts is loaded by the first export: compiling it is work the sidecar's first request need
// not wait for (search.ts comes with live-search.ts, which the core loads).
const exporter = () => import('../export/export.js');
const searcher = () => import('../search/search.js');

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
  /** The store's History, kept in memory between listings (listing/history.ts). */
  history: History;
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
  pending: PendingResumes;
  /** Titles made in the background after a session's second user turn. */
  titles: TitleJobs;
  /** The start-up auto-archive while it runs (initializationOptions.autoArchiveDays), else undefined. */
  sweeping?: Promise<unknown>;
  /** initializationOptions' retention rules (null: off; idleDays undefined: the default). */
  retention: { idleDays?: number | null; keep: number | null; maxAgeDays: number | null };
  /** The sidecar's search (its cache kept open and current, live-search.ts). */
  search: LiveSearch;
  /** The user's time zone (initializationOptions.timeZone, else the sidecar's), for session/list's `view`. */
  zone: Zone;
  /** initializationOptions.timeZone when the client sent a valid one (session/export's default). */
  clientZone?: Zone;
}

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

/** The same, as an AbortSignal for the core (which knows nothing of JSON-RPC tokens). */
function abortSignalOf(...tokens: CancellationToken[]): AbortSignal {
  const ac = new AbortController();
  const any = anyOf(...tokens);
  if (any.isCancellationRequested) ac.abort();
  else any.onCancellationRequested(() => ac.abort());
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
// The methods.

const sessionNew: Handler<typeof P.sessionNew> = async (p, _t, { store }) => {
  const meta = await store.create({ project: p.project, model: p.model });
  return { id: meta.id, project: meta.project, createdAt: meta.createdAt };
};

/**
 * Appends; a user turn may start the session's title in the background (TitleJobs), after the
 * answer. With `release` the lock is given back once the events are on disk (session/release),
 * and as well when the append is refused (a SessionConflict takes the lock to compare seqs): a
 * window told the chat continues elsewhere must not keep the other window from writing.
 */
const sessionAppend: Handler<typeof P.sessionAppend> = async (p, _t, ctx) => {
  let r;
  try {
    r = await ctx.store.append(p.id, p.events, { expectedSeq: p.expectedSeq });
  } catch (e) {
    if (p.release) await ctx.store.letGo(p.id).catch(() => false);
    throw e;
  }
  if (p.release) await ctx.store.letGo(p.id);
  if (p.events.some((e) => e.kind === 'user')) ctx.titles.afterUserTurn(p.id, ctx);
  return r;
};

/**
 * session/release: the lock given back without sealing, so that other processes may write
 * between this client's turns; its next append takes the lock again. A session not held
 * answers released: false; an id of no session is UnknownSession.
 */
const sessionRelease: Handler<typeof P.sessionRelease> = async (p, _t, { store }) => {
  await store.pathOf(p.id);
  return { id: p.id, released: await store.letGo(p.id) };
};

/**
 * History's main or archived list, a page at a time (listing/query.ts). A cold store's first
 * page is answered before every file is read; the rest is read in the background under a
 * progress report, and a session it finds that belonged on that page is announced by
 * session/didChange `listed` (the sidecar wires History's onLate).
 */
const sessionList: Handler<typeof P.sessionList> = async (p, _t, ctx) => {
  const { history, sweeping, zone } = ctx;
  const query = {
    project: p.project,
    all: p.all,
    list: p.archived ? ('archived' as const) : ('main' as const),
    cursor: p.cursor,
    limit: p.limit ?? 100,
  };
  let r: Awaited<ReturnType<typeof queryHistory>>;
  try {
    // The start-up auto-archive, when there is one, is seen by the first listing.
    r = await queryHistory(history, query, { holders: true, labels: true, zone, waitFor: sweeping, early: coldProgress(ctx) });
  } catch (e) {
    if (!(e instanceof CursorError)) throw e;
    throw new ResponseError(RpcErrorCodes.InvalidParams, `Invalid params for session/list at cursor: ${e.message}`, {
      issues: [{ code: 'custom', path: ['cursor'], message: e.message }],
    });
  }
  return { sessions: r.rows as P.SessionSummary[], problems: r.problems, ...(r.nextCursor ? { nextCursor: r.nextCursor } : {}) };
};

/**
 * The background reading after a cold first page, under a progress report begun when it starts.
 * It may outlive the connection (a shutdown meanwhile): a report that cannot be sent is dropped.
 */
function coldProgress(ctx: Context): { onFolder: (done: number, total: number) => void; onDone: () => void } {
  let progress: Promise<Progress> | undefined;
  const use = (f: (p: Progress) => void) => void (progress ??= ctx.progress(undefined, 'Reading History')).then(f).catch(() => undefined);
  return {
    onFolder: (done, total) => use((p) => p.report(`${done} of ${total} project folders`, Math.round((done / Math.max(1, total)) * 100))),
    onDone: () => {
      if (progress) use((p) => p.done());
    },
  };
}

/** session/export's zone: its `timeZone`, else the client's (initialize), else none (UTC). */
function exportZone(spec: string | undefined, ctx: Context): Zone | undefined {
  if (spec === undefined) return ctx.clientZone;
  const zone = parseZone(spec);
  if (!zone)
    throw rpcError('InvalidParams', `session/export: unknown time zone ${JSON.stringify(spec)} (an IANA name or an offset like +02:00)`);
  return zone;
}

/** initializationOptions.timeZone as a Zone: an unknown one is logged and the sidecar's own used. */
export function userZone(spec: string | undefined, log: { warn(m: string): void }): Zone {
  const zone = parseZone(spec);
  if (zone) return zone;
  log.warn(`ignoring initializationOptions.timeZone ${JSON.stringify(spec)}: not an IANA time zone or an offset like +02:00`);
  return parseZone(undefined)!;
}

const DEFAULT_TAIL = 100;

const sessionRead: Handler<typeof P.sessionRead> = async (p, _t, { store }) => {
  const window = p.from !== undefined || p.to !== undefined ? { from: p.from, to: p.to } : { tail: p.tail ?? DEFAULT_TAIL };
  const r = await store.read(p.id, window);
  return { meta: r.meta, events: r.events, problems: r.problems, totalEvents: r.totalEvents, elided: r.elided };
};

const sessionFork: Handler<typeof P.sessionFork> = async (p, _t, { store }) => {
  const project = p.project === undefined ? undefined : await store.realProject(p.project, true);
  const f = await forkSession(store, p.id, { atTurn: p.atTurn, project });
  return { id: f.meta.id, project: f.meta.project, createdAt: f.meta.createdAt, forkedFrom: f.forkedFrom, turn: f.turn, copied: f.copied };
};

/** A ResumeError (server/resume/workflow.ts) as the protocol's error; anything else as it is. */
function resumeFailure(e: unknown): unknown {
  if (!(e instanceof ResumeError)) return e;
  switch (e.code) {
    case 'invalid':
      return new ResponseError(RpcErrorCodes.InvalidParams, e.message, { issues: [] });
    case 'needs-summary-read-only':
      return rpcError('FeatureUnavailable', e.message, e.data);
    case 'empty-summary':
      return rpcError('CallbackFailed', e.message, { callback: 'summarize' });
    case 'not-awaited':
    case 'changed':
      return rpcError('ContentModified', e.message);
  }
}

/**
 * Resume (server/resume/workflow.ts): the workflow under a progress report, with the
 * `summarize` callback when the client answers it (else the two-step flow through
 * session/compact). Nothing is written before a briefing is in hand.
 */
const sessionResume: Handler<typeof P.sessionResume> = async (p, token, ctx) =>
  withProgress(ctx, token, p.workDoneToken, 'Resuming session', async (progress) => {
    const cancel = anyOf(token, progress.token);
    const request = { ...p, consentThreshold: p.consentThreshold ?? ctx.consentThreshold };
    const deps = {
      store: ctx.store,
      pending: ctx.pending,
      ...(ctx.callbacks.has('summarize') ? { summarize: (r: PieceRequest) => summarize(ctx, r, cancel) } : {}),
      progress: (message: string, percentage: number) => progress.report(message, percentage),
      signal: abortSignalOf(cancel),
    };
    return resumeSession(request, deps).catch((e: unknown) => {
      throw resumeFailure(e);
    });
  });

/** The two-step flow's next step (workflow.ts continueCompaction). */
const sessionCompact: Handler<typeof P.sessionCompact> = async (p, _t, ctx) =>
  continueCompaction({ store: ctx.store, pending: ctx.pending }, p).catch((e: unknown) => {
    throw resumeFailure(e);
  });

/**
 * Hand-off (server/handoff/handoff.ts): a new session of the agent CLI, never a change to one
 * of its files. The tool is looked for on the sidecar's PATH; its failures are -33012 with the
 * path or version in data.
 */
const sessionHandoff: Handler<typeof P.sessionHandoff> = async (p, _t, ctx) => {
  const { handOff, HandoffError } = await import('../handoff/handoff.js');
  try {
    return await handOff(ctx.store, p.id, { to: p.to, dryRun: p.dryRun });
  } catch (e) {
    if (e instanceof HandoffError) throw rpcError('HandoffFailed', e.message, { reason: e.code, ...e.data });
    throw e;
  }
};

/**
 * The `summarize` callback for one piece; a failure keeps what earlier pieces appended and
 * writes nothing for this one (nothing is appended before it answers).
 */
async function summarize(ctx: Context, r: PieceRequest, cancel: CancellationToken): Promise<string> {
  try {
    const { id, messages, instructions, target, piece, coversThrough, inputTokens, maxBriefingTokens, shortened } = r;
    const params = {
      id,
      messages,
      instructions,
      ...(target ? { target } : {}),
      piece,
      coversThrough,
      inputTokens,
      maxBriefingTokens,
      ...(shortened ? { shortened } : {}),
    };
    const answer = await ctx.ask<unknown>(P.sessionSummarize.method, params, cancel);
    check(cancel);
    const parsed = P.sessionSummarize.result.safeParse(answer);
    if (!parsed.success) throw new Error('the answer has no briefing');
    return parsed.data.briefing;
  } catch (e) {
    check(cancel);
    const code = e instanceof ResponseError ? e.code : undefined;
    if (code === RpcErrorCodes.RequestCancelled) throw cancelled();
    throw rpcError('CallbackFailed', `session/summarize failed: ${(e as Error).message}; ${keptText(r.piece.index)}`, {
      callback: 'summarize',
      code,
    });
  }
}

const MIME = { markdown: 'text/markdown', json: 'application/json' } as const;

const sessionReindex: Handler<typeof P.sessionReindex> = async (p, token, ctx) =>
  withProgress(ctx, token, p.workDoneToken, 'Rebuilding History indexes', async (progress) => {
    const r = await reindex(ctx.store, {
      project: p.project,
      signal: abortSignalOf(token, progress.token),
      onFolder: (done, total) => progress.report(`${done} of ${total} project folders`, Math.round((done / Math.max(1, total)) * 100)),
    });
    check(token, progress.token);
    return r;
  });

const sessionExport: Handler<typeof P.sessionExport> = async (p, token, ctx) =>
  withProgress(ctx, token, p.workDoneToken, 'Exporting session', async (progress) => {
    const r = await ctx.store.load(p.id, { signal: abortSignalOf(token, progress.token) });
    check(token, progress.token);
    progress.report(`Rendering ${r.events.length} events`, 50);
    const { renderMarkdown, exportJson } = await exporter();
    const content =
      p.format === 'markdown'
        ? renderMarkdown(r.meta, r.events, {
            thinking: p.thinking,
            tools: p.tools,
            maxToolChars: p.maxToolChars,
            zone: exportZone(p.timeZone, ctx),
          })
        : JSON.stringify(exportJson(r.meta, r.events, r.problems), null, 2) + '\n';
    check(token, progress.token);
    return { content, format: p.format, mimeType: MIME[p.format] };
  });

const sessionSearch: Handler<typeof P.sessionSearch> = async (p, token, ctx) =>
  withProgress(ctx, token, p.workDoneToken, 'Searching sessions', async (progress) => {
    const project = p.all || p.project === undefined ? undefined : await ctx.store.realProject(p.project, false);
    const { QueryError } = await searcher();
    // A project's search covers its History: its own sessions and those moved or relinked into it.
    const sessions =
      project === undefined
        ? undefined
        : (await (await import('../listing/history.js')).projectSessionFiles(ctx.store.root, project)).files;
    try {
      const r = await ctx.search.search(p.query, {
        sessions,
        since: p.since,
        until: p.until,
        limit: p.limit ?? 20,
        perSession: p.perSession,
        cursor: p.cursor,
        signal: abortSignalOf(token, progress.token),
      });
      check(token, progress.token);
      return r;
    } catch (e) {
      if (e instanceof QueryError) throw rpcError('InvalidParams', `session/search: ${e.message}`, { issues: [] });
      throw e;
    }
  });

const sessionRename: Handler<typeof P.sessionRename> = async (p, _t, { store, history, titles }) => {
  titles.renamed(p.id); // the user's title wins over a model title still in the making
  await store.rename(p.id, p.title, 'user', { borrow: true });
  return { id: p.id, title: (await history.get(p.id)).title };
};

const sessionDelete: Handler<typeof P.sessionDelete> = async (p, _t, { store, pending }) => {
  await store.delete(p.id);
  pending.forget(p.id);
  return { id: p.id };
};

const sessionRestore: Handler<typeof P.sessionRestore> = async (p, _t, { store }) => {
  const r = await store.restore(p.id);
  return { id: p.id, project: r.project, path: r.path, trashed: r.trashed };
};

const sessionRelink: Handler<typeof P.sessionRelink> = async (p, _t, { store }) => {
  const { relinkProject } = await import('../maintenance/relink.js');
  return relinkProject(store, p.from, p.to, { dryRun: p.dryRun });
};

// ---- Pins, archive, retention (lifecycle.ts, retention.ts) ------------------------------------

/** Pin and archive append as rename does: a session held by another window answers SessionLocked. */
const sessionPin: Handler<typeof P.sessionPin> = async (p, _t, { store }) => {
  const changed = await setPinned(store, p.id, p.pinned, { borrow: true });
  return { id: p.id, pinned: (await store.entry(p.id)).pinned, changed };
};

const sessionArchive: Handler<typeof P.sessionArchive> = async (p, _t, { store }) => {
  const changed = await setArchived(store, p.id, p.archived, { borrow: true });
  return { id: p.id, archived: (await store.entry(p.id)).archived, changed };
};

const sessionRetention: Handler<typeof P.sessionRetention> = async (p, _t, { store, history, retention }) => {
  const project = p.project === undefined ? undefined : await store.realProject(p.project, false);
  const settings = {
    // autoArchiveDays: 0 in initialize is off here too; absent there, the default.
    idleDays: ruleValue(p.autoArchiveDays, retention.idleDays === undefined ? DEFAULT_IDLE_DAYS : retention.idleDays),
    keep: ruleValue(p.keep, retention.keep),
    maxAgeDays: ruleValue(p.maxAgeDays, retention.maxAgeDays),
    delete: p.delete === true,
  };
  return runRetention(history, { scope: project === undefined ? { all: true } : { project }, settings, dryRun: p.dryRun === true });
};

export { ruleValue };

/** The sidecar's sweep at start and every few hours (server.ts): archives only, over every project. */
export function sweepAtStart(history: History, settings: Parameters<typeof runRetention>[1]['settings']) {
  return runRetention(history, { scope: { all: true }, settings: { ...settings, delete: false }, dryRun: false });
}

/** What New Chat does to the old session: a title if it has none, a sealed event, the lock let go. */
const sessionSeal: Handler<typeof P.sessionSeal> = async (p, token, ctx) => {
  const { store } = ctx;
  await store.acquire(p.id); // another owner: SessionLocked now, before asking any model
  ctx.pending.forget(p.id);
  try {
    // A title being made after the second user turn lands first: one title, never two.
    await ctx.titles.settled(p.id);
    const { title, titleSource } = await titleSession(ctx, p.id, token);
    await store.append(p.id, [{ kind: 'event', type: 'sealed' }]);
    return { id: p.id, title: title ?? (await ctx.history.get(p.id)).title, titleSource };
  } finally {
    await store.release(p.id);
  }
};

/** Events read to make a title: the opening of the session is enough, however long it grew. */
const TITLE_WINDOW = 64;

/**
 * Titles an untitled session the sidecar owns (or gave back: see below): the client's model through `session/title` when
 * it answers that callback, else (or on failure or timeout) the first user message, cut. The
 * latest state wins: a title that appeared meanwhile (a rename by the user) is kept, and nothing
 * is appended after a rename of this session started.
 */
async function titleSession(
  ctx: Context,
  id: string,
  token: CancellationToken,
): Promise<{ title: string | null; titleSource: 'existing' | 'model' | 'fallback' | 'none' }> {
  const { store } = ctx;
  const before = await ctx.history.get(id);
  if (before.titled) return { title: before.title, titleSource: 'existing' };
  const { events } = await store.read(id, { from: 0, to: TITLE_WINDOW - 1 });
  if (!shouldGenerateTitle(events, true)) return { title: null, titleSource: 'none' };
  const generated = await askTitle(ctx, id, events, token);
  const now = await ctx.history.get(id);
  // From here to the append's start nothing awaits: a rename either started before this check
  // (and is seen) or is queued behind this title (and wins as the latest).
  if (now.titled || ctx.titles.renamedByUser(id)) return { title: now.title, titleSource: 'existing' };
  const title = generated ?? fallbackTitle(events);
  if (title === null) return { title: null, titleSource: 'none' };
  // A session given back meanwhile (session/release) is borrowed for the one write; one that
  // another process holds refuses it (SessionLocked), as any write would.
  await store.rename(id, title, generated ? 'model' : 'fallback', { borrow: true });
  return { title, titleSource: generated ? 'model' : 'fallback' };
}

/**
 * Titles made after the second user turn, in the background of session/append: checked after
 * the append is answered, at most one at a time per session (each check waits for the previous
 * one), so a session gets one title event, not one per append. Seal waits for a running one;
 * a rename marks the session, so a model answer that arrives after it is dropped; shutdown
 * cancels the model calls (the fallback is written) and waits for them. Each finished job logs
 * "session <id> titled after its second user turn (<source>)" at info level.
 */
export class TitleJobs {
  private readonly chains = new Map<string, Promise<void>>();
  /** Sessions whose second-turn title was made or tried by this sidecar. */
  private readonly done = new Set<string>();
  /** Sessions the user renamed through this sidecar: no model or fallback title after that. */
  private readonly userTitled = new Set<string>();
  private readonly stop = new CancellationTokenSource();

  /** A rename of `id` is starting: titles in the making must not be appended after it. */
  renamed(id: string): void {
    this.userTitled.add(id);
    this.done.add(id);
  }

  renamedByUser(id: string): boolean {
    return this.userTitled.has(id);
  }

  /** Called when an append with a user event was answered. */
  afterUserTurn(id: string, ctx: Context): void {
    if (this.done.has(id) || this.stop.token.isCancellationRequested) return;
    const prev = this.chains.get(id) ?? Promise.resolve();
    const next = prev.then(() => this.check(id, ctx));
    this.chains.set(id, next);
    void next.then(() => {
      if (this.chains.get(id) === next) this.chains.delete(id);
    });
  }

  private async check(id: string, ctx: Context): Promise<void> {
    // After the ack: the append's answer is sent before any of this runs.
    await new Promise<void>((r) => setImmediate(r));
    if (this.done.has(id) || this.stop.token.isCancellationRequested) return;
    try {
      const entry = await ctx.history.get(id);
      if (entry.titled) {
        this.done.add(id);
        return;
      }
      if (entry.turns < 2) return;
      this.done.add(id);
      const r = await titleSession(ctx, id, this.stop.token);
      ctx.log.info(`session ${id} titled after its second user turn (${r.titleSource})`);
    } catch (e) {
      ctx.log.warn(`could not title ${id}: ${(e as Error).message}`);
    }
  }

  /** Resolves when no title of `id` is being made. */
  async settled(id: string): Promise<void> {
    await this.chains.get(id);
  }

  /** Cancels the model calls in flight (their sessions get the fallback) and waits for them. */
  async drain(): Promise<void> {
    this.stop.cancel();
    await Promise.all([...this.chains.values()]);
  }
}

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

/** session/import: the CLI's `import --json`, over the wire. */
const sessionImport: Handler<typeof P.sessionImport> = async (p, token, ctx) => {
  const [{ jobsFor }, { runImport }, { existsSync }, { homedir }, { isAbsolute }] = await Promise.all([
    import('../import/registry.js'),
    import('../import/engine.js'),
    import('node:fs'),
    import('node:os'),
    import('node:path'),
  ]);
  if (p.from !== undefined && !isAbsolute(p.from))
    throw rpcError('InvalidParams', `session/import: from must be an absolute path (got ${JSON.stringify(p.from)})`);
  let jobs;
  try {
    jobs = await jobsFor(p.tool ?? 'all', p.from, process.env, homedir(), existsSync);
  } catch (e) {
    throw rpcError('InvalidParams', `session/import: ${(e as Error).message}`);
  }
  return withProgress(ctx, token, p.workDoneToken, 'Importing sessions', async (progress) => {
    const report = await runImport(ctx.store, jobs, {
      dryRun: !!p.dryRun,
      signal: abortSignalOf(token, progress.token),
      onProgress: (done, total, bytes, totalBytes) =>
        progress.report(
          // Megabytes only where there are some ("0 of 0 MB" says nothing).
          `${done} of ${total} source files${totalBytes >= 1048576 ? `, ${Math.round(bytes / 1048576)} of ${Math.round(totalBytes / 1048576)} MB` : ''}`,
          Math.round((bytes / Math.max(1, totalBytes)) * 100),
        ),
    });
    check(token, progress.token);
    // A folder named by `from` that cannot be read fails the request, as the CLI exits non-zero.
    const unreadable = p.from !== undefined ? report.problems.find((x) => x.path === p.from) : undefined;
    if (unreadable) throw rpcError('InvalidParams', `session/import: cannot read ${unreadable.path}: ${unreadable.message}`, { report });
    const tools = report.tools.map((t) => ({ ...t, label: labelOf(t.tool) }));
    return { ...report, tools } as P.ResultOf<typeof P.sessionImport>;
  });
};

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
  route(P.sessionHandoff, sessionHandoff),
  route(P.sessionCompact, sessionCompact),
  route(P.sessionExport, sessionExport),
  route(P.sessionSearch, sessionSearch),
  route(P.sessionRename, sessionRename),
  route(P.sessionDelete, sessionDelete),
  route(P.sessionRestore, sessionRestore),
  route(P.sessionRelink, sessionRelink),
  route(P.sessionSeal, sessionSeal),
  route(P.sessionRelease, sessionRelease),
  route(P.sessionPin, sessionPin),
  route(P.sessionArchive, sessionArchive),
  route(P.sessionRetention, sessionRetention),
  route(P.sessionReindex, sessionReindex),
  route(P.sessionImport, sessionImport),
]);

export { DEFAULT_CONSENT_THRESHOLD, PendingResumes };
