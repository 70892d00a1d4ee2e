// Output targets: the neutral conversation (format/conversation.ts) made into the messages one
// provider API accepts as they are. Two steps: `canonical` repairs what no API accepts (a call
// with no result gets a synthetic one, a result with no call becomes text, results follow their
// calls in call order, ids unique), the same for every target; then one small renderer a target
// writes that API's own shape (its role rules, id rules, fields, and what it cannot take as a
// short text marker). What was dropped or repaired is counted and said in one `note`.
// Pure functions over plain data; depends on format/ only. The validators that judge the output
// are in test/support/validators.ts, written from the providers' API references.

import { BRIEFING_HEADER } from './resume.js';
import type {
  Conversation,
  Counts,
  NeutralMessage,
  NeutralPart,
  ResultContent,
  Thinking,
  ToolCall,
  ToolResult,
} from '../format/conversation.js';

export const TARGETS = ['anthropic', 'openai-chat', 'openai-responses', 'gemini', 'vscode-lm', 'neutral'] as const;
export type Target = (typeof TARGETS)[number];
/** What session/resume takes: these, and `levelcode`, today's conversation/agentMessages pair (the default). */
export const RESUME_TARGETS = ['levelcode', ...TARGETS] as const;
export type ResumeTarget = (typeof RESUME_TARGETS)[number];

/** The text of a tool result made for a call whose result the session never recorded. */
export const NO_RESULT = '[no result was recorded for this tool call]';

export interface Rendered {
  messages: unknown[];
  /** What was dropped or repaired, counted, e.g. {"thinking dropped": 2}. */
  counts: Counts;
  /** One line for the user saying the counts, or null when nothing was changed. */
  note: string | null;
}

// ---- Repairs, shared by every target ------------------------------------------------------------

function add(counts: Counts, key: string, n = 1): void {
  counts[key] = (counts[key] ?? 0) + n;
}

function textOfResult(content: readonly ResultContent[]): string {
  return content.map((c) => (c.type === 'text' ? c.text : imageMarker(c.mediaType))).join('\n');
}

export function imageMarker(mediaType: string): string {
  return `[image (${mediaType}) left out: this model cannot take it here]`;
}

/**
 * The conversation as every API wants it: user, assistant and tool messages, where each
 * assistant message with calls is followed by one tool message holding exactly one result per
 * call, in call order; a call never answered gets a synthetic error result saying so, a result
 * with no call (or a second one) becomes user text; call ids are unique (a reused id is
 * suffixed); the first message is the user's (a short line stands in when the session starts
 * with the assistant). Counts every repair.
 */
export function canonical(conv: Conversation): { messages: NeutralMessage[]; counts: Counts } {
  const counts: Counts = { ...conv.counts };
  const out: NeutralMessage[] = [];
  /** The open assistant message's calls (by their new id) and the results received so far. */
  let open: { calls: ToolCall[]; results: Map<string, ToolResult> } | null = null;
  const byOldId = new Map<string, string>();
  const used = new Set<string>();

  const emit = (role: NeutralMessage['role'], part: NeutralPart) => {
    const last = out[out.length - 1];
    if (last && last.role === role && role !== 'tool') last.parts.push(part);
    else out.push({ role, parts: [part] });
  };
  const close = () => {
    if (open === null) return;
    const parts: ToolResult[] = [];
    for (const c of open.calls) {
      const r = open.results.get(c.id);
      if (r) parts.push({ ...r, id: c.id, name: c.name });
      else {
        add(counts, 'missing tool result');
        parts.push({ type: 'tool-result', id: c.id, name: c.name, content: [{ type: 'text', text: NO_RESULT }], isError: true });
      }
    }
    out.push({ role: 'tool', parts });
    open = null;
  };
  const orphan = (r: ToolResult) => {
    add(counts, 'orphan tool result');
    emit('user', { type: 'text', text: `[result of a ${r.name} call that is not in this conversation]\n${textOfResult(r.content)}` });
  };

  for (const m of conv.messages) {
    for (const part of m.parts) {
      if (part.type === 'tool-result') {
        const id = byOldId.get(part.id);
        if (open !== null && id !== undefined && open.calls.some((c) => c.id === id) && !open.results.has(id)) open.results.set(id, part);
        else orphan(part);
        continue;
      }
      if (m.role === 'assistant') {
        // More of the same assistant turn while no result has come yet stays in it.
        if (open !== null && open.results.size > 0) close();
        if (part.type === 'tool-call') {
          // The same call recorded twice (a chat mirror and the agent loop): one call.
          const seen = byOldId.get(part.id);
          if (
            open !== null &&
            seen !== undefined &&
            open.calls.some((c) => c.id === seen && c.name === part.name) &&
            !open.results.has(seen)
          ) {
            continue;
          }
          let id = part.id === '' ? 'call' : part.id;
          for (let k = 2; used.has(id); k++) id = `${part.id || 'call'}_${k}`;
          if (id !== part.id) add(counts, 'tool call id renamed');
          used.add(id);
          byOldId.set(part.id, id);
          const call = { ...part, id };
          emit('assistant', call);
          open ??= { calls: [], results: new Map() };
          open.calls.push(call);
          continue;
        }
        const last = out[out.length - 1];
        if (part.type === 'text' && last?.role === 'assistant' && last.parts.some((q) => q.type === 'text' && q.text === part.text))
          continue;
        emit('assistant', part);
        continue;
      }
      close();
      emit('user', part);
    }
  }
  close();
  if (out.length > 0 && out[0]!.role !== 'user') {
    add(counts, 'opening user line added');
    out.unshift({ role: 'user', parts: [{ type: 'text', text: '[The conversation so far, continued from a saved session.]' }] });
  }
  return { messages: out, counts };
}

// ---- Ids and names ------------------------------------------------------------------------------

/**
 * A map from our call ids to ids that match `re` and are at most `max` characters, each one
 * unique: an id that already fits is kept; another is cleaned and given a short hash suffix.
 */
function idMapper(re: RegExp, max: number): (id: string) => string {
  const memo = new Map<string, string>();
  const taken = new Set<string>();
  return (id) => {
    const hit = memo.get(id);
    if (hit !== undefined) return hit;
    let out = id;
    if (!re.test(id) || id.length > max || taken.has(id)) {
      const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_');
      const h = fnv(id);
      out = `${clean.slice(0, Math.max(1, max - h.length - 1))}_${h}`;
      for (let k = 2; taken.has(out); k++) out = `${clean.slice(0, Math.max(1, max - h.length - 4))}_${h}${k}`;
    }
    memo.set(id, out);
    taken.add(out);
    return out;
  };
}

function fnv(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(36);
}

/** A tool name as Anthropic, OpenAI and Gemini all accept it: [a-zA-Z_][a-zA-Z0-9_-]{0,63}. */
export function toolName(name: string): string {
  let n = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  if (!/^[a-zA-Z_]/.test(n)) n = `_${n}`.slice(0, 64);
  return n;
}

// ---- Renderers ----------------------------------------------------------------------------------

interface Ctx {
  counts: Counts;
  id: (id: string) => string;
}

const FILE = (path: string) => `[file attached: ${path}]`;
const SUMMARY = (text: string) => `${BRIEFING_HEADER}\n\n${text}`;

/** Text for a user-side part no target takes as it is (files, summaries). */
function userText(p: NeutralPart): string | null {
  if (p.type === 'text') return p.text;
  if (p.type === 'file') return FILE(p.path);
  if (p.type === 'summary') return SUMMARY(p.text);
  return null;
}

function dropThinking(ctx: Ctx): null {
  add(ctx.counts, 'thinking dropped');
  return null;
}

function marker(ctx: Ctx, mediaType: string): string {
  add(ctx.counts, 'image replaced by a marker');
  return imageMarker(mediaType);
}

const dataUrl = (i: { mediaType: string; data?: string; url?: string }) => i.url ?? `data:${i.mediaType};base64,${i.data ?? ''}`;

/** Anthropic Messages API: alternating user/assistant, a user first, tool_result blocks first in the next user turn. */
function anthropic(msgs: NeutralMessage[], ctx: Ctx): unknown[] {
  const out: { role: string; content: unknown[] }[] = [];
  const put = (role: string, blocks: unknown[], first = false) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content = first ? [...blocks, ...last.content] : [...last.content, ...blocks];
    else out.push({ role, content: blocks });
  };
  const image = (i: { mediaType: string; data?: string; url?: string }) =>
    i.data !== undefined && i.data !== '' && /^image\/(png|jpeg|gif|webp)$/.test(i.mediaType)
      ? { type: 'image', source: { type: 'base64', media_type: i.mediaType, data: i.data } }
      : i.url && /^https?:/.test(i.url)
        ? { type: 'image', source: { type: 'url', url: i.url } }
        : { type: 'text', text: marker(ctx, i.mediaType) };
  for (const m of msgs) {
    const blocks: unknown[] = [];
    for (const p of m.parts) {
      if (p.type === 'thinking') {
        if (p.provider === 'anthropic' && p.signature)
          blocks.push(
            p.redacted ? { type: 'redacted_thinking', data: p.signature } : { type: 'thinking', thinking: p.text, signature: p.signature },
          );
        else dropThinking(ctx);
      } else if (p.type === 'tool-call') blocks.push({ type: 'tool_use', id: ctx.id(p.id), name: toolName(p.name), input: p.arguments });
      else if (p.type === 'tool-result') {
        const content = p.content
          .map((c) => (c.type === 'text' ? { type: 'text', text: c.text } : image(c)))
          .filter((b) => b.type !== 'text' || (b as { text: string }).text !== '');
        blocks.push({ type: 'tool_result', tool_use_id: ctx.id(p.id), content, ...(p.isError ? { is_error: true } : {}) });
      } else if (p.type === 'image') blocks.push(image(p));
      else {
        const t = userText(p);
        if (t !== null && t.trim() !== '') blocks.push({ type: 'text', text: t });
      }
    }
    // A tool message joins the next user turn, its results first.
    put(m.role === 'assistant' ? 'assistant' : 'user', blocks, false);
  }
  return out;
}

/** OpenAI Chat Completions: assistant tool_calls followed at once by one role:"tool" message per call. */
function openaiChat(msgs: NeutralMessage[], ctx: Ctx): unknown[] {
  const out: unknown[] = [];
  for (const m of msgs) {
    if (m.role === 'tool') {
      for (const p of m.parts as ToolResult[]) out.push({ role: 'tool', tool_call_id: ctx.id(p.id), content: resultText(p, ctx) });
      continue;
    }
    if (m.role === 'assistant') {
      const text: string[] = [];
      const calls: unknown[] = [];
      for (const p of m.parts) {
        if (p.type === 'thinking') dropThinking(ctx);
        else if (p.type === 'tool-call')
          calls.push({ id: ctx.id(p.id), type: 'function', function: { name: toolName(p.name), arguments: JSON.stringify(p.arguments) } });
        else if (p.type === 'text') text.push(p.text);
        else if (p.type === 'image') text.push(marker(ctx, p.mediaType));
      }
      if (text.length === 0 && calls.length === 0) continue;
      out.push({
        role: 'assistant',
        content: text.length > 0 ? text.join('\n\n') : null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      continue;
    }
    const content: unknown[] = [];
    for (const p of m.parts) {
      if (p.type === 'image') content.push({ type: 'image_url', image_url: { url: dataUrl(p) } });
      else {
        const t = userText(p);
        if (t !== null && t !== '') content.push({ type: 'text', text: t });
      }
    }
    if (content.length === 0) continue;
    const onlyText = content.every((c) => (c as { type: string }).type === 'text');
    out.push({ role: 'user', content: onlyText ? content.map((c) => (c as { text: string }).text).join('\n\n') : content });
  }
  return out;
}

function resultText(p: ToolResult, ctx: Ctx): string {
  const t = p.content.map((c) => (c.type === 'text' ? c.text : marker(ctx, c.mediaType))).join('\n');
  return p.isError ? `[error] ${t}` : t;
}

/** OpenAI Responses: input items (messages, function_call, function_call_output, reasoning). */
function openaiResponses(msgs: NeutralMessage[], ctx: Ctx): unknown[] {
  const out: unknown[] = [];
  for (const m of msgs) {
    if (m.role === 'tool') {
      for (const p of m.parts as ToolResult[])
        out.push({ type: 'function_call_output', call_id: ctx.id(p.id), output: resultText(p, ctx) });
      continue;
    }
    if (m.role === 'assistant') {
      let text: string[] = [];
      const flush = () => {
        if (text.length > 0) out.push({ type: 'message', role: 'assistant', content: text.join('\n\n') });
        text = [];
      };
      for (const p of m.parts) {
        if (p.type === 'thinking') {
          if (p.provider === 'openai' && p.signature) {
            flush();
            out.push(reasoningItem(p));
          } else dropThinking(ctx);
        } else if (p.type === 'tool-call') {
          flush();
          out.push({ type: 'function_call', call_id: ctx.id(p.id), name: toolName(p.name), arguments: JSON.stringify(p.arguments) });
        } else if (p.type === 'text') text.push(p.text);
        else if (p.type === 'image') text.push(marker(ctx, p.mediaType));
      }
      flush();
      continue;
    }
    const content: unknown[] = [];
    for (const p of m.parts) {
      if (p.type === 'image') content.push({ type: 'input_image', image_url: dataUrl(p), detail: 'auto' });
      else {
        const t = userText(p);
        if (t !== null && t !== '') content.push({ type: 'input_text', text: t });
      }
    }
    if (content.length > 0) out.push({ type: 'message', role: 'user', content });
  }
  return out;
}

function reasoningItem(p: Thinking): unknown {
  return {
    type: 'reasoning',
    ...(p.id ? { id: p.id } : {}),
    summary: p.text === '' ? [] : [{ type: 'summary_text', text: p.text }],
    encrypted_content: p.signature,
  };
}

/** Gemini generateContent `contents`: user/model turns, functionCall answered by functionResponse in the next user turn. */
function gemini(msgs: NeutralMessage[], ctx: Ctx): unknown[] {
  const out: { role: string; parts: unknown[] }[] = [];
  const put = (role: string, parts: unknown[]) => {
    if (parts.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  const inline = (i: { mediaType: string; data?: string; url?: string }) =>
    i.data ? { inlineData: { mimeType: i.mediaType, data: i.data } } : { text: marker(ctx, i.mediaType) };
  for (const m of msgs) {
    const parts: unknown[] = [];
    for (const p of m.parts) {
      if (p.type === 'thinking') {
        if (p.provider === 'gemini' && p.signature) parts.push({ text: p.text, thought: true, thoughtSignature: p.signature });
        else dropThinking(ctx);
      } else if (p.type === 'tool-call') parts.push({ functionCall: { id: ctx.id(p.id), name: toolName(p.name), args: p.arguments } });
      else if (p.type === 'tool-result')
        parts.push({
          functionResponse: {
            id: ctx.id(p.id),
            name: toolName(p.name),
            response: p.isError ? { error: resultText(p, ctx) } : { output: resultText(p, ctx) },
          },
        });
      else if (p.type === 'image') parts.push(inline(p));
      else {
        const t = userText(p);
        if (t !== null && t !== '') parts.push({ text: t });
      }
    }
    put(m.role === 'assistant' ? 'model' : 'user', parts);
  }
  return out;
}

/**
 * VS Code's LanguageModelChatMessage, as JSON a client makes the classes from: role "user" or
 * "assistant"; parts {type:"text", value}, {type:"toolCall", callId, name, input} (assistant),
 * {type:"toolResult", callId, content:[{type:"text", value}]} (user, right after the calls).
 */
function vscodeLm(msgs: NeutralMessage[], ctx: Ctx): unknown[] {
  const out: { role: string; content: unknown[] }[] = [];
  const put = (role: string, parts: unknown[]) => {
    if (parts.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...parts);
    else out.push({ role, content: parts });
  };
  for (const m of msgs) {
    const parts: unknown[] = [];
    for (const p of m.parts) {
      if (p.type === 'thinking') dropThinking(ctx);
      else if (p.type === 'tool-call') parts.push({ type: 'toolCall', callId: ctx.id(p.id), name: toolName(p.name), input: p.arguments });
      else if (p.type === 'tool-result')
        parts.push({ type: 'toolResult', callId: ctx.id(p.id), content: [{ type: 'text', value: resultText(p, ctx) }] });
      else if (p.type === 'image') parts.push({ type: 'text', value: marker(ctx, p.mediaType) });
      else {
        const t = userText(p);
        if (t !== null && t !== '') parts.push({ type: 'text', value: t });
      }
    }
    put(m.role === 'assistant' ? 'assistant' : 'user', parts);
  }
  return out;
}

const ID_RULES: Record<Exclude<Target, 'neutral'>, { re: RegExp; max: number }> = {
  anthropic: { re: /^[a-zA-Z0-9_-]+$/, max: 200 },
  'openai-chat': { re: /^[a-zA-Z0-9_-]+$/, max: 40 },
  'openai-responses': { re: /^[a-zA-Z0-9_-]+$/, max: 40 },
  gemini: { re: /^[a-zA-Z0-9_-]+$/, max: 64 },
  'vscode-lm': { re: /^[a-zA-Z0-9_-]+$/, max: 64 },
};
const RENDER = { anthropic, 'openai-chat': openaiChat, 'openai-responses': openaiResponses, gemini, 'vscode-lm': vscodeLm };

const COUNT_TEXT: Record<string, (n: number) => string> = {
  'thinking dropped': (n) => `${n} thinking part${s(n)} dropped (this target does not take them back)`,
  'image replaced by a marker': (n) => `${n} image${s(n)} replaced by a text marker`,
  'missing tool result': (n) => `${n} tool call${s(n)} had no recorded result (a "no result was recorded" result was added)`,
  'orphan tool result': (n) => `${n} tool result${s(n)} without a call turned into text`,
  'tool call id renamed': (n) => `${n} reused tool call id${s(n)} renamed`,
  'opening user line added': () => 'a user line opens the conversation (it began with the assistant)',
  subagent: (n) => `${n} subagent message${s(n)} left out (their results are in the main conversation)`,
  context: (n) => `${n} tool-environment message${s(n)} left out`,
  instructions: (n) => `${n} system/developer message${s(n)} left out`,
  unsupported: (n) => `${n} part${s(n)} of a kind only its tool knows shown as a marker`,
};
const s = (n: number) => (n === 1 ? '' : 's');

/** The one-line note for counts, or null when there is nothing to say. */
export function noteOf(counts: Counts): string | null {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => (COUNT_TEXT[k] ?? ((m: number) => `${m} ${k}`))(n));
  return parts.length === 0 ? null : `${parts.join('; ')}.`;
}

/** The conversation as `target`'s API takes it: repaired, rendered, and the note of what changed. */
export function render(conv: Conversation, target: Target): Rendered {
  const { messages, counts } = canonical(conv);
  if (target === 'neutral') return { messages, counts, note: noteOf(counts) };
  const rule = ID_RULES[target];
  const ctx: Ctx = { counts, id: idMapper(rule.re, rule.max) };
  const out = RENDER[target](messages, ctx);
  return { messages: out, counts, note: noteOf(counts) };
}
