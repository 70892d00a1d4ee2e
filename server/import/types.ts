// The shape every importer has: one small module a tool (server/import/<tool>.ts) that finds the
// tool's session files and maps their records to our events, keeping each source record
// verbatim beside the event made from it. The import engine (server/import/engine.ts) is the
// only part that writes: it decides what is new, what grew and what was reset, and appends.
// Depends on the event format only: no store, no JSON-RPC, no argv.

import type { EventKind } from '../format/events.js';

/** Where an imported session came from; recorded in our meta line as `source`. */
export interface SourceRef {
  /** The importer's name: 'claude-code', 'codex', 'gemini', 'vscode', ... */
  tool: string;
  /** The tool's version as its records state it, when they do. */
  version?: string;
  /** The absolute path of the source file (or database) the session was read from. */
  path: string;
  /** The tool's own session id (what `claude --resume ID` and the like take). */
  id: string;
  /** The project folder the tool recorded for the session (its cwd), absolute. */
  project: string;
  /** The engine sets it from MappedSession.variant when that is not '' (one id, several sessions). */
  variant?: string;
  /**
   * The session this one was forked from, as the tool records it: the parent's source id (in
   * the tool's own ids) and, where the tool says, how many of the parent's turns the fork
   * starts from. History resolves it to our id of the parent (listing/catalog.ts).
   */
  forkedFrom?: { id: string; turn?: number };
}

/**
 * The record kinds an importer knows, by the name its `kindOf` gives a record: those it maps to
 * conversation events, and those it keeps verbatim but hidden (`source-record`: bookkeeping,
 * API copies, UI state, attachments, injected notices). A kept record of any other kind is one
 * the importer has never seen: the engine counts it per tool and version (`unknownKinds`), so a
 * format change announces itself.
 */
export interface RecordKinds {
  mapped: readonly string[];
  hidden: readonly string[];
}

/**
 * One event mapped from the source: an event of ours (kind, t and the kind's fields), with the
 * source record(s) it was made from under `raw`, verbatim (parsed JSON, never re-shaped). A
 * record we do not map becomes `{kind: 'event', type: 'source-record', raw}` so nothing is lost.
 * A record readJsonl parsed is never changed after: the store writes the line it came from as
 * its `raw` (jsonl.ts sourceLineOf).
 */
export type MappedEvent = { kind: EventKind; t: string; raw?: unknown } & Record<string, unknown>;

/** One session of another tool, as its importer read it. */
export interface MappedSession {
  source: SourceRef;
  /** ISO time of the session's first record (the tool's own creation time where it has one). */
  createdAt: string;
  /**
   * The time our id is derived from, when createdAt is not stable across reads (a tool that
   * records no birth, so createdAt falls back to a file time): a fixed time makes the id depend
   * on the source id alone. Default: createdAt.
   */
  idTime?: string;
  /** The model the session started with, when the records say. */
  model?: string;
  /**
   * The events, oldest first. Deterministic: reading the same bytes twice gives the same list,
   * and reading a source that only grew gives the earlier list as a prefix (the engine relies
   * on it to append only what is new).
   */
  events: MappedEvent[];
  /**
   * A large source's events read again from its file while they are written, instead of held
   * (`events` is then empty): bounded memory whatever the session's size (claude-code.ts).
   */
  streamed?: StreamedEvents;
  /**
   * Distinguishes sessions that share a source id (a Claude Code rewind branch kept beside the
   * main one, an Aider file's n-th chat): '' for the main one.
   */
  variant?: string;
  /** What could not be read, in words a user understands (a torn last line, a bad record at line N). */
  problems: string[];
}

/**
 * The events of a session read in two passes: `count` known from the first, the events made
 * again, in order, each time `events()` is iterated (the same list `events` would have been).
 * An iteration that finds the file changed since the first pass throws SourceChanged.
 */
export interface StreamedEvents {
  count: number;
  events(): AsyncIterable<MappedEvent>;
}

/** A source read in two passes changed between them: read again on a later run. */
export class SourceChanged extends Error {}

/** A session file (or database) of the tool, as discovered. */
export interface SourceFile {
  path: string;
  /** Of the file and its parts together. */
  size: number;
  /** The latest of the file and its parts. */
  mtimeNs: bigint;
  /**
   * The file's own inode change time and inode number, where discovery has them (statFile): with
   * size and mtime they let the engine skip an unchanged file on its stat alone.
   */
  ctimeNs?: bigint;
  ino?: bigint;
  /** Other files read as part of this session (Claude Code's subagent files), when there are. */
  parts?: string[];
  /** The folder or file discover was given: what read stays confined to (registry.ts). */
  root?: string;
  /** A folder discovery could not read: this "source" fails with this message when read (registry.ts). */
  unreadable?: string;
}

/**
 * What an importer module (server/import/<tool>.ts) exports. Its id, label and the command that
 * continues a session in the tool are its descriptor's (tools.ts), joined to it by registry.ts.
 */
export interface ImporterModule {
  /**
   * The data folders the tool uses by default on this machine (those that exist or not). An
   * importer that must read files to know them (Aider: the project folders other tools
   * recorded) answers a promise and reads through the store's async no-follow helpers.
   */
  defaultRoots(env: NodeJS.ProcessEnv, home: string): string[] | Promise<string[]>;
  /**
   * The session files under a data folder laid out as the tool lays it out, or the one file
   * given. An unreadable folder is an error (thrown), never an empty list.
   */
  discover(root: string): Promise<SourceFile[]>;
  /** Reads one source into its sessions. Bad content is a problem in the result, never a throw. */
  read(file: SourceFile): Promise<MappedSession[]>;
  /** The record kinds this importer knows (see RecordKinds); with kindOf, unknown kinds are counted. */
  kinds?: RecordKinds;
  /** The kind of one source record (a kept `raw`), as RecordKinds names kinds; undefined: not a record. */
  kindOf?(raw: unknown): string | undefined;
}

/** An importer as the registry gives it (registry.ts): the module with its descriptor's names. */
export interface Importer extends ImporterModule {
  /** The name on the command line and in `source.tool`: 'claude-code'. */
  tool: string;
  /** The name people know: 'Claude Code'. */
  label: string;
}
