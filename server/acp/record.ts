// What an ACP session becomes in the store, message by message: the recorder the proxy
// (proxy.ts) feeds with every JSON-RPC message it relays, answering with the events to append.
// A prompt is a user event (its ACP content blocks verbatim); a run of agent_message_chunk or
// agent_thought_chunk updates is coalesced into one assistant event (the text) or one agent event
// (a thinking block), kept in memory only until something else happens (another kind of update,
// a tool call, a permission request, the end of the turn), so a crash costs at most that line;
// a tool call is an agent event with a tool_use when it starts and one with its tool_result
// when it ends (completed or failed); plans, mode changes and the other updates are `event`
// lines; the prompt's answer an `acp-stop` event with its stop reason. Every event carries the
// ACP messages it was made from, verbatim, under `raw`, so a load replays exactly what the
// editor saw. Pure: plain data in, plain events out; no fs, no streams.

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** One event to append to the session (format/events.ts's IncomingEvent). */
export type Recorded = Rec & { kind: string };

/** The ACP text of a content block (text, or an embedded text resource), '' for the rest. */
export function blockText(block: unknown): string {
  const b = rec(block);
  if (b.type === 'text' && typeof b.text === 'string') return b.text;
  if (b.type === 'resource') return str(rec(b.resource).text) ?? '';
  return '';
}

/** A tool call as its updates left it: the fields of every update merged, newest winning. */
interface OpenCall {
  id: string;
  state: Rec;
  /** Its tool_use is written. */
  announced: boolean;
}

const TERMINAL = new Set(['completed', 'failed']);

/** The text of a tool call's `content` (content blocks, diffs, terminals) for its tool_result. */
function toolOutput(state: Rec): { type: 'text'; text: string }[] {
  const out: { type: 'text'; text: string }[] = [];
  const content = Array.isArray(state.content) ? state.content : [];
  for (const c of content) {
    const o = rec(c);
    if (o.type === 'content') {
      const t = blockText(o.content);
      if (t) out.push({ type: 'text', text: t });
    } else if (o.type === 'diff') out.push({ type: 'text', text: `[diff of ${str(o.path) ?? 'a file'}]\n${str(o.newText) ?? ''}` });
    else if (o.type === 'terminal') out.push({ type: 'text', text: `[terminal ${str(o.terminalId) ?? ''}]` });
  }
  if (out.length === 0 && state.rawOutput !== undefined)
    out.push({ type: 'text', text: typeof state.rawOutput === 'string' ? state.rawOutput : JSON.stringify(state.rawOutput) });
  return out;
}

/** The tool's name for the conversation: the agent's `kind` and title say what it is. */
function toolName(state: Rec): string {
  const title = str(state.title);
  const kind = str(state.kind);
  const meta = rec(rec(state._meta).claudeCode);
  return str(meta.toolName) ?? (kind && kind !== 'other' ? kind : undefined) ?? (title ? title.split(/\s/)[0]! : 'tool');
}

/**
 * The recorder of one session. Feed it the messages in the order the proxy relays them; each
 * call returns the events to append now (often none: a run is held until it ends).
 *
 * At most one group of notifications is held at a time: a run of message or thought chunks, or
 * the updates of one tool call. Anything else closes it first, so the `raw` of the events, read
 * in file order, is exactly the order the editor received them (what a load replays).
 */
export class SessionRecorder {
  private run: { kind: 'agent_message_chunk' | 'agent_thought_chunk'; text: string; blocks: unknown[]; raw: unknown[] } | null = null;
  /** The tool call whose updates are held, and those updates. */
  private held: { call: OpenCall; raw: unknown[] } | null = null;
  private readonly calls = new Map<string, OpenCall>();

  /** The editor's session/prompt request: the user event (its blocks, verbatim). */
  prompt(request: Rec): Recorded[] {
    const params = rec(request.params);
    const blocks = Array.isArray(params.prompt) ? params.prompt : [];
    return [...this.flush(), { kind: 'user', content: blocks, raw: [request] }];
  }

  /** A session/update notification from the agent. */
  update(note: Rec): Recorded[] {
    const u = rec(rec(note.params).update);
    const kind = str(u.sessionUpdate) ?? '';
    if (kind === 'agent_message_chunk' || kind === 'agent_thought_chunk') {
      const out = this.held || (this.run && this.run.kind !== kind) ? this.flush() : [];
      this.run ??= { kind, text: '', blocks: [], raw: [] };
      this.run.text += blockText(u.content);
      this.run.blocks.push(u.content);
      this.run.raw.push(note);
      return out;
    }
    if (kind === 'tool_call' || kind === 'tool_call_update') return this.toolUpdate(u, note);
    const out = this.flush();
    if (kind === 'plan') return [...out, { kind: 'event', type: 'acp-plan', entries: u.entries ?? [], raw: [note] }];
    if (kind === 'current_mode_update') return [...out, { kind: 'event', type: 'acp-mode', modeId: u.currentModeId ?? null, raw: [note] }];
    if (kind === 'session_info_update' && typeof u.title === 'string' && u.title.trim() !== '')
      return [...out, { kind: 'title', title: u.title.trim().slice(0, 500), source: 'model', raw: [note] }];
    // user_message_chunk (an agent echoing the prompt), commands, config, usage, notices: kept
    // for the replay, out of the conversation.
    return [...out, { kind: 'event', type: 'acp-update', update: kind, raw: [note] }];
  }

  private toolUpdate(u: Rec, note: Rec): Recorded[] {
    const id = str(u.toolCallId) ?? '';
    const out = this.held && this.held.call.id !== id ? this.flush() : this.run ? this.flush() : [];
    let call = this.calls.get(id);
    if (!call) {
      call = { id, state: {}, announced: false };
      this.calls.set(id, call);
    }
    for (const [k, v] of Object.entries(u)) if (k !== 'sessionUpdate' && v !== undefined && v !== null) call.state[k] = v;
    this.held ??= { call, raw: [] };
    this.held.raw.push(note);
    if (TERMINAL.has(str(call.state.status) ?? '')) out.push(...this.flush());
    return out;
  }

  private toolUse(call: OpenCall) {
    return {
      role: 'assistant',
      content: [{ type: 'tool_use', id: call.id, name: toolName(call.state), input: call.state.rawInput ?? {} }],
    };
  }

  private acpOf(call: OpenCall): Rec {
    return {
      toolCallId: call.id,
      title: call.state.title ?? null,
      kind: call.state.kind ?? null,
      status: call.state.status ?? 'pending',
      ...(call.state.locations ? { locations: call.state.locations } : {}),
    };
  }

  /** The held tool call's updates as one event: its call, its progress, or its result. */
  private closeCall(): Recorded[] {
    const h = this.held;
    if (!h) return [];
    this.held = null;
    const { call } = h;
    const messages: unknown[] = [];
    if (!call.announced) messages.push(this.toolUse(call));
    call.announced = true;
    const status = str(call.state.status) ?? '';
    if (TERMINAL.has(status)) {
      this.calls.delete(call.id);
      const failed = status === 'failed';
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.id, content: toolOutput(call.state), ...(failed ? { is_error: true } : {}) }],
      });
    }
    if (messages.length === 0) return [{ kind: 'event', type: 'acp-tool', ...this.acpOf(call), raw: h.raw }];
    return [{ kind: 'agent', messages, acp: this.acpOf(call), raw: h.raw }];
  }

  /** A session/request_permission request from the agent and the editor's answer. */
  permission(request: Rec, response: Rec): Recorded[] {
    const outcome = rec(rec(response.result).outcome);
    return [
      ...this.flush(),
      {
        kind: 'event',
        type: 'acp-permission',
        toolCallId: str(rec(rec(request.params).toolCall).toolCallId) ?? null,
        outcome: str(outcome.optionId) ?? str(outcome.outcome) ?? (response.error ? 'error' : null),
        raw: [request, response],
      },
    ];
  }

  /** The agent's answer to session/prompt: what is held, then the stop reason. */
  stop(response: Rec): Recorded[] {
    const result = rec(response.result);
    const stopReason = str(result.stopReason) ?? (response.error ? 'error' : 'unknown');
    return [...this.flush(), ...this.unfinished(), { kind: 'event', type: 'acp-stop', stopReason, raw: [response] }];
  }

  /** The agent died mid-turn: what is held, then an `interrupted` marker (resume says so). */
  interrupted(reason: string): Recorded[] {
    return [...this.flush(), ...this.unfinished(), { kind: 'event', type: 'interrupted', reason }];
  }

  /** Tool calls the turn ended without finishing: each gets a failed result (no raw: nothing was sent). */
  private unfinished(): Recorded[] {
    const out: Recorded[] = [];
    for (const call of [...this.calls.values()]) {
      this.calls.delete(call.id);
      out.push({
        kind: 'agent',
        messages: [
          ...(call.announced ? [] : [this.toolUse(call)]),
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: toolOutput(call.state), is_error: true }] },
        ],
        acp: { ...this.acpOf(call), status: 'unfinished' },
      });
    }
    return out;
  }

  /** What is held, as events (none when nothing is). */
  flush(): Recorded[] {
    if (this.held) return this.closeCall();
    const run = this.run;
    if (!run) return [];
    this.run = null;
    if (run.kind === 'agent_message_chunk') {
      const content = run.text !== '' ? [{ type: 'text', text: run.text }] : run.blocks;
      return [{ kind: 'assistant', content, raw: run.raw }];
    }
    return [{ kind: 'agent', messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: run.text }] }], raw: run.raw }];
  }

  /** Whether anything is held in memory. */
  holding(): boolean {
    return this.run !== null || this.held !== null;
  }
}
