// dist/vendor/vscode-languageserver.cjs (tools/bundle-lsp.mjs, built by `npm ci`'s prepare and
// `npm run build`) is what the sidecar loads in place of vscode-languageserver: it must be there
// after a build, and be the installed library, whole: the same exports under the same names,
// one copy of the classes behind both entry points.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
const vendor = join(repo, 'dist', 'vendor', 'vscode-languageserver.cjs');
const req = createRequire(join(repo, 'package.json'));

describe('the bundled vscode-languageserver', () => {
  it('is built, and is what dist/rpc/lsp.js loads in Node', () => {
    expect(existsSync(vendor)).toBe(true);
    // In a plain Node process, as the sidecar runs (the test runner defines its own require).
    const script =
      `import { lsp } from ${JSON.stringify(pathToFileURL(join(repo, 'dist', 'rpc', 'lsp.js')).href)};` +
      `import { createRequire } from 'node:module';` +
      `process.stdout.write(String(lsp === createRequire(import.meta.url)(${JSON.stringify(vendor)}).lsp));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('true');
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
