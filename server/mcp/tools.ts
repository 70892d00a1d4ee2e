// The MCP tools, defined once: each one's name, description, input schema (zod) and handler,
// a function from validated arguments to the text an agent reads. server.ts registers them with
// the SDK; server/mcp/README.md documents them for people. No SDK types here beyond the result
// shape, so the handlers are plain functions over the core.
// Depends on sessions.ts, render.ts and zod.

import { z } from 'zod';
import { isStoreError } from '../store/errors.js';
import { call, hitsText, rowsText, windowText, MAX_CHARS, MAX_TOOL_CHARS } from './render.js';
import type { Scope, Sessions } from './sessions.js';

/** What a tool answers: text for the agent; isError when the call could not be answered. */
export interface ToolAnswer {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  isError?: boolean;
}

/** The server's settings the tools see. */
export interface ToolContext {
  sessions: Sessions;
  /** The project a call without `project` covers (from `mcp --project`); undefined: all. */
  defaultProject?: string;
  /** The calling agent's own session (LEVELCODE_CURRENT_SESSION), left out of results. */
  currentSession?: string;
}

const isoTime = (what: string) =>
  z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)), `${what} is an ISO date or time, like 2026-07-28 or 2026-07-28T09:00:00Z`)
    .transform((s) => new Date(Date.parse(s)).toISOString());

const scopeShape = {
  project: z
    .string()
    .min(1)
    .optional()
    .describe('An absolute project folder, or "all" for every project. Default: the project the server was started for, else all.'),
  source: z
    .string()
    .min(1)
    .optional()
    .describe('Only sessions of this tool: "levelcode" (our own), or an importer\'s name such as "claude-code", "codex", "gemini".'),
  since: isoTime('since').optional().describe('Only from this time on (ISO date or time).'),
  until: isoTime('until').optional().describe('Only up to this time (ISO date or time).'),
  current_session: z
    .string()
    .min(1)
    .optional()
    .describe("Your own current session's id (ours, or the tool's own id): left out of the results."),
};

const searchShape = {
  query: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .describe(
      'Words (all must occur in one session, any order, whole words; word* a prefix), "quoted phrases", -excluded, and filters tool:NAME project:PATH since:DATE until:DATE role:user|assistant|tool|title|compact.',
    ),
  ...scopeShape,
  limit: z
    .number()
    .int()
    .min(1)
    .max(50)
    .default(10)
    .describe('Sessions to return, best first, each with its best turns (1-50, default 10).'),
  offset: z.number().int().min(0).max(10_000).default(0).describe('Sessions to skip, for the next page (default 0).'),
};

const readShape = {
  session_id: z.string().min(1).describe('The session id, as search_sessions or list_sessions give it (2026-07-28T09-12-33-8f3k).'),
  from_turn: z.number().int().min(0).optional().describe('First turn to show (turns are numbered from 0). Default 0.'),
  to_turn: z.number().int().min(0).optional().describe('Last turn to show. Default: as many as fit in max_chars.'),
  around_turn: z.number().int().min(0).optional().describe("Show the turns around this one (a hit's turn) instead of a range."),
  context: z.number().int().min(0).max(50).default(4).describe('With around_turn: turns shown before and after it (default 4).'),
  max_chars: z
    .number()
    .int()
    .min(1000)
    .max(MAX_CHARS)
    .default(12_000)
    .describe(`Size of the answer in characters, about (1000-${MAX_CHARS}, default 12000).`),
  tool_chars: z
    .number()
    .int()
    .min(0)
    .max(MAX_TOOL_CHARS)
    .default(1500)
    .describe(`Characters of each tool call and tool result shown (0 leaves them out; at most ${MAX_TOOL_CHARS}; default 1500).`),
};

const listShape = {
  ...scopeShape,
  limit: z.number().int().min(1).max(100).default(20).describe('Sessions to return, most recently active first (1-100, default 20).'),
  offset: z.number().int().min(0).max(100_000).default(0).describe('Sessions to skip, for the next page (default 0).'),
};

const recallShape = {
  query: searchShape.query,
  ...scopeShape,
  sessions: z.number().int().min(1).max(5).default(3).describe('Sessions to show the conversation of (1-5, default 3).'),
  context: z.number().int().min(0).max(10).default(2).describe("Turns shown before and after each session's best match (default 2)."),
  max_chars: readShape.max_chars,
};

type Args<S extends Record<string, z.ZodType>> = { [K in keyof S]: z.output<S[K]> };

export interface ToolDef<S extends Record<string, z.ZodType>> {
  name: string;
  title: string;
  description: string;
  shape: S;
  run: (a: Args<S>, ctx: ToolContext) => Promise<ToolAnswer>;
}

const text = (t: string, isError = false): ToolAnswer => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

/** The scope of a call: its project (real path) and filters, and how to say it in words. */
async function scopeOf(a: Args<typeof scopeShape>, ctx: ToolContext): Promise<{ scope: Scope; where: string }> {
  const p = a.project ?? ctx.defaultProject;
  const project = p === undefined || p === 'all' ? undefined : await ctx.sessions.project(p);
  const exclude = a.current_session ?? ctx.currentSession;
  const scope: Scope = { project, source: a.source, since: a.since, until: a.until, exclude };
  const bits = [project ? `project ${project}` : 'all projects'];
  if (a.source) bits.push(`from ${a.source}`);
  if (a.since) bits.push(`since ${a.since}`);
  if (a.until) bits.push(`until ${a.until}`);
  return { scope, where: bits.join(', ') };
}

/** The arguments of a call again, for a "more:" line: defaults left out. */
function again(a: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  return { ...a, ...changes };
}

/** An empty store's answer, or undefined when there is a store. */
async function emptyStore(ctx: ToolContext): Promise<ToolAnswer | undefined> {
  if (await ctx.sessions.exists()) return undefined;
  return text(
    `No sessions yet: the store ${ctx.sessions.root} does not exist. Sessions appear there as editors save chats or \`levelcode-sessions import\` brings them in.`,
  );
}

export const searchTool: ToolDef<typeof searchShape> = {
  name: 'search_sessions',
  title: 'Search past sessions',
  description:
    'Full-text search over every past chat session on this machine (this project, or all; any tool the user imported). ' +
    'Answers sessions ranked best first (BM25, a title and recency boost), each with its title, source tool and best turns (<session id>#<turn>, time, speaker, snippet). ' +
    'Follow with read_session(session_id, around_turn) to read the discussion around a hit. ' +
    'To answer "what did we decide about X", recall does both in one call.',
  shape: searchShape,
  async run(a, ctx) {
    const empty = await emptyStore(ctx);
    if (empty) return empty;
    const { scope, where } = await scopeOf(a, ctx);
    const found = await ctx.sessions.search(a.query, scope, a.offset, a.limit);
    const shown = a.offset + found.sessions.length;
    const more = shown < found.total ? call('search_sessions', again(a, { offset: shown })) : undefined;
    return text(hitsText({ query: a.query, where, found, skip: a.offset, more }));
  },
};

export const readTool: ToolDef<typeof readShape> = {
  name: 'read_session',
  title: 'Read a past session',
  description:
    'Reads a past session as Markdown: its title, project, source and dates, then its turns (user, assistant, agent, tool calls and results), ' +
    'each headed with <session id>#<turn> to cite. A range (from_turn, to_turn) or the turns around one (around_turn, context). ' +
    'Bounded by max_chars; what does not fit ends with a "more:" line naming the call that continues.',
  shape: readShape,
  async run(a, ctx) {
    if (a.around_turn !== undefined && (a.from_turn !== undefined || a.to_turn !== undefined))
      return text('read_session takes around_turn or from_turn/to_turn, not both.', true);
    if (a.from_turn !== undefined && a.to_turn !== undefined && a.to_turn < a.from_turn)
      return text(`to_turn (${a.to_turn}) is before from_turn (${a.from_turn}).`, true);
    const from = a.around_turn !== undefined ? Math.max(0, a.around_turn - a.context) : (a.from_turn ?? 0);
    // Without to_turn, no more turns than could fit (a turn is at least its heading).
    const to = a.around_turn !== undefined ? a.around_turn + a.context : (a.to_turn ?? from + Math.ceil(a.max_chars / 60));
    const w = await ctx.sessions.window(a.session_id, from, to);
    if (w.events.length === 0 && from >= w.total)
      return text(
        `${a.session_id} has ${w.total} turn${w.total === 1 ? '' : 's'} (0-${w.total - 1}); turn ${from} is past its end. Call ${call('read_session', { session_id: a.session_id, from_turn: Math.max(0, w.total - 5) })} for its last turns.`,
        true,
      );
    return text(
      windowText(w, { maxChars: a.max_chars, toolChars: a.tool_chars, focus: a.around_turn, header: true, args: argsOf(a) }).text,
    );
  },
};

/** read_session's arguments as given, without the defaults, for "more:" lines. */
function argsOf(a: Args<typeof readShape>): Record<string, unknown> {
  return {
    session_id: a.session_id,
    from_turn: a.from_turn,
    to_turn: a.to_turn,
    around_turn: a.around_turn,
    context: a.around_turn !== undefined ? a.context : undefined,
    max_chars: a.max_chars === 12_000 ? undefined : a.max_chars,
    tool_chars: a.tool_chars === 1500 ? undefined : a.tool_chars,
  };
}

export const listTool: ToolDef<typeof listShape> = {
  name: 'list_sessions',
  title: 'List recent sessions',
  description:
    'The sessions of a project (or of all projects), most recently active first: title, id, dates, number of user messages, source tool, ' +
    'and what was last asked. For "what were we working on" or to find a session by its title; read one with read_session.',
  shape: listShape,
  async run(a, ctx) {
    const empty = await emptyStore(ctx);
    if (empty) return empty;
    const { scope, where } = await scopeOf(a, ctx);
    const r = await ctx.sessions.list(scope, a.offset, a.limit);
    const shown = a.offset + r.rows.length;
    const more = shown < r.total ? call('list_sessions', again(a, { offset: shown })) : undefined;
    return text(rowsText({ where, rows: r.rows, total: r.total, skip: a.offset, more, problems: r.problems.length }));
  },
};

export const recallTool: ToolDef<typeof recallShape> = {
  name: 'recall',
  title: 'Recall what was discussed',
  description:
    'For questions like "what did we decide about X": searches past sessions for the query and shows, for each of the few sessions that ' +
    'match best (ranked as search_sessions ranks them), the conversation around its best match (its turns, cited as <session id>#<turn>), and where else it matched. ' +
    'One call instead of search_sessions followed by read_session.',
  shape: recallShape,
  async run(a, ctx) {
    const empty = await emptyStore(ctx);
    if (empty) return empty;
    const { scope, where } = await scopeOf(a, ctx);
    const found = await ctx.sessions.search(a.query, scope, 0, a.sessions);
    if (found.sessions.length === 0) return text(hitsText({ query: a.query, where, found, skip: 0 }));
    const picked = found.sessions;
    const each = Math.floor(a.max_chars / picked.length);
    const out: string[] = [
      `${found.total} matching session${found.total === 1 ? '' : 's'} for ${JSON.stringify(a.query)} in ${where}; ` +
        `the ${picked.length} best, around their best match:`,
      '',
    ];
    for (const m of picked) {
      const h = m.hits[0]!;
      const w = await ctx.sessions.window(h.sessionId, Math.max(0, h.seq - a.context), h.seq + a.context);
      const others = m.hits.slice(1).map((x) => `#${x.seq}`);
      out.push(
        `## ${m.title} — ${m.sessionId}`,
        '',
        `Project ${m.project} · source ${m.origin.tool} · ${w.total} turns · best match at turn #${h.seq}${others.length ? `, also ${others.join(', ')}` : ''}`,
        '',
      );
      const args = { session_id: h.sessionId, around_turn: h.seq, context: a.context };
      out.push(windowText(w, { maxChars: each, toolChars: 600, focus: h.seq, header: false, args }).text);
    }
    if (found.total > picked.length)
      out.push(
        `more: call ${call('search_sessions', { query: a.query, project: a.project, source: a.source, since: a.since, until: a.until })} for every match.`,
      );
    return text(out.join('\n').trimEnd() + '\n');
  },
};

export const projectsTool: ToolDef<Record<string, never>> = {
  name: 'list_projects',
  title: 'List projects',
  description:
    'The projects (folders) that have sessions, most recently active first, with how many sessions each has and from which tools. Their paths are what the other tools take as project.',
  shape: {},
  async run(_a, ctx) {
    const empty = await emptyStore(ctx);
    if (empty) return empty;
    const r = await ctx.sessions.list({ exclude: ctx.currentSession }, 0, Number.MAX_SAFE_INTEGER); // the caller's own not counted
    const projects = new Map<string, { n: number; last: string; tools: Set<string> }>();
    for (const row of r.rows) {
      const p = projects.get(row.project) ?? { n: 0, last: row.updatedAt, tools: new Set<string>() };
      p.n++;
      if (row.updatedAt > p.last) p.last = row.updatedAt;
      p.tools.add(row.origin.tool);
      projects.set(row.project, p);
    }
    if (projects.size === 0) return text(`No sessions in ${ctx.sessions.root} yet.`);
    const lines = [`${projects.size} project${projects.size === 1 ? '' : 's'} with sessions, most recently active first:`, ''];
    const sorted = [...projects].sort((x, y) => (x[1].last < y[1].last ? 1 : -1));
    for (const [path, p] of sorted)
      lines.push(
        `- ${path} · ${p.n} session${p.n === 1 ? '' : 's'} · last active ${p.last.slice(0, 16).replace('T', ' ')} UTC · from ${[...p.tools].sort().join(', ')}`,
      );
    lines.push('', `Call ${call('list_sessions', { project: sorted[0]![0] })} for a project's sessions.`);
    return text(lines.join('\n') + '\n');
  },
};

export const TOOLS = [searchTool, recallTool, readTool, listTool, projectsTool] as const;

/** Runs a tool, turning the core's errors into an answer the agent can act on. */
export async function runTool<S extends Record<string, z.ZodType>>(t: ToolDef<S>, a: Args<S>, ctx: ToolContext): Promise<ToolAnswer> {
  try {
    return await t.run(a, ctx);
  } catch (e) {
    if (isStoreError(e, 'unknown-session'))
      return text(`${e.message}. Session ids come from search_sessions or list_sessions (they look like 2026-07-28T09-12-33-8f3k).`, true);
    if (isStoreError(e, 'bad-id')) return text(`${e.message}; a session id looks like 2026-07-28T09-12-33-8f3k.`, true);
    if (isStoreError(e)) return text(e.message, true);
    throw e;
  }
}
