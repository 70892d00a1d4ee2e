// Every reader of provider content agrees with the walker (server/format/content.ts) on one corpus
// of Anthropic, OpenAI Chat and OpenAI Responses shapes: the export fixtures' sessions and the
// mixed agent turn of test/format/content.test.ts. Export and MCP name each call and the result that
// answers it, textOf gives the text parts, resume never cuts between a call and its result, and
// the soft cap finds the payloads the walker finds. Real files, read as JSONL; no sidecar.

import { describe, it, expect } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MetaLine, SeqEvent, SessionEvent } from '../../server/format/events.js';
import { blocks, parts, toolPairs } from '../../server/format/content.js';
import { textOf } from '../../server/format/text.js';
import { renderMarkdown } from '../../server/export/export.js';
import { escapeHtml } from '../../server/export/markdown.js';
import { cutPoints, toolIds } from '../../server/resume/resume.js';
import { payloadHolders } from '../../server/format/soft-cap.js';
import { windowText } from '../../server/mcp/render.js';
import type { Window } from '../../server/mcp/sessions.js';
import { mixedMessages } from '../fixtures/mixed-content.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'export');
const T = '2026-07-28T09:12:33.000Z';

/** The corpus: each export fixture as read from disk, and one session of the mixed shapes. */
function corpus(): { name: string; meta: MetaLine; events: SeqEvent[] }[] {
  const out = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => {
      const [meta, ...rest] = readFileSync(join(FIXTURES, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      return { name: f, meta: meta as MetaLine, events: rest.map((event, seq) => ({ seq, event: event as SessionEvent })) };
    });
  const mixed: SessionEvent[] = [
    { kind: 'user', t: T, content: [{ type: 'input_text', text: 'start' }] } as SessionEvent,
    { kind: 'agent', t: T, messages: mixedMessages } as SessionEvent,
    { kind: 'assistant', t: T, content: { role: 'assistant', content: 'Summed up.' } } as SessionEvent,
    { kind: 'user', t: T, content: 'next' } as SessionEvent,
  ];
  const meta = { kind: 'meta', v: 1, id: '2026-07-28T09-12-33-mix0', project: '/p', createdAt: T, title: null } as unknown as MetaLine;
  out.push({ name: 'mixed', meta, events: mixed.map((event, seq) => ({ seq, event })) });
  return out;
}

/** The tool calls of a session with their tool name, and the name each answered result shows. */
function namedPairs(events: readonly SeqEvent[]): { name: string; error: boolean }[] {
  const all = events.flatMap(({ event }) => blocks(event));
  return [...toolPairs(all).values()]
    .filter((p) => p.use?.name !== undefined && p.result !== undefined)
    .map((p) => ({ name: p.use!.name!, error: p.result!.isError === true }));
}

describe('every reader agrees with the walker', () => {
  const sessions = corpus();

  it('the corpus has every kind of part, and calls paired with results', () => {
    const kinds = new Set(sessions.flatMap((s) => s.events.flatMap(({ event }) => blocks(event).map((p) => p.kind))));
    expect([...kinds].sort()).toEqual(['image', 'other', 'text', 'thinking', 'tool_result', 'tool_use']);
    expect(sessions.reduce((n, s) => n + namedPairs(s.events).length, 0)).toBeGreaterThan(5);
  });

  for (const s of sessions) {
    it(`${s.name}: export and MCP name each call and the result that answers it`, () => {
      const md = renderMarkdown(s.meta, s.events);
      const w = { meta: s.meta, entry: {}, origin: {}, events: s.events, total: s.events.length, problems: [] } as unknown as Window;
      const mcp = windowText(w, { maxChars: 1_000_000, toolChars: 1_000_000, args: {}, header: false }).text;
      for (const p of s.events.flatMap(({ event }) => blocks(event)))
        if (p.kind === 'tool_use' && p.name !== undefined) {
          expect(md).toContain(`Tool call: <code>${escapeHtml(p.name)}</code>`);
          expect(mcp).toContain(`Tool call \`${p.name}\``);
        }
      for (const { name, error } of namedPairs(s.events)) {
        expect(md).toContain(`${error ? 'Tool error' : 'Tool result'}: <code>${escapeHtml(name)}</code>`);
        expect(mcp).toContain(`${error ? 'Tool error' : 'Tool result'} of \`${name}\``);
      }
    });

    it(`${s.name}: textOf gives the text parts and resume never cuts a pair apart`, () => {
      for (const { event } of s.events) {
        if (event.kind === 'user' || event.kind === 'assistant') {
          const texts = blocks(event)
            .filter((p) => p.kind === 'text')
            .map((p) => p.text);
          expect(textOf(event.content)).toBe(texts.join('\n'));
        }
        const ids = new Set(toolIds(event));
        for (const p of blocks(event)) if ((p.kind === 'tool_use' || p.kind === 'tool_result') && p.id) expect(ids).toContain(p.id);
      }
      const at = (id: string) => s.events.flatMap(({ event }, i) => (toolIds(event).includes(id) ? [i] : []));
      const ids = new Set(s.events.flatMap(({ event }) => toolIds(event)));
      for (const k of cutPoints(s.events))
        for (const id of ids) {
          const where = at(id);
          expect(where.every((i) => i < k) || where.every((i) => i >= k)).toBe(true);
        }
    });

    it(`${s.name}: the soft cap finds the results the walker finds`, () => {
      for (const { event } of s.events) {
        if (event.kind !== 'agent') continue;
        const walked = parts(event.messages).filter((p) => (p.type === 'tool' || p.type === 'tool_result') && p.output !== undefined);
        expect(payloadHolders(event.messages)).toEqual(walked.map((p) => p.raw));
      }
    });
  }
});
