// The protocol constants the sidecar needs to answer `initialize`, without zod: split from
// protocol.ts (which re-exports them) so that the sidecar can answer `initialize` before it
// loads zod, the store and the handlers (bench/PERFORMANCE.md: sidecar start).
// Depends on nothing.

/** Bumped on any incompatible change to a method of protocol.ts. Clients read it from `initialize`. */
export const PROTOCOL_VERSION = 1;

export const CALLBACKS = ['summarize', 'title'] as const;
export type Callback = (typeof CALLBACKS)[number];

export const FEATURES = ['export', 'search', 'fork', 'progress', 'cancel', 'didChange', 'resume.planner', 'resume.compact', 'seal.title', 'reindex', 'import'] as const;
export type Feature = (typeof FEATURES)[number];

/** The method name of protocol.ts's sessionDidChange. */
export const DID_CHANGE = 'session/didChange';
