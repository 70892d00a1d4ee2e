// Session titles: when to ask a model for one, what to ask, how to clean its answer, and the
// fallback (the first user message, cut). Titles themselves are appended `title` events; the
// latest one wins.
// Plain functions over events. Depends on events.ts only: no fs, no JSON-RPC, no model calls.

import { oneLine, textOf, type SeqEvent } from '../format/events.js';

/** What a title model is asked. The answer is cleaned with normalizeTitle. */
export const titleInstructions = 'Write a title for this chat session: 6 words, imperative, no punctuation. Reply with the title only.';

/** The most a title answer may spend. */
export const titleMaxTokens = 200;

/** Titles (model or fallback) are cut to this many characters. */
export const TITLE_MAX_CHARS = 80;

/** The latest title event's title, or null when the session is untitled. */
export function currentTitle(events: readonly SeqEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!.event;
    if (e.kind === 'title') return e.title;
  }
  return null;
}

/**
 * The fallback title: the first non-empty line of the first user message that has text, cut to
 * 80 characters (with "…"). Null when no user message has any text.
 */
export function fallbackTitle(events: readonly SeqEvent[]): string | null {
  for (const { event } of events) {
    if (event.kind !== 'user') continue;
    const line = oneLine(textOf(event.content), TITLE_MAX_CHARS);
    if (line !== '') return line;
  }
  return null;
}

/**
 * Whether to generate a title now: the session is untitled, has a user message, and is sealed
 * (the caller says so, or a `sealed` marker event is recorded) or has reached its second user
 * turn, whichever comes first.
 */
export function shouldGenerateTitle(events: readonly SeqEvent[], sealed: boolean): boolean {
  if (currentTitle(events) !== null) return false;
  let users = 0;
  let sealedMarker = false;
  for (const { event } of events) {
    if (event.kind === 'user') users++;
    else if (event.kind === 'event' && event.type === 'sealed') sealedMarker = true;
  }
  if (users === 0) return false;
  return sealed || sealedMarker || users >= 2;
}

/**
 * Cleans a title model's answer: its first non-empty line, without a "Title:" label, wrapping
 * quotes or markdown emphasis, or trailing punctuation, cut to 80 characters. Null when nothing
 * is left (use fallbackTitle then).
 */
export function normalizeTitle(raw: string): string | null {
  let line = oneLine(raw, Number.MAX_SAFE_INTEGER);
  line = line.replace(/^(#+\s*)?title\s*:\s*/i, '');
  line = line.replace(/^[\s"'`*_“”‘’«»]+|[\s"'`*_“”‘’«»]+$/gu, '');
  line = line.replace(/[\s.,;:!?。]+$/u, '');
  line = oneLine(line, TITLE_MAX_CHARS);
  return line === '' ? null : line;
}
