// Domain failures of the core, as values with a stable code. The core knows nothing of
// JSON-RPC: server/rpc/errors.ts maps these codes to protocol error numbers, the CLI maps them
// to messages and exit codes.

export type StoreErrorCode =
  | 'unknown-session' // no session file with that id in the store
  | 'bad-id' // not a session id (or an id that tries to escape the store)
  | 'invalid-project' // project path missing, not absolute, or not a directory
  | 'invalid-events' // events that fail the schema; nothing was written
  | 'locked' // another live process owns the session
  | 'conflict' // an append's expectedSeq is not the session's next seq: another window wrote first
  | 'schema-too-new' // the file's schema version is newer than this build writes
  | 'corrupt-session' // no readable meta line
  | 'no-space' // the disk is full (ENOSPC / EDQUOT)
  | 'read-only' // the store cannot be written (EROFS / EACCES / EPERM)
  | 'io'; // any other filesystem failure

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  readonly data: unknown;
  constructor(code: StoreErrorCode, message: string, data?: unknown) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
    this.data = data;
  }
}

export function isStoreError(e: unknown, code?: StoreErrorCode): e is StoreError {
  return e instanceof StoreError && (code === undefined || e.code === code);
}

/** Turns a Node fs error into a StoreError with a message a person can act on. */
export function fromFsError(err: unknown, what: string): StoreError {
  if (err instanceof StoreError) return err;
  const e = err as NodeJS.ErrnoException;
  const code = e?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new StoreError('no-space', `${what}: the disk is full (${code})`, { errno: code });
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM')
    return new StoreError('read-only', `${what}: permission denied (${code})`, { errno: code });
  return new StoreError('io', `${what}: ${e?.message ?? String(err)}`, { errno: code });
}
