// One way to read provider content. A user's or assistant's `content` and an agent's `messages`
// hold whatever the provider wrote: Anthropic blocks (text, thinking, tool_use, tool_result,
// image), OpenAI Chat messages (role, content, tool_calls, role:"tool" results) and OpenAI
// Responses items (function_call, function_call_output, reasoning, input_text, ...). This file
// turns all of them into one list of typed parts, so that export, the soft cap, resume, titles
// and MCP read content the same way and a new provider shape is taught in one place.
// Plain functions over plain data: no imports, no fs, nothing changed in place.

/** What a part is, whatever the provider called it. */
export type PartKind = 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'image' | 'other';

export interface Part {
  kind: PartKind;
  /** The provider's own name: a block's `type`, `tool_calls` for an OpenAI call, `tool` for a role:"tool" result, or a system/developer role. */
  type: string;
  /** The role of the message the part is in, when there is one. */
  role?: string;
  /** tool_use: the call's id; tool_result: the id of the call it answers. */
  id?: string;
  /** tool_use: the tool's name (a role:"tool" result may carry one too). */
  name?: string;
  /** text and thinking: the text (a system/developer message: its text). */
  text?: string;
  /** tool_use: its input or arguments, as stored (OpenAI's are a JSON string). */
  input?: unknown;
  /** tool_result: its payload, as stored, and the key that holds it in `raw`. */
  output?: unknown;
  outputKey?: 'content' | 'output';
  isError?: boolean;
  /** thinking: redacted by the provider (no text). */
  redacted?: boolean;
  /** The block, message or call the part was read from. */
  raw: unknown;
}

type Rec = Record<string, unknown>;

const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);
/** OpenAI Responses calls that pair by call_id (Codex writes the custom and shell ones too). */
const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);
const CALL_OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output']);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Whether an object is a message (it has a role and no block type other than "message"). */
function isMessage(o: Rec): boolean {
  return 'role' in o && (o.type === undefined || o.type === 'message');
}

/**
 * The part one block is, without looking inside it; null for a message (walk it instead) or
 * for what is not an object or string.
 */
export function partOf(block: unknown, role?: string): Part | null {
  if (typeof block === 'string') return { kind: 'text', type: '', role, text: block, raw: block };
  if (!block || typeof block !== 'object' || Array.isArray(block)) return null;
  const o = block as Rec;
  if (isMessage(o)) {
    if (o.role !== 'tool') return null;
    return {
      kind: 'tool_result',
      type: 'tool',
      role: 'tool',
      id: str(o.tool_call_id),
      name: str(o.name),
      output: o.content,
      outputKey: 'content',
      raw: o,
    };
  }
  const type = typeof o.type === 'string' ? o.type : '';
  if (TEXT_TYPES.has(type) && typeof o.text === 'string') return { kind: 'text', type, role, text: o.text, raw: o };
  if (type === 'text' && typeof o.content === 'string') return { kind: 'text', type, role, text: o.content, raw: o };
  if (type === 'thinking' || type === 'reasoning') {
    const text = str(o.thinking) ?? str(o.text) ?? textsOf(o.summary).join('\n');
    return { kind: 'thinking', type, role, text, raw: o };
  }
  if (type === 'redacted_thinking') return { kind: 'thinking', type, role, redacted: true, raw: o };
  if (type.endsWith('tool_use')) return { kind: 'tool_use', type, role, id: str(o.id), name: str(o.name), input: o.input, raw: o };
  if (CALL_TYPES.has(type))
    return {
      kind: 'tool_use',
      type,
      role,
      id: str(o.call_id),
      name: str(o.name),
      input: 'arguments' in o ? o.arguments : (o.input ?? o.action),
      raw: o,
    };
  if (typeof o.tool_use_id === 'string' || type === 'tool_result' || type === 'web_search_tool_result')
    return {
      kind: 'tool_result',
      type,
      role,
      id: str(o.tool_use_id),
      output: o.content,
      outputKey: 'content',
      isError: o.is_error === true,
      raw: o,
    };
  if (CALL_OUTPUT_TYPES.has(type))
    return { kind: 'tool_result', type, role, id: str(o.call_id), output: o.output, outputKey: 'output', raw: o };
  if (type === 'image' || type === 'input_image') return { kind: 'image', type, role, raw: o };
  if (type !== 'document' && typeof o.text === 'string') return { kind: 'text', type, role, text: o.text, raw: o };
  return { kind: 'other', type, role, raw: o };
}

/** Calls `visit` with each part of a content value or message list, in order. */
export function walk(value: unknown, visit: (p: Part) => void, role?: string): void {
  if (Array.isArray(value)) {
    for (const v of value) walkOne(v, visit, role);
    return;
  }
  walkOne(value, visit, role);
}

function walkOne(v: unknown, visit: (p: Part) => void, role: string | undefined): void {
  if (v && typeof v === 'object' && !Array.isArray(v) && isMessage(v as Rec)) return walkMessage(v as Rec, visit);
  const p = partOf(v, role);
  if (p) visit(p);
}

/**
 * A message's parts: a role:"tool" message is one tool_result; a system or developer message is
 * one part of kind "other" holding its text (readers show or leave out instructions as a whole);
 * any other role gives its content's parts, then one tool_use per OpenAI tool_calls entry.
 */
function walkMessage(m: Rec, visit: (p: Part) => void): void {
  const role = String(m.role);
  if (role === 'tool') return visit(partOf(m)!);
  if (role === 'system' || role === 'developer')
    return visit({ kind: 'other', type: role, role, text: textsOf(m.content).join('\n'), raw: m });
  walk(m.content, visit, role);
  if (!Array.isArray(m.tool_calls)) return;
  for (const call of m.tool_calls) {
    const c = (call && typeof call === 'object' ? call : {}) as Rec;
    const fn = (c.function && typeof c.function === 'object' ? c.function : {}) as Rec;
    visit({
      kind: 'tool_use',
      type: 'tool_calls',
      role,
      id: str(c.id),
      name: str(fn.name) ?? str(c.name),
      input: fn.arguments ?? c.arguments,
      raw: call,
    });
  }
}

/** The parts of a content value or message list, in order. */
export function parts(value: unknown, role?: string): Part[] {
  const out: Part[] = [];
  walk(value, (p) => out.push(p), role);
  return out;
}

/** What an event holds of provider content: a user's or assistant's content, an agent's messages. */
export function contentOf(event: { kind: string; content?: unknown; messages?: unknown }): { value: unknown; role?: string } | null {
  if (event.kind === 'user' || event.kind === 'assistant') return { value: event.content, role: event.kind };
  if (event.kind === 'agent') return { value: event.messages };
  return null;
}

/** The parts of an event's provider content (none for markers, titles and briefings). */
export function blocks(event: { kind: string; content?: unknown; messages?: unknown }): Part[] {
  const c = contentOf(event);
  return c ? parts(c.value, c.role) : [];
}

/** The texts of a content value's text parts, in order (thinking and tool payloads left out). */
export function textsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  const out: string[] = [];
  walk(value, (p) => {
    if (p.kind === 'text') out.push(p.text!);
  });
  return out;
}

/** Adds each tool call's id and tool name to `names` (for naming the results that answer it). */
export function addToolNames(value: unknown, names: Map<string, string>): void {
  walk(value, (p) => {
    if (p.kind === 'tool_use' && p.id !== undefined && p.name !== undefined) names.set(p.id, p.name);
    else if (p.kind === 'tool_result' && Array.isArray(p.output)) addToolNames(p.output, names);
  });
}

/**
 * Every tool-call id a content value mentions, as a call or as a result, looking inside results
 * too (a call nested in a result still pairs with its own result).
 */
export function toolIdsOf(value: unknown, out: Set<string> = new Set()): Set<string> {
  walk(value, (p) => {
    if ((p.kind === 'tool_use' || p.kind === 'tool_result') && p.id !== undefined) out.add(p.id);
    if (p.kind === 'tool_result' && Array.isArray(p.output)) toolIdsOf(p.output, out);
  });
  return out;
}

/** A tool call and the result that answers it, by id; either may be missing. */
export interface ToolPair {
  id: string;
  use?: Part;
  result?: Part;
}

/** The tool calls and results of a list of parts paired by id, in order of first mention. */
export function toolPairs(list: readonly Part[]): Map<string, ToolPair> {
  const out = new Map<string, ToolPair>();
  for (const p of list) {
    if ((p.kind !== 'tool_use' && p.kind !== 'tool_result') || p.id === undefined) continue;
    let pair = out.get(p.id);
    if (!pair) out.set(p.id, (pair = { id: p.id }));
    if (p.kind === 'tool_use') pair.use ??= p;
    else pair.result ??= p;
  }
  return out;
}
