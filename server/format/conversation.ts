// The neutral conversation: one provider-free shape of a session's messages, built from the
// events once, by `toConversation`, and the only input of every output target
// (server/resume/targets.ts) and of the hand-off (server/handoff/). A message has a role and a
// list of parts: text, thinking (with the provider family it came from and its signature),
// tool call (id, name, arguments), tool result (id, content, error flag), image, file
// reference, and a compaction summary. Why this shape and not another: ARCHITECTURE.md,
// "The neutral conversation".
// Pure functions over plain data: depends on zod, content.ts and events.ts only; no fs.

import { z } from 'zod';
import { partOf, walk, type Part } from './content.js';
import type { SeqEvent, SessionEvent } from './events.js';

// ---- The shape -----------------------------------------------------------------------------

export const PROVIDER_FAMILIES = ['anthropic', 'openai', 'gemini', 'unknown'] as const;
export type ProviderFamily = (typeof PROVIDER_FAMILIES)[number];

const TextPart = z.object({ type: z.literal('text'), text: z.string() }).describe('Text.');
const ThinkingPart = z
  .object({
    type: z.literal('thinking'),
    text: z.string().describe('The reasoning text or its summary ("" when redacted).'),
    provider: z.enum(PROVIDER_FAMILIES).describe('The provider family that wrote it: only that family may be sent it back.'),
    signature: z
      .string()
      .optional()
      .describe("What the provider needs to accept it back: Anthropic's signature, OpenAI's encrypted_content, Gemini's thoughtSignature."),
    redacted: z.boolean().optional().describe('Redacted by the provider: `signature` holds its opaque data.'),
    id: z.string().optional().describe("The provider's own id of the item (OpenAI reasoning items)."),
  })
  .describe('Model reasoning, kept only for a target of the same provider family, and only with a signature.');
const ToolCallPart = z
  .object({
    type: z.literal('tool-call'),
    id: z.string().min(1).describe('Unique in the conversation; every tool-call has exactly one tool-result after it.'),
    name: z.string().min(1),
    arguments: z
      .record(z.string(), z.unknown())
      .describe('Always an object (a JSON-string argument is parsed; other input is {"input": ...}).'),
  })
  .describe('A tool call.');
const ResultContent = z.union([
  TextPart,
  z.object({ type: z.literal('image'), mediaType: z.string(), data: z.string().optional(), url: z.string().optional() }),
]);
const ToolResultPart = z
  .object({
    type: z.literal('tool-result'),
    id: z.string().min(1).describe('The id of the tool-call it answers.'),
    name: z.string().min(1).describe("The tool's name (of its call)."),
    content: z.array(ResultContent).describe('Text and images the tool returned.'),
    isError: z.boolean(),
  })
  .describe('The result of a tool call.');
const ImagePart = z
  .object({
    type: z.literal('image'),
    mediaType: z.string().describe('e.g. image/png'),
    data: z.string().optional().describe('Base64 data.'),
    url: z.string().optional().describe('Or a URL (data: or https:).'),
  })
  .describe('An image.');
const FilePart = z
  .object({ type: z.literal('file'), path: z.string().min(1) })
  .describe('A file the user attached by reference (its path).');
const SummaryPart = z
  .object({ type: z.literal('summary'), text: z.string().min(1) })
  .describe('A compaction summary standing for earlier messages that are not in this conversation.');

export const NeutralPart = z.discriminatedUnion('type', [
  TextPart,
  ThinkingPart,
  ToolCallPart,
  ToolResultPart,
  ImagePart,
  FilePart,
  SummaryPart,
]);
export type NeutralPart = z.infer<typeof NeutralPart>;
export type ToolCall = z.infer<typeof ToolCallPart>;
export type ToolResult = z.infer<typeof ToolResultPart>;
export type Thinking = z.infer<typeof ThinkingPart>;
export type ResultContent = z.infer<typeof ResultContent>;

export const NeutralMessage = z
  .object({
    role: z.enum(['user', 'assistant', 'tool']).describe('tool: a message of tool-result parts only.'),
    parts: z.array(NeutralPart).min(1),
  })
  .describe('A message of the neutral conversation.');
export type NeutralMessage = z.infer<typeof NeutralMessage>;
export type Role = NeutralMessage['role'];

/** What building a conversation left out or changed, counted by what (for `note`). */
export type Counts = Record<string, number>;

export interface Conversation {
  messages: NeutralMessage[];
  /** What was left out or changed on the way (keys: see COUNT_TEXT). */
  counts: Counts;
}

export interface BuildOptions {
  /** The line a marker event stands for in the conversation (an honesty line), or null. */
  markerLine?: (event: SessionEvent) => string | null;
  /** A briefing that stands for everything before the events (resume tiers 2 and 3). */
  briefing?: string;
}

// ---- Building ------------------------------------------------------------------------------

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The provider family of a model name, or of a block's own shape. */
export function familyOf(model: string | undefined): ProviderFamily {
  const m = (model ?? '').toLowerCase();
  if (/claude|anthropic/.test(m)) return 'anthropic';
  if (/gemini|google/.test(m)) return 'gemini';
  if (/gpt|codex|openai|^o\d/.test(m)) return 'openai';
  return 'unknown';
}

/** A tool call's input as an object: JSON strings parsed, anything else wrapped. */
export function argumentsOf(input: unknown): Record<string, unknown> {
  if (typeof input === 'string') {
    try {
      const v = JSON.parse(input) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      /* not JSON: wrapped below */
    }
    return { input };
  }
  if (input && typeof input === 'object' && !Array.isArray(input)) return input as Record<string, unknown>;
  return input === undefined ? {} : { input };
}

function imageOf(o: Rec): { mediaType: string; data?: string; url?: string } {
  const src = rec(o.source);
  if (src.type === 'base64') return { mediaType: str(src.media_type) ?? 'image/png', data: str(src.data) ?? '' };
  const url = str(src.url) ?? str(o.image_url) ?? str(rec(o.image_url).url) ?? '';
  const m = /^data:([^;,]+)/.exec(url);
  return { mediaType: m?.[1] ?? 'image/*', url };
}

/** A tool result's payload as text and image parts. */
function resultContent(output: unknown): ResultContent[] {
  if (output === undefined || output === null) return [];
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  if (Array.isArray(output)) {
    const out: ResultContent[] = [];
    for (const b of output) {
      const p = partOf(b);
      if (p?.kind === 'text') out.push({ type: 'text', text: p.text! });
      else if (p?.kind === 'image') out.push({ type: 'image', ...imageOf(p.raw as Rec) });
      else out.push({ type: 'text', text: typeof b === 'string' ? b : JSON.stringify(b) });
    }
    return out;
  }
  const o = rec(output);
  // Codex's structured output {content, success} and the like.
  if (typeof o.content === 'string') return [{ type: 'text', text: o.content }];
  if (typeof o.output === 'string') return [{ type: 'text', text: o.output }];
  return [{ type: 'text', text: JSON.stringify(output) }];
}

/** Whether a Codex output says it failed ({"metadata":{"exit_code":1}} or success:false). */
function codexFailed(output: unknown): boolean {
  if (typeof output === 'string') {
    try {
      const v = rec(JSON.parse(output));
      return rec(v.metadata).exit_code !== undefined && rec(v.metadata).exit_code !== 0;
    } catch {
      return false;
    }
  }
  const o = rec(output);
  return o.success === false;
}

/** The neutral part (or none) one provider part is; unknown kinds are counted and shown as markers. */
function neutralOf(p: Part, family: ProviderFamily, counts: Counts, names: Map<string, string>): NeutralPart | null {
  const o = rec(p.raw);
  switch (p.kind) {
    case 'text':
      return p.text === '' ? null : { type: 'text', text: p.text! };
    case 'thinking': {
      if (p.type === 'redacted_thinking')
        return { type: 'thinking', text: '', provider: 'anthropic', redacted: true, signature: str(o.data) };
      if (p.type === 'reasoning')
        return {
          type: 'thinking',
          text: p.text ?? '',
          provider: 'openai',
          signature: str(o.encrypted_content),
          ...(str(o.id) ? { id: str(o.id) } : {}),
        };
      const signature = str(o.signature) ?? str(o.thoughtSignature);
      const provider: ProviderFamily = str(o.signature) ? 'anthropic' : family;
      return { type: 'thinking', text: p.text ?? '', provider, ...(signature ? { signature } : {}) };
    }
    case 'tool_use': {
      const name = p.name ?? (p.type === 'local_shell_call' ? 'local_shell' : 'tool');
      if (p.id !== undefined) names.set(p.id, name);
      return { type: 'tool-call', id: p.id ?? '', name, arguments: argumentsOf(p.input) };
    }
    case 'tool_result': {
      const id = p.id ?? '';
      const isError = p.isError === true || o.status === 'error' || codexFailed(p.output);
      return { type: 'tool-result', id, name: p.name ?? names.get(id) ?? 'tool', content: resultContent(p.output), isError };
    }
    case 'image':
      return { type: 'image', ...imageOf(o) };
    default: {
      if (p.type === 'system' || p.type === 'developer') {
        bump(counts, 'instructions');
        return null;
      }
      bump(counts, 'unsupported');
      return { type: 'text', text: `[${p.type || 'unknown'} part left out: not supported outside its tool]` };
    }
  }
}

function bump(counts: Counts, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}

/** The role a part goes in, given the role of the message it came from. */
function roleOf(part: NeutralPart, from: string | undefined): Role {
  if (part.type === 'tool-result') return 'tool';
  if (part.type === 'tool-call' || part.type === 'thinking') return 'assistant';
  return from === 'assistant' || from === 'model' ? 'assistant' : 'user';
}

function push(out: NeutralMessage[], role: Role, part: NeutralPart): void {
  const last = out[out.length - 1];
  if (last && last.role === role) last.parts.push(part);
  else out.push({ role, parts: [part] });
}

/**
 * The neutral conversation of a session's events, in file order. User and assistant events
 * give their content; agent events their messages (a subagent's `sidechain` messages and the
 * environment a tool sent as `context` are left out and counted: the target tool sends its
 * own); marker events the line `markerLine` gives them; a compact event a summary part when it
 * stands for messages that are not among the events (a fork that starts from a compaction),
 * and nothing when the transcript it summarises is here. Consecutive parts of one role share
 * a message. Nothing is repaired here (targets.ts does that per target).
 */
export function toConversation(events: readonly SeqEvent[], options: BuildOptions = {}): Conversation {
  const out: NeutralMessage[] = [];
  const counts: Counts = {};
  const names = new Map<string, string>();
  if (options.briefing !== undefined && options.briefing.trim() !== '') push(out, 'user', { type: 'summary', text: options.briefing });
  let spoken = false;
  for (const { event } of events) {
    const e = event as SessionEvent & Rec;
    if (e.kind === 'compact') {
      if (!spoken) push(out, 'user', { type: 'summary', text: e.briefing as string });
      continue;
    }
    if (e.kind === 'event') {
      const line = options.markerLine?.(event) ?? null;
      if (line !== null) push(out, 'user', { type: 'text', text: line });
      continue;
    }
    if (e.kind === 'agent' && (e.sidechain === true || e.context === true)) {
      bump(counts, e.sidechain === true ? 'subagent' : 'context', Array.isArray(e.messages) ? e.messages.length : 1);
      continue;
    }
    if (e.kind !== 'user' && e.kind !== 'assistant' && e.kind !== 'agent') continue;
    const family = familyOf(str(e.model));
    const value = e.kind === 'agent' ? e.messages : e.content;
    const role = e.kind === 'agent' ? undefined : e.kind;
    walk(
      value,
      (p) => {
        const n = neutralOf(p, family, counts, names);
        if (n === null) return;
        spoken = true;
        push(out, roleOf(n, p.role ?? role), n);
      },
      role,
    );
    if (e.kind === 'user' && Array.isArray(e.contextFiles))
      for (const path of e.contextFiles) if (typeof path === 'string' && path !== '') push(out, 'user', { type: 'file', path });
  }
  return { messages: out, counts };
}
