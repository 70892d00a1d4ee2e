// The protocol constants the sidecar needs to answer `initialize`, without zod: split from
// protocol.ts (which re-exports them) so that `initialize` is answered before zod, the store
// and the handlers load. Kept for the guardrail "sidecar start to `initialize` answered"
// (bench/PERFORMANCE.md): with protocol.ts (zod) imported at start it was missed.
// Depends on nothing.

/** Bumped on any incompatible change to a method of protocol.ts. Clients read it from `initialize`. */
export const PROTOCOL_VERSION = 1;

export const CALLBACKS = ['summarize', 'title'] as const;
export type Callback = (typeof CALLBACKS)[number];

export const FEATURES = [
  'export',
  'search',
  'fork',
  'progress',
  'cancel',
  'didChange',
  'resume.planner',
  'resume.compact',
  'seal.title',
  'reindex',
  'import',
  // Fork at a turn, restore from the trash (where it can be searched), relink
  'fork.atTurn',
  'restore',
  'relink',
  // Pins, archive and retention: session/pin, session/archive, session/retention, list's `archived`.
  'lifecycle',
  // session/resume's `target`, and session/handoff.
  'resume.targets',
  'handoff',
] as const;
export type Feature = (typeof FEATURES)[number];

/** The method name of protocol.ts's sessionDidChange. */
export const DID_CHANGE = 'session/didChange';
export const IMPORT_PROBLEM = '$/levelcode/importProblem';
