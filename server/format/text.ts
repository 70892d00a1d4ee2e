// Plain text rules of the format that need no schema: the session id pattern, the one-line cut
// used for titles and previews, a message's text, the nesting limit every reader enforces, and
// defineOwn (a key set as data, never a prototype). No zod: importers load this, not events.ts.
// Pure functions; depends on content.ts only.

import { textsOf } from './content.js';

/** Session ids: UTC birth time plus four random [a-z0-9], e.g. 2026-07-28T09-12-33-8f3k. */
export const SESSION_ID_RE = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[a-z0-9]{4}$/;

/** One line of at most `max` characters: the first non-empty line of the text, cut with an ellipsis. */
export function oneLine(text: string, max = 80): string {
  // Looks only as far as the first non-empty line and the cut, not through the whole text: this
  // runs on every user message of a cold listing, and those can be long.
  let line = '';
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const l = text.slice(start, end).trim(); // trim() also drops the '\r' of '\r\n'
    if (l.length > 0) {
      line = l;
      break;
    }
    start = end + 1;
  }
  if (line.length <= max || max < 2) {
    if (line.length <= max) return line;
    const chars = Array.from(line);
    return chars.length <= max
      ? line
      : chars
          .slice(0, max - 1)
          .join('')
          .trimEnd() + '…';
  }
  // More than `max` UTF-16 units: count code points (as Array.from does) up to the cut.
  let i = 0;
  let cut = 0;
  for (let n = 0; n < max; n++) {
    if (i >= line.length) return line;
    if (n === max - 1) cut = i;
    i += (line.codePointAt(i) as number) > 0xffff ? 2 : 1;
  }
  if (i >= line.length) return line;
  return line.slice(0, cut).trimEnd() + '…';
}

/** A message's text parts joined by newlines (content.ts reads them), for previews and fallback titles. */
export function textOf(content: unknown): string {
  return typeof content === 'string' ? content : textsOf(content).join('\n');
}

/** Deepest nesting of arrays and objects a line may have; deeper ones are refused or skipped. */
export const MAX_DEPTH = 512;

/**
 * True when a parsed JSON value nests deeper than `limit`. Iterative, so hostile input (a line
 * nested 100,000 deep parses fine in V8 but overflows the stack of every recursive consumer:
 * JSON.stringify, renderers) cannot overflow it. Cost is linear in the number of containers.
 */
export function tooDeep(value: unknown, limit = MAX_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (d > limit) return true;
    if (Array.isArray(v)) {
      for (const x of v) if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
    } else {
      for (const k in v as Record<string, unknown>) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== null && typeof x === 'object') stack.push([x, d + 1]);
      }
    }
  }
  return false;
}

/** Sets an own data property even for keys like `__proto__`, never touching a prototype. */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
