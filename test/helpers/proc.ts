// Test helper: what /proc says about a process the test did not start itself (a sidecar an
// editor started). Linux only, as the client suites are.

import { readFileSync } from 'node:fs';

/** A process's environment as it was started (/proc/PID/environ). */
export function environOf(pid: number): Map<string, string> {
  const pairs = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return new Map(pairs.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}
