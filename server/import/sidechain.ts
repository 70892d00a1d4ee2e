// Subagent transcripts as part of their parent's session: their events become agent events with
// `sidechain: true` (a prompt or an answer of the subagent is a message of it, not a turn of
// the user's), placed beside the call that started them. Shared by the importers that read
// subagent files (Qwen Code, opencode, cline). Pure: events in, events out.

import { textOf } from '../format/text.js';
import type { MappedEvent } from './types.js';

/** A subagent's events as sidechain agent events; markers and kept records stay as they are. */
export function asSidechain(events: MappedEvent[]): MappedEvent[] {
  return events
    .filter((e) => e.kind !== 'title')
    .map((e) => {
      if (e.kind === 'agent') return { ...e, sidechain: true };
      if (e.kind !== 'user' && e.kind !== 'assistant') return e;
      const content =
        typeof e.content === 'string'
          ? [{ type: 'text', text: e.content }]
          : Array.isArray(e.content)
            ? e.content
            : [{ type: 'text', text: textOf(e.content) }];
      return { kind: 'agent', t: e.t, messages: [{ role: e.kind, content }], sidechain: true, raw: e.raw };
    });
}

/**
 * Inserts a subagent's events into its parent's: right after the event at index `after` (the
 * call that started it) when known, else by time (after the last event at or before its first).
 */
export function placeSidechain(events: MappedEvent[], sub: MappedEvent[], after = -1): void {
  if (sub.length === 0) return;
  let at = after + 1;
  if (after < 0) {
    const start = Date.parse(sub[0]!.t);
    at = events.length;
    while (at > 0 && Date.parse(events[at - 1]!.t) > start) at--;
  }
  events.splice(at, 0, ...sub);
}
