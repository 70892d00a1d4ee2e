// The on-disk session format, defined once. Every line of a session file is one of these
// shapes; the sidecar, the CLI, the tests and protocol.schema.json all derive from here.
// Depends on zod and text.ts only: no fs, no JSON-RPC.
//
// Provider payloads (`content`, `messages`) are opaque to us and kept verbatim: the schemas
// check the envelope (kind, t, the fields we read) and pass every other key through untouched,
// so a reader of a newer writer's line keeps fields it does not know.

import { z } from 'zod';

/** The schema version this build writes and fully understands. */
export const SCHEMA_VERSION = 1;

// The session id pattern, oneLine, textOf and the nesting limit live in text.ts; they are part
// of this module's interface all the same.
import { SESSION_ID_RE, defineOwn } from './text.js';
export { SESSION_ID_RE, oneLine, textOf, MAX_DEPTH, tooDeep, defineOwn } from './text.js';

export const SessionId = z
  .string()
  .regex(SESSION_ID_RE, 'a session id looks like 2026-07-28T09-12-33-8f3k')
  .describe('Session id: UTC time of birth (YYYY-MM-DDTHH-MM-SS) and four random [a-z0-9].');

const IsoTime = z.iso.datetime({ offset: true }).describe('ISO 8601 time, e.g. 2026-07-28T09:12:33.120Z');

/** Where an imported session came from (server/import/types.ts SourceRef). */
export const ImportSource = z
  .looseObject({
    tool: z
      .string()
      .min(1)
      .max(100)
      .describe("The importer's name, one of those protocol.md lists (claude-code, codex, gemini, vscode, ...)."),
    version: z.string().max(100).optional().describe("The tool's version as its records state it."),
    path: z.string().min(1).describe('The absolute path of the source file the session was read from.'),
    id: z.string().min(1).max(500).describe("The tool's own session id (what `claude --resume ID` takes)."),
    project: z.string().min(1).describe('The project folder the tool recorded (its cwd).'),
    variant: z
      .string()
      .max(200)
      .optional()
      .describe('Set when one source id gave several sessions (a kept branch, an n-th chat of one file).'),
    forkedFrom: z
      .looseObject({
        id: z.string().min(1).max(500).describe("The parent's id in the tool's own ids."),
        turn: z.number().int().min(0).optional().describe("How many of the parent's turns the fork starts from, where the tool says."),
      })
      .optional()
      .describe('Set when the tool records the session as a fork of another (History resolves it to our id of the parent).'),
  })
  .describe('The source of an imported session.');
export type ImportSource = z.infer<typeof ImportSource>;

// ---- Forks and moved folders ------------------------------------------------------------------

/** The parent of a fork: its id and the last of its turns the fork holds. */
export const ForkedFrom = z
  .object({
    id: SessionId,
    turn: z.number().int().min(0).describe('The fork holds turns 1 to this one of the parent (all of them for a whole copy).'),
    device: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Set on a fork made from a sync conflict: the device the diverging copy was written on ("continued on <device>").'),
  })
  .describe('The session a fork was made from.');
export type ForkedFrom = z.infer<typeof ForkedFrom>;

/** What makes a git repository the same repository after its folder moved (server/store/identity.ts). */
export const RepoIdentity = z
  .looseObject({
    roots: z
      .array(z.string().regex(/^[0-9a-f]{40,64}$/))
      .min(1)
      .describe('The root commits of HEAD (sorted), as `git rev-list --max-parents=0 HEAD` prints them.'),
    prefix: z
      .string()
      .describe("The project's folder inside the repository: '' at its top, else `sub/dir/` (git rev-parse --show-prefix)."),
    remotes: z.array(z.string()).optional().describe('The fetch URLs of its remotes, without credentials, sorted.'),
  })
  .describe("A project's git identity.");
export type RepoIdentity = z.infer<typeof RepoIdentity>;

/** Line 1 of every session file. Written once, at birth, never changed. */
export const MetaLine = z
  .looseObject({
    kind: z.literal('meta'),
    v: z.number().int().positive().describe('Schema version of the file.'),
    id: SessionId,
    project: z.string().min(1).describe("The project's absolute real path."),
    createdAt: IsoTime,
    title: z.string().nullable().describe('Always null at birth; titles are appended as title events.'),
    model: z.string().optional().describe('Model the session started with, if known.'),
    source: ImportSource.optional().describe('Set when the session was imported from another tool (server/import): where it came from.'),
    importedAt: IsoTime.optional().describe(
      'Set on an imported session: when the import made it ours. Idle time (auto-archive) counts from it at the earliest.',
    ),
    forkedFrom: ForkedFrom.optional().describe(
      'Set on a fork or copy (session/fork): the session it was made from and the turn it stops at.',
    ),
    repo: RepoIdentity.optional().describe(
      'The git identity of the project when the session was created (protocol.md "When two folders are one project").',
    ),
    device: z.string().max(200).optional().describe('The device the session was created on (its host name, or LEVELCODE_SESSIONS_DEVICE).'),
  })
  .describe('The meta line: line 1 of a session file.');
export type MetaLine = z.infer<typeof MetaLine>;

const base = { t: IsoTime };

export const UserEvent = z
  .looseObject({
    kind: z.literal('user'),
    ...base,
    content: z
      .unknown()
      .refine((v) => v !== undefined, 'content is required')
      .describe('What the user sent: a string, or provider content blocks, verbatim.'),
    contextFiles: z.array(z.string()).optional().describe('Files attached as context to this message.'),
  })
  .describe('A user message.');

export const AssistantEvent = z
  .looseObject({
    kind: z.literal('assistant'),
    ...base,
    content: z
      .unknown()
      .refine((v) => v !== undefined, 'content is required')
      .describe('Provider content blocks of the answer, verbatim (a string is accepted too).'),
    model: z.string().optional(),
  })
  .describe('An assistant answer in the chat conversation.');

export const AgentEvent = z
  .looseObject({
    kind: z.literal('agent'),
    ...base,
    messages: z.array(z.unknown()).describe("This turn's agent-loop messages, verbatim (tool_use/tool_result included)."),
  })
  .describe("The agent loop's messages of one turn.");

export const MarkerEvent = z
  .looseObject({
    kind: z.literal('event'),
    ...base,
    type: z.string().min(1).describe('checkpoint, reload, interrupted, reaped, sealed, ...; other fields ride along.'),
  })
  .describe('Something that happened to the session (not a message).');

export const TitleEvent = z
  .looseObject({
    kind: z.literal('title'),
    ...base,
    title: z.string().min(1).max(500),
    source: z.enum(['user', 'model', 'fallback']).optional().describe('Who chose the title.'),
  })
  .describe('A title. The latest title event wins; rename appends one.');

export const CompactEvent = z
  .looseObject({
    kind: z.literal('compact'),
    ...base,
    briefing: z.string().min(1).describe("A summary of the transcript's head, for the model's context only."),
    coversThrough: z.number().int().min(0).describe('Sequence number of the last event the briefing covers (see "Sequence numbers").'),
  })
  .describe('A compaction: a briefing of the head. The transcript itself is never replaced.');

export const SessionEvent = z
  .discriminatedUnion('kind', [UserEvent, AssistantEvent, AgentEvent, MarkerEvent, TitleEvent, CompactEvent])
  .describe('One event line of a session file.');
export type SessionEvent = z.infer<typeof SessionEvent>;
export type UserEvent = z.infer<typeof UserEvent>;
export type AssistantEvent = z.infer<typeof AssistantEvent>;
export type AgentEvent = z.infer<typeof AgentEvent>;
export type MarkerEvent = z.infer<typeof MarkerEvent>;
export type TitleEvent = z.infer<typeof TitleEvent>;
export type CompactEvent = z.infer<typeof CompactEvent>;
export type EventKind = SessionEvent['kind'];
export const EVENT_KINDS: readonly EventKind[] = ['user', 'assistant', 'agent', 'event', 'title', 'compact'];

/**
 * Events as a writer hands them in: `t` may be left out and is then stamped at append time.
 */
export const IncomingEvent = z
  .looseObject({ kind: z.enum(EVENT_KINDS as [EventKind, ...EventKind[]]), t: IsoTime.optional() })
  .describe('An event to append; `t` defaults to the time of the append.');

/**
 * A source record an importer kept verbatim that is not conversation (a tool's bookkeeping, API
 * copies, UI state, attachments, injected system notices; server/import/types.ts RecordKinds):
 * it stays in the store, and transcripts, titles, previews, turn counts, search and MCP pass
 * over it.
 */
export function isHiddenEvent(e: { kind: string; type?: unknown }): boolean {
  return e.kind === 'event' && e.type === 'source-record';
}

/**
 * What an imported tool sent its model that nobody typed (an environment block, AGENTS.md, a
 * session-context preamble): an agent event with `context: true`. It stays in the store and in
 * resume; transcripts (show, export, MCP) leave it out, as the tool's own UI does.
 */
export function isInjectedContext(e: { kind: string; context?: unknown }): boolean {
  return e.kind === 'agent' && e.context === true;
}

/** A read event with its position: seq 0 is the first line after the meta line. */
export interface SeqEvent {
  seq: number;
  event: SessionEvent;
}

/**
 * Serialises one line the way every writer of this project does: `kind` and `t` first (so a
 * reader can classify a line from its first bytes), the rest in the order given.
 */
export function serializeLine(obj: Record<string, unknown>): string {
  const { kind, t, ...rest } = obj;
  const ordered: Record<string, unknown> = t === undefined ? { kind } : { kind, t };
  for (const k of Object.keys(rest)) defineOwn(ordered, k, rest[k]);
  return JSON.stringify(ordered);
}

/**
 * serializeLine's line cut around its `raw` value: `head + JSON.stringify(obj.raw) + tail` is
 * serializeLine(obj), so a writer that holds the bytes `raw` was parsed from writes those in
 * between instead of serialising the record again. Undefined when the line has no `raw`.
 */
export function serializeAroundRaw(obj: Record<string, unknown>): { head: string; tail: string } | undefined {
  if (obj.raw === undefined || !Object.hasOwn(obj, 'raw')) return undefined;
  // The members as JSON.stringify writes an object's: `"key":value`, comma-separated, a member
  // whose value does not serialise (undefined) left out.
  let head = '{';
  let tail = '';
  let inTail = false;
  let first = true;
  const member = (k: string, v: unknown) => {
    if (k === 'raw') {
      head += `${first ? '' : ','}"raw":`;
      inTail = true;
      first = false;
      return;
    }
    const json = JSON.stringify(v);
    if (json === undefined) return;
    const m = `${first ? '' : ','}${JSON.stringify(k)}:${json}`;
    first = false;
    if (inTail) tail += m;
    else head += m;
  };
  member('kind', obj.kind);
  member('t', obj.t);
  for (const k of Object.keys(obj)) if (k !== 'kind' && k !== 't') member(k, obj[k]);
  return { head, tail: tail + '}' };
}
