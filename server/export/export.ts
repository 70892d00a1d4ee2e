// Export of one session: the Markdown document (`renderMarkdown`, the one renderer behind
// `session/export {format:"markdown"}`, the CLI's `export` and the clients' "Copy as Markdown")
// and the JSON document (`exportJson`), both from already-read events.
// Pure: plain data in, a string or a plain object out. Depends on events.ts and markdown.ts
// only; no fs, no JSON-RPC, no markdown library.
//
// The document's shape:
//   # <title>                          the only h1 (latest title event, else the first user line)
//   - Project / Created / Updated / Model / Session
//   ## Turn 1 · 2026-07-28 09:12 UTC   one h2 per turn: a user message with words starts one
//   **You**                            a line when the speaker changes (You, Assistant, Agent)
//   ...message text, its headings demoted to h3-h6 (markdown.ts)...
//   <details> tool calls and results, thinking </details>   folded inside their turn
//   ## Summary · ...                   a compaction briefing keeps a heading of its own
//   _Interrupted · 09:13 UTC_          markers as one italic line
// Times are UTC, or local in the zone a caller passes (session/export: the user's).
// Message text never makes an h1 or h2, and whatever it leaves open is closed before the next
// block (see markdown.ts for the rules and test/export/export.test.ts for the proof).

import {
  defineOwn,
  isHiddenEvent,
  isInjectedContext,
  oneLine,
  textOf,
  type MetaLine,
  type SeqEvent,
  type SessionEvent,
} from '../format/events.js';
import { addToolNames, contentOf, walk, type Part } from '../format/content.js';
import { escapeHtml, escapeInline, fencedCode, sanitizeMarkdown } from './markdown.js';
import { localStamp, type Zone } from '../listing/view.js';

export interface MarkdownOptions {
  /** Render thinking blocks (collapsed). Default true. */
  thinking?: boolean;
  /** Render tool calls and results (collapsed). Default true. */
  tools?: boolean;
  /** Cut each tool input or output to this many characters (default: no cut). */
  maxToolChars?: number;
  /** Times in this zone ("2026-07-28 14:12"); default UTC ("2026-07-28 09:12 UTC"). */
  zone?: Zone;
}

/** Event kinds a transcript shows as messages (a user message with words starts a turn). */
export const TURN_KINDS = ['user', 'assistant', 'agent', 'compact'] as const;

/** The title a session shows: the latest title event, else the first user line cut to 80. */
export function sessionTitle(meta: MetaLine, events: readonly SeqEvent[]): string {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!.event;
    if (e.kind === 'title' && e.title.trim()) return e.title;
  }
  if (meta.title) return meta.title;
  for (const { event } of events) {
    if (event.kind === 'user') {
      const line = oneLine(textOf(event.content), 80);
      if (line) return line;
    }
  }
  return 'Untitled session';
}

/** `2026-07-28T09:12:33.120Z` -> `2026-07-28 09:12 UTC`, or local in `zone`: `2026-07-28 14:42`. */
export function formatTime(iso: string, zone?: Zone): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  if (zone) return localStamp(d.getTime(), zone);
  return d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/** The session as one Markdown document (see the shape at the top of this file). */
export function renderMarkdown(meta: MetaLine, events: readonly SeqEvent[], opts: MarkdownOptions = {}): string {
  const r = new Renderer(opts);
  const title = sessionTitle(meta, events);
  r.raw(`# ${escapeInline(title) || 'Untitled session'}`);
  let model = meta.model;
  for (const { event } of events) if (event.kind === 'assistant' && typeof event.model === 'string') model = event.model;
  const last = events.length ? events[events.length - 1]!.event.t : meta.createdAt;
  const facts = [
    `- **Project:** ${escapeInline(meta.project)}`,
    `- **Created:** ${formatTime(meta.createdAt, opts.zone)}`,
    `- **Updated:** ${formatTime(last, opts.zone)}`,
    ...(model ? [`- **Model:** ${escapeInline(model)}`] : []),
    `- **Session:** ${escapeInline(meta.id)}`,
  ];
  r.raw(facts.join('\n'));
  // Tool names by call id, so a result can say what it answers.
  for (const { event } of events) collectToolNames(event, r.toolNames);
  for (const { event, seq } of events) r.event(event, seq);
  return r.done();
}

/** How a marker event reads in a transcript (lifecycle.ts's pin and archive events among them). */
const MARKER_LABELS = new Map([
  ['interrupted', 'Interrupted'],
  ['reload', 'Reloaded'],
  ['reaped', 'Reaped'],
  ['pin', 'Pinned'],
  ['unpin', 'Unpinned'],
  ['archive', 'Archived'],
  ['unarchive', 'Unarchived'],
]);

class Renderer {
  private readonly blocks: string[] = [];
  readonly toolNames = new Map<string, string>();
  constructor(private readonly opts: MarkdownOptions) {}

  raw(block: string): void {
    this.blocks.push(block);
  }

  /** Message text: sanitised, then the separator when it left something to close. */
  text(md: string): void {
    if (!md.trim()) return;
    const s = sanitizeMarkdown(md);
    if (!s.text.trim()) return;
    this.blocks.push(s.text);
    if (s.needsSeparator) this.blocks.push(s.separator);
  }

  /** Turns started so far; who spoke last in this turn (a speaker line when it changes). */
  private turn = 0;
  private opened = false;
  private speaker: string | undefined;

  time(t: string): string {
    return escapeInline(formatTime(t, this.opts.zone));
  }

  /** The turn's heading: a user message with words starts one. */
  startTurn(t: string): void {
    this.turn++;
    this.opened = true;
    this.speaker = undefined;
    this.blocks.push(`## Turn ${this.turn} · ${this.time(t)}`);
  }

  /** What comes before the first user message (an agent's opening) gets a heading too. */
  ensureOpened(t: string): void {
    if (this.opened) return;
    this.opened = true;
    this.blocks.push(`## Start · ${this.time(t)}`);
  }

  /** "**Assistant** (model)" when the speaker changes within a turn. */
  say(who: string, extra?: string): void {
    const line = `**${who}**${extra ? ` (${escapeInline(extra)})` : ''}`;
    if (this.speaker === line) return;
    this.speaker = line;
    this.blocks.push(line);
  }

  italic(line: string): void {
    this.blocks.push(`_${escapeInline(line)}_`);
  }

  details(summary: string, body: () => void): void {
    this.blocks.push(`<details>\n<summary>${summary}</summary>`);
    body();
    this.blocks.push('</details>');
  }

  code(body: string, info = ''): void {
    const max = this.opts.maxToolChars;
    let b = body;
    if (max !== undefined && b.length > max) b = b.slice(0, max) + `\n… (${b.length - max} more characters)`;
    this.blocks.push(fencedCode(b, info));
  }

  event(e: SessionEvent, seq: number): void {
    switch (e.kind) {
      case 'user':
        // Tool results sent back as a user message belong to the turn they answer.
        if (hasWords(e.content)) {
          this.startTurn(e.t);
          this.say('You');
        } else this.ensureOpened(e.t);
        if (Array.isArray(e.contextFiles) && e.contextFiles.length) this.italic(`Context files: ${e.contextFiles.join(', ')}`);
        this.content(e.content, 'user');
        return;
      case 'assistant':
        this.ensureOpened(e.t);
        if (hasWords(e.content) || this.speaker === undefined) this.say('Assistant', typeof e.model === 'string' ? e.model : undefined);
        this.content(e.content, 'assistant');
        return;
      case 'agent':
        if (isInjectedContext(e)) return; // what the tool sent its model that nobody typed
        this.ensureOpened(e.t);
        if (e.messages.some((m) => hasWords(m))) this.say('Agent');
        for (const m of e.messages) this.agentMessage(m);
        return;
      case 'compact':
        this.opened = true;
        this.speaker = undefined;
        this.blocks.push(`## Summary · ${this.time(e.t)}`);
        this.italic(
          `Compaction briefing: a summary of events 0 to ${e.coversThrough}, written for the model's context. The events themselves are above.`,
        );
        this.text(e.briefing);
        return;
      case 'event': {
        if (isHiddenEvent(e)) return; // an imported tool's own record, kept in the store only
        const when = formatTime(e.t, this.opts.zone);
        const label = MARKER_LABELS.get(e.type) ?? `Event: ${e.type}`;
        this.italic(`${label} · ${when}`);
        return;
      }
      case 'title':
        return; // the latest title is the document's title
      default: {
        const k = (e as { kind?: unknown }).kind;
        this.italic(`Unknown event ${String(k)} (#${seq})`);
      }
    }
  }

  /** A user's or assistant's content: a string, provider blocks, or an OpenAI-style message. */
  content(content: unknown, role: string): void {
    if (content && typeof content === 'object' && !Array.isArray(content) && 'role' in content) return this.agentMessage(content);
    walk(content, (p) => this.part(p), role);
  }

  /** One message of an agent loop (or a bare Responses item). */
  agentMessage(m: unknown): void {
    const o = m as Record<string, unknown>;
    if (o && typeof o === 'object' && o.role === 'user' && hasText(o.content)) this.italic('Prompt (agent loop):');
    walk(m, (p) => this.part(p), 'agent');
  }

  part(p: Part): void {
    switch (p.kind) {
      case 'text':
        return this.text(p.text!);
      case 'thinking':
        if (this.opts.thinking === false) return;
        if (p.redacted) return this.italic('Thinking (redacted)');
        if (p.text?.trim()) this.details('Thinking', () => this.text(p.text!));
        return;
      case 'tool_use':
        return this.toolCall(p.name ?? (p.type.endsWith('tool_use') || p.type === 'tool_calls' ? 'tool' : 'function'), p.input);
      case 'tool_result': {
        const fallback = p.type === 'tool' ? (p.name ?? 'tool') : p.outputKey === 'output' ? 'function' : 'tool';
        return this.toolResult(this.toolNames.get(String(p.id)) ?? fallback, p.output, p.isError === true);
      }
      case 'image':
        return this.italic('[image]');
    }
    if (p.type === 'document') return this.italic('[document]');
    if (this.opts.tools === false) return;
    const o = p.raw as Record<string, unknown>;
    if (p.type === 'system' || p.type === 'developer')
      return this.details(escapeHtml(p.type === 'system' ? 'System prompt' : 'Developer instructions'), () =>
        this.code(p.text || stringify(o.content)),
      );
    this.details(`${escapeHtml(p.type || 'block')} (${escapeHtml(p.role ?? 'agent')})`, () => this.code(stringify(o), 'json'));
  }

  toolCall(name: string, input: unknown): void {
    if (this.opts.tools === false) return;
    const { body, info } = formatInput(input);
    this.details(`Tool call: <code>${escapeHtml(name)}</code>`, () => this.code(body, info));
  }

  toolResult(name: string, output: unknown, isError: boolean): void {
    if (this.opts.tools === false) return;
    const label = `${isError ? 'Tool error' : 'Tool result'}: <code>${escapeHtml(name)}</code>`;
    this.details(label, () => this.code(formatOutput(output)));
  }

  done(): string {
    return this.blocks.join('\n\n') + '\n';
  }
}

/** Whether content holds words or an image a person sent or wrote (not only tool calls or results). */
function hasWords(content: unknown): boolean {
  if (typeof content === 'string') return content.trim().length > 0;
  let words = false;
  walk(content, (p) => {
    if ((p.kind === 'text' && p.text?.trim() && p.role !== 'tool') || p.kind === 'image') words = true;
  });
  return words;
}

function hasText(content: unknown): boolean {
  if (typeof content === 'string') return content.trim().length > 0;
  if (Array.isArray(content))
    return content.some((b) => typeof b === 'string' || (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text'));
  return false;
}

/** Adds the tool-call ids of an event and their tool names to `names` (for naming tool results). */
export function collectToolNames(e: SessionEvent, names: Map<string, string>): void {
  const c = contentOf(e);
  if (c) addToolNames(c.value, names);
}

function stringify(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

function formatInput(input: unknown): { body: string; info: string } {
  if (typeof input === 'string') {
    // OpenAI arguments are a JSON string: show them pretty when they parse.
    try {
      const parsed: unknown = JSON.parse(input);
      if (parsed && typeof parsed === 'object') return { body: stringify(parsed), info: 'json' };
    } catch {
      /* not JSON: show as is */
    }
    return { body: input, info: '' };
  }
  if (input === undefined) return { body: '', info: '' };
  return { body: stringify(input), info: 'json' };
}

function formatOutput(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output
      .map((b) => {
        if (typeof b === 'string') return b;
        const o = (b ?? {}) as Record<string, unknown>;
        if (typeof o.text === 'string') return o.text;
        if (o.type === 'image' || o.type === 'input_image') return '[image]';
        return stringify(o);
      })
      .join('\n');
  }
  if (output === undefined || output === null) return '';
  return stringify(output);
}

// ---------------------------------------------------------------------------------------------
// JSON export.

/** Version of the JSON export document's shape (not of the session file). */
export const EXPORT_JSON_VERSION = 1;

export type ExportedEvent = { seq: number } & Record<string, unknown>;

export interface ExportDocument {
  format: 'levelcode-session';
  v: number;
  meta: MetaLine;
  title: string;
  events: ExportedEvent[];
  problems: unknown[];
}

/**
 * The session as one JSON document a tool can read without knowing JSONL: each event with its
 * seq first, then its own fields verbatim (an event field named `seq`, if any, is dropped).
 */
export function exportJson(meta: MetaLine, events: readonly SeqEvent[], problems: readonly unknown[] = []): ExportDocument {
  return {
    format: 'levelcode-session',
    v: EXPORT_JSON_VERSION,
    meta,
    title: sessionTitle(meta, events),
    events: events.map(({ seq, event }) => {
      const out: Record<string, unknown> = { seq };
      for (const k of Object.keys(event)) if (k !== 'seq') defineOwn(out, k, (event as Record<string, unknown>)[k]);
      return out as ExportedEvent;
    }),
    problems: [...problems],
  };
}
