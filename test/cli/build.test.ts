// tools/build.mjs: `npm test` (and every script that needs dist/) builds only when dist/ is not
// a build of these sources, so `npm ci && npm test` builds once. npm test has just built, so
// dist/ is current here; a stamp naming other sources is stale.
import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const stamp = join(repo, 'dist', '.build-stamp');
const check = () => spawnSync(process.execPath, [join(repo, 'tools', 'build.mjs'), '--check'], { encoding: 'utf8' });
const saved = readFileSync(stamp, 'utf8');
afterEach(() => writeFileSync(stamp, saved));

describe('the build stamp', () => {
  it('finds the dist/ npm test just built current, so npm test does not build again', () => {
    const r = check();
    expect(r.stdout).toBe('dist/ is current\n');
    expect(r.status).toBe(0);
    const test = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: { test: string } }).scripts.test;
    expect(test.split(' && ')).toContain('node tools/build.mjs --if-stale');
  });

  it('finds dist/ stale when it was built from other sources', () => {
    const s = JSON.parse(saved);
    writeFileSync(stamp, JSON.stringify({ ...s, sources: '0'.repeat(64) }));
    expect(check().status).toBe(1);
  });
});
