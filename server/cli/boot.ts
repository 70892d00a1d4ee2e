// What bin/levelcode-sessions.js loads first, as dist/cli/boot.cjs (a small CommonJS file that
// tools/bundle.mjs makes from this module and code-cache.ts): the CLI as one CommonJS file,
// dist/cli/main.cjs, run with the V8 code cache the build made for it. When that bundle is not
// there, or is older than a module it was made from, loadBundle answers undefined and the bin
// imports the ES modules tsc wrote (dist/cli/main.js), which do the same.
//
// Why: a CLI command is a fresh process each time. As ES modules, its modules are resolved,
// read, linked and compiled one by one by Node's ES loader (which itself takes a few ms to
// start); as one CommonJS file with a code cache made after a listing and a search, they are one
// read and no compile. A warm search across claude-scale took 227 against 254 ms, and the
// sidecar's start 102 against 118 ms; a warm listing, which needs few modules, the same (median
// of 60, 20 and 100 interleaved runs, without NODE_EXTRA_CA_CERTS; bench/PERFORMANCE.md,
// changes for the fifteenth measurement).
//
// The bundle is used only while no module it was made from is newer than it: its inputs are
// listed beside it (main.cjs.inputs, relative to this folder), and each is stat'ed (about
// forty, well under a millisecond). So after tsc alone (`npx tsc`, `tsc --watch`) the bin
// runs what tsc wrote, never an older build of it.
//
// Code run through node:vm (code-cache.ts) cannot call import() on Node 20, so the bundle has
// none: tools/bundle.mjs turns the CLI's import() calls into require calls, and hands the one
// ES-only package the CLI loads (trash) to importEsm below, which runs in this file, a module
// Node's own loader loaded.
// Depends on node:fs, node:path and code-cache.ts.

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { requireWithCodeCache, type CodeCacheUse } from '../core/code-cache.js';

/** The CLI's entry point (cli/main.ts main). */
export type Main = (argv: string[]) => Promise<number>;

/** The bundle's file name, and the list of what it was made from, in dist/cli/. */
export const BUNDLE = 'main.cjs';
export const BUNDLE_INPUTS = 'main.cjs.inputs';

/**
 * The CLI from the bundle in `dir` (dist/cli), with how its code cache was taken; undefined
 * when there is no bundle or a module it was made from is newer or gone (the caller then
 * imports main.js). Throws what running the bundle's module code throws.
 */
export function loadBundle(dir: string): { main: Main; cache: CodeCacheUse } | undefined {
  const file = join(dir, BUNDLE);
  if (!upToDate(dir, file)) return undefined;
  const { exports, cache } = requireWithCodeCache(file);
  return { main: (exports as { main: Main }).main, cache };
}

function upToDate(dir: string, file: string): boolean {
  let built: number;
  let inputs: unknown;
  try {
    built = statSync(file).mtimeMs;
    inputs = JSON.parse(readFileSync(join(dir, BUNDLE_INPUTS), 'utf8'));
  } catch {
    return false; // no bundle, or no readable list: a build that did not finish
  }
  if (!Array.isArray(inputs) || inputs.length === 0) return false;
  try {
    for (const rel of inputs) {
      if (typeof rel !== 'string') return false;
      const s = statSync(join(dir, rel), { throwIfNoEntry: false });
      if (!s || s.mtimeMs > built) return false;
    }
  } catch {
    return false; // a module that cannot be stat'ed: tsc's modules will say what is wrong
  }
  return true;
}

/** import(), for the bundle: run here, where Node's loader runs it (see the header). */
export function importEsm(specifier: string): Promise<unknown> {
  return import(specifier);
}
