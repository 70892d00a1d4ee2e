// The sidecar protocol, defined once: one descriptor per method (its literal name, direction,
// zod params and result), in the manner of vscode-eslint's $shared/customMessages.ts and ACP's schema.
// The server, the conformance tests, gen-schema.ts (protocol.schema.json) and the drift test
// all read this file; protocol.md documents it in prose.
//
// Depends on zod and the on-disk schemas of server/format/events.ts only: no fs, no JSON-RPC
// library, so clients written in TypeScript may import it as-is.

import { z } from 'zod';
import { ForkedFrom, ImportSource, IncomingEvent, MetaLine, SessionEvent, SessionId } from '../format/events.js';

// PROTOCOL_VERSION (bumped on any incompatible change to a method below; clients read it from
// `initialize`), CALLBACKS and FEATURES live in wire.ts, which needs no zod.
import { FEATURES, DID_CHANGE, IMPORT_PROBLEM } from './wire.js';
import { RESUME_TARGETS } from '../resume/targets.js';
import { HANDOFF_IDS } from '../import/tools.js';
import { VIEW_GROUPS } from '../listing/view.js';
export { PROTOCOL_VERSION, CALLBACKS, FEATURES, type Callback, type Feature } from './wire.js';

export type Direction = 'clientToServer' | 'serverToClient';

export interface RequestDescriptor<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  kind: 'request';
  method: string;
  direction: Direction;
  params: P;
  result: R;
  /** Accepts `$/cancelRequest` mid-way and reports `$/progress`. */
  long: boolean;
  summary: string;
}

export interface NotificationDescriptor<P extends z.ZodType = z.ZodType> {
  kind: 'notification';
  method: string;
  direction: Direction;
  params: P;
  summary: string;
}

function request<const M extends string, P extends z.ZodType, R extends z.ZodType>(
  method: M,
  direction: Direction,
  params: P,
  result: R,
  summary: string,
  long = false,
): RequestDescriptor<P, R> & { method: M } {
  return { kind: 'request', method, direction, params, result, long, summary };
}

function notification<const M extends string, P extends z.ZodType>(
  method: M,
  direction: Direction,
  params: P,
  summary: string,
): NotificationDescriptor<P> & { method: M } {
  return { kind: 'notification', method, direction, params, summary };
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

const Project = z.string().min(1).describe('Absolute path of the project folder (the sidecar stores its real path).');
const WorkDoneToken = z
  .union([z.string(), z.number().int()])
  .optional()
  .describe('LSP work-done token: when given, progress is reported on it instead of a server-created one.');

export const Problem = z
  .object({
    file: z.string(),
    line: z.number().int().optional().describe('1-based line in the file.'),
    message: z.string(),
  })
  .describe('Something unreadable that was skipped (a torn last line, a line that is not JSON, ...).');

export const HeldBy = z
  .object({ pid: z.number().int().optional(), host: z.string().optional() })
  .describe('The process that owns a session.');

export const HistoryView = z
  .object({
    group: z
      .enum(VIEW_GROUPS)
      .describe(
        "The date group in the user's time zone (initializationOptions.timeZone): pinned, then by calendar days since the last message (today 0, yesterday 1, week 2-7, month 8-30, older); archived in an archived listing.",
      ),
    groupLabel: z
      .string()
      .describe('The group\'s heading: "Pinned", "Today", "Yesterday", "Previous 7 days", "Previous 30 days", "Older", "Archived".'),
    title: z
      .string()
      .describe('The full display title: one line, whitespace collapsed, controls escaped, never cut, "Untitled session" when empty.'),
    time: z
      .string()
      .describe('Local time of the last message: "14:05" today, "Mon 14:05" 1-7 days back, "Nov 28" this year, "Nov 28, 2025" before.'),
    source: z.string().optional().describe('The source tool\'s name for an imported session ("Claude Code").'),
    turns: z.string().describe('"1 turn", "12 turns".'),
    model: z
      .string()
      .optional()
      .describe('A short model name ("claude-sonnet-4"), without a provider prefix or date stamp; absent when unknown.'),
    description: z
      .string()
      .describe(
        'source · time · turns · model, for clients that show one metadata string. Narrow panels cut the model first, then the turns.',
      ),
  })
  .describe('session/list: what a History row shows, computed by the sidecar for every client (protocol.md "The History view").');
export type HistoryView = z.infer<typeof HistoryView>;

export const SessionSummary = z
  .object({
    id: SessionId,
    project: z.string().describe("The project's real path, from the meta line."),
    title: z.string().describe('The latest title, or a fallback from the first user message.'),
    titled: z.boolean().describe('True when a title event exists (false: `title` is a fallback).'),
    createdAt: z.string(),
    updatedAt: z
      .string()
      .describe(
        'Time of the last message (user, assistant or agent line; createdAt before any). A rename, a seal or a compaction does not move it.',
      ),
    turns: z.number().int().describe('Number of user messages.'),
    model: z.string().nullable(),
    preview: z.string().describe('One line of the latest user message.'),
    v: z.number().int().describe('Schema version of the file.'),
    bytes: z.number().int().describe('File size in bytes.'),
    source: z
      .object({
        tool: z.string(),
        id: z.string(),
        path: z.string(),
        project: z.string(),
        version: z.string().optional(),
        variant: z.string().optional(),
        forkedFrom: z
          .object({ id: z.string(), turn: z.number().int().optional() })
          .optional()
          .describe("The fork the tool records, in the tool's own ids (the row's `forkedFrom` names ours)."),
      })
      .optional()
      .describe("An imported session's source (the meta line's `source`); absent for our own."),
    sourceLabel: z
      .string()
      .optional()
      .describe('session/list: the source tool\'s name as people know it ("Claude Code"), for an imported session.'),
    continueIn: z
      .object({
        argv: z.array(z.string()).min(1).describe('The command line, e.g. ["claude", "--resume", "8f1e…"].'),
        cwd: z.string().describe('Where to run it (the project folder the tool recorded).'),
      })
      .optional()
      .describe('session/list: how to continue an imported session in its own tool, where the tool resumes by id.'),
    forkedFrom: ForkedFrom.optional().describe(
      'A fork or copy: the meta line\'s forkedFrom (parent id, last turn it holds; `device` on a sync conflict\'s fork: show it as "continued on <device>").',
    ),
    device: z.string().optional().describe("The device the session was created on (the meta line's `device`), for a tooltip."),
    movedFrom: z
      .string()
      .optional()
      .describe('A project listing: this session was recorded under that folder, which moved here (same git repository, or relinked).'),
    pinned: z.boolean().describe('Pinned (its latest pin/unpin event is a pin): listed first in its project.'),
    archived: z.boolean().describe('Archived: left out of session/list unless `archived: true` asks for the archived ones.'),
    unarchivedAt: z.string().optional().describe('Time of the latest unarchive, when there is one: idleness counts from it too.'),
    interrupted: z
      .literal(true)
      .optional()
      .describe('The last run stopped part way: an `interrupted` or `reaped` event came after the last message.'),
    heldBy: HeldBy.optional().describe(
      'session/list: another live process (another window, the CLI) owns the session now; absent when none does, or this sidecar does.',
    ),
    view: HistoryView,
  })
  .describe('One History entry.');
export type SessionSummary = z.infer<typeof SessionSummary>;

export const SeqEventSchema = z
  .object({ seq: z.number().int().min(0).describe('0 is the first line after the meta line.'), event: SessionEvent })
  .describe('An event and its sequence number.');

const Change = z.enum(['created', 'appended', 'renamed', 'deleted', 'listed']);

// ---------------------------------------------------------------------------------------------
// initialize: what each side advertises under capabilities.experimental.levelcodeSessions

export const ClientCapability = z
  .object({
    callbacks: z
      .array(z.string())
      .optional()
      .describe(
        'Server-to-client requests this client answers: "summarize" (session/summarize), "title" (session/title). Unknown names are ignored.',
      ),
  })
  .describe('capabilities.experimental.levelcodeSessions sent by the client in `initialize`.');
export type ClientCapability = z.infer<typeof ClientCapability>;

export const InitializationOptions = z
  .looseObject({
    consentThreshold: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "Tier-3 summaries that would read more than this many tokens need the user's consent (default 50000). session/resume may override it per call.",
      ),
    followImports: z
      .union([
        z.boolean(),
        z.object({
          tools: z.array(z.string().min(1)).min(1).optional().describe('Importer names to follow (default: every one this build has).'),
          roots: z
            .record(z.string().min(1), z.array(z.string().min(1)).min(1))
            .optional()
            .describe("Per importer name, the data folders (or session files) to follow instead of the tool's defaults."),
        }),
      ])
      .optional()
      .describe(
        "Follow other AI tools' data folders live: what they write is imported as it is written (see session/import). true: every tool, default folders.",
      ),
    autoArchiveDays: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Archive sessions idle this many days, at start-up (an archive event with auto: true; unarchive brings one back). Absent or 0: off. Clients offer it as a setting, default 30.',
      ),
    retention: z
      .object({
        keep: z.number().int().min(0).optional().describe('The most sessions per project; 0: no limit.'),
        maxAgeDays: z.number().int().min(0).optional().describe('The oldest age kept, in days; 0: no limit.'),
      })
      .optional()
      .describe("Retention's rules: applied (archiving only) at start-up with autoArchiveDays, and the defaults of session/retention."),
    timeZone: z
      .string()
      .optional()
      .describe(
        'The user\'s time zone for session/list\'s `view` (groups, times): an IANA name ("Europe/Berlin") or a fixed offset ("+02:00"). Default: the sidecar\'s own zone; an unknown one is logged and ignored.',
      ),
  })
  .describe("`initializationOptions` of `initialize` (LSP's place for client settings). Unknown fields are ignored.");
export type InitializationOptions = z.infer<typeof InitializationOptions>;

export const ToolInfo = z
  .object({
    id: z.string().describe("The tool's name: `source.tool`, session/import's `tool`, session/handoff's `to`."),
    label: z.string().describe('The name people know, for menus and rows: "Claude Code".'),
    continueIn: z.boolean().describe("Whether session/list gives this tool's sessions a `continueIn` command."),
    handoff: z
      .object({
        bin: z.string().describe('The command on PATH.'),
        install: z.string().describe('How to install it.'),
      })
      .optional()
      .describe('Present when a session can be handed off to this tool (session/handoff).'),
  })
  .describe('One AI tool this build knows.');

export const ServerCapability = z
  .object({
    version: z.number().int().describe('PROTOCOL_VERSION of this sidecar.'),
    features: z.array(z.enum(FEATURES)).describe('Optional features this build has.'),
    store: z.string().describe('Absolute path of the store root.'),
    didChange: z.enum(['watch', 'poll']).optional().describe('How the store is watched (once known).'),
    tools: z.array(ToolInfo).describe('The AI tools this build imports, in the order menus list them (server/import/tools.ts).'),
  })
  .describe('capabilities.experimental.levelcodeSessions in the `initialize` result.');
export type ServerCapability = z.infer<typeof ServerCapability>;

// ---------------------------------------------------------------------------------------------
// Client to server

export const sessionNew = request(
  'session/new',
  'clientToServer',
  z.object({ project: Project, model: z.string().min(1).optional().describe('Model the chat starts with.') }),
  z.object({ id: SessionId, project: z.string(), createdAt: z.string() }),
  'Creates an empty session for a project; the sidecar owns it.',
);

export const sessionAppend = request(
  'session/append',
  'clientToServer',
  z.object({
    id: SessionId,
    events: z
      .array(IncomingEvent)
      .min(1)
      .describe('Events in order; each must validate as a SessionEvent once `t` is stamped. All or nothing.'),
    release: z
      .boolean()
      .optional()
      .describe('Give the lock back once the events are written (as session/release): the session is held only while it is written.'),
    expectedSeq: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "The seq the first event should get (the last seq this client saw + 1). When the session's next seq differs (another window wrote to it), nothing is written and the answer is SessionConflict (-33013).",
      ),
  }),
  z.object({
    appended: z.number().int(),
    firstSeq: z.number().int().describe('seq of the first appended event.'),
    lastSeq: z.number().int().describe('seq of the last appended event.'),
  }),
  "Appends events; answers after they are fsync'd. Takes ownership of the session (for this write only with `release`).",
);

// session/release: ownership between writes.
export const sessionRelease = request(
  'session/release',
  'clientToServer',
  z.object({ id: SessionId }),
  z.object({
    id: SessionId,
    released: z.boolean().describe('True when this sidecar held the lock and gave it back; false when it did not hold it.'),
  }),
  "Gives the session's lock back without sealing it; the next write takes it again.",
);

export const sessionList = request(
  'session/list',
  'clientToServer',
  z.object({
    project: Project.optional().describe('Only this project (compared by real path).'),
    all: z.boolean().optional().describe('Every project in the store (ignored when `project` is given).'),
    limit: z.number().int().min(1).max(1000).optional().describe('Page size, default 100.'),
    cursor: z.string().optional().describe('`nextCursor` of the previous page.'),
    archived: z.boolean().optional().describe('true: the archived sessions only (default: the main list, without them).'),
  }),
  z.object({
    sessions: z.array(SessionSummary),
    nextCursor: z.string().optional().describe('Present when more sessions follow.'),
    problems: z.array(Problem),
  }),
  'Lists sessions, pinned first, then newest first (updatedAt, then id), a page at a time.',
);

export const sessionRead = request(
  'session/read',
  'clientToServer',
  z
    .object({
      id: SessionId,
      tail: z.number().int().min(0).optional().describe('The last N events. Default when no range is given: 100.'),
      from: z.number().int().min(0).optional().describe('First seq of a range (inclusive).'),
      to: z.number().int().min(0).optional().describe('Last seq of a range (inclusive).'),
    })
    .refine((p) => p.tail === undefined || (p.from === undefined && p.to === undefined), {
      message: 'give either tail or from/to, not both',
      path: ['tail'],
    })
    .refine((p) => p.from === undefined || p.to === undefined || p.from <= p.to, {
      message: 'from must not be after to',
      path: ['from'],
    }),
  z.object({
    meta: MetaLine,
    events: z.array(SeqEventSchema),
    problems: z.array(Problem),
    totalEvents: z.number().int().optional().describe('Events in the whole session, when known.'),
    elided: z.number().int().optional(),
  }),
  "A window of a session's events: the last N, or a seq range.",
);

const SummaryPiece = z
  .object({ index: z.number().int().min(0), count: z.number().int().min(1) })
  .describe(
    'Which summarise call this is (from 0) of how many: the briefing of the last (index = count - 1) is the final one; the others are rolling.',
  );

const Shortened = z
  .object({ toolOutputs: z.number().int().min(0), messages: z.number().int().min(0) })
  .describe('One turn was larger than a piece: this many tool outputs were elided (oldest first) and messages cut, each marked in place.');

export const ResumeResult = z
  .looseObject({
    id: SessionId.describe('The session resumed (a new id when `copy` was set).'),
    tier: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe('1 verbatim, 2 incremental, 3 compact-on-resume.'),
    target: z.enum(RESUME_TARGETS).optional().describe('The target the messages are for (absent: `levelcode`).'),
    messages: z
      .array(z.unknown())
      .optional()
      .describe(
        'The resumed context in the target\'s shape, ready to send to that API as it is (every target but `levelcode`). See protocol.md "Resume targets".',
      ),
    conversation: z
      .array(z.unknown())
      .describe('Target `levelcode`: chat messages, {role, content}, rebuilt from user/assistant events. Empty for the other targets.'),
    agentMessages: z
      .array(z.unknown())
      .describe("Target `levelcode`: the agent loop's messages, concatenated verbatim. Empty for the other targets."),
    note: z
      .string()
      .optional()
      .describe(
        'One line for the chat, e.g. "Resumed from summary — full transcript in History.", followed by what the target could not take (thinking dropped, images as markers) and every repair (a tool call with no recorded result, an orphan result).',
      ),
    changes: z
      .record(z.string(), z.number().int())
      .optional()
      .describe('What `note` says, counted by kind ("thinking dropped", "missing tool result", ...): for tests and logs.'),
    readOnly: z.boolean().describe('True when another process owns the session: show it, offer to open a copy.'),
    heldBy: HeldBy.optional(),
    forkedFrom: SessionId.optional().describe('Set when `copy` made a new session.'),
    problems: z.array(Problem),
    tokens: z
      .object({ transcript: z.number().int(), budget: z.number().int(), window: z.number().int() })
      .optional()
      .describe('T (the stored transcript, estimated), B (the budget) and W (the window).'),
    needsSummary: z
      .object({
        messages: z
          .array(z.unknown())
          .describe(
            'One piece of the head to summarise, in context order: the briefing so far first (if any), then the messages verbatim (shortened only when `shortened` says so).',
          ),
        instructions: z.string(),
        target: z.enum(RESUME_TARGETS).optional().describe('The shape of `messages`: the target session/resume was asked for.'),
        inputTokens: z.number().int().describe("This call's estimated input; at most the summariser's window less maxBriefingTokens."),
        coversThrough: z.number().int().describe('Pass it back to session/compact.'),
        maxBriefingTokens: z.number().int(),
        piece: SummaryPiece,
        shortened: Shortened.optional(),
      })
      .optional()
      .describe(
        "Tier 3 for a client that does not answer session/summarize: summarise `messages`, then call session/compact, which answers the next piece's needsSummary until the last. The arrays are empty.",
      ),
    needsConfirmation: z
      .object({
        inputTokens: z.number().int().describe('Estimated input over every summarise call.'),
        threshold: z.number().int(),
        calls: z.number().int().describe('Summarise calls (pieces) the resume will make.'),
      })
      .optional()
      .describe(
        'Tier 3 would summarise more than `threshold` tokens: ask the user, then call again with `confirm: true`. The arrays are empty and nothing was written.',
      ),
  })
  .describe('A resumed context (session/resume, session/compact).');

export const sessionResume = request(
  'session/resume',
  'clientToServer',
  z.looseObject({
    id: SessionId,
    contextWindow: z.number().int().positive().describe("The model's context window W, in tokens."),
    target: z
      .enum(RESUME_TARGETS)
      .optional()
      .describe(
        'The API the messages are for: anthropic (Messages), openai-chat (Chat Completions), openai-responses, gemini (generateContent contents), vscode-lm (LanguageModelChatMessage parts), neutral (our own model), or levelcode (default: the `conversation`/`agentMessages` pair).',
      ),
    budgetRatio: z.number().gt(0).max(1).optional().describe('Share of W resume may spend (B = W x ratio), default 0.4.'),
    keepTurns: z.number().int().min(0).optional().describe('Most recent turns kept verbatim when compacting.'),
    copy: z.boolean().optional().describe('Resume a fresh copy (session/fork) instead of the session itself.'),
    confirm: z.boolean().optional().describe('The user agreed to a costly summary (answer to `needsConfirmation`).'),
    consentThreshold: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Ask consent (`needsConfirmation`) when a summary would read more than this many tokens. Default: initializationOptions.consentThreshold, else 50000.',
      ),
    summaryWindow: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "The summariser model's context window in tokens, default contextWindow: every summarise call's input stays within it less maxBriefingTokens (room for the answer).",
      ),
    tokenCounts: z
      .record(z.string().regex(/^\d+$/), z.number().min(0))
      .optional()
      .describe(
        "The client's own token counts by event seq (`{\"12\": 5321}`): what the event's message(s) cost in the model's tokenizer. Events not listed are estimated (characters / 4).",
      ),
    workDoneToken: WorkDoneToken,
  }),
  ResumeResult,
  "Rebuilds a session's working context for the model. Takes ownership unless another process holds it.",
  true,
);

export const sessionFork = request(
  'session/fork',
  'clientToServer',
  z.object({
    id: SessionId,
    atTurn: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'Fork at this turn: the new session holds turns 1 to atTurn (counted as History counts `turns`), its tool results included.',
      ),
    project: Project.optional().describe(
      "The folder the new session belongs to (default: the original's; needed for a session listed with movedFrom whose folder is gone).",
    ),
  }),
  z.object({
    id: SessionId.describe('The new session.'),
    project: z.string(),
    createdAt: z.string(),
    forkedFrom: SessionId,
    turn: z.number().int().describe('The last turn of the original the new session holds.'),
    copied: z.number().int().describe('Events copied.'),
  }),
  'Copies a session (every event, verbatim; with `atTurn`, turns 1 to atTurn) into a new session this sidecar owns: "open a copy", "fork from here".',
);

export const sessionHandoff = request(
  'session/handoff',
  'clientToServer',
  z.object({
    id: SessionId,
    to: z.enum(HANDOFF_IDS).describe('The agent CLI to continue the session in.'),
    dryRun: z.boolean().optional().describe('Say where the new session would be written and what it holds; write nothing.'),
  }),
  z.object({
    tool: z.enum(HANDOFF_IDS),
    installed: z
      .string()
      .nullable()
      .describe("The tool's version on the sidecar's PATH, or null when it is not there (the newest format known is written)."),
    id: z.string().describe("The new session's id in the tool (what its resume takes)."),
    path: z.string().describe('The file written (or that would be): always a new one.'),
    argv: z.array(z.string()).describe('The command that continues it, e.g. ["claude", "--resume", "5f0c…"], run in `cwd`.'),
    cwd: z.string().describe("The session's project folder."),
    command: z.string().describe('`cd CWD && ARGV`, quoted for a POSIX shell: for a terminal.'),
    messages: z.number().int().describe('Messages written.'),
    tier: z.union([z.literal(1), z.literal(2)]).describe('1: the whole conversation; 2: the last briefing and what follows it.'),
    note: z.string().nullable().describe("What the tool's API could not take, and every repair (as session/resume's note)."),
    dryRun: z.boolean(),
  }),
  "Continues a session in an agent CLI: writes a NEW session of that tool in its own folder and format from the session's neutral conversation, and answers the command that resumes it. Never changes a file of the tool's.",
);

export const sessionCompact = request(
  'session/compact',
  'clientToServer',
  z.object({
    id: SessionId,
    briefing: z.string().trim().min(1).describe("The client's summary of the piece `needsSummary` handed out."),
    coversThrough: z.number().int().min(0).describe('`needsSummary.coversThrough`, unchanged.'),
  }),
  ResumeResult,
  "Next step of a tier-3 resume without the summarize callback: records the piece's briefing as a compact event and answers the next piece's needsSummary, or after the last piece the resumed context.",
);

export const sessionExport = request(
  'session/export',
  'clientToServer',
  z.object({
    id: SessionId,
    format: z.enum(['markdown', 'json']),
    thinking: z.boolean().optional().describe('Markdown: render thinking blocks (collapsed). Default true.'),
    tools: z.boolean().optional().describe('Markdown: render tool calls and results (collapsed). Default true.'),
    maxToolChars: z.number().int().positive().optional().describe('Markdown: cut each tool input or output to this many characters.'),
    timeZone: z
      .string()
      .optional()
      .describe(
        'Markdown: times in this zone (IANA name or "+02:00"). Default: initializationOptions.timeZone when the client sent one, else UTC.',
      ),
    workDoneToken: WorkDoneToken,
  }),
  z.object({
    content: z.string().describe('The document: Markdown, or the JSON export document serialised with two-space indent.'),
    format: z.enum(['markdown', 'json']),
    mimeType: z.string(),
  }),
  'Renders a whole session as Markdown or JSON.',
  true,
);

export const SearchHit = z
  .object({
    sessionId: SessionId,
    project: z.string(),
    title: z.string(),
    seq: z.number().int(),
    cite: z.string().describe('`<sessionId>#<seq>`: the event, to cite.'),
    kind: z.string(),
    where: z
      .enum(['user', 'assistant', 'agent', 'tool-input', 'tool-output', 'compact', 'title'])
      .describe('Which text of the event matched.'),
    t: z.string(),
    snippet: z.string().describe('A one-line excerpt of the matched text, about 160 characters at most.'),
    ranges: z
      .array(z.tuple([z.number().int(), z.number().int()]))
      .describe('[start, end) of the matched terms in `snippet`, in UTF-16 code units.'),
    file: z.string(),
  })
  .describe('One matching event, read back from its session file.');

export const SearchSession = z
  .object({
    sessionId: SessionId,
    project: z.string(),
    title: z.string(),
    tool: z.string().describe('The tool the session was imported from; `levelcode` for our own.'),
    t: z.string().describe("The session's newest event's time."),
    score: z.number().describe('Its rank score (see "Search queries"): higher is better; comparable within one answer only.'),
    file: z.string(),
    hits: z.array(SearchHit).describe('Its best events, best first.'),
  })
  .describe('One matching session.');

export const sessionSearch = request(
  'session/search',
  'clientToServer',
  z.object({
    query: z
      .string()
      .min(1)
      .describe('A query in the language of "Search queries": words, word*, "phrases", -excluded, tool: project: since: until: role:.'),
    project: Project.optional().describe("Only this project's History (default: every project)."),
    all: z.boolean().optional().describe('Every project, even when `project` is given.'),
    since: z.iso.datetime({ offset: true }).optional().describe('Only events at or after this time.'),
    until: z.iso.datetime({ offset: true }).optional().describe('Only events at or before this time.'),
    limit: z.number().int().min(1).max(1000).optional().describe('At most this many sessions, default 20.'),
    perSession: z.number().int().min(1).max(20).optional().describe('At most this many hits a session, default 3.'),
    cursor: z.string().optional().describe("The previous answer's `cursor`: the next page."),
    workDoneToken: WorkDoneToken,
  }),
  z.object({
    sessions: z.array(SearchSession).describe('Matching sessions, best first: one page.'),
    hits: z.array(SearchHit).describe("The page's hits, session by session (each session's `hits` in turn)."),
    total: z.number().int().describe('Matching sessions in all, whatever `limit` is.'),
    files: z.number().int().describe('Session files searched.'),
    cursor: z.string().optional().describe('Pass it back for the next page; absent on the last one.'),
    ranked: z
      .boolean()
      .describe(
        'false: the search cache was being built and the answer came from scanning the files (same matches, counts in place of BM25).',
      ),
    problems: z.array(Problem),
  }),
  'Ranked full-text search over the session files.',
  true,
);

export const sessionRename = request(
  'session/rename',
  'clientToServer',
  z.object({
    id: SessionId,
    // max before trim: the schema's maxLength is the length as sent, which is what a client
    // validating against protocol.schema.json can check.
    title: z
      .string()
      .max(500)
      .trim()
      .min(1)
      .describe('At most 500 characters as sent, not blank; trimmed, runs of whitespace made one space.'),
  }),
  z.object({ id: SessionId, title: z.string() }),
  'Appends a title event (source "user").',
);

export const sessionDelete = request(
  'session/delete',
  'clientToServer',
  z.object({ id: SessionId }),
  z.object({ id: SessionId }),
  'Moves the session file to the OS trash (never unlinks) and releases it.',
);

// ---- Trash and restore ------------------------------------------------------------------------

export const sessionRestore = request(
  'session/restore',
  'clientToServer',
  z.object({ id: SessionId }),
  z.object({
    id: SessionId,
    project: z.string().describe("The project's real path, from the meta line."),
    path: z.string().describe('Where the session file is again (its place before session/delete).'),
    trashed: z.string().describe('The file in the trash it was moved back from.'),
  }),
  'Brings a session that session/delete moved to the trash back to its place in the store (freedesktop trash; elsewhere an error says so).',
);

export const sessionRelink = request(
  'session/relink',
  'clientToServer',
  z.object({
    from: Project.describe('OLD: the folder the sessions were recorded under (it may be gone).'),
    to: Project.describe('NEW: the folder they become the sessions of (it must exist).'),
    dryRun: z.boolean().optional().describe('Say which sessions would move; move nothing.'),
  }),
  z.object({
    from: z.string(),
    to: z.string(),
    dryRun: z.boolean(),
    sessions: z
      .array(z.object({ id: SessionId, title: z.string(), project: z.string() }))
      .describe('The sessions moved (or that would be).'),
  }),
  "Makes folder OLD's sessions NEW's: their files move unchanged to NEW's folder of the store, recorded in its relinks.jsonl (protocol.md \"Relinked folders\").",
);

// ---- Pins, archive, retention (lifecycle.ts, retention.ts) ------------------------------------

export const sessionPin = request(
  'session/pin',
  'clientToServer',
  z.object({ id: SessionId, pinned: z.boolean().describe('true: pin; false: unpin.') }),
  z.object({ id: SessionId, pinned: z.boolean(), changed: z.boolean().describe('false: it was so already (nothing appended).') }),
  'Appends a pin or unpin event (none when the session is so already).',
);

export const sessionArchive = request(
  'session/archive',
  'clientToServer',
  z.object({ id: SessionId, archived: z.boolean().describe('true: archive; false: unarchive.') }),
  z.object({ id: SessionId, archived: z.boolean(), changed: z.boolean().describe('false: it was so already (nothing appended).') }),
  'Appends an archive or unarchive event (none when the session is so already).',
);

const Days = z.number().int().min(0).describe('Days; 0 turns the rule off.');

export const RetentionItem = z
  .object({
    id: SessionId,
    project: z.string(),
    title: z.string(),
    action: z.enum(['archive', 'delete']),
    reason: z.enum(['idle', 'max-age', 'keep']),
    lastActive: z.string().describe('Its last message, or its last unarchive if later.'),
    skipped: z.string().optional().describe('Why it was left alone (live in a window, a newer schema, an error).'),
  })
  .describe('A session that falls out under the retention rules.');

export const sessionRetention = request(
  'session/retention',
  'clientToServer',
  z.object({
    project: Project.optional().describe('Only this project (default: every project).'),
    dryRun: z.boolean().optional().describe('Say what would be done, do nothing.'),
    delete: z.boolean().optional().describe('Move what keep and maxAgeDays let go to the OS trash instead of archiving it.'),
    autoArchiveDays: Days.optional().describe('Idle days before archiving (default: the initialize option, else 30).'),
    keep: z.number().int().min(0).optional().describe('The most sessions per project; 0: no limit (default: the initialize option).'),
    maxAgeDays: Days.optional().describe('The oldest age kept (default: the initialize option).'),
  }),
  z.object({
    dryRun: z.boolean(),
    settings: z.object({
      idleDays: z.number().nullable(),
      keep: z.number().nullable(),
      maxAgeDays: z.number().nullable(),
      delete: z.boolean(),
    }),
    done: z.array(RetentionItem).describe('What was done (in a dry run: what would be).'),
    skipped: z.array(RetentionItem).describe('What falls out but was left alone.'),
  }),
  'Applies the retention rules (pinned sessions never fall out); archives unless `delete`; a dry run only answers the plan.',
);

export const sessionSeal = request(
  'session/seal',
  'clientToServer',
  z.object({ id: SessionId }),
  z.object({
    id: SessionId,
    title: z.string(),
    titleSource: z.enum(['existing', 'model', 'fallback', 'none']).describe('Where the title came from (none: an empty session).'),
  }),
  'What New Chat does to the old session: titles it if untitled, records a sealed event, releases it.',
);

export const sessionReindex = request(
  'session/reindex',
  'clientToServer',
  z.object({
    project: Project.optional().describe('Only this project (compared by real path); default: every project.'),
    workDoneToken: WorkDoneToken,
  }),
  z.object({
    projects: z.number().int().describe('Project folders reindexed.'),
    sessions: z.number().int().describe('Sessions found in them.'),
    written: z.number().int().describe('index.json files written.'),
    problems: z.array(Problem),
  }),
  'Rebuilds the index.json caches from the session files (never touching a session). The repair behind a "History looks wrong" button.',
  true,
);

export const ImportReport = z
  .object({
    imported: z.number().int().describe('Sessions created by this run.'),
    updated: z.number().int().describe('Sessions of ours that got new events.'),
    unchanged: z.number().int().describe('Sessions whose source had nothing new.'),
    skipped: z.number().int().describe('Sessions not imported: nothing in them, or held by another importer.'),
    problems: z.array(z.object({ path: z.string(), message: z.string() })).describe('What could not be read, per source file or folder.'),
    sessions: z.array(z.object({ id: SessionId, source: ImportSource })).describe('Every session this run created or updated.'),
    tools: z
      .array(
        z.object({
          tool: z.string(),
          label: z
            .string()
            .optional()
            .describe('session/import: the tool\'s name as people know it ("Claude Code"), for a client to show.'),
          found: z.number().int().describe('Source files (or databases) its importer found.'),
          imported: z.number().int(),
          updated: z.number().int(),
          unchanged: z.number().int(),
          skipped: z.number().int(),
          problems: z.number().int(),
        }),
      )
      .describe('The same counts for each tool of the run.'),
    skippedFiles: z
      .array(z.object({ path: z.string(), reason: z.string() }))
      .describe('Source files (or sessions in them) that gave no session, and why (deleted by the user, nothing in it yet, held).'),
    unknownKinds: z
      .array(
        z.object({
          tool: z.string(),
          version: z.string().describe("The tool's version as its records state it ('' when they do not)."),
          kind: z.string().describe('A record kind the importer has never seen: kept verbatim, hidden, and counted here.'),
          count: z.number().int(),
        }),
      )
      .describe('Format drift: source records of kinds their importer does not know, per tool and version.'),
    unreadable: z.array(z.string()).describe('Data folders that could not be read (missing or unreadable).'),
    failed: z.number().int().describe('Sessions read but not written (a full disk, a store that refuses).'),
  })
  .describe('What an import did (the same object `levelcode-sessions import --json` prints).');

export const sessionImport = request(
  'session/import',
  'clientToServer',
  z.object({
    tool: z.string().min(1).optional().describe('An importer name (claude-code, codex, ...) or "all" (the default).'),
    from: z
      .string()
      .min(1)
      .optional()
      .describe("Absolute path: the tool's data folder as the tool lays it out, or one session file. Needs `tool`."),
    dryRun: z.boolean().optional().describe('Say what would be imported; write nothing.'),
    workDoneToken: WorkDoneToken,
  }),
  ImportReport,
  "Imports the sessions of other AI tools into the store (only what is new since the last import). A tool's missing default folder is a problem; `from` that cannot be read fails the request.",
  true,
);

// ---------------------------------------------------------------------------------------------
// Server to client

const ChatLine = z.object({ role: z.enum(['user', 'assistant']), text: z.string() });

export const sessionTitle = request(
  'session/title',
  'serverToClient',
  z.object({
    id: SessionId,
    messages: z.array(ChatLine).describe('The opening of the chat, as plain text.'),
    instructions: z.string(),
    maxTokens: z.number().int(),
  }),
  z.object({ title: z.string().trim().min(1).max(500) }),
  'Asks the client\'s model for a title. Sent only to clients whose callbacks include "title".',
);

export const sessionSummarize = request(
  'session/summarize',
  'serverToClient',
  z.object({
    id: SessionId,
    messages: z
      .array(z.unknown())
      .describe(
        "One piece of the head: the briefing so far first (if any), then the messages, in session/resume's target's shape (verbatim for `levelcode`; shortened only when `shortened` says so).",
      ),
    instructions: z.string(),
    target: z.enum(RESUME_TARGETS).optional().describe('The shape of `messages` (absent: levelcode).'),
    piece: SummaryPiece.optional(),
    coversThrough: z.number().int().optional().describe("The piece's last event: its briefing covers everything through it."),
    inputTokens: z.number().int().optional().describe("This call's estimated input."),
    maxBriefingTokens: z.number().int().optional(),
    shortened: Shortened.optional(),
  }),
  z.object({ briefing: z.string().min(1) }),
  'Asks the client\'s model for a briefing of one piece of a session\'s head (resume tier 3), one call per piece. Sent only to clients whose callbacks include "summarize".',
  true,
);

export const sessionDidChange = notification(
  DID_CHANGE,
  'serverToClient',
  z.object({ id: SessionId, project: z.string(), change: Change }),
  'A session was created, appended to, renamed or deleted, by any process; or (`listed`) a listing that completed after a cold first page places it on that page, which lacked it.',
);

export const importProblem = notification(
  IMPORT_PROBLEM,
  'serverToClient',
  z.object({
    tool: z.string().describe('The importer: `claude-code`, `codex`, ...'),
    path: z.string().describe('The source file (or data folder) the problem is about.'),
    message: z.string().describe('What went wrong, in words a user understands.'),
    fatal: z.boolean().optional().describe('The store could not be written (full, read-only): the import stopped.'),
  }),
  'A problem of following imports (initializationOptions.followImports), sent once per file and problem: a source that cannot be read, a record left out, a full store. A failing file is retried when it changes, else after 30 s, doubling.',
);

// ---------------------------------------------------------------------------------------------

export const REQUESTS = [
  sessionNew,
  sessionAppend,
  sessionList,
  sessionRead,
  sessionResume,
  sessionFork,
  sessionHandoff,
  sessionCompact,
  sessionExport,
  sessionSearch,
  sessionRename,
  sessionDelete,
  sessionRestore,
  sessionRelink,
  sessionSeal,
  sessionRelease,
  sessionPin,
  sessionArchive,
  sessionRetention,
  sessionReindex,
  sessionImport,
  sessionTitle,
  sessionSummarize,
] as const;
export const NOTIFICATIONS = [sessionDidChange, importProblem] as const;
export const ALL_MESSAGES: readonly (RequestDescriptor | NotificationDescriptor)[] = [...REQUESTS, ...NOTIFICATIONS];

export type ParamsOf<D extends { params: z.ZodType }> = z.output<D['params']>;
export type ResultOf<D extends { result: z.ZodType }> = z.output<D['result']>;
export type DidChangeParams = z.infer<typeof sessionDidChange.params>;
