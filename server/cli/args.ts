// What every CLI subcommand shares: the exit codes, the usage error the dispatcher turns into
// exit 2 with a hint, and strict argument parsing with the common options (--dir, --json, -h).
// main.ts dispatches and the subcommand modules (import, sync, handoff, acp) parse with these,
// so no subcommand imports main.ts back.

import { parseArgs, type ParseArgsConfig } from 'node:util';

export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3, locked: 4 } as const;

export type Opts = ParseArgsConfig['options'];
const common: Opts = { dir: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };

/** Bad arguments: the dispatcher prints the message and the command's usage, and exits 2. */
export class UsageError extends Error {}

export function parse(args: string[], options: Opts) {
  try {
    return parseArgs({ args, options: { ...common, ...options }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1) throw new UsageError(`--${name} takes a positive whole number, not ${JSON.stringify(v)}`);
  return Number(v);
}

export function isoOpt(v: string | undefined, name: string): string | undefined {
  if (v === undefined) return undefined;
  if (Number.isNaN(Date.parse(v))) throw new UsageError(`--${name} takes an ISO date or time, not ${JSON.stringify(v)}`);
  return new Date(Date.parse(v)).toISOString();
}
