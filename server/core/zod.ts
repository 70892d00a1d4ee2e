// zod, as the schema modules (events.ts, rpc/protocol.ts, rpc/gen-schema.ts) take it: the same
// library, version and API, loaded faster.
//
// Performance: an ES import of zod (a few hundred module files) took 80-120 ms on the bench
// machine at a slow hour, before the sidecar could answer its first request after `initialize`
// and before every CLI command that reads or writes through the store. The build bundles the
// installed zod into one CommonJS file with a V8 code cache (tools/bundle.mjs,
// code-cache.ts): 28-34 ms (bench/PERFORMANCE.md: sidecar start).
//
// Three ways in, the same code, as for vscode-languageserver (rpc/lsp.ts):
// - in the VS Code extension's esbuild bundle (the .vsix), which bundles this literal call
//   (code-cache.ts: librariesBundled);
// - from dist/vendor/zod.cjs, with its code cache, when the build made it (tsc's modules and
//   the CLI's own bundle, dist/cli/main.cjs);
// - from the package itself (its CommonJS entry), when dist/ was built by tsc alone, and under
//   the test runner.
// Everything that makes schemas or checks them must take zod from here: two copies of zod in
// one process do not know each other's schemas. Types are zod's own (the namespace below).

import { createRequire } from 'node:module';
import type * as Zod from 'zod';
import { librariesBundled, requireVendored, type LoadedFrom } from './code-cache.js';

function load(): { z: typeof Zod.z; via: LoadedFrom } {
  if (librariesBundled) return { z: (require('zod') as typeof Zod).z, via: 'esbuild' };
  const { exports, via } = requireVendored(new URL('../vendor/zod.cjs', import.meta.url), () => createRequire(import.meta.url)('zod') as typeof Zod);
  return { z: exports.z, via };
}

export const { z, via: zodSource } = load();

/** The types the schema modules name as `z.<type>`: zod's own. */
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace z {
  export type infer<T> = Zod.z.infer<T>;
  export type output<T> = Zod.z.output<T>;
  export type ZodType<O = unknown, I = unknown> = Zod.z.ZodType<O, I>;
}
