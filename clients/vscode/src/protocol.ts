// The sidecar's methods as the extension uses them. Types only come from the one definition,
// server/rpc/protocol.ts (a type-only import: nothing of zod or the server reaches the bundle),
// so a renamed method or a changed result breaks this build instead of the user's History.

import type * as P from '../../../server/rpc/protocol.js';

export type SessionSummary = P.SessionSummary;
export type ServerCapability = P.ServerCapability;
/** One AI tool the sidecar knows (its capability's `tools`): id, label, continue-in, hand-off. */
export type ToolInfo = P.ServerCapability['tools'][number];
export type DidChangeParams = P.DidChangeParams;
export type Feature = P.Feature;

export type NewParams = P.ParamsOf<typeof P.sessionNew>;
export type NewResult = P.ResultOf<typeof P.sessionNew>;
export type AppendParams = P.ParamsOf<typeof P.sessionAppend>;
export type AppendResult = P.ResultOf<typeof P.sessionAppend>;
export type ListParams = P.ParamsOf<typeof P.sessionList>;
export type ListResult = P.ResultOf<typeof P.sessionList>;
export type ResumeParams = P.ParamsOf<typeof P.sessionResume>;
export type ResumeResult = P.ResultOf<typeof P.sessionResume>;
export type ExportParams = P.ParamsOf<typeof P.sessionExport>;
export type ExportResult = P.ResultOf<typeof P.sessionExport>;
export type SearchParams = P.ParamsOf<typeof P.sessionSearch>;
export type SearchResult = P.ResultOf<typeof P.sessionSearch>;
export type RenameParams = P.ParamsOf<typeof P.sessionRename>;
export type RenameResult = P.ResultOf<typeof P.sessionRename>;
export type DeleteParams = P.ParamsOf<typeof P.sessionDelete>;
export type DeleteResult = P.ResultOf<typeof P.sessionDelete>;
export type SealParams = P.ParamsOf<typeof P.sessionSeal>;
export type SealResult = P.ResultOf<typeof P.sessionSeal>;
export type ReleaseParams = P.ParamsOf<typeof P.sessionRelease>;
export type ReleaseResult = P.ResultOf<typeof P.sessionRelease>;
export type PinParams = P.ParamsOf<typeof P.sessionPin>;
export type PinResult = P.ResultOf<typeof P.sessionPin>;
export type ArchiveParams = P.ParamsOf<typeof P.sessionArchive>;
export type ArchiveResult = P.ResultOf<typeof P.sessionArchive>;
export type ForkParams = P.ParamsOf<typeof P.sessionFork>;
export type ForkResult = P.ResultOf<typeof P.sessionFork>;
export type RestoreParams = P.ParamsOf<typeof P.sessionRestore>;
export type RestoreResult = P.ResultOf<typeof P.sessionRestore>;
export type RelinkParams = P.ParamsOf<typeof P.sessionRelink>;
export type RelinkResult = P.ResultOf<typeof P.sessionRelink>;
export type RetentionParams = P.ParamsOf<typeof P.sessionRetention>;
export type RetentionResult = P.ResultOf<typeof P.sessionRetention>;
export type RetentionItem = RetentionResult['done'][number];
export type ReadParams = P.ParamsOf<typeof P.sessionRead>;
export type ReadResult = P.ResultOf<typeof P.sessionRead>;
export type TitleParams = P.ParamsOf<typeof P.sessionTitle>;
export type TitleResult = P.ResultOf<typeof P.sessionTitle>;
export type SummarizeParams = P.ParamsOf<typeof P.sessionSummarize>;
export type SummarizeResult = P.ResultOf<typeof P.sessionSummarize>;
export type HandoffParams = P.ParamsOf<typeof P.sessionHandoff>;
export type HandoffResult = P.ResultOf<typeof P.sessionHandoff>;
export type ImportParams = P.ParamsOf<typeof P.sessionImport>;
export type ImportResult = P.ResultOf<typeof P.sessionImport>;
export type ImportToolCounts = ImportResult['tools'][number];

/** Client-to-server requests: method name, params, result. */
export interface Requests {
  'session/new': [NewParams, NewResult];
  'session/append': [AppendParams, AppendResult];
  'session/list': [ListParams, ListResult];
  'session/read': [ReadParams, ReadResult];
  'session/resume': [ResumeParams, ResumeResult];
  'session/export': [ExportParams, ExportResult];
  'session/search': [SearchParams, SearchResult];
  'session/rename': [RenameParams, RenameResult];
  'session/delete': [DeleteParams, DeleteResult];
  'session/seal': [SealParams, SealResult];
  'session/release': [ReleaseParams, ReleaseResult];
  'session/pin': [PinParams, PinResult];
  'session/archive': [ArchiveParams, ArchiveResult];
  'session/fork': [ForkParams, ForkResult];
  'session/restore': [RestoreParams, RestoreResult];
  'session/relink': [RelinkParams, RelinkResult];
  'session/retention': [RetentionParams, RetentionResult];
  'session/handoff': [HandoffParams, HandoffResult];
  'session/import': [ImportParams, ImportResult];
}

// Each key above must be the literal method of its descriptor: a typo fails here.
type Check<T extends true> = T;
export type _MethodsMatch = Check<
  keyof Requests extends
    | (typeof P.sessionNew)['method']
    | (typeof P.sessionAppend)['method']
    | (typeof P.sessionList)['method']
    | (typeof P.sessionRead)['method']
    | (typeof P.sessionResume)['method']
    | (typeof P.sessionExport)['method']
    | (typeof P.sessionSearch)['method']
    | (typeof P.sessionRename)['method']
    | (typeof P.sessionDelete)['method']
    | (typeof P.sessionSeal)['method']
    | (typeof P.sessionRelease)['method']
    | (typeof P.sessionPin)['method']
    | (typeof P.sessionArchive)['method']
    | (typeof P.sessionFork)['method']
    | (typeof P.sessionRestore)['method']
    | (typeof P.sessionRelink)['method']
    | (typeof P.sessionRetention)['method']
    | (typeof P.sessionHandoff)['method']
    | (typeof P.sessionImport)['method']
    ? true
    : false
>;

export const DID_CHANGE: (typeof P.sessionDidChange)['method'] = 'session/didChange';
export const TITLE: (typeof P.sessionTitle)['method'] = 'session/title';
export const SUMMARIZE: (typeof P.sessionSummarize)['method'] = 'session/summarize';
/** The PROTOCOL_VERSION this extension was written against. */
export const PROTOCOL_VERSION: typeof P.PROTOCOL_VERSION = 1;

/** The sidecar's own error codes the extension reacts to (server/rpc/errors.ts). */
export const ErrorCodes = {
  RequestCancelled: -32800,
  UnknownSession: -33001,
  SessionLocked: -33004,
  FeatureUnavailable: -33010,
  CallbackFailed: -33011,
  HandoffFailed: -33012,
  SessionConflict: -33013,
} as const;
