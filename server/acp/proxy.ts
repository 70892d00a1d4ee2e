// The recording ACP proxy: an ACP agent toward the editor, an ACP client toward the real agent.
// Every JSON-RPC message is relayed as it came (the SDK's ndJsonStream frames both sides), with
// three exceptions, all on purpose: the agent's `initialize` answer gains the session
// capabilities the proxy serves (loadSession, sessionCapabilities.list and .resume); a session
// the proxy opened for a load or resume from the store keeps the id the editor asked for, so the
// agent's id is swapped in `params.sessionId` both ways; and the first prompt after such a load
// carries the earlier conversation before the editor's blocks.
// An earlier conversation too large for the agent's window is summarised by the agent itself
// before that first prompt goes on: the proxy asks the editor's consent (session/request_permission,
// above the sidecar's consent threshold), then prompts a hidden session of its own, one piece at
// a time; that session's traffic is neither relayed nor recorded, and each piece's summary is a
// compact event in the store (the transcript stays whole).
//
// Recording (record.ts) goes to the store as it happens: the prompt is on disk before the
// agent sees it, the updates are appended in order behind it, and the prompt's answer is relayed
// only after everything before it is on disk, so what the editor saw acknowledged is kept.
// Session methods (list, load, resume): passed to the agent where it has them and the session is
// its own; otherwise answered from the store (replay.ts).
// Depends on the store, resume and format; the CLI door (server/cli/acp.ts) spawns the agent and
// hands over the two streams.

import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { SeqEvent } from '../format/events.js';
import { isSessionId } from '../format/ids.js';
import { forkSession } from '../store/fork.js';
import type { SessionStore } from '../store/store.js';
import { History, type SessionEntry } from '../listing/history.js';
import { type CompactPlan, DEFAULT_CONSENT_THRESHOLD, needsConsent } from '../resume/resume.js';
import { summarizePieces } from '../resume/workflow.js';
import { SessionRecorder, type Recorded } from './record.js';
import { type Earlier, earlierConversation, earlierFromSummary, replayUpdates, summaryPlanOf, summaryPrompt } from './replay.js';

type Rec = Record<string, unknown>;
type Id = string | number;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** ACP's "resource not found" (an unknown session). */
export const RESOURCE_NOT_FOUND = -32002;

export interface ProxyOptions {
  store: SessionStore;
  /** The agent's name: the `source.tool` of the sessions it records. */
  name: string;
  /** Where the agent runs from (recorded as `source.path`). */
  agentPath: string;
  /** The agent model's context window in tokens, for the earlier conversation (default 200k). */
  window?: number;
  /** A summary whose input exceeds this many tokens needs the editor's consent (default 50k, as the sidecar's). */
  consentThreshold?: number;
  log?: (line: string) => void;
}

/** One editor session: its store session, its recorder, and its writes in order. */
interface Live {
  editorId: string;
  agentId: string;
  storeId: string | null;
  recorder: SessionRecorder;
  writing: Promise<void>;
  /** The earlier conversation, waiting for the next prompt. */
  earlier: (Earlier & { text: string; from: string; consent?: 'allowed' | 'rejected' }) | null;
  /** The earlier conversation needs a summary first: done before the next prompt goes on. */
  summary: { plan: CompactPlan; fallback: Earlier; from: string; cwd: string } | null;
  /** A native load is replaying: its updates are relayed, not recorded again. */
  loading: boolean;
  /** The proxy is replaying a saved session: the new agent session's notifications wait here. */
  held: Rec[] | null;
  /** Events waiting for the append in flight to finish. */
  queue: Recorded[];
  draining: boolean;
}

interface Pending {
  method: string;
  message: Rec;
  editorId?: string;
}

export interface AgentCapabilities {
  loadSession: boolean;
  list: boolean;
  resume: boolean;
  fork: boolean;
}

/** The turn a fork stops at: `_meta.levelcode.atTurn` (ACP's fork takes the whole session). */
export function atTurnOf(params: Rec): number | undefined {
  const t = rec(rec(params._meta).levelcode).atTurn;
  return Number.isInteger(t) && (t as number) >= 0 ? (t as number) : undefined;
}

export class AcpProxy {
  private toEditor!: WritableStreamDefaultWriter<AnyMessage>;
  private toAgent!: WritableStreamDefaultWriter<AnyMessage>;
  /** By the id the editor uses. */
  private readonly sessions = new Map<string, Live>();
  private readonly byAgentId = new Map<string, Live>();
  /** The editor's requests waiting for the agent's answer, by id. */
  private readonly fromEditor = new Map<Id, Pending>();
  /** The agent's requests waiting for the editor's answer, by id. */
  private readonly fromAgent = new Map<Id, Pending>();
  /** The proxy's own requests to the agent. */
  private readonly own = new Map<Id, (m: Rec) => void>();
  private ownSeq = 0;
  /** The proxy's own requests to the editor (consent). */
  private readonly ownToEditor = new Map<Id, (m: Rec) => void>();
  /** The proxy's hidden summarising sessions, by agent id: the text of the answer in progress. */
  private readonly hidden = new Map<string, string[]>();
  caps: AgentCapabilities = { loadSession: false, list: false, resume: false, fork: false };
  private readonly log: (line: string) => void;
  private readonly history: History;

  constructor(private readonly o: ProxyOptions) {
    this.log = o.log ?? ((l) => process.stderr.write(`[levelcode-sessions acp] ${l}\n`));
    this.history = new History(o.store);
  }

  /** Resolves once every write queued so far is on disk (or failed and was logged). */
  async settled(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((s) => s.writing));
  }

  /** Relays until either side closes; resolves with the side that closed first. */
  async run(editor: Stream, agent: Stream): Promise<'editor' | 'agent'> {
    this.toEditor = editor.writable.getWriter();
    this.toAgent = agent.writable.getWriter();
    const fromEditor = this.pump(editor.readable, (m) => this.onEditor(m)).then(() => 'editor' as const);
    const fromAgent = this.pump(agent.readable, (m) => this.onAgent(m)).then(() => 'agent' as const);
    const first = await Promise.race([fromEditor, fromAgent]);
    if (first === 'agent') await this.agentGone();
    await Promise.all([...this.sessions.values()].map((s) => s.writing));
    return first;
  }

  private async pump(readable: ReadableStream<AnyMessage>, handle: (m: Rec) => Promise<void>): Promise<void> {
    const reader = readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        try {
          await handle(value as Rec);
        } catch (e) {
          this.log(`relay error: ${(e as Error).stack ?? e}`);
        }
      }
    } catch (e) {
      this.log(`stream closed: ${(e as Error).message}`);
    } finally {
      reader.releaseLock();
    }
  }

  // ---- Writing to the store, in order ----------------------------------------------------------

  /**
   * Queues events for the session's file; resolves once they are on disk. One append at a time:
   * what arrives while one is written goes in the next, together (one fsync for a burst).
   */
  private record(s: Live, events: Recorded[]): Promise<void> {
    if (events.length === 0 || s.storeId === null) return s.writing;
    s.queue.push(...events);
    if (!s.draining) {
      s.draining = true;
      s.writing = this.drain(s);
    }
    return s.writing;
  }

  private async drain(s: Live): Promise<void> {
    try {
      while (s.queue.length > 0 && s.storeId !== null) {
        const batch = s.queue.splice(0);
        await this.o.store.append(s.storeId, batch).catch((e: Error) => this.log(`could not record to session ${s.storeId}: ${e.message}`));
      }
    } finally {
      s.draining = false;
    }
  }

  private live(editorId: string, agentId: string, storeId: string | null): Live {
    const s: Live = {
      editorId,
      agentId,
      storeId,
      recorder: new SessionRecorder(),
      writing: Promise.resolve(),
      earlier: null,
      summary: null,
      loading: false,
      held: null,
      queue: [],
      draining: false,
    };
    this.sessions.set(editorId, s);
    this.byAgentId.set(agentId, s);
    return s;
  }

  /** A new store session for an agent session, listed under `cwd` with the agent's name. */
  private async createStore(agentId: string, cwd: string): Promise<string | null> {
    try {
      const meta = await this.o.store.create({ project: cwd, source: this.source(agentId, cwd) });
      return meta.id;
    } catch (e) {
      this.log(`not recording session ${agentId}: ${(e as Error).message}`);
      return null;
    }
  }

  private source(agentId: string, cwd: string) {
    return { tool: this.o.name, id: agentId, path: this.o.agentPath, project: cwd, via: 'acp' };
  }

  // ---- Sending ---------------------------------------------------------------------------------

  private send(to: 'editor' | 'agent', m: Rec): Promise<void> {
    return (to === 'editor' ? this.toEditor : this.toAgent).write(m as AnyMessage);
  }

  private reply(id: Id, result: unknown): Promise<void> {
    return this.send('editor', { jsonrpc: '2.0', id, result });
  }

  private fail(id: Id, code: number, message: string, data?: unknown): Promise<void> {
    return this.send('editor', { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
  }

  /**
   * A request of the proxy's own to the agent; resolves with its response message. `first` runs
   * as the answer is read, before the agent's next message is.
   */
  private ask(method: string, params: unknown, first?: (m: Rec) => void): Promise<Rec> {
    const id = `levelcode-acp-${++this.ownSeq}`;
    return new Promise((resolve) => {
      this.own.set(id, (m) => {
        first?.(m);
        resolve(m);
      });
      void this.send('agent', { jsonrpc: '2.0', id, method, params });
    });
  }

  /** The message with `params.sessionId` swapped by `map` (the same object when nothing changes). */
  private swapped(m: Rec, map: (id: string) => string | undefined): Rec {
    const params = rec(m.params);
    const id = str(params.sessionId);
    const to = id === undefined ? undefined : map(id);
    if (to === undefined || to === id) return m;
    return { ...m, params: { ...params, sessionId: to } };
  }

  private toAgentId = (id: string) => this.sessions.get(id)?.agentId;
  private toEditorId = (id: string) => this.byAgentId.get(id)?.editorId;

  // ---- From the editor ---------------------------------------------------------------------------

  private async onEditor(m: Rec): Promise<void> {
    const method = str(m.method);
    const id = m.id as Id | undefined;
    if (method === undefined) {
      // The editor's answer to an agent's request (or to the proxy's own).
      const mine = id !== undefined ? this.ownToEditor.get(id) : undefined;
      if (mine) {
        this.ownToEditor.delete(id!);
        return mine(m);
      }
      if (id !== undefined) {
        const p = this.fromAgent.get(id);
        this.fromAgent.delete(id);
        if (p?.method === 'session/request_permission' && p.editorId !== undefined) {
          const s = this.sessions.get(p.editorId);
          if (s) void this.record(s, s.recorder.permission(p.message, m));
        }
      }
      return this.send('agent', m);
    }
    if (id === undefined) return this.send('agent', this.swapped(m, this.toAgentId));
    const params = rec(m.params);
    switch (method) {
      case 'session/prompt':
        // Summarising waits for the editor's consent, which this very reader delivers.
        if (this.sessions.get(str(params.sessionId) ?? '')?.summary) {
          void this.prompt(m, id, params).catch((e: Error) => this.log(`prompt failed: ${e.stack ?? e}`));
          return;
        }
        return this.prompt(m, id, params);
      case 'session/list':
        if (this.caps.list) break;
        return this.reply(id, await this.listFromStore(params));
      case 'session/load':
      case 'session/resume':
        if (await this.native(method, params)) break;
        return this.fromStore(method, id, params);
      case 'session/fork':
        if (this.caps.fork && atTurnOf(params) === undefined && (await this.agentsOwn(params))) break;
        return this.fromStore(method, id, params);
    }
    this.fromEditor.set(id, { method, message: m, editorId: str(params.sessionId) });
    return this.send('agent', this.swapped(m, this.toAgentId));
  }

  private async prompt(m: Rec, id: Id, params: Rec): Promise<void> {
    const editorId = str(params.sessionId) ?? '';
    const s = this.sessions.get(editorId);
    this.fromEditor.set(id, { method: 'session/prompt', message: m, editorId });
    if (!s) return this.send('agent', m);
    if (s.summary) await this.summarise(s);
    let out = this.swapped(m, this.toAgentId);
    const events: Recorded[] = [];
    if (s.earlier) {
      const e = s.earlier;
      s.earlier = null;
      events.push({
        kind: 'event',
        type: 'acp-earlier',
        from: e.from,
        tier: e.tier,
        messages: e.messages,
        leftOut: e.leftOut,
        ...(e.pieces !== undefined ? { pieces: e.pieces } : {}),
        ...(e.consent !== undefined ? { consent: e.consent } : {}),
      });
      const p = rec(out.params);
      out = { ...out, params: { ...p, prompt: [{ type: 'text', text: e.text }, ...(Array.isArray(p.prompt) ? p.prompt : [])] } };
    }
    events.push(...s.recorder.prompt(m));
    // On disk before the agent sees it.
    await this.record(s, events);
    return this.send('agent', out);
  }

  // ---- From the agent ----------------------------------------------------------------------------

  private async onAgent(m: Rec): Promise<void> {
    const method = str(m.method);
    const id = m.id as Id | undefined;
    if (method === undefined) {
      if (id === undefined) return this.send('editor', m);
      const mine = this.own.get(id);
      if (mine) {
        this.own.delete(id);
        return mine(m);
      }
      const p = this.fromEditor.get(id);
      this.fromEditor.delete(id);
      return this.answered(p, m);
    }
    const agentId = str(rec(m.params).sessionId);
    if (agentId !== undefined && this.hidden.has(agentId)) return this.fromHidden(agentId, method, m);
    const s = agentId !== undefined ? this.byAgentId.get(agentId) : undefined;
    if (method === 'session/update') {
      if (s?.held) return void s.held.push(m);
      if (s && !s.loading) void this.record(s, s.recorder.update(m));
      return this.send('editor', this.swapped(m, this.toEditorId));
    }
    if (id !== undefined) {
      if (s && method === 'session/request_permission') void this.record(s, s.recorder.flush());
      this.fromAgent.set(id, { method, message: m, editorId: s?.editorId });
    }
    return this.send('editor', this.swapped(m, this.toEditorId));
  }

  /** The agent's answer to an editor's request. */
  private async answered(p: Pending | undefined, m: Rec): Promise<void> {
    if (!p) return this.send('editor', m);
    const result = rec(m.result);
    const params = rec(p.message.params);
    switch (p.method) {
      case 'initialize':
        if (m.result) return this.send('editor', { ...m, result: this.advertise(result) });
        break;
      case 'session/new': {
        const agentId = str(result.sessionId);
        if (agentId) this.live(agentId, agentId, await this.createStore(agentId, str(params.cwd) ?? process.cwd()));
        break;
      }
      case 'session/prompt': {
        const s = p.editorId !== undefined ? this.sessions.get(p.editorId) : undefined;
        // Relayed only once everything before it is on disk.
        if (s) await this.record(s, s.recorder.stop(m));
        break;
      }
      case 'session/load':
      case 'session/resume': {
        const editorId = str(params.sessionId) ?? '';
        const s = this.sessions.get(editorId);
        if (s) s.loading = false;
        // The agent could not open its own session (its files gone, an error of its own): the
        // store still has it.
        if (
          m.error &&
          s?.storeId &&
          (await this.history.get(s.storeId).then(
            (e) => e.turns > 0,
            () => false,
          ))
        ) {
          this.log(
            `the agent could not ${p.method.slice(8)} ${editorId} (${JSON.stringify(m.error).slice(0, 300)}): answered from History`,
          );
          this.sessions.delete(editorId);
          this.byAgentId.delete(s.agentId);
          // Not awaited: it waits for the agent's answers, which this very reader delivers.
          void this.fromStore(p.method, m.id as Id, params);
          return;
        }
        break;
      }
      case 'session/list':
        if (m.result && !result.nextCursor) return this.send('editor', { ...m, result: await this.mergeList(result, params) });
        break;
    }
    return this.send('editor', m);
  }

  /** The initialize result with the session methods the proxy serves. */
  private advertise(result: Rec): Rec {
    const caps = rec(result.agentCapabilities);
    const sc = rec(caps.sessionCapabilities);
    this.caps = { loadSession: caps.loadSession === true, list: sc.list != null, resume: sc.resume != null, fork: sc.fork != null };
    return {
      ...result,
      agentCapabilities: {
        ...caps,
        loadSession: true,
        // fork is unstable in ACP: offered as the unstable capability it is.
        sessionCapabilities: { ...sc, list: sc.list ?? {}, resume: sc.resume ?? {}, fork: sc.fork ?? {} },
      },
    };
  }

  /** The agent died: each turn in flight is marked interrupted, each request waiting fails. */
  private async agentGone(): Promise<void> {
    for (const [id, p] of this.fromEditor) {
      const s = p.editorId !== undefined ? this.sessions.get(p.editorId) : undefined;
      if (s && p.method === 'session/prompt') await this.record(s, s.recorder.interrupted('the agent exited'));
      await this.fail(id, -32603, 'the agent exited').catch(() => undefined);
    }
    this.fromEditor.clear();
  }

  // ---- Session methods ---------------------------------------------------------------------------

  /** The store's session an id names: our own id, or an agent's id (this agent's first). */
  private async find(id: string, cwd: string | undefined): Promise<SessionEntry | null> {
    if (isSessionId(id)) {
      const e = await this.history.get(id).catch(() => null);
      if (e) return e;
    }
    const rows = await this.rows(cwd, true);
    return rows.find((r) => r.source?.id === id && r.source.tool === this.o.name) ?? rows.find((r) => r.source?.id === id) ?? null;
  }

  private async rows(cwd: string | undefined, all = false): Promise<SessionEntry[]> {
    try {
      return (await this.history.list(cwd && !all ? { project: cwd } : { all: true })).sessions;
    } catch {
      return [];
    }
  }

  /** Whether the session is the agent's own (or one the store does not know). */
  private async agentsOwn(params: Rec): Promise<boolean> {
    const id = str(params.sessionId) ?? '';
    const entry = await this.find(id, str(params.cwd));
    return !entry || (entry.source?.tool === this.o.name && entry.source.id === id);
  }

  /** Whether the agent answers this load or resume itself (its own session, a method it has). */
  private async native(method: string, params: Rec): Promise<boolean> {
    const has = method === 'session/load' ? this.caps.loadSession : this.caps.resume;
    if (!has) return false;
    const id = str(params.sessionId) ?? '';
    const entry = await this.find(id, str(params.cwd));
    if (entry && !(entry.source?.tool === this.o.name && entry.source.id === id)) return false;
    // Its own session (or one the store does not know): the agent's, recorded from here on.
    const storeId = entry?.id ?? (await this.createStore(id, str(params.cwd) ?? process.cwd()));
    const s = this.live(id, id, storeId);
    s.loading = true;
    return true;
  }

  /** How the editor sees a History row: this agent's sessions by the agent's id, the rest by ours. */
  private infoOf(r: SessionEntry): Rec {
    const own = r.source?.tool === this.o.name;
    return {
      sessionId: own ? r.source!.id : r.id,
      cwd: r.project,
      title: r.title || null,
      updatedAt: r.updatedAt,
      _meta: { levelcode: { id: r.id, source: r.source?.tool ?? 'levelcode', turns: r.turns } },
    };
  }

  private async listFromStore(params: Rec): Promise<Rec> {
    const rows = await this.rows(str(params.cwd));
    const start = Number.parseInt(str(params.cursor) ?? '0', 10) || 0;
    const page = rows.slice(start, start + 100);
    return { sessions: page.map((r) => this.infoOf(r)), ...(start + 100 < rows.length ? { nextCursor: String(start + 100) } : {}) };
  }

  /** The agent's own list, then the store's sessions it does not hold (other tools', other agents'). */
  private async mergeList(result: Rec, params: Rec): Promise<Rec> {
    const theirs = Array.isArray(result.sessions) ? (result.sessions as Rec[]) : [];
    const ids = new Set(theirs.map((x) => str(x.sessionId)));
    const extra = (await this.rows(str(params.cwd))).filter((r) => !(r.source?.tool === this.o.name && ids.has(r.source.id)));
    return { ...result, sessions: [...theirs, ...extra.map((r) => this.infoOf(r))] };
  }

  /**
   * A load, resume or fork the proxy answers: a new agent session, told the earlier
   * conversation before the next prompt; a load replays the saved session first. A session this
   * agent recorded goes on in its own file; any other, and every fork, in a copy (a fork in the
   * store, cut at `_meta.levelcode.atTurn` when asked), which a fork's answer names by the new
   * agent session's id.
   */
  private async fromStore(method: string, id: Id, params: Rec): Promise<void> {
    const editorId = str(params.sessionId) ?? '';
    const cwd = str(params.cwd) ?? process.cwd();
    const fork = method === 'session/fork';
    const entry = await this.find(editorId, cwd);
    if (!entry) return this.fail(id, RESOURCE_NOT_FOUND, `no saved session ${editorId}`, { sessionId: editorId });
    let events: SeqEvent[];
    try {
      events = (await this.o.store.load(entry.id)).events;
    } catch (e) {
      return this.fail(id, -32603, `cannot read session ${entry.id}: ${(e as Error).message}`);
    }
    // The new session is known (its notifications held) from the moment its answer is read.
    let s: Live | null = null;
    const created = await this.ask(
      'session/new',
      {
        cwd,
        mcpServers: Array.isArray(params.mcpServers) ? params.mcpServers : [],
        ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
      },
      (m) => {
        const agentId = str(rec(m.result).sessionId);
        if (agentId === undefined) return;
        s = this.live(fork ? agentId : editorId, agentId, null);
        s.held = [];
      },
    );
    if (s === null)
      return this.send('editor', { jsonrpc: '2.0', id, error: created.error ?? { code: -32603, message: 'the agent opened no session' } });
    const live: Live = s;
    const agentId = live.agentId;
    live.storeId = entry.id;
    const atTurn = fork ? atTurnOf(params) : undefined;
    if (fork || !(entry.source?.tool === this.o.name && !entry.importedAt)) {
      const copy = await forkSession(this.o.store, entry.id, { project: cwd, source: this.source(agentId, cwd), atTurn }).catch(
        (e: Error) => {
          this.log(`not recording the continuation of ${entry.id}: ${e.message}`);
          return null;
        },
      );
      live.storeId = copy?.meta.id ?? null;
      // A fork at a turn tells the agent only the turns it keeps.
      if (copy && atTurn !== undefined) events = (await this.o.store.load(copy.meta.id)).events;
    }
    // The copy's own seqs, which the compact events of a summary name.
    if (live.storeId !== null && live.storeId !== entry.id && atTurn === undefined) {
      const copied = events;
      events = await this.o.store.load(live.storeId).then(
        (r) => r.events,
        () => copied,
      );
    }
    const window = this.o.window ?? 200_000;
    const earlier = earlierConversation(events, { window });
    const plan = earlier.tier === 3 ? summaryPlanOf(events, { window }) : null;
    if (plan) live.summary = { plan, fallback: earlier, from: entry.id, cwd };
    else if (earlier.text) live.earlier = { ...earlier, text: earlier.text, from: entry.id };
    void this.record(live, [{ kind: 'event', type: 'acp-session', agentSessionId: agentId, via: method }]);
    if (method === 'session/load') for (const u of replayUpdates(events, editorId)) await this.send('editor', u);
    const { sessionId: _drop, ...rest } = rec(created.result);
    await this.reply(id, fork ? { sessionId: agentId, ...rest } : rest);
    // What the new agent session said meanwhile (its commands, modes), after the replay.
    const held = live.held ?? [];
    live.held = null;
    for (const m of held) await this.onAgent(m);
  }

  // ---- Summarising through the agent -------------------------------------------------------------

  /**
   * Tier 3: with the editor's consent (asked above the threshold), the agent summarises the
   * earlier conversation in a hidden session, one piece at a time; each piece's summary is
   * recorded as a compact event (rolling before the last), and the next prompt carries the
   * last summary and the verbatim tail. Refused, or failed: the newest turns that fit.
   */
  private async summarise(s: Live): Promise<void> {
    const { plan, fallback, from, cwd } = s.summary!;
    s.summary = null;
    const useFallback = (consent?: 'rejected') => {
      if (fallback.text) s.earlier = { ...fallback, text: fallback.text, from, ...(consent ? { consent } : {}) };
    };
    const asked = needsConsent(plan, this.o.consentThreshold ?? DEFAULT_CONSENT_THRESHOLD);
    if (asked && !(await this.consent(s, plan))) return useFallback('rejected');
    try {
      const agentId = await this.hiddenSession(cwd);
      const applied = await summarizePieces(plan, {
        summarize: (i, soFar) => this.summaryOf(agentId, summaryPrompt(plan, i, soFar).text),
        append: (e) => this.record(s, [{ ...e }]),
      });
      // The briefing as recorded (already cut to fit): the same context the planner would make.
      const done = earlierFromSummary(plan, applied.compact.briefing);
      s.earlier = { ...done.earlier, text: done.earlier.text!, from, ...(asked ? { consent: 'allowed' as const } : {}) };
    } catch (e) {
      this.log(`the agent could not summarise the earlier conversation (${(e as Error).message}): its newest turns are given instead`);
      useFallback();
    }
  }

  /** Asks the editor (allow once / reject) whether the agent may summarise; true when allowed. */
  private consent(s: Live, plan: CompactPlan): Promise<boolean> {
    const id = `levelcode-acp-consent-${++this.ownSeq}`;
    const { inputTokens, calls } = plan.summary;
    const text =
      `The earlier conversation does not fit the agent's window. Summarising it takes about ${inputTokens} tokens ` +
      `in ${calls} call${calls === 1 ? '' : 's'} to the agent; the full transcript stays in History. ` +
      'Without a summary, only its newest turns that fit are given to the agent.';
    return new Promise((resolve) => {
      this.ownToEditor.set(id, (m) => {
        const outcome = rec(rec(m.result).outcome);
        resolve(outcome.outcome === 'selected' && outcome.optionId === 'summarise');
      });
      void this.send('editor', {
        jsonrpc: '2.0',
        id,
        method: 'session/request_permission',
        params: {
          sessionId: s.editorId,
          toolCall: {
            toolCallId: id,
            title: 'Summarise the earlier conversation',
            kind: 'think',
            status: 'pending',
            content: [{ type: 'content', content: { type: 'text', text } }],
          },
          options: [
            { optionId: 'summarise', name: 'Summarise it', kind: 'allow_once' },
            { optionId: 'newest', name: 'Give only its newest turns', kind: 'reject_once' },
          ],
        },
      });
    });
  }

  /** A new agent session of the proxy's own, never relayed to the editor nor recorded. */
  private async hiddenSession(cwd: string): Promise<string> {
    let agentId: string | undefined;
    const m = await this.ask('session/new', { cwd, mcpServers: [] }, (a) => {
      agentId = str(rec(a.result).sessionId);
      if (agentId !== undefined) this.hidden.set(agentId, []);
    });
    if (agentId === undefined) throw new Error(`session/new failed: ${JSON.stringify(m.error ?? m).slice(0, 300)}`);
    return agentId;
  }

  /** Prompts the hidden session; answers the text of its reply. */
  private async summaryOf(agentId: string, text: string): Promise<string> {
    this.hidden.set(agentId, []);
    const m = await this.ask('session/prompt', { sessionId: agentId, prompt: [{ type: 'text', text }] });
    const answer = (this.hidden.get(agentId) ?? []).join('').trim();
    if (m.error) throw new Error(`session/prompt failed: ${JSON.stringify(m.error).slice(0, 300)}`);
    if (answer === '') throw new Error('the summary is empty');
    return answer;
  }

  /** What the agent says in a hidden session: its reply's text is kept, its requests refused. */
  private async fromHidden(agentId: string, method: string | undefined, m: Rec): Promise<void> {
    const update = rec(rec(m.params).update);
    if (method === 'session/update') {
      const content = rec(update.content);
      if (update.sessionUpdate === 'agent_message_chunk' && typeof content.text === 'string') this.hidden.get(agentId)?.push(content.text);
      return;
    }
    if (m.id === undefined) return;
    const result = method === 'session/request_permission' ? { result: { outcome: { outcome: 'cancelled' } } } : undefined;
    await this.send('agent', {
      jsonrpc: '2.0',
      id: m.id,
      ...(result ?? { error: { code: -32601, message: 'the proxy summarises: no tools, no files' } }),
    });
  }
}
