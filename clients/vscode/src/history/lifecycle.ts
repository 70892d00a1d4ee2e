// The pure parts of a chat's life in History (issue 24): the initializationOptions that carry the
// auto-archive and retention settings to the sidecar, the turns a "Fork from Turn…" offers (read
// from session/read's events, counted as the sidecar counts them), and what the Apply Retention…
// checklist says of each chat that would fall out. No `vscode` import; unit-tested.

import { S } from '../strings';

export interface LifecycleSettings {
  /** Archive chats idle this many days (0: off). */
  autoArchiveDays: number;
  /** The most chats kept per project (0: no limit). */
  retentionKeep: number;
  /** The oldest age kept, in days (0: no limit). */
  retentionMaxAgeDays: number;
}

/**
 * initialize's initializationOptions for these settings. autoArchiveDays is always sent, 0
 * included: without it session/retention would count idleness from its own default (30 days).
 */
export function lifecycleInitOptions(s: LifecycleSettings): { autoArchiveDays: number; retention: { keep: number; maxAgeDays: number } } {
  return { autoArchiveDays: s.autoArchiveDays, retention: { keep: s.retentionKeep, maxAgeDays: s.retentionMaxAgeDays } };
}

/** session/retention's rule params for these settings (the same rules, explicitly). */
export function retentionParams(s: LifecycleSettings): { autoArchiveDays: number; keep: number; maxAgeDays: number } {
  return { autoArchiveDays: s.autoArchiveDays, keep: s.retentionKeep, maxAgeDays: s.retentionMaxAgeDays };
}

/** Whether any rule is on (with none, Apply Retention… has nothing to apply). */
export function anyRetentionRule(s: LifecycleSettings): boolean {
  return s.autoArchiveDays > 0 || s.retentionKeep > 0 || s.retentionMaxAgeDays > 0;
}

export interface Turn {
  /** 1-based, as session/fork's atTurn. */
  turn: number;
  /** The first line of the user's message (cut to `max` characters). */
  firstLine: string;
}

interface SeqEventLike {
  event: { kind: string; content?: unknown };
}

/** Content that is only tool results: a user line that does not start a turn. */
function onlyToolResults(content: unknown): boolean {
  if (!Array.isArray(content) || content.length === 0) return false;
  return content.every((b) => {
    const type = (b as { type?: unknown } | null)?.type;
    return type === 'tool_result' || type === 'function_call_output';
  });
}

/** The text of a user message's content: a string, or its text blocks joined. */
function userText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => {
      const x = b as { type?: unknown; text?: unknown } | null;
      return x && (x.type === 'text' || x.type === 'input_text') && typeof x.text === 'string' ? x.text : '';
    })
    .filter(Boolean)
    .join(' ');
}

/** The first non-empty line of `text`, cut at `max` characters with an ellipsis. */
export function firstLine(text: string, max = 80): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  return line.length <= max ? line : `${line.slice(0, max - 1).trimEnd()}…`;
}

/**
 * The turns of a session, from its events in order (protocol.md "Forks": a `user` line is a turn
 * unless its content is only tool_result / function_call_output blocks).
 */
export function userTurns(events: readonly SeqEventLike[], max = 80): Turn[] {
  const turns: Turn[] = [];
  for (const { event } of events) {
    if (event.kind !== 'user' || onlyToolResults(event.content)) continue;
    turns.push({ turn: turns.length + 1, firstLine: firstLine(userText(event.content), max) || S.fork.noText });
  }
  return turns;
}

export interface RetentionItemLike {
  title: string;
  project: string;
  action: 'archive' | 'delete';
  reason: 'idle' | 'max-age' | 'keep';
  lastActive: string;
}

/** Why a chat falls out, in words: "idle 45 days", "older than 90 days", "beyond the newest 20". */
export function retentionReason(
  item: RetentionItemLike,
  rules: { idleDays: number | null; keep: number | null; maxAgeDays: number | null },
  now: Date,
): string {
  const t = Date.parse(item.lastActive);
  const days = Number.isNaN(t) ? undefined : Math.floor((now.getTime() - t) / 86_400_000);
  if (item.reason === 'idle') return S.retention.idle(days ?? rules.idleDays ?? 0);
  if (item.reason === 'max-age') return S.retention.maxAge(rules.maxAgeDays ?? days ?? 0);
  return S.retention.keep(rules.keep ?? 0);
}
