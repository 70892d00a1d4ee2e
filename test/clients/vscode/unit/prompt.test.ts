// Unit tests of the prompts built for the editor's language model (clients/vscode/src/prompt.ts)
// from the sidecar's callbacks, and of the cleaning of a model's title.

import { describe, expect, it } from 'vitest';
import { cleanTitle, contentText, summarizePrompt, titlePrompt, transcriptForModel } from '../../../../clients/vscode/src/prompt.js';

describe('contentText', () => {
  it('reads strings, text blocks and tool blocks', () => {
    expect(contentText('hi')).toBe('hi');
    expect(
      contentText([
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', name: 'read_file', input: { path: 'a.rb' } },
        { type: 'tool_result', content: [{ type: 'text', text: 'class A' }] },
      ]),
    ).toBe('Looking.\n[tool call read_file: {"path":"a.rb"}]\n[tool result: class A]');
    expect(contentText(null)).toBe('');
    expect(contentText({ odd: 1 })).toBe('{"odd":1}');
  });
});

describe('prompts', () => {
  const messages = [
    { role: 'user', content: 'Add idempotency' },
    { role: 'assistant', content: [{ type: 'text', text: 'Use SET NX.' }] },
  ];

  it('renders the head as a labelled transcript', () => {
    expect(transcriptForModel(messages)).toBe('USER:\nAdd idempotency\n\nASSISTANT:\nUse SET NX.');
    expect(summarizePrompt('  Summarise.  ', messages)).toBe(
      'Summarise.\n\n<transcript>\nUSER:\nAdd idempotency\n\nASSISTANT:\nUse SET NX.\n</transcript>',
    );
  });

  it('keeps the end of a transcript too long for any model', () => {
    const big = [
      { role: 'user', content: 'a'.repeat(500_000) },
      { role: 'assistant', content: 'THE END' },
    ];
    const t = transcriptForModel(big);
    expect(t.length).toBeLessThanOrEqual(400_002);
    expect(t.endsWith('THE END')).toBe(true);
    expect(t.startsWith('…\n')).toBe(true);
  });

  it('builds the title prompt from the opening lines', () => {
    expect(
      titlePrompt('Title it.', [
        { role: 'user', text: 'hello' },
        { role: 'assistant', text: 'hi' },
      ]),
    ).toBe('Title it.\n\nUser: hello\n\nAssistant: hi');
  });
});

describe('cleanTitle', () => {
  it.each([
    ['Idempotent refunds', 'Idempotent refunds'],
    ['"Idempotent refunds."', 'Idempotent refunds'],
    ['Title: **Refunds via Redis**\nmore text', 'Refunds via Redis'],
    ['\n\n  “Quoted”  \n', 'Quoted'],
    ['# Heading title', 'Heading title'],
    ['', ''],
  ])('%j -> %j', (answer, want) => {
    expect(cleanTitle(answer)).toBe(want);
  });
});
