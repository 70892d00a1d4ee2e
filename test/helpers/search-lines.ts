// Generated session lines for the search properties (test/search.test.ts: the fast path against
// the slow path; test/search-index.test.ts: the index against the scan): texts made of pieces
// that sit on every edge the byte-level paths care about (case, escapes, folding traps, '/',
// JSON inside strings, long and short strings), in every event shape search reads, written as
// the store writes them or as another writer might, or broken.

import fc from 'fast-check';
import { serializeLine } from '../../server/format/events.js';

export const vocab = ['zonk', 'Zonk', 'ZONK', 'onk', 'kelvin', 'a/b', '/b', 'x y', 'nonk', 'é', 'id', 'type', 'text'];
const piece = fc.constantFrom(
  ...vocab,
  ' ',
  '\n',
  '\nonk',
  '\t',
  '"',
  '\\',
  '/',
  '\\n',
  '\u212A',
  '\u0130',
  '\u017F',
  '日本',
  '😀',
  '{"zonk":1}',
);
const text = fc.oneof(
  fc.array(piece, { maxLength: 12 }).map((a) => a.join('')),
  fc.array(piece, { maxLength: 12 }).map((a) => a.join('') + ' pad'.repeat(15)),
  // Long enough for a line of 2 KB or more: the index reads those from their skeleton.
  fc.array(piece, { maxLength: 12 }).map((a) => ' long'.repeat(420) + a.join('')),
);
const block = fc.oneof(
  text.map((t) => ({ type: 'text', text: t })),
  fc.record({
    type: fc.constant('tool_use'),
    id: text,
    name: text,
    input: fc.dictionary(text, fc.oneof(text, fc.integer()), { maxKeys: 3 }),
  }),
  fc.record({
    type: fc.constant('tool_result'),
    tool_use_id: text,
    content: fc.oneof(
      text,
      fc.array(
        text.map((t) => ({ type: 'text', text: t })),
        { maxLength: 2 },
      ),
    ),
  }),
);
const content = fc.oneof(text, fc.array(block, { maxLength: 3 }));
const event = fc.oneof(
  fc.record({ kind: fc.constant('user'), content }),
  fc.record({ kind: fc.constant('assistant'), content }),
  fc.record({
    kind: fc.constant('agent'),
    messages: fc.array(
      fc.oneof(
        fc.record({ role: fc.constantFrom('user', 'assistant'), content }),
        fc.record({
          role: fc.constant('assistant'),
          content: fc.constant(null),
          tool_calls: fc.array(
            fc.record({
              id: text,
              type: fc.constant('function'),
              function: fc.record({ name: text, arguments: fc.dictionary(text, text, { maxKeys: 2 }).map((o) => JSON.stringify(o)) }),
            }),
            { maxLength: 2 },
          ),
        }),
        fc.record({ role: fc.constant('tool'), tool_call_id: text, content: text }),
      ),
      { maxLength: 3 },
    ),
  }),
  fc.record({ kind: fc.constant('title'), title: text }),
  fc.record({ kind: fc.constant('compact'), briefing: text, coversThrough: fc.nat(5) }),
);
// A line as written, as another writer may write it (`\/`, `\u007a`: JSON.stringify writes
// neither; '/' and 'z' are only ever in strings), or broken: cut short, or with a byte changed.
export const line = fc.tuple(event, fc.nat(59), fc.nat(), fc.nat(12)).map(([ev, sec, at, how]) => {
  const good = serializeLine({ ...ev, t: `2026-09-01T10:00:${String(sec).padStart(2, '0')}.000Z` });
  if (how === 0) return good.slice(0, at % good.length);
  if (how === 1) return good.slice(0, at % good.length) + '\\x' + good.slice(at % good.length);
  if (how === 2) return good.slice(0, at % good.length) + '\t' + good.slice(at % good.length);
  if (how === 3) return good.replaceAll('/', '\\/');
  if (how === 4) return good.replace(/z/g, (z, i: number) => (i % 2 ? '\\u007a' : z));
  return good;
});
