// Loads a CommonJS file with a V8 code cache beside it: the bytecode of the functions its first
// run compiled, written at build time (tools/bundle-vendor.mjs), so that a later start neither
// parses the file nor compiles those functions again.
//
// Why: the sidecar loads the bundled vscode-languageserver (dist/vendor, 420 KB) before it can
// answer `initialize`, and zod (1 MB) before its first request, as does every CLI command that
// goes through the store. Compiling a bundle and the functions its module code runs was about
// half of its load: vscode-languageserver took 52 ms a plain require, 29 ms with the cache, in
// fifteen interleaved runs at a slow hour (bench/PERFORMANCE.md: sidecar start). Node 20 has no compile cache of its own for
// modules (module.enableCompileCache came in Node 22).
//
// The cache file is the SHA-256 of the source's bytes (32 bytes), then V8's data. A cache whose
// digest is not the source's is not offered to V8 ('stale': V8's own check compares only the
// source's length); one V8 refuses (another Node, other V8 flags: 'rejected') costs nothing but
// the ordinary compile. Either way the file is loaded and runs the same; only its speed
// differs. The module is run as Node's CommonJS loader runs one (exports, require, module,
// __filename, __dirname; `this` is exports), with a require that resolves from the file, and
// is not added to require's cache: requireVendored's callers (rpc/lsp.ts, zod.ts) load each file once.
// Depends on node:fs, node:vm, node:crypto, node:module, node:path and node:url only.

import { readFileSync, writeFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export type CodeCacheUse = 'accepted' | 'rejected' | 'stale' | 'absent';
/** How a vendored library was loaded (rpc/lsp.ts, zod.ts): for the sidecar's debug log and the tests. */
export type LoadedFrom = 'esbuild' | `vendor, code cache ${CodeCacheUse}` | 'package';

const DIGEST_BYTES = 32;

/** The cache's path for a file: beside it. */
export function codeCachePath(file: string): string {
  return `${file}.v8cache`;
}

/**
 * Runs `file` as a CommonJS module and returns its exports, with the code cache beside it when
 * there is a good one. Throws what reading the file (ENOENT included) or running it throws.
 */
export function requireWithCodeCache(file: string): { exports: unknown; cache: CodeCacheUse } {
  const source = readFileSync(file);
  let cachedData: Buffer | undefined;
  let cache: CodeCacheUse = 'absent';
  try {
    const data = readFileSync(codeCachePath(file));
    if (data.length > DIGEST_BYTES && data.subarray(0, DIGEST_BYTES).equals(digest(source))) cachedData = data.subarray(DIGEST_BYTES);
    else cache = 'stale';
  } catch {
    /* no cache: compiled the ordinary way */
  }
  const script = new Script(wrap(source), { filename: file, cachedData });
  if (cachedData) cache = script.cachedDataRejected ? 'rejected' : 'accepted';
  return { exports: run(script, file), cache };
}

/**
 * A library the build bundled into dist/vendor (`bundle`, by URL), run with its code cache; or,
 * when dist/ was built by tsc alone (no bundle there), `fromPackage()`, the installed package.
 * What rpc/lsp.ts and zod.ts load outside an esbuild bundle (whose literal require calls they
 * keep themselves).
 */
export function requireVendored<T>(bundle: URL, fromPackage: () => T): { exports: T; via: LoadedFrom } {
  try {
    const { exports, cache } = requireWithCodeCache(fileURLToPath(bundle));
    return { exports: exports as T, via: `vendor, code cache ${cache}` };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return { exports: fromPackage(), via: 'package' };
}

/**
 * Writes the code cache of `file`: runs it once (so that the functions its module code calls
 * are compiled and cached too), then asks V8 for the data. Returns the cache's path.
 */
export function writeCodeCache(file: string): string {
  const source = readFileSync(file);
  const script = new Script(wrap(source), { filename: file });
  run(script, file);
  const out = codeCachePath(file);
  writeFileSync(out, Buffer.concat([digest(source), script.createCachedData()]));
  return out;
}

function digest(source: Buffer): Buffer {
  return createHash('sha256').update(source).digest();
}

/** Node's CommonJS wrapper, on the source's first line so that line numbers stay the file's. */
function wrap(source: Buffer): string {
  return `(function (exports, require, module, __filename, __dirname) { ${source.toString('utf8')}\n})`;
}

function run(script: Script, file: string): unknown {
  const fn = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
  const module = { exports: {} as unknown };
  fn.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return module.exports;
}
