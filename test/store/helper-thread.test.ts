// helper.ts: the second thread of the cold listing and of search, on its own. A small module
// written to a temp folder plays the caller's module (the helper runs a module from its URL):
// results arrive by index, the two threads share one counter, and a helper that dies leaves
// the indices it had taken for the caller.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
// The compiled module, as the helper thread loads it (`npx tsc -p .` runs first).
import { startHelper } from '../../dist/core/helper.js';

const dir = mkdtempSync(join(tmpdir(), 'lc-helper-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const helperJs = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'core', 'helper.js')).href;
const work = join(dir, 'work.mjs');
writeFileSync(
  work,
  `import { helperData, serveHelper } from ${JSON.stringify(helperJs)};\n` +
    `export async function square() {\n` +
    `  const { count, dieAt } = await helperData();\n` +
    `  await serveHelper(count, (i) => { if (i === dieAt) process.exit(3); return i * i; });\n` +
    `}\n`,
);
const url = pathToFileURL(work).href;

describe('helper thread', () => {
  it('posts each result by index, taking indices from the shared counter', async () => {
    const got = new Map<number, number>();
    const h = await startHelper<number>(url, 'work.mjs', 'square', { count: 50, dieAt: -1 }, (i, r) => got.set(i, r));
    expect(h).toBeDefined();
    await h!.finished(() => got.size >= 50);
    h!.stop();
    expect([...got.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    for (const [i, r] of got) expect(r).toBe(i * i);
    expect(Atomics.load(h!.next, 0)).toBeGreaterThanOrEqual(50);
  });

  it('ends when the helper dies, leaving what it had taken unsettled', async () => {
    const got = new Map<number, number>();
    const h = await startHelper<number>(url, 'work.mjs', 'square', { count: 10, dieAt: 4 }, (i, r) => got.set(i, r));
    await h!.finished(() => got.size >= 10);
    h!.stop();
    expect([...got.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3]);
    expect(Atomics.load(h!.next, 0)).toBeGreaterThanOrEqual(5); // index 4 was taken, never answered
  });

  it('starts none for code that is not at the named file (a bundle)', async () => {
    expect(await startHelper(url, 'other.js', 'square', {}, () => {})).toBeUndefined();
  });

  it('stops waiting when the signal aborts', async () => {
    const h = await startHelper<number>(url, 'work.mjs', 'square', { count: 0, dieAt: -1 }, () => {});
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(h!.finished(() => false, ac.signal)).rejects.toThrow('stop');
    h!.stop();
  });
});
