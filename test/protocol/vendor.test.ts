// dist/vendor/ (tools/bundle.mjs, built by `npm ci`'s prepare, `npm run build` and `npm test`) holds
// what the sidecar and the CLI load in place of vscode-languageserver and zod: each must be
// there after a build, with the V8 code cache beside it that a plain Node accepts, and be the
// installed library, whole: the same exports under the same names (for vscode-languageserver,
// one copy of the classes behind both entry points). server/core/code-cache.ts, which loads
// them, is tested on files of its own: a cache is used only for the write of the file it was made for, and
// a cache V8 refuses or a missing one changes nothing but the speed.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCachePath, requireWithCodeCache } from '../../server/core/code-cache.js';

const repo = join(import.meta.dirname, '..', '..');
const vendor = join(repo, 'dist', 'vendor', 'vscode-languageserver.cjs');
const req = createRequire(join(repo, 'package.json'));

describe('the bundled vscode-languageserver', () => {
  it('is built, and is what dist/rpc/lsp.js loads in Node, with the code cache the build wrote', () => {
    expect(existsSync(vendor)).toBe(true);
    expect(existsSync(codeCachePath(vendor))).toBe(true);
    // In a plain Node process, as the sidecar runs (the test runner defines its own require).
    const script =
      `import { lsp, lspSource } from ${JSON.stringify(pathToFileURL(join(repo, 'dist', 'rpc', 'lsp.js')).href)};` +
      `import { createRequire } from 'node:module';` +
      `const req = createRequire(import.meta.url);` +
      // The bundle's code, not the package's: its classes are its own.
      `const pkg = req('vscode-languageserver');` +
      `process.stdout.write(JSON.stringify([lspSource, lsp.ResponseError === pkg.ResponseError, Object.keys(lsp).length === Object.keys(pkg).length]));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(['vendor, code cache accepted', false, true]);
  });

  it('exports what the package exports, from both entry points', () => {
    const bundled = req(vendor) as { lsp: Record<string, unknown>; lspNode: Record<string, unknown> };
    const pkg = req('vscode-languageserver') as Record<string, unknown>;
    const pkgNode = req('vscode-languageserver/node') as Record<string, unknown>;
    expect(Object.keys(bundled.lsp).sort()).toEqual(Object.keys(pkg).sort());
    expect(Object.keys(bundled.lspNode).sort()).toEqual(Object.keys(pkgNode).sort());
    for (const k of Object.keys(pkg)) expect(typeof bundled.lsp[k], k).toBe(typeof pkg[k]);
    // One copy of the library inside: the same classes whichever entry point hands them out.
    expect(bundled.lspNode.ResponseError).toBe(bundled.lsp.ResponseError);
    expect(bundled.lspNode.CancellationTokenSource).toBe(bundled.lsp.CancellationTokenSource);
  });
});

describe('the bundled zod', () => {
  const bundle = join(repo, 'dist', 'vendor', 'zod.cjs');

  it('is built, and is what dist/core/zod.js loads in Node, with the code cache the build wrote, for every schema module', () => {
    expect(existsSync(bundle)).toBe(true);
    expect(existsSync(codeCachePath(bundle))).toBe(true);
    const url = (p: string) => JSON.stringify(pathToFileURL(join(repo, 'dist', p)).href);
    const script =
      `import { z, zodSource } from ${url('core/zod.js')};` +
      `import { MetaLine } from ${url('core/events.js')};` +
      `import { InitializationOptions } from ${url('rpc/protocol.js')};` +
      `import { createRequire } from 'node:module';` +
      `const pkg = createRequire(import.meta.url)('zod');` +
      // The bundle's copy, not the package's; one copy behind every schema module.
      `process.stdout.write(JSON.stringify([zodSource, z === pkg.z, MetaLine instanceof z.ZodType, InitializationOptions instanceof z.ZodType,` +
      ` MetaLine.safeParse({ kind: 'meta' }).error instanceof z.ZodError]));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(['vendor, code cache accepted', false, true, true, true]);
  });

  it('exports what the package exports', () => {
    const bundled = req(bundle) as Record<string, unknown>;
    const pkg = req('zod') as Record<string, unknown>;
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(pkg).sort());
    for (const k of Object.keys(pkg)) expect(typeof bundled[k], k).toBe(typeof pkg[k]);
    expect(Object.keys(bundled.z as object).sort()).toEqual(Object.keys(pkg.z as object).sort());
  });
});

describe('code-cache.ts: a CommonJS file run with the V8 code cache beside it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lcs-code-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  /** A module in a folder of its own, with a sibling it requires by a relative path. */
  const moduleFile = (body: string): string => {
    const sub = mkdtempSync(join(dir, `m${n++}-`));
    writeFileSync(join(sub, 'sibling.cjs'), 'module.exports = 40;');
    const file = join(sub, 'main.cjs');
    writeFileSync(file, body);
    return file;
  };
  /**
   * Writes the file's cache in a fresh Node, as the build does: V8 keeps what this process has
   * compiled, and a second compile of the same source here would be served from that, whatever
   * the cache held.
   */
  const makeCache = (file: string): string => {
    const script = `import { writeCodeCache } from ${JSON.stringify(pathToFileURL(join(repo, 'dist', 'core', 'code-cache.js')).href)}; writeCodeCache(${JSON.stringify(file)});`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(r.stderr).toBe('');
    return codeCachePath(file);
  };
  const BODY =
    "'use strict';\nconst path = require('node:path');\n" +
    'function answer(x) { return x + require("./sibling.cjs"); }\n' +
    'exports.v = 1; exports.answer = answer(2);\n' +
    'exports.self = this === module.exports; exports.file = path.basename(__filename); exports.dir = __dirname;';

  it('runs the file as Node runs a CommonJS module, with no cache', () => {
    const file = moduleFile(BODY);
    const { exports, cache } = requireWithCodeCache(file);
    expect(cache).toBe('absent');
    expect(exports).toEqual({ v: 1, answer: 42, self: true, file: 'main.cjs', dir: dirname(file) });
  });

  it('uses the cache made for the file as it was written', () => {
    const file = moduleFile(BODY);
    makeCache(file);
    const { exports, cache } = requireWithCodeCache(file);
    expect(cache).toBe('accepted');
    expect(exports).toMatchObject({ v: 1, answer: 42, self: true });
  });

  it('does not offer V8 a cache made from other bytes of the same length, which V8 alone would take', () => {
    const file = moduleFile(BODY);
    makeCache(file);
    const changed = BODY.replace('exports.v = 1;', 'exports.v = 2;');
    expect(changed.length).toBe(BODY.length);
    writeFileSync(file, changed);
    const { exports, cache } = requireWithCodeCache(file);
    expect(cache).toBe('stale');
    expect(exports).toMatchObject({ v: 2, answer: 42 });
  });

  it('compiles the ordinary way when V8 refuses the cache, or the cache is cut short', () => {
    const file = moduleFile(BODY);
    const cacheFile = makeCache(file);
    const good = readFileSync(cacheFile);
    // The identity (24 bytes) is right, V8's part is not: V8 checks it and refuses it.
    const bad = Buffer.from(good);
    for (let i = 24; i < bad.length; i += 7) bad[i] ^= 0x5a;
    writeFileSync(cacheFile, bad);
    expect(requireWithCodeCache(file)).toMatchObject({ cache: 'rejected', exports: { v: 1, answer: 42 } });
    writeFileSync(cacheFile, good.subarray(0, 20));
    expect(requireWithCodeCache(file)).toMatchObject({ cache: 'stale', exports: { v: 1, answer: 42 } });
  });

  it("throws what the file throws, and ENOENT for a file that is not there", () => {
    const file = moduleFile("throw new TypeError('from the module');");
    expect(() => requireWithCodeCache(file)).toThrow('from the module');
    expect(() => requireWithCodeCache(join(dir, 'absent.cjs'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
