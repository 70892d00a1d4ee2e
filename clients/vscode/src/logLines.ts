// Reads the sidecar's stderr lines ("[levelcode-sessions 123] warn: message", server/rpc/log.ts)
// so that each lands in the LogOutputChannel at its own level instead of all as errors.
// Pure: no `vscode` import.

export type LineLevel = 'error' | 'warn' | 'info' | 'debug';

const LINE = /^\[levelcode-sessions \d+\] (error|warn|info|debug): (.*)$/s;

/** The level and message of a sidecar log line; anything else (a crash trace) is an error. */
export function parseSidecarLine(line: string): { level: LineLevel; message: string } {
  const m = LINE.exec(line);
  if (m) return { level: m[1] as LineLevel, message: m[2] ?? '' };
  return { level: 'error', message: line };
}
