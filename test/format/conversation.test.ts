// The neutral conversation and its repairs, tested as data: check(events, expected) builds the
// conversation of a few stored events (format/conversation.ts), repairs it (resume/targets.ts
// canonical) and compares the whole result. Then each validator is shown to reject what its API
// rejects, so that the fixture sweep (resume-targets.test.ts) cannot pass by accident.
import { describe, it, expect } from 'vitest';
import { toConversation, type NeutralMessage } from '../../server/format/conversation.js';
import { canonical, render, NO_RESULT } from '../../server/resume/targets.js';
import { honestyLine } from '../../server/resume/resume.js';
import type { SeqEvent, SessionEvent } from '../../server/format/events.js';
import { VALIDATORS } from '../support/validators.js';

const T = '2026-01-01T00:00:00.000Z';
const seq = (events: Record<string, unknown>[]): SeqEvent[] => events.map((e, i) => ({ seq: i, event: { t: T, ...e } as SessionEvent }));

function check(events: Record<string, unknown>[], expected: NeutralMessage[], counts: Record<string, number> = {}): void {
  const got = canonical(toConversation(seq(events), { markerLine: honestyLine }));
  expect(got.messages).toEqual(expected);
  expect(got.counts).toEqual(counts);
}

const user = (text: string): NeutralMessage => ({ role: 'user', parts: [{ type: 'text', text }] });
const said = (text: string): NeutralMessage => ({ role: 'assistant', parts: [{ type: 'text', text }] });
const call = (id: string, name = 'Bash', args: Record<string, unknown> = {}) => ({ type: 'tool-call' as const, id, name, arguments: args });
const result = (id: string, text: string, isError = false, name = 'Bash') => ({
  type: 'tool-result' as const,
  id,
  name,
  content: [{ type: 'text' as const, text }],
  isError,
});

describe('toConversation + canonical', () => {
  it('parallel Anthropic calls, one failing: results follow the calls, in call order', () => {
    check(
      [
        { kind: 'user', content: 'go' },
        {
          kind: 'agent',
          messages: [
            {
              role: 'assistant',
              model: 'claude-x',
              usage: {},
              content: [
                { type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'ls' } },
                { type: 'tool_use', id: 'b', name: 'Bash', input: { command: 'false' } },
              ],
            },
          ],
        },
        {
          kind: 'agent',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 'b', content: 'exit 1', is_error: true },
                { type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 'x.txt' }] },
              ],
            },
          ],
        },
        { kind: 'assistant', content: [{ type: 'text', text: 'done' }] },
      ],
      [
        user('go'),
        { role: 'assistant', parts: [call('a', 'Bash', { command: 'ls' }), call('b', 'Bash', { command: 'false' })] },
        { role: 'tool', parts: [result('a', 'x.txt'), result('b', 'exit 1', true)] },
        said('done'),
      ],
    );
  });

  it('Responses items: reasoning with encrypted content, a JSON-string call, its output', () => {
    check(
      [
        { kind: 'user', content: 'list' },
        {
          kind: 'agent',
          messages: [
            { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'plan' }], encrypted_content: 'ENC' },
            { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"cmd":["ls"]}' },
            { type: 'function_call_output', call_id: 'c1', output: 'a\nb' },
          ],
        },
      ],
      [
        user('list'),
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', text: 'plan', provider: 'openai', signature: 'ENC', id: 'rs_1' },
            call('c1', 'shell', { cmd: ['ls'] }),
          ],
        },
        { role: 'tool', parts: [result('c1', 'a\nb', false, 'shell')] },
      ],
    );
  });

  it('a fork that starts from a compaction: its summary opens; a later compaction of a present transcript is left out', () => {
    check(
      [
        { kind: 'compact', briefing: 'Earlier: we fixed the build.', coversThrough: 0 },
        { kind: 'user', content: 'next?' },
        { kind: 'assistant', content: 'tests' },
        { kind: 'compact', briefing: 'dup', coversThrough: 2 },
      ],
      [
        {
          role: 'user',
          parts: [
            { type: 'summary', text: 'Earlier: we fixed the build.' },
            { type: 'text', text: 'next?' },
          ],
        },
        said('tests'),
      ],
    );
  });

  it('subagent and tool-environment messages are left out and counted; thinking keeps its family and signature', () => {
    check(
      [
        { kind: 'agent', context: true, messages: [{ role: 'user', content: '<environment_context/>' }] },
        { kind: 'user', content: 'why?', contextFiles: ['src/a.ts'] },
        { kind: 'agent', sidechain: true, messages: [{ role: 'user', content: 'Warmup' }] },
        {
          kind: 'assistant',
          model: 'claude-sonnet-4',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'SIG' },
            { type: 'text', text: 'because' },
          ],
        },
      ],
      [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'why?' },
            { type: 'file', path: 'src/a.ts' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'thinking', text: 'hmm', provider: 'anthropic', signature: 'SIG' },
            { type: 'text', text: 'because' },
          ],
        },
      ],
      { context: 1, subagent: 1 },
    );
  });

  it('repairs: a call never answered, an orphan result, a reused id, an assistant first, an honesty line', () => {
    check(
      [
        { kind: 'assistant', content: 'hello' },
        { kind: 'agent', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'Read', input: {} }] }] },
        { kind: 'event', type: 'interrupted' },
        { kind: 'agent', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'zz', content: 'stray' }] }] },
        { kind: 'agent', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'Read', input: {} }] }] },
        { kind: 'agent', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'ok' }] }] },
      ],
      [
        user('[The conversation so far, continued from a saved session.]'),
        { role: 'assistant', parts: [{ type: 'text', text: 'hello' }, call('x', 'Read')] },
        { role: 'tool', parts: [result('x', NO_RESULT, true, 'Read')] },
        {
          role: 'user',
          parts: [
            { type: 'text', text: honestyLine({ kind: 'event', t: T, type: 'interrupted' })! },
            { type: 'text', text: '[result of a tool call that is not in this conversation]\nstray' },
          ],
        },
        { role: 'assistant', parts: [call('x_2', 'Read')] },
        { role: 'tool', parts: [result('x_2', 'ok', false, 'Read')] },
      ],
      { 'missing tool result': 1, 'orphan tool result': 1, 'tool call id renamed': 1, 'opening user line added': 1 },
    );
  });

  it('an image: kept where the target takes it, a marker elsewhere, and the note says so', () => {
    const conv = toConversation(
      seq([
        {
          kind: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
          ],
        },
      ]),
    );
    const a = render(conv, 'anthropic');
    expect(a.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
        ],
      },
    ]);
    expect(a.note).toBeNull();
    const v = render(conv, 'vscode-lm');
    expect(JSON.stringify(v.messages)).toContain('[image (image/png) left out');
    expect(v.note).toBe('1 image replaced by a text marker.');
  });

  it('thinking goes back only to its own family, with its signature; the note counts the rest', () => {
    const conv = toConversation(
      seq([
        { kind: 'user', content: 'q' },
        {
          kind: 'assistant',
          model: 'claude-x',
          content: [
            { type: 'thinking', thinking: 't', signature: 'S' },
            { type: 'text', text: 'a' },
          ],
        },
      ]),
    );
    expect(JSON.stringify(render(conv, 'anthropic').messages)).toContain('"signature":"S"');
    for (const t of ['openai-chat', 'openai-responses', 'gemini', 'vscode-lm'] as const) {
      expect(render(conv, t).note).toBe('1 thinking part dropped (this target does not take them back).');
      expect(JSON.stringify(render(conv, t).messages)).not.toContain('"S"');
    }
  });

  it('ids and names a target refuses are rewritten, the same on the call and its result', () => {
    const long = `call:${'x'.repeat(60)}`;
    const conv = toConversation(
      seq([
        { kind: 'user', content: 'q' },
        { kind: 'agent', messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: long, name: 'container.exec', input: {} }] }] },
        { kind: 'agent', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: long, content: 'ok' }] }] },
      ]),
    );
    const chat = render(conv, 'openai-chat').messages as {
      tool_calls?: { id: string; function: { name: string } }[];
      tool_call_id?: string;
    }[];
    const id = chat[1]!.tool_calls![0]!.id;
    expect(id.length).toBeLessThanOrEqual(40);
    expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(chat[2]!.tool_call_id).toBe(id);
    expect(chat[1]!.tool_calls![0]!.function.name).toBe('container_exec');
    expect(VALIDATORS['openai-chat'](chat)).toEqual([]);
  });
});

describe('the validators reject what their API rejects', () => {
  const bad: Record<keyof typeof VALIDATORS, { why: string; messages: unknown[] }[]> = {
    anthropic: [
      { why: 'assistant first', messages: [{ role: 'assistant', content: 'hi' }] },
      { why: 'usage field', messages: [{ role: 'user', content: 'hi', usage: {} }] },
      {
        why: 'two user turns',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
      {
        why: 'unanswered tool_use',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'n', input: {} }] },
          { role: 'user', content: 'b' },
        ],
      },
      {
        why: 'text before tool_result',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'n', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 't' },
              { type: 'tool_result', tool_use_id: 'x', content: 'r' },
            ],
          },
        ],
      },
      {
        why: 'bad id',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'a.b', name: 'n', input: {} }] },
        ],
      },
      {
        why: 'thinking without signature',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 't' }] },
        ],
      },
    ],
    'openai-chat': [
      {
        why: 'tool message without its call',
        messages: [
          { role: 'user', content: 'a' },
          { role: 'tool', tool_call_id: 'x', content: 'r' },
        ],
      },
      {
        why: 'a call unanswered',
        messages: [
          { role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: 'n', arguments: '{}' } }] },
          { role: 'user', content: 'b' },
        ],
      },
      {
        why: 'arguments as an object',
        messages: [
          { role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: 'n', arguments: {} } }] },
        ],
      },
      { why: 'Anthropic blocks', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x' }] }] },
    ],
    'openai-responses': [
      { why: 'an output with no call', messages: [{ type: 'function_call_output', call_id: 'x', output: 'r' }] },
      { why: 'a call with no output', messages: [{ type: 'function_call', call_id: 'x', name: 'n', arguments: '{}' }] },
      {
        why: 'provider metadata',
        messages: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a' }], internal_chat_message_metadata_passthrough: {} },
        ],
      },
    ],
    gemini: [
      { why: 'role assistant', messages: [{ role: 'assistant', parts: [{ text: 'a' }] }] },
      {
        why: 'a call unanswered',
        messages: [
          { role: 'user', parts: [{ text: 'a' }] },
          { role: 'model', parts: [{ functionCall: { name: 'n', args: {} } }] },
          { role: 'user', parts: [{ text: 'b' }] },
        ],
      },
      {
        why: 'bad function name',
        messages: [
          { role: 'user', parts: [{ text: 'a' }] },
          { role: 'model', parts: [{ functionCall: { name: '1n', args: {} } }] },
        ],
      },
      { why: 'Anthropic-shaped content', messages: [{ role: 'user', parts: [{ type: 'text', text: 'a' }] }] },
    ],
    'vscode-lm': [
      {
        why: 'a tool call in a user message',
        messages: [{ role: 'user', content: [{ type: 'toolCall', callId: 'x', name: 'n', input: {} }] }],
      },
      { why: 'flattened text content', messages: [{ role: 'user', content: 'You: hi' }] },
    ],
    neutral: [
      { why: 'a call unanswered', messages: [{ role: 'assistant', parts: [{ type: 'tool-call', id: 'x', name: 'n', arguments: {} }] }] },
      { why: 'an unknown part', messages: [{ role: 'user', parts: [{ type: 'blob' }] }] },
    ],
  };
  for (const [target, cases] of Object.entries(bad))
    for (const c of cases)
      it(`${target}: ${c.why}`, () => {
        expect(VALIDATORS[target as keyof typeof VALIDATORS](c.messages).length).toBeGreaterThan(0);
      });
});
