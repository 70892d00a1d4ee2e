// How the extension reads a failed sidecar request: the JSON-RPC error code, and a message for
// the user (the known codes in the user's words, else the error's own text). Shared by the chat,
// the @history participant and the commands; it imports only the protocol and the strings.

import { ErrorCodes } from './protocol';
import { S } from './strings';

export function codeOf(e: unknown): number | undefined {
  const c = (e as { code?: unknown } | undefined)?.code;
  return typeof c === 'number' ? c : undefined;
}

export function messageOf(e: unknown): string {
  if (codeOf(e) === ErrorCodes.UnknownSession) return S.errors.unknownSession;
  if (codeOf(e) === ErrorCodes.SessionLocked) return S.errors.locked;
  return e instanceof Error ? e.message : String(e);
}
