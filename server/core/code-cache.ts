// Loads a CommonJS file with a V8 code cache beside it: the bytecode of the functions its first
// run compiled, written at build time (tools/bundle.mjs), so that a later start neither parses
// the file nor compiles those functions again.
//
// Why: the sidecar loads the bundled vscode-languageserver (dist/vendor, 420 KB) before it can
// answer `initialize`, and zod (1 MB) before its first request, as does every CLI command that
// goes through the store. Compiling a bundle and the functions its module code runs was about
// half of its load: vscode-languageserver took 52 ms a plain require, 29 ms with the cache, in
// fifteen interleaved runs at a slow hour (bench/PERFORMANCE.md: sidecar start). The CLI itself
// is one such file too (dist/cli/main.cjs, loaded by cli/boot.ts), whose cache the build makes
// after running a few commands with it (writeCodeCacheAfter), so that it holds what a listing
// and a search compile. Node 20 has no compile cache of its own for modules
// (module.enableCompileCache came in Node 22).
//
// The cache file starts with the identity of the write of the source it was made from: its size,
// modification and change times (three float64s); then V8's data. A cache whose identity is not
// the source's as it is now is not offered to V8 ('stale': V8's own check compares only the
// source's length, and would run another file's bytecode for a rewrite of the same length); one
// V8 refuses (another Node, other V8 flags: 'rejected') costs nothing but the ordinary compile.
// Either way the file is loaded and runs the same; only its speed
// differs. The module is run as Node's CommonJS loader runs one (exports, require, module,
// __filename, __dirname; `this` is exports), with a require that resolves from the file, and
// is not added to require's cache: the callers (rpc/lsp.ts, zod.ts through requireVendored;
// cli/boot.ts) load each file once. Code run this way cannot call import() on Node 20 (node:vm
// needs --experimental-vm-modules for it), which is why the CLI's bundle has none.
// The identity is read from the open file the source is read from, so the two agree. (It was
// the source's SHA-256 until the CLI itself was loaded this way: node:crypto alone took 4-6 ms
// to load in a CLI process that needs it for nothing else, and hashing its bundle 1.2 ms;
// bench/PERFORMANCE.md: search.)
// Depends on node:fs, node:vm, node:module, node:path and node:url only.

import { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export type CodeCacheUse = 'accepted' | 'rejected' | 'stale' | 'absent';
/** How a vendored library was loaded (rpc/lsp.ts, zod.ts): for the sidecar's debug log and the tests. */
export type LoadedFrom = 'esbuild' | `vendor, code cache ${CodeCacheUse}` | 'package';

/**
 * True in a bundle that carries vscode-languageserver and zod inside it: the VS Code extension's
 * (clients/vscode/build.mjs defines LEVELCODE_BUNDLES_LIBRARIES for esbuild), where rpc/lsp.ts
 * and zod.ts take them by the literal require calls esbuild bundled. False in tsc's ES modules
 * and in the CLI's own bundle (tools/bundle.mjs, the packages left outside it), which load them
 * from dist/vendor with requireVendored.
 */
declare const LEVELCODE_BUNDLES_LIBRARIES: boolean | undefined;
export const librariesBundled = typeof LEVELCODE_BUNDLES_LIBRARIES !== 'undefined' && LEVELCODE_BUNDLES_LIBRARIES;

const IDENTITY_BYTES = 24;

/** The cache's path for a file: beside it. */
export function codeCachePath(file: string): string {
  return `${file}.v8cache`;
}

/**
 * Runs `file` as a CommonJS module and returns its exports, with the code cache beside it when
 * there is a good one. Throws what reading the file (ENOENT included) or running it throws.
 */
export function requireWithCodeCache(file: string): { exports: unknown; cache: CodeCacheUse } {
  const { source, identity } = readSource(file);
  let cachedData: Buffer | undefined;
  let cache: CodeCacheUse = 'absent';
  try {
    const data = readFileSync(codeCachePath(file));
    if (data.length > IDENTITY_BYTES && data.subarray(0, IDENTITY_BYTES).equals(identity)) cachedData = data.subarray(IDENTITY_BYTES);
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
  return saveCodeCache(file, compileAndRun(file));
}

/**
 * Writes the code cache of `file` after `train` has run with its exports: the cache then holds
 * every function the training compiled, not only those of the module code (tools/bundle.mjs
 * trains the CLI's bundle on a few commands). Returns the cache's path.
 */
export async function writeCodeCacheAfter(file: string, train: (exports: unknown) => Promise<void>): Promise<string> {
  const compiled = compileAndRun(file);
  await train(compiled.exports);
  return saveCodeCache(file, compiled);
}

/** The file compiled and run once, with the identity of the write that was read. */
function compileAndRun(file: string): { script: Script; exports: unknown; identity: Buffer } {
  const { source, identity } = readSource(file);
  const script = new Script(wrap(source), { filename: file });
  return { script, exports: run(script, file), identity };
}

/** The cache, headed by the identity of the write that was compiled (not the file's as it is now). */
function saveCodeCache(file: string, { script, identity }: { script: Script; identity: Buffer }): string {
  const out = codeCachePath(file);
  writeFileSync(out, Buffer.concat([identity, script.createCachedData()]));
  return out;
}

/** The file's bytes, and the identity of this write of it, from one open file. */
function readSource(file: string): { source: Buffer; identity: Buffer } {
  const fd = openSync(file, 'r');
  try {
    const st = fstatSync(fd);
    const identity = Buffer.alloc(IDENTITY_BYTES);
    identity.writeDoubleLE(st.size, 0);
    identity.writeDoubleLE(st.mtimeMs, 8);
    identity.writeDoubleLE(st.ctimeMs, 16);
    return { source: readFileSync(fd), identity };
  } finally {
    closeSync(fd);
  }
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
