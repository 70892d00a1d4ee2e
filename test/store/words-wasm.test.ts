// words-wasm.ts, the search index's tokenizer module, is what words.wat assembles to
// (tools/build-wasm.mjs --check fails on a stale one).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');

describe('words.wat', () => {
  it('is what words-wasm.ts holds (tools/build-wasm.mjs --check)', () => {
    const out = execFileSync(process.execPath, [join(repo, 'tools', 'build-wasm.mjs'), '--check'], { encoding: 'utf8' });
    expect(out).toMatch(/words-wasm\.ts is current/);
  });
});
