// The public API of the LevelCode Sessions extension (its `exports`), shipped in the .vsix for
// chat extensions that want their turns saved like files and resumable from the History:
//
//   const ext = vscode.extensions.getExtension<LevelCodeSessionsApi>('levelcode.levelcode-sessions');
//   const api = await ext?.activate();
//
// Copy this file into your extension (it depends on `vscode` types only). Every method talks to
// the extension's sidecar; failures reject with an Error whose `code` is the sidecar's JSON-RPC
// error code when there is one (protocol.md, "Errors"). Versioned by `apiVersion`.

import type { CancellationToken, Event } from 'vscode';

/** Session ids look like 2026-07-28T09-12-33-8f3k (UTC birth time and four random characters). */
export type SessionId = string;

/** One History entry. */
export interface SessionSummary {
  id: SessionId;
  /** The project's real path. */
  project: string;
  /** The latest title, or a fallback from the first user message. */
  title: string;
  /** False when `title` is only the fallback. */
  titled: boolean;
  createdAt: string;
  /** Time of the last event. */
  updatedAt: string;
  /** Number of user messages. */
  turns: number;
  model: string | null;
  /** One line of a user message. */
  preview: string;
  v: number;
  bytes: number;
}

/**
 * An event to append. `t` (ISO time) is stamped when left out. Provider payloads are stored
 * verbatim, so resume hands back exactly what was sent.
 */
export type SessionEventInput =
  | { kind: 'user'; t?: string; content: unknown; contextFiles?: string[]; [key: string]: unknown }
  | { kind: 'assistant'; t?: string; content: unknown; model?: string; [key: string]: unknown }
  | { kind: 'agent'; t?: string; messages: unknown[]; [key: string]: unknown }
  | { kind: 'event'; t?: string; type: string; [key: string]: unknown }
  | { kind: 'title'; t?: string; title: string; source?: 'user' | 'model' | 'fallback'; [key: string]: unknown };

export interface NewSessionOptions {
  /** Absolute project folder; default: the first workspace folder. */
  project?: string;
  /** The model the chat starts with. */
  model?: string;
}

export interface ResumeOptions {
  /** The model's context window in tokens; default: the chosen vscode.lm model's, else the setting. */
  contextWindow?: number;
  /** Share of the window resume may spend; default: the setting levelcodeSessions.budgetRatio. */
  budgetRatio?: number;
  /** Resume a fresh copy instead of the session itself (when another window owns it). */
  copy?: boolean;
  /** The user already agreed to a costly summary. */
  confirm?: boolean;
  token?: CancellationToken;
}

export interface ResumeResult {
  /** The session resumed (a new id when `copy` was set). */
  id: SessionId;
  /** 1 verbatim, 2 incremental, 3 compact-on-resume (a summary of the head, then recent turns). */
  tier: 1 | 2 | 3;
  /** Chat messages, {role, content}, for the chat view. */
  conversation: unknown[];
  /** The agent loop's messages, verbatim, for the model. */
  agentMessages: unknown[];
  /** One line to show in the chat, e.g. "Resumed from summary — full transcript in History." */
  note?: string;
  /** Another process owns the session: show it, offer a copy. */
  readOnly: boolean;
  forkedFrom?: SessionId;
  tokens?: { transcript: number; budget: number; window: number };
  /** Tier 3 over the consent threshold: nothing happened; call again with `confirm: true` after asking. */
  needsConfirmation?: { inputTokens: number; threshold: number };
}

export interface SealResult {
  id: SessionId;
  title: string;
  titleSource: 'existing' | 'model' | 'fallback' | 'none';
}

export interface SessionChange {
  id: SessionId;
  project: string;
  /**
   * `listed`: nothing in the session changed; History learnt its place late (a first listing
   * of a store with no caches showed the newest page before reading every file).
   */
  change: 'created' | 'appended' | 'renamed' | 'deleted' | 'listed';
}

export interface ResumedEvent {
  /** The user chose Resume in the History (or Resume Last Chat); show this conversation. */
  result: ResumeResult;
  title: string;
}

export interface NewChatEvent {
  /** The session that New Chat sealed (saved to History), if there was one. */
  sealed?: SealResult;
}

export interface LevelCodeSessionsApi {
  readonly apiVersion: 1;
  /** Creates an empty session and makes it the current chat (the one New Chat seals). */
  newSession(options?: NewSessionOptions): Promise<{ id: SessionId; project: string; createdAt: string }>;
  /**
   * Appends events in order, all or nothing; resolves once they are on disk. From its second
   * append to a session on, the extension sends the seq it expects (the previous `lastSeq` + 1):
   * when another window continued the chat in between, nothing is written and the promise rejects
   * with code -33013 (SessionConflict; `data.turn`: fork there with a copy to go on).
   */
  append(id: SessionId, events: SessionEventInput[]): Promise<{ appended: number; firstSeq: number; lastSeq: number }>;
  /** Sessions of a project (default: the workspace's), newest first; `all` lists every project. */
  list(options?: { project?: string; all?: boolean }): Promise<SessionSummary[]>;
  /** Rebuilds a session's working context and makes it the current chat. Tier 3 asks the editor's model. */
  resume(id: SessionId, options?: ResumeOptions): Promise<ResumeResult>;
  /** What New Chat does to a session: title it if untitled, mark it sealed, let it go. */
  seal(id: SessionId): Promise<SealResult>;
  /** The Markdown transcript of a session (what Copy as Markdown copies). */
  exportMarkdown(id: SessionId): Promise<string>;
  /** The current chat's session, if any. */
  readonly currentSessionId: SessionId | undefined;
  /**
   * The user resumed a chat from the History: show `result.conversation`. Subscribing registers
   * your extension for Resume: when @history could continue the chat too, the user is asked
   * which one does (your extension by its display name), and you are told only when picked.
   */
  readonly onDidResume: Event<ResumedEvent>;
  /** The user chose New Chat: clear the chat view (the old session is already saved). */
  readonly onDidStartNewChat: Event<NewChatEvent>;
  /** A session changed in the store, written by any window or tool. */
  readonly onDidChangeSessions: Event<SessionChange>;
}
