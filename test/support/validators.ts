// One strict validator a resume target: what the provider's API accepts as a request's message
// list, written from its published reference, independent of server/resume/targets.ts (which
// must satisfy them). Each returns the list of violations ([] = valid), each naming the path.
//
// Sources:
// - Anthropic Messages API: https://docs.anthropic.com/en/api/messages (messages, content
//   blocks: text, image, tool_use, tool_result, thinking, redacted_thinking) and
//   https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use
//   ("tool_result blocks must immediately follow ... in the next user message", "tool_result
//   blocks must come FIRST in the content array"), .../extended-thinking (signature).
// - OpenAI Chat Completions: https://platform.openai.com/docs/api-reference/chat/create
//   (messages: user, assistant with tool_calls, tool with tool_call_id; function name
//   ^[a-zA-Z0-9_-]{1,64}$) and https://platform.openai.com/docs/guides/function-calling.
// - OpenAI Responses: https://platform.openai.com/docs/api-reference/responses/create (input
//   items: EasyInputMessage, function_call, function_call_output, reasoning; input_text,
//   input_image) and https://platform.openai.com/docs/guides/function-calling (every
//   function_call's output sent with the same call_id).
// - Gemini generateContent: https://ai.google.dev/api/generate-content and
//   https://ai.google.dev/api/caching#Content (Content {role: user|model, parts}; Part: text,
//   inlineData, functionCall {id, name, args}, functionResponse {id, name, response}, thought,
//   thoughtSignature) and https://ai.google.dev/gemini-api/docs/function-calling (function
//   names: letters, digits, underscores, dots, colons, dashes, max 64, starting with a letter or
//   underscore; a functionResponse turn answers each call of the model turn before it).
// - VS Code: https://code.visualstudio.com/api/references/vscode-api#LanguageModelChatMessage
//   (role User|Assistant, content: LanguageModelTextPart | LanguageModelToolCallPart(callId,
//   name, input: object) | LanguageModelToolResultPart(callId, content)) and
//   https://code.visualstudio.com/api/extension-guides/ai/tools (tool results go in a User
//   message after the Assistant message with the calls).

import { NeutralMessage } from '../../server/format/conversation.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => !!v && typeof v === 'object' && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';

/** Reports keys outside `allowed` (the API defines no others). */
function onlyKeys(o: Rec, allowed: string[], at: string, errs: string[]): void {
  for (const k of Object.keys(o)) if (!allowed.includes(k)) errs.push(`${at}: field "${k}" is not defined by the API`);
}

/** Checks that each call id is answered exactly once, in the next turn, and nothing else is answered. */
function pairs(calls: string[], results: string[], at: string, errs: string[], ordered = false): void {
  const want = [...calls].sort().join(',');
  const got = [...results].sort().join(',');
  if (want !== got) errs.push(`${at}: tool results [${results}] do not answer the calls [${calls}]`);
  else if (ordered && calls.join(',') !== results.join(',')) errs.push(`${at}: tool results out of call order`);
}

// ---- Anthropic Messages API ---------------------------------------------------------------------

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ANTHROPIC_MEDIA = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

function anthropicBlock(b: unknown, role: string, at: string, errs: string[]): void {
  if (!isRec(b)) return void errs.push(`${at}: a content block must be an object`);
  switch (b.type) {
    case 'text':
      onlyKeys(b, ['type', 'text', 'cache_control', 'citations'], at, errs);
      if (!isStr(b.text) || b.text.length === 0) errs.push(`${at}: text blocks must be non-empty`);
      return;
    case 'image': {
      onlyKeys(b, ['type', 'source', 'cache_control'], at, errs);
      const src = isRec(b.source) ? b.source : {};
      if (src.type === 'base64') {
        if (!ANTHROPIC_MEDIA.includes(src.media_type as string)) errs.push(`${at}: image media_type ${String(src.media_type)}`);
        if (!isStr(src.data)) errs.push(`${at}: image data`);
      } else if (src.type !== 'url' || !isStr(src.url)) errs.push(`${at}: image source`);
      return;
    }
    case 'tool_use':
      onlyKeys(b, ['type', 'id', 'name', 'input', 'cache_control'], at, errs);
      if (role !== 'assistant') errs.push(`${at}: tool_use only in assistant messages`);
      if (!isStr(b.id) || !ANTHROPIC_ID.test(b.id)) errs.push(`${at}: tool_use id ${String(b.id)} must match ^[a-zA-Z0-9_-]+$`);
      if (!isStr(b.name) || !TOOL_NAME.test(b.name)) errs.push(`${at}: tool name ${String(b.name)}`);
      if (!isRec(b.input)) errs.push(`${at}: tool_use input must be an object`);
      return;
    case 'tool_result':
      onlyKeys(b, ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'], at, errs);
      if (role !== 'user') errs.push(`${at}: tool_result only in user messages`);
      if (!isStr(b.tool_use_id) || !ANTHROPIC_ID.test(b.tool_use_id)) errs.push(`${at}: tool_use_id`);
      if (b.is_error !== undefined && typeof b.is_error !== 'boolean') errs.push(`${at}: is_error must be a boolean`);
      if (Array.isArray(b.content))
        b.content.forEach((c, i) => {
          const cb = c as Rec;
          if (cb?.type !== 'text' && cb?.type !== 'image') errs.push(`${at}.content[${i}]: only text and image blocks in a tool_result`);
          anthropicBlock(c, 'user', `${at}.content[${i}]`, errs);
        });
      else if (b.content !== undefined && !isStr(b.content)) errs.push(`${at}: tool_result content must be a string or blocks`);
      return;
    case 'thinking':
      onlyKeys(b, ['type', 'thinking', 'signature'], at, errs);
      if (role !== 'assistant') errs.push(`${at}: thinking only in assistant messages`);
      if (!isStr(b.thinking) || !isStr(b.signature) || b.signature === '') errs.push(`${at}: thinking needs its text and signature`);
      return;
    case 'redacted_thinking':
      onlyKeys(b, ['type', 'data'], at, errs);
      if (!isStr(b.data)) errs.push(`${at}: redacted_thinking needs data`);
      return;
    default:
      errs.push(`${at}: block type ${String(b.type)} is not one the Messages API takes here`);
  }
}

export function validateAnthropic(messages: unknown[]): string[] {
  const errs: string[] = [];
  if (messages.length > 0 && (messages[0] as Rec)?.role !== 'user') errs.push('messages[0]: the first message must be a user message');
  let pending: string[] = [];
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isRec(m)) return void errs.push(`${at}: not an object`);
    onlyKeys(m, ['role', 'content'], at, errs);
    if (m.role !== 'user' && m.role !== 'assistant') errs.push(`${at}: role ${String(m.role)}`);
    if (i > 0 && (messages[i - 1] as Rec)?.role === m.role) errs.push(`${at}: roles must alternate`);
    const content = isStr(m.content) ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(content) || content.length === 0) return void errs.push(`${at}: content must be a non-empty string or list`);
    content.forEach((b, j) => anthropicBlock(b, m.role as string, `${at}.content[${j}]`, errs));
    const results = content.filter((b) => (b as Rec)?.type === 'tool_result').map((b) => (b as Rec).tool_use_id as string);
    if (m.role === 'user') {
      pairs(pending, results, at, errs);
      const firstOther = content.findIndex((b) => (b as Rec)?.type !== 'tool_result');
      if (firstOther >= 0 && content.slice(firstOther).some((b) => (b as Rec)?.type === 'tool_result'))
        errs.push(`${at}: tool_result blocks must come first in the content`);
      pending = [];
    } else {
      if (pending.length > 0) errs.push(`${at}: tool_use ids [${pending}] were not answered`);
      pending = content.filter((b) => (b as Rec)?.type === 'tool_use').map((b) => (b as Rec).id as string);
    }
  });
  if (pending.length > 0) errs.push(`end: tool_use ids [${pending}] were not answered`);
  return errs;
}

// ---- OpenAI Chat Completions --------------------------------------------------------------------

export function validateOpenAIChat(messages: unknown[]): string[] {
  const errs: string[] = [];
  let pending: string[] = [];
  let answered: string[] = [];
  const closeTurn = (at: string) => {
    if (pending.length > 0) pairs(pending, answered, at, errs);
    pending = [];
    answered = [];
  };
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isRec(m)) return void errs.push(`${at}: not an object`);
    if (m.role === 'tool') {
      onlyKeys(m, ['role', 'tool_call_id', 'content'], at, errs);
      if (!isStr(m.content)) errs.push(`${at}: tool content must be a string`);
      if (!isStr(m.tool_call_id) || !pending.includes(m.tool_call_id) || answered.includes(m.tool_call_id))
        errs.push(`${at}: tool message answers ${String(m.tool_call_id)}, which is not an open call of the assistant message before`);
      else answered.push(m.tool_call_id);
      return;
    }
    closeTurn(at);
    if (m.role === 'user') {
      onlyKeys(m, ['role', 'content', 'name'], at, errs);
      if (isStr(m.content)) return;
      if (!Array.isArray(m.content) || m.content.length === 0) return void errs.push(`${at}: user content`);
      m.content.forEach((p, j) => {
        const pa = `${at}.content[${j}]`;
        if (!isRec(p)) return void errs.push(`${pa}: not an object`);
        if (p.type === 'text') {
          onlyKeys(p, ['type', 'text'], pa, errs);
          if (!isStr(p.text)) errs.push(`${pa}: text`);
        } else if (p.type === 'image_url') {
          onlyKeys(p, ['type', 'image_url'], pa, errs);
          if (!isRec(p.image_url) || !isStr(p.image_url.url)) errs.push(`${pa}: image_url.url`);
        } else errs.push(`${pa}: part type ${String(p.type)}`);
      });
    } else if (m.role === 'assistant') {
      onlyKeys(m, ['role', 'content', 'tool_calls', 'name', 'refusal'], at, errs);
      const calls = m.tool_calls;
      if (m.content !== null && !isStr(m.content)) errs.push(`${at}: assistant content must be a string or null`);
      if (m.content === null && !Array.isArray(calls)) errs.push(`${at}: an assistant message needs content or tool_calls`);
      if (calls !== undefined) {
        if (!Array.isArray(calls) || calls.length === 0) return void errs.push(`${at}: tool_calls must be a non-empty list`);
        calls.forEach((c, j) => {
          const ca = `${at}.tool_calls[${j}]`;
          if (!isRec(c)) return void errs.push(`${ca}: not an object`);
          onlyKeys(c, ['id', 'type', 'function'], ca, errs);
          const f = isRec(c.function) ? c.function : {};
          onlyKeys(f, ['name', 'arguments'], `${ca}.function`, errs);
          if (c.type !== 'function') errs.push(`${ca}: type must be "function"`);
          if (!isStr(c.id) || c.id.length === 0 || c.id.length > 40) errs.push(`${ca}: id ${String(c.id)} (1 to 40 characters)`);
          if (!isStr(f.name) || !TOOL_NAME.test(f.name)) errs.push(`${ca}: function name ${String(f.name)}`);
          if (!isStr(f.arguments)) errs.push(`${ca}: arguments must be a JSON string`);
          else
            try {
              JSON.parse(f.arguments);
            } catch {
              errs.push(`${ca}: arguments are not JSON`);
            }
          if (pending.includes(c.id as string)) errs.push(`${ca}: id repeated`);
          pending.push(c.id as string);
        });
      }
    } else errs.push(`${at}: role ${String(m.role)} (user, assistant or tool; system is the caller's)`);
  });
  closeTurn('end of messages');
  return errs;
}

// ---- OpenAI Responses ---------------------------------------------------------------------------

export function validateOpenAIResponses(items: unknown[]): string[] {
  const errs: string[] = [];
  const calls: string[] = [];
  const outputs = new Set<string>();
  items.forEach((it, i) => {
    const at = `input[${i}]`;
    if (!isRec(it)) return void errs.push(`${at}: not an object`);
    switch (it.type) {
      case 'message': {
        onlyKeys(it, ['type', 'role', 'content'], at, errs);
        if (it.role === 'assistant') {
          if (!isStr(it.content) || it.content === '') errs.push(`${at}: assistant content`);
          return;
        }
        if (it.role !== 'user') return void errs.push(`${at}: role ${String(it.role)}`);
        if (!Array.isArray(it.content) || it.content.length === 0) return void errs.push(`${at}: user content must be a non-empty list`);
        it.content.forEach((p, j) => {
          const pa = `${at}.content[${j}]`;
          if (!isRec(p)) return void errs.push(`${pa}: not an object`);
          if (p.type === 'input_text') {
            onlyKeys(p, ['type', 'text'], pa, errs);
            if (!isStr(p.text)) errs.push(`${pa}: text`);
          } else if (p.type === 'input_image') {
            onlyKeys(p, ['type', 'image_url', 'file_id', 'detail'], pa, errs);
            if (!['low', 'high', 'auto'].includes(p.detail as string)) errs.push(`${pa}: detail`);
          } else errs.push(`${pa}: part type ${String(p.type)}`);
        });
        return;
      }
      case 'function_call':
        onlyKeys(it, ['type', 'call_id', 'name', 'arguments', 'id', 'status'], at, errs);
        if (!isStr(it.call_id) || it.call_id === '') errs.push(`${at}: call_id`);
        if (calls.includes(it.call_id as string)) errs.push(`${at}: call_id repeated`);
        calls.push(it.call_id as string);
        if (!isStr(it.name) || !TOOL_NAME.test(it.name)) errs.push(`${at}: name ${String(it.name)}`);
        if (!isStr(it.arguments)) errs.push(`${at}: arguments must be a JSON string`);
        return;
      case 'function_call_output':
        onlyKeys(it, ['type', 'call_id', 'output', 'id', 'status'], at, errs);
        if (!calls.includes(it.call_id as string))
          errs.push(`${at}: output for ${String(it.call_id)} before (or without) its function_call`);
        if (outputs.has(it.call_id as string)) errs.push(`${at}: second output for ${String(it.call_id)}`);
        outputs.add(it.call_id as string);
        if (!isStr(it.output)) errs.push(`${at}: output must be a string`);
        return;
      case 'reasoning':
        onlyKeys(it, ['type', 'id', 'summary', 'encrypted_content', 'content'], at, errs);
        if (!Array.isArray(it.summary)) errs.push(`${at}: reasoning summary must be a list`);
        if (!isStr(it.encrypted_content) && !isStr(it.id)) errs.push(`${at}: reasoning needs its id or encrypted_content`);
        return;
      default:
        errs.push(`${at}: item type ${String(it.type)}`);
    }
  });
  for (const c of calls) if (!outputs.has(c)) errs.push(`function_call ${c} has no function_call_output`);
  return errs;
}

// ---- Gemini generateContent ---------------------------------------------------------------------

const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

export function validateGemini(contents: unknown[]): string[] {
  const errs: string[] = [];
  if (contents.length > 0 && (contents[0] as Rec)?.role !== 'user') errs.push("contents[0]: the first turn must be the user's");
  let pending: { id: string; name: string }[] = [];
  contents.forEach((c, i) => {
    const at = `contents[${i}]`;
    if (!isRec(c)) return void errs.push(`${at}: not an object`);
    onlyKeys(c, ['role', 'parts'], at, errs);
    if (c.role !== 'user' && c.role !== 'model') errs.push(`${at}: role ${String(c.role)}`);
    if (i > 0 && (contents[i - 1] as Rec)?.role === c.role) errs.push(`${at}: user and model turns must alternate`);
    if (!Array.isArray(c.parts) || c.parts.length === 0) return void errs.push(`${at}: parts must be a non-empty list`);
    const responses: { id: string; name: string }[] = [];
    const calls: { id: string; name: string }[] = [];
    c.parts.forEach((p, j) => {
      const pa = `${at}.parts[${j}]`;
      if (!isRec(p)) return void errs.push(`${pa}: not an object`);
      const data = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'].filter((k) => k in p);
      if (data.length !== 1) errs.push(`${pa}: a part holds exactly one kind of data, has [${data}]`);
      onlyKeys(p, ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'thought', 'thoughtSignature'], pa, errs);
      if ('text' in p && !isStr(p.text)) errs.push(`${pa}: text`);
      if (p.thought === true && (c.role !== 'model' || !isStr(p.thoughtSignature)))
        errs.push(`${pa}: a thought part belongs to the model, with its signature`);
      if (isRec(p.inlineData) && (!isStr(p.inlineData.mimeType) || !isStr(p.inlineData.data))) errs.push(`${pa}: inlineData`);
      if ('functionCall' in p) {
        const f = isRec(p.functionCall) ? p.functionCall : {};
        onlyKeys(f, ['id', 'name', 'args'], `${pa}.functionCall`, errs);
        if (c.role !== 'model') errs.push(`${pa}: functionCall only in model turns`);
        if (!isStr(f.name) || !GEMINI_NAME.test(f.name)) errs.push(`${pa}: function name ${String(f.name)}`);
        if (f.args !== undefined && !isRec(f.args)) errs.push(`${pa}: args must be an object`);
        calls.push({ id: String(f.id ?? ''), name: String(f.name) });
      }
      if ('functionResponse' in p) {
        const f = isRec(p.functionResponse) ? p.functionResponse : {};
        onlyKeys(f, ['id', 'name', 'response'], `${pa}.functionResponse`, errs);
        if (c.role !== 'user') errs.push(`${pa}: functionResponse only in user turns`);
        if (!isRec(f.response)) errs.push(`${pa}: response must be an object`);
        responses.push({ id: String(f.id ?? ''), name: String(f.name) });
      }
    });
    const key = (x: { id: string; name: string }) => `${x.id}/${x.name}`;
    if (c.role === 'user') pairs(pending.map(key), responses.map(key), at, errs);
    else if (pending.length > 0) errs.push(`${at}: function calls [${pending.map(key)}] were not answered`);
    pending = c.role === 'model' ? calls : [];
    if (c.role === 'user' && responses.length > 0) {
      const firstOther = (c.parts as Rec[]).findIndex((p) => !('functionResponse' in p));
      if (firstOther >= 0 && (c.parts as Rec[]).slice(firstOther).some((p) => 'functionResponse' in p))
        errs.push(`${at}: function responses must come first in the turn`);
    }
  });
  if (pending.length > 0) errs.push('end: function calls were not answered');
  return errs;
}

// ---- VS Code LanguageModelChatMessage -----------------------------------------------------------

export function validateVscodeLm(messages: unknown[]): string[] {
  const errs: string[] = [];
  let pending: string[] = [];
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isRec(m)) return void errs.push(`${at}: not an object`);
    onlyKeys(m, ['role', 'content', 'name'], at, errs);
    if (m.role !== 'user' && m.role !== 'assistant') errs.push(`${at}: role ${String(m.role)} (User or Assistant)`);
    if (!Array.isArray(m.content) || m.content.length === 0) return void errs.push(`${at}: content must be a non-empty list of parts`);
    const results: string[] = [];
    const calls: string[] = [];
    m.content.forEach((p, j) => {
      const pa = `${at}.content[${j}]`;
      if (!isRec(p)) return void errs.push(`${pa}: not an object`);
      if (p.type === 'text') {
        onlyKeys(p, ['type', 'value'], pa, errs);
        if (!isStr(p.value)) errs.push(`${pa}: value`);
      } else if (p.type === 'toolCall') {
        onlyKeys(p, ['type', 'callId', 'name', 'input'], pa, errs);
        if (m.role !== 'assistant') errs.push(`${pa}: a tool call belongs in an Assistant message`);
        if (!isStr(p.callId) || !isStr(p.name) || !isRec(p.input)) errs.push(`${pa}: callId, name and an object input`);
        calls.push(p.callId as string);
      } else if (p.type === 'toolResult') {
        onlyKeys(p, ['type', 'callId', 'content'], pa, errs);
        if (m.role !== 'user') errs.push(`${pa}: a tool result belongs in a User message`);
        if (!Array.isArray(p.content)) errs.push(`${pa}: content must be a list`);
        results.push(p.callId as string);
      } else errs.push(`${pa}: part type ${String(p.type)}`);
    });
    if (m.role === 'user') pairs(pending, results, at, errs);
    else if (pending.length > 0) errs.push(`${at}: tool calls [${pending}] were not answered`);
    pending = m.role === 'assistant' ? calls : [];
    if (i > 0 && (messages[i - 1] as Rec)?.role === m.role) errs.push(`${at}: roles must alternate`);
  });
  if (pending.length > 0) errs.push(`end: tool calls [${pending}] were not answered`);
  return errs;
}

// ---- Neutral -----------------------------------------------------------------------------------

/** The neutral conversation after repairs: its schema, plus every call answered by the tool message after it. */
export function validateNeutral(messages: unknown[]): string[] {
  const errs: string[] = [];
  let pending: string[] = [];
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    const r = NeutralMessage.safeParse(m);
    if (!r.success) return void errs.push(`${at}: ${r.error.issues.map((x) => `${x.path.join('.')} ${x.message}`).join('; ')}`);
    const parts = r.data.parts;
    if (r.data.role === 'tool') {
      pairs(
        pending,
        parts.map((p) => (p as { id: string }).id),
        at,
        errs,
        true,
      );
      pending = [];
      return;
    }
    if (pending.length > 0) errs.push(`${at}: tool calls [${pending}] were not answered`);
    pending = r.data.role === 'assistant' ? parts.filter((p) => p.type === 'tool-call').map((p) => (p as { id: string }).id) : [];
  });
  if (pending.length > 0) errs.push(`end: tool calls [${pending}] were not answered`);
  return errs;
}

export const VALIDATORS = {
  anthropic: validateAnthropic,
  'openai-chat': validateOpenAIChat,
  'openai-responses': validateOpenAIResponses,
  gemini: validateGemini,
  'vscode-lm': validateVscodeLm,
  neutral: validateNeutral,
} as const;
