// Tests of the title helpers (server/listing/title.ts): the fallback title, when to ask a model,
// the instructions, and how a model's answer is cleaned. Pure data: no files, no sidecar.

import { describe, it, expect } from 'vitest';
import type { SeqEvent, SessionEvent } from '../../server/format/events.js';
import {
  currentTitle,
  fallbackTitle,
  normalizeTitle,
  shouldGenerateTitle,
  titleInstructions,
  titleMaxTokens,
} from '../../server/listing/title.js';

const T0 = '2026-07-28T09:12:33.000Z';
const user = (content: unknown): SessionEvent => ({ kind: 'user', t: T0, content }) as SessionEvent;
const assistant = (content: unknown): SessionEvent => ({ kind: 'assistant', t: T0, content }) as SessionEvent;
const title = (t: string): SessionEvent => ({ kind: 'title', t: T0, title: t });
const marker = (type: string): SessionEvent => ({ kind: 'event', t: T0, type });
const numbered = (...events: SessionEvent[]): SeqEvent[] => events.map((event, seq) => ({ seq, event }));

describe('fallbackTitle', () => {
  it('takes the first non-empty line of the first user message', () => {
    expect(fallbackTitle(numbered(user('\n  \n  Add idempotency to RefundService  \nmore'), user('second')))).toBe(
      'Add idempotency to RefundService',
    );
  });

  it('reads provider content blocks', () => {
    const blocks = [
      { type: 'image', source: {} },
      { type: 'text', text: 'Explain this stack trace' },
    ];
    expect(fallbackTitle(numbered(assistant('hello'), user(blocks)))).toBe('Explain this stack trace');
  });

  it('cuts at 80 characters with an ellipsis', () => {
    const long = 'word '.repeat(40);
    const t = fallbackTitle(numbered(user(long)))!;
    expect(Array.from(t)).toHaveLength(80);
    expect(t.endsWith('…')).toBe(true);
    expect(fallbackTitle(numbered(user('x'.repeat(80))))).toBe('x'.repeat(80));
  });

  it('skips a user message without text, and is null when there is none', () => {
    expect(fallbackTitle(numbered(user([{ type: 'image' }]), user('Then this')))).toBe('Then this');
    expect(fallbackTitle(numbered(assistant('only me')))).toBeNull();
    expect(fallbackTitle([])).toBeNull();
  });
});

describe('shouldGenerateTitle', () => {
  it('waits for the seal or the second user turn', () => {
    expect(shouldGenerateTitle(numbered(user('a'), assistant('b')), false)).toBe(false);
    expect(shouldGenerateTitle(numbered(user('a'), assistant('b')), true)).toBe(true);
    expect(shouldGenerateTitle(numbered(user('a'), assistant('b'), user('c')), false)).toBe(true);
    expect(shouldGenerateTitle(numbered(user('a'), marker('sealed')), false)).toBe(true);
  });

  it('never retitles, and has nothing to title without a user message', () => {
    expect(shouldGenerateTitle(numbered(user('a'), user('c'), title('Fix it')), true)).toBe(false);
    expect(shouldGenerateTitle(numbered(title('Fix it'), user('a'), user('c')), false)).toBe(false);
    expect(shouldGenerateTitle(numbered(assistant('x')), true)).toBe(false);
  });

  it('currentTitle is the latest title event', () => {
    expect(currentTitle(numbered(user('a')))).toBeNull();
    expect(currentTitle(numbered(title('One'), user('a'), title('Two')))).toBe('Two');
  });
});

describe('title prompt and answers', () => {
  it('asks for 6 imperative words without punctuation, within 200 tokens', () => {
    expect(titleInstructions).toContain('6 words, imperative, no punctuation');
    expect(titleMaxTokens).toBe(200);
  });

  it('cleans a model answer', () => {
    expect(normalizeTitle('"Add idempotent refund keys."')).toBe('Add idempotent refund keys');
    expect(normalizeTitle('Title: **Fix flaky login test**\n\nBecause...')).toBe('Fix flaky login test');
    expect(normalizeTitle('  \n“Refactor payment service”  ')).toBe('Refactor payment service');
    expect(normalizeTitle('   ')).toBeNull();
    expect(normalizeTitle('"."')).toBeNull();
    expect(Array.from(normalizeTitle('a'.repeat(300))!)).toHaveLength(80);
  });
});
