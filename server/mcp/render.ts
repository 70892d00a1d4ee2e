// The text an agent reads: search hits, History rows and windows of a session, as Markdown with
// titles, dates, speakers and code fences kept, every piece citing its session id and turn
// (`<id>#<turn>`, the turn being the event's seq). Sizes are bounded by the caller's budget;
// whatever is cut says so and names the call that gets the rest, never a silent cut.
// Depends on the core's Markdown helpers (markdown.ts, export.ts formatTime, text.ts) only.

import { collectToolNames, formatTime } from '../export/export.js';
import { fencedCode, sanitizeMarkdown } from '../export/markdown.js';
import { oneLine } from '../format/text.js';
import { walk, type Part } from '../format/content.js';
import { isHiddenEvent, isInjectedContext, type SeqEvent } from '../format/events.js';
import type { Found, FoundSession, Origin, Row, Window } from './sessions.js';

/** A tool call as an agent writes it, for the "more:" lines. */
export function call(tool: string, args: Record<string, unknown>): string {
  const a = Object.entries(args)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ');
  return `${tool}(${a})`;
}

export const cite = (id: string, turn: number): string => `${id}#${turn}`;

const sourceLabel = (o: Origin): string => (o.id ? `${o.tool} (its id ${o.id})` : o.tool);

/** The answer of search_sessions. `more` is the call for the next page, when there is one. */
export function hitsText(o: { query: string; where: string; found: Found; skip: number; more?: string }): string {
  const { found, skip } = o;
  const lines: string[] = [];
  if (found.sessions.length === 0) {
    lines.push(
      skip > 0 && found.total > 0
        ? `No more matches for ${JSON.stringify(o.query)} in ${o.where}: all ${found.total} sessions were shown.`
        : `No matches for ${JSON.stringify(o.query)} in ${o.where} (${found.files} session file${found.files === 1 ? '' : 's'} searched).`,
    );
  } else {
    lines.push(
      `${found.total} matching session${found.total === 1 ? '' : 's'} for ${JSON.stringify(o.query)} in ${o.where}, best first; ` +
        `showing ${skip + 1}-${skip + found.sessions.length}, each with its best turns. Cite a turn as <session id>#<turn>.`,
      '',
    );
    found.sessions.forEach((m, i) => lines.push(...sessionLines(m, skip + i + 1), ''));
  }
  lines.push(...problemLines(found.problems.length));
  if (o.more) lines.push(`more: call ${o.more} for the next sessions.`);
  if (found.hits.length)
    lines.push(
      `read: call ${call('read_session', { session_id: found.hits[0]!.sessionId, around_turn: found.hits[0]!.seq })} (or any hit's id and turn) for the conversation around it.`,
    );
  return lines.join('\n').trimEnd() + '\n';
}

function sessionLines(m: FoundSession, n: number): string[] {
  const out = [
    `${n}. ${m.title} — ${m.sessionId}`,
    `   last active ${formatTime(m.t)} · source ${sourceLabel(m.origin)} · project ${m.project}`,
  ];
  for (const h of m.hits)
    out.push(`   - ${cite(h.sessionId, h.seq)} · ${formatTime(h.t)} · ${speaker(h.kind, h.where)}: ${oneLine(h.snippet, 400)}`);
  return out;
}

function speaker(kind: string, where: string): string {
  if (where === 'tool-input') return 'a tool call';
  if (where === 'tool-output') return 'a tool result';
  if (where === 'title') return 'the title';
  if (where === 'compact') return 'a compaction summary';
  return kind === 'agent' ? 'the agent' : kind === 'assistant' ? 'the assistant' : kind === 'user' ? 'the user' : kind;
}

function problemLines(n: number): string[] {
  return n
    ? [`(${n} unreadable line${n === 1 ? '' : 's'} or file${n === 1 ? '' : 's'} skipped; \`levelcode-sessions doctor\` names them.)`]
    : [];
}

/** The answer of list_sessions. */
export function rowsText(o: { where: string; rows: Row[]; total: number; skip: number; more?: string; problems: number }): string {
  const lines: string[] = [];
  if (o.rows.length === 0)
    lines.push(o.skip > 0 && o.total > 0 ? `No more sessions in ${o.where}: all ${o.total} were shown.` : `No sessions in ${o.where}.`);
  else {
    lines.push(
      `${o.total} session${o.total === 1 ? '' : 's'} in ${o.where}, most recently active first; showing ${o.skip + 1}-${o.skip + o.rows.length}.`,
      '',
    );
    o.rows.forEach((r, i) => {
      lines.push(
        `${o.skip + i + 1}. ${r.title} — ${r.id}`,
        `   last active ${formatTime(r.updatedAt)} · started ${formatTime(r.createdAt)} · ${r.turns} user message${r.turns === 1 ? '' : 's'} · source ${sourceLabel(r.origin)}${r.model ? ` · model ${r.model}` : ''}`,
        `   project ${r.project}`,
      );
      if (r.preview) lines.push(`   last asked: ${oneLine(r.preview, 200)}`);
      lines.push('');
    });
  }
  lines.push(...problemLines(o.problems));
  if (o.more) lines.push(`more: call ${o.more} for older sessions.`);
  if (o.rows.length) lines.push(`read: call ${call('read_session', { session_id: o.rows[0]!.id })} for a session's conversation.`);
  return lines.join('\n').trimEnd() + '\n';
}

export interface WindowOptions {
  /** Characters of the whole answer, about (the header and notices come on top). */
  maxChars: number;
  /** Characters of each tool call's input and each tool result; 0 leaves them out. */
  toolChars: number;
  /** The turn the window is about (around_turn, a hit): shown first when not all fit, then its neighbours. */
  focus?: number;
  /** The read_session arguments that made this window, for the "more:" calls. */
  args: Record<string, unknown>;
  /** Header: the session's facts (title, project, source, dates); false for a window inside a longer answer. */
  header: boolean;
}

/**
 * A session's turns as Markdown, each under a heading citing it. When they do not all fit in
 * the budget, the focus turn (else the first) is shown, cut if it alone is too long, then its
 * neighbours while they fit, after it first for a range and alternately around a focus; the
 * answer then names the calls that show the turns left out before and after. Returns the text
 * and the first turn after the window that was not shown.
 */
export function windowText(w: Window, o: WindowOptions): { text: string; next?: number } {
  const out: string[] = [];
  const id = w.meta.id;
  // Tool names by call id, so that a result can say which call it answers.
  const names = new Map<string, string>();
  for (const { event } of w.events) collectToolNames(event, names);
  const blocks = w.events.map((e) => ({ seq: e.seq, text: eventText(e, id, names, o, o.maxChars) }));
  const shown = blocks.filter((b) => b.text !== undefined) as { seq: number; text: string }[];
  let at = o.focus === undefined ? 0 : shown.findIndex((b) => b.seq >= o.focus!);
  if (at < 0) at = shown.length - 1;
  let lo = at;
  let hi = at;
  let budget = o.maxChars - (shown[at]?.text.length ?? 0);
  // Grow the shown span [lo, hi] while the next turn fits: forwards for a range, both ways round a focus.
  for (let turn = 0, stuck = 0; shown.length && stuck < 2; turn++) {
    const back = o.focus !== undefined && turn % 2 === 1;
    const i = back ? lo - 1 : hi + 1;
    if (i < 0 || i >= shown.length || shown[i]!.text.length > budget) {
      stuck++;
      if (o.focus === undefined) break;
      continue;
    }
    stuck = 0;
    budget -= shown[i]!.text.length;
    if (back) lo = i;
    else hi = i;
  }
  const first = shown[lo]?.seq;
  const last = shown[hi]?.seq;
  if (o.header) {
    out.push(
      `# ${w.entry.title}`,
      '',
      `- Session: ${id} (${w.total} turn${w.total === 1 ? '' : 's'}, numbered from 0; cite as ${cite(id, first ?? 0)})`,
      `- Project: ${w.meta.project}`,
      `- Source: ${sourceLabel(w.origin)}`,
      `- Started ${formatTime(w.meta.createdAt)}, last active ${formatTime(w.entry.updatedAt)}${w.meta.model ? `, model ${w.meta.model}` : ''}`,
      first === undefined ? `- No turns in the range asked for.` : `- Showing turns ${first}-${last} of 0-${w.total - 1}`,
      '',
    );
  }
  for (let i = lo; i <= hi && shown.length; i++) out.push(shown[i]!.text, '');
  const base = { session_id: id, max_chars: o.args.max_chars, tool_chars: o.args.tool_chars };
  if (lo > 0)
    out.push(
      `earlier: call ${call('read_session', { ...base, from_turn: shown[0]!.seq, to_turn: shown[lo - 1]!.seq })} for turns ${shown[0]!.seq}-${shown[lo - 1]!.seq}, left out.`,
    );
  const next = hi < shown.length - 1 ? shown[hi + 1]!.seq : undefined;
  const end = o.args.to_turn ?? (o.focus !== undefined ? w.events[w.events.length - 1]?.seq : undefined);
  if (next !== undefined)
    out.push(
      `more: call ${call('read_session', { ...base, from_turn: next, to_turn: end })} for turns ${next}-${end ?? w.total - 1}, left out.`,
    );
  else if (last !== undefined && last < w.total - 1 && end === undefined)
    out.push(`more: call ${call('read_session', { ...base, from_turn: last + 1 })} for turns ${last + 1}-${w.total - 1}.`);
  if (w.problems.length)
    out.push(
      `(${w.problems.length} unreadable line${w.problems.length === 1 ? '' : 's'} in this range skipped: ${w.problems
        .map((p) => `line ${p.line}: ${p.message}`)
        .slice(0, 3)
        .join('; ')})`,
    );
  return { text: out.join('\n').trimEnd() + '\n', next };
}

/** One turn's block, or undefined for a turn with nothing to show (a title event). */
function eventText(se: SeqEvent, id: string, names: Map<string, string>, o: WindowOptions, budget: number): string | undefined {
  const e = se.event;
  const head = (who: string) => `### ${who} · ${formatTime(e.t)} · ${cite(id, se.seq)}`;
  // A cut says how much is left and which call shows it; a cut turn has what it leaves open
  // (a fence, a list) closed by the sanitizer, so the notice and what follows stay outside it.
  const cut = (s: string, max: number, what: string, more: Record<string, unknown>, markdown = false): string => {
    if (s.length <= max) return s;
    const notice = `… (${s.length - max} more characters of ${what}: call ${call('read_session', { session_id: id, from_turn: se.seq, to_turn: se.seq, ...more })})`;
    if (!markdown) return `${s.slice(0, max)}\n${notice}`;
    const head = sanitizeMarkdown(s.slice(0, max), { demote: 0 });
    return `${head.text.trimEnd()}${head.needsSeparator ? `\n\n${head.separator}` : ''}\n\n_${notice}_`;
  };
  const parts: string[] = [];
  const text = (md: string) => {
    if (!md.trim()) return;
    const s = sanitizeMarkdown(md, { demote: 3 });
    if (s.text.trim()) parts.push(s.text + (s.needsSeparator ? `\n\n${s.separator}` : ''));
  };
  const tool = (label: string, body: string, info = '') => {
    if (o.toolChars === 0) return void parts.push(`_${label} (left out: tool_chars=0)_`);
    const whole = Math.min(Math.max(body.length, o.toolChars), MAX_TOOL_CHARS);
    // The call that shows it whole gives the turn room for it too.
    const room = whole + 2000 > o.maxChars ? { max_chars: Math.min(whole + 2000, MAX_CHARS) } : {};
    parts.push(`${label}:\n${fencedCode(cut(body, o.toolChars, 'this tool text', { tool_chars: whole, ...room }), info)}`);
  };
  const part = (p: Part): void => {
    const args = (v: unknown) => (typeof v === 'string' ? v : stringify(v));
    switch (p.kind) {
      case 'text':
        return text(p.text!);
      case 'thinking':
        if (p.text?.trim()) parts.push(`_(thinking)_ ${oneLine(p.text, 300)}`);
        return;
      case 'tool_use':
        return tool(
          `Tool call \`${p.name ?? (p.type.endsWith('tool_use') || p.type === 'tool_calls' ? 'tool' : 'function')}\``,
          args(p.input),
          'json',
        );
      case 'tool_result': {
        const fallback = p.type === 'tool' ? (p.name ?? 'tool') : p.outputKey === 'output' ? 'function' : 'tool';
        return tool(`${p.isError ? 'Tool error' : 'Tool result'} of \`${names.get(String(p.id)) ?? fallback}\``, outputText(p.output));
      }
      case 'image':
        return void parts.push('_[image]_');
    }
    if (p.type === 'system' || p.type === 'developer') parts.push(`_(${p.type} instructions left out)_`);
  };
  let who: string;
  switch (e.kind) {
    case 'user':
      who = 'User';
      walk(e.content, part, 'user');
      break;
    case 'assistant':
      who = `Assistant${typeof e.model === 'string' ? ` (${e.model})` : ''}`;
      walk(e.content, part, 'assistant');
      break;
    case 'agent':
      if (isInjectedContext(e)) return undefined; // what the tool sent its model that nobody typed
      who = 'Agent';
      walk(e.messages, part);
      break;
    case 'compact':
      who = `Summary of turns 0-${e.coversThrough}`;
      text(e.briefing);
      break;
    case 'event':
      if (isHiddenEvent(e)) return undefined; // an imported tool's own record, kept in the store only
      return `_${formatTime(e.t)} · ${cite(id, se.seq)}: ${e.type}_`;
    case 'title':
      return `_${formatTime(e.t)} · ${cite(id, se.seq)}: titled ${JSON.stringify(e.title)}_`;
    default:
      return undefined;
  }
  const body = parts.join('\n\n') || '_(no text)_';
  const h = head(who);
  // A turn longer than the whole budget is cut (the caller shows it only when it comes first).
  return `${h}\n\n${cut(body, Math.max(budget - h.length - 2, 200), `turn ${se.seq}`, { max_chars: MAX_CHARS }, true)}`;
}

/** The limits of read_session's sizes (tools.ts validates against them). */
export const MAX_CHARS = 50_000;
export const MAX_TOOL_CHARS = 20_000;

function stringify(v: unknown): string {
  if (v === undefined) return '';
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output))
    return output
      .map((b) => {
        if (typeof b === 'string') return b;
        const x = (b ?? {}) as Record<string, unknown>;
        if (typeof x.text === 'string') return x.text;
        if (x.type === 'image' || x.type === 'input_image') return '[image]';
        return stringify(x);
      })
      .join('\n');
  if (output === undefined || output === null) return '';
  return stringify(output);
}
