// Every JSON-RPC error code the sidecar sends, with one line of meaning each, and the one place
// where a core StoreError becomes a protocol error. protocol.md's "Errors" table mirrors this
// module (a test checks every code here appears there).
//
// Depends on vscode-languageserver (ResponseError) and the core's error codes; the core must not
// import this file: it knows nothing of JSON-RPC.
//
// Numbering: the reserved codes are JSON-RPC's and LSP's own. Ours live in -33001..-33099, outside
// both JSON-RPC's reserved block (-32768..-32000, where LSP already put -32001/-32002) and LSP's
// reserved range (-32899..-32800), so no LSP client library mistakes one of ours for one of theirs.

// Through require (lsp.ts): the sidecar loads this before it answers `initialize`.
import { lsp } from './lsp.js';
const { ResponseError } = lsp;
type ResponseError<D> = import('vscode-languageserver').ResponseError<D>;
import type { ZodError } from 'zod';
import { StoreError, type StoreErrorCode } from '../store/errors.js';

export interface ErrorCodeInfo {
  code: number;
  name: string;
  /** Reserved by JSON-RPC 2.0 / LSP (true) or defined by this project (false). */
  reserved: boolean;
  meaning: string;
}

export const RpcErrorCodes = {
  // JSON-RPC 2.0 and LSP, reserved.
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerNotInitialized: -32002,
  RequestCancelled: -32800,
  ContentModified: -32801,
  // LevelCode Sessions.
  UnknownSession: -33001,
  BadSessionId: -33002,
  InvalidProject: -33003,
  SessionLocked: -33004,
  SchemaTooNew: -33005,
  CorruptSession: -33006,
  NoSpace: -33007,
  ReadOnlyStore: -33008,
  StoreIo: -33009,
  FeatureUnavailable: -33010,
  CallbackFailed: -33011,
  HandoffFailed: -33012,
  SessionConflict: -33013,
} as const;
export type RpcErrorName = keyof typeof RpcErrorCodes;

const MEANING: Record<RpcErrorName, string> = {
  ParseError:
    'Never sent: a frame body that is not JSON is skipped, and serving goes on (JSON-RPC would answer it; LSP libraries skip it).',
  InvalidRequest:
    'A request after `shutdown`, or a second `initialize`. JSON that is not a request is skipped (logged with `window/logMessage`), never answered.',
  MethodNotFound: 'No such method.',
  InvalidParams: 'Params fail the schema (`data.issues`); events that fail the event schema land here too.',
  InternalError: 'A bug in the sidecar; the message says what failed.',
  ServerNotInitialized: 'A request before `initialize`.',
  RequestCancelled: 'The client cancelled the request with `$/cancelRequest`; nothing was written.',
  ContentModified: 'The session changed (or the sidecar restarted) between `session/resume` and `session/compact`; resume again.',
  UnknownSession: 'No session with that id in the store.',
  BadSessionId:
    "Never sent over JSON-RPC: an id that is not a session id fails the params' schema (-32602). Kept for the store's `bad-id`.",
  InvalidProject: 'The project path is missing, not absolute or not a directory.',
  SessionLocked: 'Another live process owns the session (`data.heldBy`); read it, or open a copy.',
  SchemaTooNew: 'The file was written by a newer schema version than this sidecar understands.',
  CorruptSession: 'The file has no readable meta line.',
  NoSpace: 'The disk is full; nothing was written.',
  ReadOnlyStore: 'The store cannot be written (permissions or a read-only file system).',
  StoreIo: 'Any other file system failure (`data.errno`).',
  FeatureUnavailable: 'The sidecar cannot do this for this client or session (see `session/resume`).',
  CallbackFailed: 'A server-to-client callback failed or was refused; the session is unchanged.',
  HandoffFailed:
    "`session/handoff` wrote nothing: the tool's installed version writes a format this sidecar does not know, the session does not fit the tool's model, or the tool's folder cannot be written (`data.path`).",
  SessionConflict:
    'The append carried `expectedSeq` and the session had moved on (another window wrote to it; `data.expectedSeq`, `data.nextSeq`, `data.turn`); nothing was written. Tell the user the chat is continuing in another window and offer a copy (`session/fork` at `data.turn`).',
};

export const ERROR_CODES: readonly ErrorCodeInfo[] = (Object.keys(RpcErrorCodes) as RpcErrorName[]).map((name) => ({
  code: RpcErrorCodes[name],
  name,
  reserved: RpcErrorCodes[name] > -33000,
  meaning: MEANING[name],
}));

const FROM_STORE: Record<StoreErrorCode, number> = {
  'unknown-session': RpcErrorCodes.UnknownSession,
  'bad-id': RpcErrorCodes.BadSessionId,
  'invalid-project': RpcErrorCodes.InvalidProject,
  'invalid-events': RpcErrorCodes.InvalidParams,
  locked: RpcErrorCodes.SessionLocked,
  conflict: RpcErrorCodes.SessionConflict,
  'schema-too-new': RpcErrorCodes.SchemaTooNew,
  'corrupt-session': RpcErrorCodes.CorruptSession,
  'no-space': RpcErrorCodes.NoSpace,
  'read-only': RpcErrorCodes.ReadOnlyStore,
  io: RpcErrorCodes.StoreIo,
};

/** The protocol code of a core failure. */
export function codeOfStoreError(code: StoreErrorCode): number {
  return FROM_STORE[code] ?? RpcErrorCodes.StoreIo;
}

/** `error.data` always carries `reason` (the core's code) next to whatever the core attached. */
function dataOf(e: StoreError): Record<string, unknown> {
  const extra = e.data;
  if (e.code === 'invalid-events') {
    // The store hands zod issues (an array, or an object holding them); the protocol promises `issues`.
    const issues = Array.isArray(extra) ? extra : ((extra as { issues?: unknown } | undefined)?.issues ?? extra);
    return { reason: e.code, issues };
  }
  if (extra && typeof extra === 'object' && !Array.isArray(extra)) return { reason: e.code, ...(extra as object) };
  return extra === undefined ? { reason: e.code } : { reason: e.code, detail: extra };
}

/** Turns anything a handler threw into the ResponseError the client sees. */
export function toResponseError(err: unknown, method: string): ResponseError<unknown> {
  if (err instanceof ResponseError) return err;
  if (err instanceof StoreError) return new ResponseError(codeOfStoreError(err.code), err.message, dataOf(err));
  const message = err instanceof Error ? err.message : String(err);
  return new ResponseError(RpcErrorCodes.InternalError, `${method} failed: ${message}`);
}

export function invalidParams(method: string, error: ZodError): ResponseError<unknown> {
  const first = error.issues[0];
  const where = first && first.path.length > 0 ? ` at ${first.path.map(String).join('.')}` : '';
  return new ResponseError(RpcErrorCodes.InvalidParams, `Invalid params for ${method}${where}: ${first?.message ?? 'schema violation'}`, {
    issues: error.issues,
  });
}

export function rpcError(name: RpcErrorName, message: string, data?: unknown): ResponseError<unknown> {
  return new ResponseError(RpcErrorCodes[name], message, data);
}
