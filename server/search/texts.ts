// What of an event is searchable, and how text is cut into words, for the cache (cache.ts), the
// scan and the check of a hit (search.ts) alike. Words are what the cache's FTS5 tokenizer makes
// them (cache.ts TOKENIZE): runs of letters, digits, marks and private-use characters, folded to
// lowercase without diacritics; `tokens` does the same in JavaScript. Depends on format/ only.

import { contentOf, walk } from '../format/content.js';

export type SearchWhere = 'user' | 'assistant' | 'agent' | 'tool-input' | 'tool-output' | 'compact' | 'title';

/** The roles of `role:`, in the order of their codes in the cache's rowids. */
export type Role = 'user' | 'assistant' | 'tool' | 'title' | 'compact';
export const ROLES: readonly Role[] = ['user', 'assistant', 'tool', 'title', 'compact'];
/** A text's role: an agent turn is the assistant's, a tool's input and output the tool's. */
export const roleOf = (w: SearchWhere): Role => (w === 'agent' ? 'assistant' : w === 'tool-input' || w === 'tool-output' ? 'tool' : w);

/** One searchable text of an event. */
export interface EventText {
  where: SearchWhere;
  text: string;
}

/** Text leaves deeper than this in a tool's input or output are not searched. */
const MAX_DEPTH = 20;

function leaves(v: unknown, out: string[], depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) leaves(x, out, depth + 1);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) leaves(x, out, depth + 1);
}

/** A tool input's text: its string values (a string that is JSON is read as JSON). */
function inputText(input: unknown): string {
  if (typeof input === 'string') {
    try {
      const parsed = JSON.parse(input) as unknown;
      if (parsed && typeof parsed === 'object') return inputText(parsed);
    } catch {
      // not JSON: the string itself
    }
    return input;
  }
  const out: string[] = [];
  leaves(input, out);
  return out.join('\n');
}

/** A tool output's text: a string, the text of its blocks, or its string values. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  const out: string[] = [];
  if (Array.isArray(output)) {
    for (const b of output) {
      if (typeof b === 'string') out.push(b);
      else if (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string') out.push((b as { text: string }).text);
    }
  } else leaves(output, out);
  return out.join('\n');
}

/**
 * The event's searchable texts, empty ones left out: provider content read by the walker every
 * reader uses (format/content.ts), text and thinking under the event's kind, a tool's name and
 * input as tool-input, its result as tool-output; a title's and a compaction's text.
 */
export function eventTexts(ev: Record<string, unknown>): EventText[] {
  const out: EventText[] = [];
  if (ev.kind === 'compact' || ev.kind === 'title') {
    const text = ev.kind === 'compact' ? ev.briefing : ev.title;
    if (typeof text === 'string' && text) out.push({ where: ev.kind, text });
    return out;
  }
  const c = contentOf(ev as { kind: string });
  if (!c) return out;
  const where = ev.kind as SearchWhere; // user, assistant or agent: contentOf said so
  walk(
    c.value,
    (p) => {
      let text: string | undefined;
      let w = where;
      if (p.kind === 'tool_use') {
        text = [typeof p.name === 'string' ? p.name : '', inputText(p.input)].filter(Boolean).join('\n');
        w = 'tool-input';
      } else if (p.kind === 'tool_result') {
        text = outputText(p.output);
        w = 'tool-output';
      } else if (p.kind !== 'image') text = p.text;
      if (text) out.push({ where: w, text });
    },
    c.role,
  );
  return out;
}

const WORD = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
/** Marks on a Latin letter: the only diacritics FTS5's `remove_diacritics 2` removes. */
const LATIN_MARKS = /(?<=\p{Script=Latin})\p{M}+/gu;

const ASCII = /^[\x00-\x7f]*$/;
/** Whether a text is ASCII only: its lowercase is its folded form, letter for letter. */
export const isAscii = (text: string): boolean => ASCII.test(text);

/**
 * A word as FTS5 stores it: lowercase, diacritics removed from Latin letters only (FTS5 keeps
 * й, ά, が whole), recomposed (a Hangul syllable is stored whole, not as its jamo). Canonical
 * decomposition (NFD), never compatibility (NFKD): that can make two words of one ("½" is
 * "1⁄2"), which FTS5 reads as a phrase, an error in the events' table, and never matches what
 * it stored ("½").
 */
export const fold = (w: string): string =>
  ASCII.test(w) ? w.toLowerCase() : w.normalize('NFD').replace(LATIN_MARKS, '').normalize('NFC').toLowerCase();

/** The words of `text` with where each is ([start, end) in UTF-16 units), folded. */
export const tokens = (text: string): { word: string; start: number; end: number }[] =>
  [...text.matchAll(WORD)].map((m) => ({ word: fold(m[0]), start: m.index, end: m.index + m[0].length })).filter((w) => w.word);
