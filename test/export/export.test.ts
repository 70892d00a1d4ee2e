// Markdown and JSON export (server/export/export.ts, server/export/markdown.ts), judged by a real
// CommonMark parser: markdown-it (a devDependency, used here only, never by server/ code).
// - Property tests (fast-check, seeded: FC_SEED=<n> replays a run, FC_RUNS=<n> runs longer;
//   the seed is printed on failure): for nasty message contents, the document has one h1, exactly one h2 per turn in
//   order, and each message's text stays in its own turn.
// - Golden files: test/fixtures/export/<name>.jsonl beside <name>.md; UPDATE_GOLDEN=1 rewrites
//   the .md files on purpose (review the diff), never to make a failing test pass unread.

import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { MetaLine, SessionEvent, type SeqEvent } from '../../server/format/events.js';
import { exportJson, renderMarkdown, sessionTitle, TURN_KINDS } from '../../server/export/export.js';
import { SEPARATOR, sanitizeMarkdown } from '../../server/export/markdown.js';
import { parseZone } from '../../server/listing/view.js';

const md = new MarkdownIt({ html: true });
type Token = ReturnType<typeof md.parse>[number];

const META: MetaLine = {
  kind: 'meta',
  v: 1,
  id: '2026-07-28T09-12-33-8f3k',
  project: '/home/ada/code/thin.ly',
  createdAt: '2026-07-28T09:12:33.120Z',
  title: null,
  model: 'claude-sonnet-4',
};

/** Headings of level 1-2 with their text, and every token tagged with the turn it falls in. */
function structure(doc: string): { h1: string[]; h2: string[]; sections: string[] } {
  const tokens = md.parse(doc, {});
  const h1: string[] = [];
  const h2: string[] = [];
  const sections: string[] = [''];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === 'heading_open' && (t.tag === 'h1' || t.tag === 'h2')) {
      const text = tokens[i + 1]!.content;
      if (t.tag === 'h1') h1.push(text);
      else {
        h2.push(text);
        sections.push('');
      }
      i += 2;
      continue;
    }
    sections[sections.length - 1] += contentOf(t) + '\n';
  }
  return { h1, h2, sections };
}

function contentOf(t: Token): string {
  return t.content ?? '';
}

// ---------------------------------------------------------------------------------------------
// Generators of nasty Markdown.

const fenceLine = fc
  .tuple(fc.constantFrom('`', '~'), fc.integer({ min: 3, max: 6 }), fc.constantFrom('', 'js', ' python', '`x`', '~', ' a b'))
  .map(([ch, n, info]) => ch.repeat(n) + info);
const htmlLine = fc.constantFrom(
  '<!--',
  '<!-- open comment',
  '-->',
  '<pre>',
  '</pre>',
  '<script>',
  '<style>',
  '<textarea>',
  '<details>',
  '<details><summary>x</summary>',
  '</details>',
  '<div>',
  '<div class="a',
  '<?php',
  '<!DOCTYPE html',
  '<![CDATA[',
  ']]>',
  '<span>',
  '<a href="x">',
  'text <!-- inline',
  'inline <details> open',
  'see `<details>` here',
);
const headingLine = fc.constantFrom('# h1', '## h2', '### h3', '###### h6', '#', '=====', '-----', '---', '***', '===', ' ## h', '#no');
const tableLine = fc.constantFrom('a | b', '--- | ---', '|-|-|', '| x | y |', '|---|', ':-:|--');
const textLine = fc.constantFrom(
  '',
  '',
  'plain text',
  'more words here',
  '    indented code',
  '\tTab line',
  '- item',
  '* star item',
  '+ plus',
  '2) two',
  '1. one',
  '-',
  '>',
  '`code` and **bold**',
  '[ref]: http://x',
  '\\',
  '  two spaces',
);
const piece = fc.oneof(fenceLine, htmlLine, headingLine, tableLine, textLine, textLine);
const prefix = fc.constantFrom('', '', '', '> ', '>', '- ', '1. ', '  ', '   ', '    ', '> - ', '- > ', '>  ', ' > ', '10. ');
const nastyLine = fc.tuple(prefix, piece).map(([p, s]) => p + s);
const nastyText = fc.array(nastyLine, { minLength: 0, maxLength: 12 }).map((ls) => ls.join('\n'));
const nastyBlockText = fc.oneof(nastyText, fc.string({ maxLength: 40 }));

type TurnKind = (typeof TURN_KINDS)[number];
interface GenTurn {
  kind: TurnKind;
  texts: string[];
}

function messageFor(i: number, text: string): string {
  return `ZQSTART${i}\n${text}\nZQEND${i}`;
}

function eventOf(turn: GenTurn, i: number, t: string): SessionEvent[] {
  const texts = turn.texts.map((x, k) => (k === 0 ? messageFor(i, x) : x));
  switch (turn.kind) {
    case 'user':
      return [{ kind: 'user', t, content: texts.join('\n') }];
    case 'assistant':
      return [
        {
          kind: 'assistant',
          t,
          content: [
            { type: 'text', text: texts[0] },
            ...texts
              .slice(1)
              .map((x, k) =>
                k % 3 === 0
                  ? { type: 'thinking', thinking: x }
                  : k % 3 === 1
                    ? { type: 'tool_use', id: `tu${i}${k}`, name: 'Bash', input: { command: x } }
                    : { type: 'text', text: x },
              ),
          ],
        },
      ];
    case 'agent':
      return [
        {
          kind: 'agent',
          t,
          messages: [
            {
              role: 'assistant',
              content: texts[0],
              tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read', arguments: texts[1] ?? '{}' } }],
            },
            { role: 'tool', tool_call_id: `c${i}`, content: texts[2] ?? '```' },
            ...texts.slice(3).map((x) => ({ role: 'assistant', content: [{ type: 'text', text: x }] })),
          ],
        },
      ];
    case 'compact':
      return [{ kind: 'compact', t, briefing: texts.join('\n') || 'x', coversThrough: i }];
  }
}

const turnGen: fc.Arbitrary<GenTurn> = fc.record({
  kind: fc.constantFrom(...TURN_KINDS),
  texts: fc.array(nastyBlockText, { minLength: 1, maxLength: 4 }),
});
const markerGen = fc.constantFrom<SessionEvent | null>(
  null,
  null,
  { kind: 'event', t: '2026-07-28T10:00:00Z', type: 'interrupted' },
  { kind: 'event', t: '2026-07-28T10:00:00Z', type: 'checkpoint', note: '<!--' },
  { kind: 'title', t: '2026-07-28T10:00:00Z', title: '## not a <!-- heading `x' },
);

function seedOf(): number {
  return process.env.FC_SEED ? Number(process.env.FC_SEED) : Date.now() % 2 ** 31;
}

function assertSeeded<T>(prop: fc.IPropertyWithHooks<T> | fc.IAsyncPropertyWithHooks<T> | fc.IProperty<T>, numRuns: number): void {
  const seed = seedOf();
  try {
    fc.assert(prop as fc.IProperty<T>, { seed, numRuns: Number(process.env.FC_RUNS ?? numRuns) });
  } catch (e) {
    console.error(`property failed; replay with FC_SEED=${seed}`);
    throw e;
  }
}

describe('markdown export: structure survives any message', () => {
  it('one h1, one h2 per turn in order, each message inside its own turn', () => {
    assertSeeded(
      fc.property(fc.array(fc.tuple(turnGen, markerGen), { minLength: 1, maxLength: 6 }), (turns) => {
        const events: SeqEvent[] = [];
        turns.forEach(([turn, marker], i) => {
          const t = `2026-07-28T09:${String(10 + i).padStart(2, '0')}:00Z`;
          for (const e of eventOf(turn, i, t)) events.push({ seq: events.length, event: e });
          if (marker) events.push({ seq: events.length, event: marker });
        });
        const doc = renderMarkdown(META, events);
        const s = structure(doc);
        expect(s.h1).toHaveLength(1);
        // A user message starts a turn, a summary has its own heading; the assistant's and an
        // agent's messages are inside the turn before them (or a "Start" one at the top).
        const expected: string[] = [];
        const sectionOf = turns.map(([t]) => {
          if (t.kind === 'user') expected.push('Turn');
          else if (t.kind === 'compact') expected.push('Summary');
          else if (!expected.length) expected.push('Start');
          return expected.length;
        });
        expect(s.h2.map((h) => h.split(' ')[0])).toEqual(expected);
        turns.forEach((_, i) => {
          const start = new RegExp(`ZQSTART${i}(?!\\d)`);
          const end = new RegExp(`ZQEND${i}(?!\\d)`);
          const where = s.sections.map((sec, k) => (start.test(sec) ? k : -1)).filter((k) => k >= 0);
          expect(where, `start of message ${i}`).toEqual([sectionOf[i]]);
          const endIn = s.sections.map((sec, k) => (end.test(sec) ? k : -1)).filter((k) => k >= 0);
          expect(endIn, `end of message ${i}`).toEqual([sectionOf[i]]);
        });
      }),
      400,
    );
  });

  it('a sanitised message followed by a heading never loses the heading', () => {
    assertSeeded(
      fc.property(nastyText, (text) => {
        const s = sanitizeMarkdown(text);
        const doc = `# T\n\n${s.text}\n\n${s.needsSeparator ? s.separator + '\n\n' : ''}## NEXT\n\nafter\n`;
        const st = structure(doc);
        expect(st.h1).toEqual(['T']);
        expect(st.h2).toEqual(['NEXT']);
        expect(st.sections[1]).toContain('after');
      }),
      1000,
    );
  });
});

describe('markdown export: the rules, case by case', () => {
  const one = (text: string): string => {
    const s = sanitizeMarkdown(text);
    return `${s.text}\n\n${s.needsSeparator ? s.separator + '\n\n' : ''}## NEXT\n`;
  };
  const h2s = (doc: string): string[] => {
    const st = structure(doc);
    expect(st.h1).toEqual([]);
    return st.h2;
  };

  it.each([
    ['unbalanced backtick fence', '```js\nconst a = 1;'],
    ['unbalanced tilde fence, long', '~~~~~\n~~~\n```'],
    ['indented fence', '   ````\ncode'],
    ['fence in a list item', '- ```\n  code'],
    ['fence in a block quote', '> ~~~\n> code'],
    ['fence in an ordered item in a quote', '> 1. ```\n>    code\n\n>    more'],
    ['open HTML comment', '<!-- never closed\n\ntext'],
    ['open <pre>', '<pre>\nx\n\ny'],
    ['open <script>', '<script>\nlet x = 1;\n\n'],
    ['processing instruction', '<?php echo 1;\n\n'],
    ['CDATA', '<![CDATA[\nx\n\n'],
    ['table at the end', 'a | b\n--- | ---\n1 | 2'],
    ['lazy paragraph in a quote', '> quoted\nlazy'],
    ['list at the end', '- a\n- b\n\n  continued'],
    ['indented code at the end', '    code\n\n    more'],
    // Found by the property test (markdown-it reads lazy lines in list items and tables its own way):
    ['a table whose header looks like a list item', '- a | b\n|-|-|\n   ```'],
    ['a table after a quote, header in a list item', 'x\n>a | b\n- > a | b\n--- | ---\n  ```'],
    ['a heading less indented than its list item', 'x\n1.   two spaces\n    # h1\na | b\n====='],
    ['a fence less indented than its list item', 'x\n\n10.   two spaces\n    ```\na | b\n- '],
    ['an indented fence after a quoted list item', 'x\n> - see `<details>` here\n    ```\n<span>\n```'],
    ['a closing </pre> alone is HTML block 7', 'x\n- > </pre>\n\\\n-'],
    ['lazy table row in a quoted list item', '- > \n- > a | b\n|-|-|\n  ```'],
    ['an indented > after a quoted list item', 'x\n> - a | b\n    >\na | b\n-----'],
    ['a sibling list item over a delimiter row is no table', 'x\n1. <!--\n1. a | b\n--- | ---\n   ```'],
    ['a list item of another type over a delimiter row is a table', 'x\n+ plus\n- a | b\n--- | ---\n   ```'],
    ['an over-indented > (CommonMark: lazy; markdown-it: quote)', 'x\n> - + plus\n    >\n>  ===\n> -----'],
    ['an over-indented > before an underline', 'x\n> foo\n    >\n> ---'],
    ['a table header less indented than its list item', 'x\n1. =====\na | b\n    :-:|--\n-'],
    ['a quoted setext heading above a delimiter row', 'x\n>a | b\n> ---\n:-:|--\n10. # h1'],
  ])('%s', (_name, text) => {
    expect(h2s(one(text))).toEqual(['NEXT']);
  });

  it('demotes ATX headings by two levels and escapes setext underlines in place', () => {
    const s = sanitizeMarkdown('# Big\n\nSome\ntitle\n=====\n\n> sub\n> ---\n\n###### six\n\n---\n\n===');
    expect(s.text).toBe('### Big\n\nSome\ntitle\n\\=====\n\n> sub\n> \\---\n\n###### six\n\n---\n\n\\===');
  });

  it('leaves fenced content untouched', () => {
    const text = '```\n# not a heading\n<!--\n```\nafter';
    expect(sanitizeMarkdown(text).text).toBe(text);
  });

  it('closes an unbalanced fence with the same character and length', () => {
    expect(sanitizeMarkdown('~~~~ py\nx').text).toBe('~~~~ py\nx\n~~~~');
    expect(sanitizeMarkdown('````\n```\nx').text).toBe('````\n```\nx\n````');
  });

  it('takes <name_with_underscore> for the text CommonMark reads it as: no raw HTML, no guard line', () => {
    // Gemini CLI and Qwen Code wrap a compression's summary in <state_snapshot>, <overall_goal>, ...
    const text = '<state_snapshot>\n<overall_goal>List the files.</overall_goal>\n</state_snapshot>';
    const s = sanitizeMarkdown(text);
    expect(s.needsSeparator).toBe(false);
    expect(md.render(s.text)).toContain('&lt;state_snapshot&gt;');
    // A tag of that name with a hyphen is one, and still guarded.
    expect(sanitizeMarkdown('<state-snapshot>x').needsSeparator).toBe(true);
  });

  it('closes raw HTML a browser would leave open: comments and elements', () => {
    // A comment opened in an HTML block inside a quote: CommonMark ends the block with the
    // quote, but the raw `<!--` reaches the HTML, where it would swallow the rest of the page.
    const s = sanitizeMarkdown('> <!-- inline\n\n<details>\n<summary>S</summary>\n\nbody');
    expect(s.needsSeparator).toBe(true);
    expect(s.separator.startsWith(SEPARATOR)).toBe(true);
    expect(s.separator).toContain('</details>');
    const html = md.render(`${s.text}\n\n${s.separator}\n\n## NEXT\n`);
    // The comment opened in the text is closed before the heading.
    const afterComment = html.slice(html.indexOf('<!-- inline'));
    expect(afterComment.indexOf('-->')).toBeLessThan(afterComment.indexOf('<h2>'));
    expect(html.lastIndexOf('</details>')).toBeLessThan(html.indexOf('<h2>'));
  });

  it('does not close tags that only appear in code spans', () => {
    expect(sanitizeMarkdown('use `<details>` for that').separator).not.toContain('</details>');
  });
});

// ---------------------------------------------------------------------------------------------

describe('markdown export: the document', () => {
  const events: SeqEvent[] = [
    { seq: 0, event: { kind: 'user', t: '2026-07-28T09:13:00Z', content: 'Fix the *build* please\nit fails' } },
    {
      seq: 1,
      event: {
        kind: 'assistant',
        t: '2026-07-28T09:13:05Z',
        model: 'claude-sonnet-4',
        content: [
          { type: 'thinking', thinking: 'Let me look.' },
          { type: 'text', text: 'Running the tests.' },
          { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'echo ```` ok' } },
        ],
      },
    },
    {
      seq: 2,
      event: {
        kind: 'agent',
        t: '2026-07-28T09:13:06Z',
        messages: [
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: [{ type: 'text', text: 'ok' }], is_error: true }] },
        ],
      },
    },
    { seq: 3, event: { kind: 'event', t: '2026-07-28T09:14:00Z', type: 'interrupted' } },
    { seq: 4, event: { kind: 'compact', t: '2026-07-28T09:15:00Z', briefing: 'The user wants the build fixed.', coversThrough: 3 } },
  ];

  it('has the title, facts, turns, tools, thinking, markers and the summary', () => {
    const doc = renderMarkdown(META, events);
    expect(doc.startsWith('# Fix the \\*build\\* please\n')).toBe(true);
    expect(doc).toContain('- **Project:** /home/ada/code/thin.ly');
    expect(doc).toContain('- **Model:** claude-sonnet-4');
    expect(doc).toContain('## Turn 1 · 2026-07-28 09:13 UTC\n\n**You**');
    expect(doc).toContain('**Assistant** (claude-sonnet-4)');
    expect(doc).toContain('<details>\n<summary>Thinking</summary>');
    expect(doc).toContain('<summary>Tool call: <code>Bash</code></summary>\n\n`````json\n');
    expect(doc).toContain('<summary>Tool error: <code>Bash</code></summary>');
    expect(doc).toContain('_Interrupted · 2026-07-28 09:14 UTC_');
    expect(doc).toContain('## Summary · 2026-07-28 09:15 UTC');
    expect(doc).not.toMatch(/```\n(Running the tests|Fix the)/); // text is never wrapped in a code block
    // One heading for the turn: the assistant's answer and the tool's error are inside it.
    expect(structure(doc).h2.map((h) => h.split(' ')[0])).toEqual(['Turn', 'Summary']);
  });

  it('writes local times in the zone it is given', () => {
    const doc = renderMarkdown(META, events, { zone: parseZone('+05:30')! });
    expect(doc).toContain('## Turn 1 · 2026-07-28 14:43\n');
    expect(doc).toContain('_Interrupted · 2026-07-28 14:44_');
    expect(doc).not.toContain(' UTC');
    expect(renderMarkdown(META, events, { zone: parseZone('UTC')! })).toBe(renderMarkdown(META, events));
  });

  it('uses the latest title event, else the first user line cut to 80', () => {
    expect(sessionTitle(META, events)).toBe('Fix the *build* please');
    const long = [{ seq: 0, event: { kind: 'user', t: '2026-07-28T09:13:00Z', content: 'x'.repeat(200) } as SessionEvent }];
    expect(Array.from(sessionTitle(META, long))).toHaveLength(80);
    const titled = [...events, { seq: 5, event: { kind: 'title', t: '2026-07-28T09:20:00Z', title: 'Build fix' } as SessionEvent }];
    expect(sessionTitle(META, titled)).toBe('Build fix');
    expect(renderMarkdown(META, titled).startsWith('# Build fix\n')).toBe(true);
  });

  it('exports JSON with seq first and the events verbatim', () => {
    const doc = exportJson(META, events, [{ file: 'x', line: 3, message: 'torn' }]);
    expect(doc.format).toBe('levelcode-session');
    expect(doc.v).toBe(1);
    expect(doc.meta).toEqual(META);
    expect(Object.keys(doc.events[1]!)[0]).toBe('seq');
    expect(doc.events[1]).toEqual({ seq: 1, ...events[1]!.event });
    expect(doc.problems).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});

// ---------------------------------------------------------------------------------------------
// Golden files.

const GOLDEN = join(import.meta.dirname, '..', 'fixtures', 'export');

function readFixture(file: string): { meta: MetaLine; events: SeqEvent[] } {
  const lines = readFileSync(file, 'utf8').split('\n');
  const meta = MetaLine.parse(JSON.parse(lines[0]!));
  const events: SeqEvent[] = [];
  lines.slice(1).forEach((l, seq) => {
    if (l.trim()) events.push({ seq, event: SessionEvent.parse(JSON.parse(l)) });
  });
  return { meta, events };
}

describe('markdown export: golden files', () => {
  const names = readdirSync(GOLDEN)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => f.slice(0, -'.jsonl'.length));

  it('has fixtures', () => {
    expect(names.length).toBeGreaterThanOrEqual(4);
  });

  it.each(names)('%s', (name) => {
    const { meta, events } = readFixture(join(GOLDEN, `${name}.jsonl`));
    const doc = renderMarkdown(meta, events);
    const mdFile = join(GOLDEN, `${name}.md`);
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(mdFile, doc);
    expect(doc).toBe(readFileSync(mdFile, 'utf8'));
    // A heading for each user message with words (a turn) and each summary, none for the rest.
    const worded = (c: unknown) =>
      typeof c === 'string' ? c.trim() !== '' : Array.isArray(c) && c.some((b) => b?.type === 'text' && String(b.text).trim());
    const turns = events.filter((e) => e.event.kind === 'user' && worded(e.event.content)).length;
    const h2 = structure(doc).h2;
    expect(h2.filter((h) => h.startsWith('Turn '))).toHaveLength(turns);
    expect(h2.filter((h) => h.startsWith('Summary '))).toHaveLength(events.filter((e) => e.event.kind === 'compact').length);
    expect(h2.every((h) => /^(Turn \d+|Summary|Start) · /.test(h))).toBe(true);
  });
});
