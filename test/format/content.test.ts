// Tests of the one walker over provider content (server/format/content.ts): each provider shape
// read as its typed part, messages walked in order, tool calls paired with their results, and
// texts and tool ids taken from the parts. Pure data: no files, no sidecar.

import { describe, it, expect } from 'vitest';
import { addToolNames, blocks, partOf, parts, textsOf, toolIdsOf, toolPairs } from '../../server/format/content.js';
import { mixedMessages } from '../fixtures/mixed-content.js';

describe('partOf', () => {
  it('reads each block shape as its kind', () => {
    expect(partOf('hi')).toMatchObject({ kind: 'text', text: 'hi' });
    expect(partOf({ type: 'input_text', text: 'q' })).toMatchObject({ kind: 'text', text: 'q' });
    expect(partOf({ type: 'text', content: 'c' })).toMatchObject({ kind: 'text', text: 'c' });
    expect(partOf({ type: 'reasoning', text: 'r' })).toMatchObject({ kind: 'thinking', text: 'r' });
    expect(partOf({ type: 'redacted_thinking' })).toMatchObject({ kind: 'thinking', redacted: true });
    expect(partOf({ type: 'mcp_tool_use', id: 'm', name: 'n' })).toMatchObject({ kind: 'tool_use', id: 'm', name: 'n' });
    expect(partOf({ type: 'local_shell_call', call_id: 's', action: { cmd: ['ls'] } })).toMatchObject({
      kind: 'tool_use',
      id: 's',
      input: { cmd: ['ls'] },
    });
    expect(partOf({ type: 'function_call_output', call_id: 'f', output: 'o' })).toMatchObject({
      kind: 'tool_result',
      id: 'f',
      output: 'o',
      outputKey: 'output',
    });
    expect(partOf({ type: 'input_image', image_url: 'x' })).toMatchObject({ kind: 'image' });
    expect(partOf({ type: 'document' })).toMatchObject({ kind: 'other', type: 'document' });
    expect(partOf({ type: 'mystery', text: 't' })).toMatchObject({ kind: 'text', text: 't' });
    expect(partOf({ role: 'assistant', content: 'x' })).toBeNull();
    expect(partOf(42)).toBeNull();
    expect(partOf(null)).toBeNull();
  });

  it('keeps the block it read as raw', () => {
    const b = { type: 'tool_use', id: 'a', name: 'b', input: {} };
    expect(partOf(b)!.raw).toBe(b);
  });
});

describe('parts', () => {
  it('walks a mixed message list in order', () => {
    const got = parts(mixedMessages).map((p) => `${p.kind}:${p.type}:${p.id ?? p.text ?? ''}`);
    expect(got).toEqual([
      'other:system:You are terse.',
      'text:text:list files',
      'image:image:',
      'thinking:thinking:use ls',
      'thinking:redacted_thinking:',
      'text:text:Listing.',
      'tool_use:tool_use:toolu_1',
      'tool_use:server_tool_use:srv_1',
      'tool_result:tool_result:toolu_1',
      'tool_result:web_search_tool_result:srv_1',
      'text::Calling.',
      'tool_use:tool_calls:call_1',
      'tool_result:tool:call_1',
      'thinking:reasoning:think',
      'tool_use:function_call:fc_1',
      'tool_result:function_call_output:fc_1',
      'tool_use:custom_tool_call:ct_1',
      'tool_result:custom_tool_call_output:ct_1',
      'text:output_text:Done.',
      'other:document:',
    ]);
  });

  it('tags parts with the role of their message', () => {
    const ps = parts(mixedMessages);
    expect(ps.find((p) => p.id === 'call_1' && p.kind === 'tool_use')).toMatchObject({
      role: 'assistant',
      name: 'read',
      input: '{"p":"a"}',
    });
    expect(ps.find((p) => p.type === 'tool_result')).toMatchObject({ role: 'user', isError: true });
  });

  it('reads a string, one block and nothing', () => {
    expect(parts('plain')).toMatchObject([{ kind: 'text', text: 'plain' }]);
    expect(parts({ type: 'text', text: 'one' })).toMatchObject([{ kind: 'text', text: 'one' }]);
    expect(parts(undefined)).toEqual([]);
    expect(parts([null, 3, []])).toEqual([]);
  });
});

describe('helpers', () => {
  it('blocks reads an event by its kind', () => {
    expect(blocks({ kind: 'user', content: 'hi' })).toMatchObject([{ kind: 'text', role: 'user', text: 'hi' }]);
    expect(blocks({ kind: 'agent', messages: mixedMessages })).toHaveLength(20);
    expect(blocks({ kind: 'compact', content: 'x' })).toEqual([]);
  });

  it('textsOf takes text parts only', () => {
    expect(
      textsOf([{ type: 'text', text: 'a' }, { type: 'thinking', thinking: 'no' }, 'b', { type: 'tool_result', content: 'no' }]),
    ).toEqual(['a', 'b']);
    expect(textsOf({ text: 'one' })).toEqual(['one']);
  });

  it('pairs every call with its result by id', () => {
    const pairs = toolPairs(parts(mixedMessages));
    expect([...pairs.keys()]).toEqual(['toolu_1', 'srv_1', 'call_1', 'fc_1', 'ct_1']);
    for (const p of pairs.values()) {
      expect(p.use?.kind).toBe('tool_use');
      expect(p.result?.kind).toBe('tool_result');
    }
  });

  it('finds tool ids and names, inside results too', () => {
    const nested = [{ type: 'tool_result', tool_use_id: 'outer', content: [{ type: 'tool_use', id: 'inner', name: 'x' }] }];
    expect([...toolIdsOf(nested)]).toEqual(['outer', 'inner']);
    const names = new Map<string, string>();
    addToolNames(mixedMessages, names);
    addToolNames(nested, names);
    expect(Object.fromEntries(names)).toEqual({
      toolu_1: 'bash',
      srv_1: 'web_search',
      call_1: 'read',
      fc_1: 'grep',
      ct_1: 'apply_patch',
      inner: 'x',
    });
  });
});
