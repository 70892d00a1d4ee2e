// The History listing and search start without zod (plain.ts, reader.ts loadSchemas): run
// through the real binary with hooks that refuse to load zod, they still answer, and answer
// what they answer without the hooks: a cold listing (every meta line checked, one refused), a
// listing after a file changed (an index.json entry that re-reads it), a line refused inside a
// session, and a first search. `show`, which names the fault of a refused line, is the control:
// it must load zod, so under the hooks it fails.
//
// zod can come three ways, and each is refused: the package by an ES import (a module hook, for
// tsc's modules, which helper threads run), the package by require, and the build's bundle of
// it, dist/vendor/zod.cjs, which code-cache.ts opens and runs (a preload that wraps require and
// the open; the CLI's own bundle, dist/cli/main.cjs, takes zod these two ways).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { projectCache } from '../../server/core/cache-dir.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;
let register: string;
let preload: string;

function cli(args: string[], noZod: boolean) {
  const r = spawnSync(process.execPath, [...(noZod ? ['--import', pathToFileURL(register).href, '--require', preload] : []), bin, ...args, '--dir', root], {
    encoding: 'utf8',
    cwd: tmp,
    timeout: 20_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const line = (o: unknown) => `${JSON.stringify(o)}\n`;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'lcs-nozod-'));
  root = join(tmp, 'store');
  const hooks = join(tmp, 'hooks.mjs');
  // zod comes from the package, or from the build's bundle through core/zod.js (which the
  // hook cannot see load: it is read and run by code-cache.ts): both are refused.
  writeFileSync(
    hooks,
    'export async function resolve(s, c, next) {\n' +
      "  if (s === 'zod' || s.startsWith('zod/')) throw new Error('zod was loaded');\n" +
      '  const r = await next(s, c);\n' +
      "  if (/\\/core\\/zod\\.(js|ts)$/.test(r.url)) throw new Error('zod was loaded');\n" +
      '  return r;\n' +
      '}\n',
  );
  register = join(tmp, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  preload = join(tmp, 'preload.cjs');
  writeFileSync(
    preload,
    "const Module = require('node:module');\n" +
      "const fs = require('node:fs');\n" +
      'const load = Module._load;\n' +
      'Module._load = function (request, ...rest) {\n' +
      "  if (request === 'zod' || request.startsWith('zod/')) throw new Error('zod was loaded');\n" +
      '  return load.call(this, request, ...rest);\n' +
      '};\n' +
      // code-cache.ts opens the file it runs (and reads it from the open file).
      'const open = fs.openSync;\n' +
      'fs.openSync = function (file, ...rest) {\n' +
      "  if (typeof file === 'string' && /[\\\\/]vendor[\\\\/]zod\\.cjs$/.test(file)) throw new Error('zod was loaded');\n" +
      '  return open.call(this, file, ...rest);\n' +
      '};\n' +
      'Module.syncBuiltinESMExports();\n',
  );
  const dir = join(root, '-home-ada-code-app');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < 3; i++) {
    const id = `2026-07-0${i + 1}T10-00-00-ab${i}c`;
    const t = `2026-07-0${i + 1}T10:00:0${i}.000Z`;
    writeFileSync(
      join(dir, `${id}.jsonl`),
      line({ kind: 'meta', v: 1, id, project: '/home/ada/code/app', createdAt: t, title: null }) +
        line({ kind: 'user', t, content: `find the idempotency key ${i}` }) +
        // Refused by the schema: the listing counts it without naming the fault.
        (i === 1 ? line({ kind: 'compact', t, briefing: 'b', coversThrough: -1 }) : '') +
        line({ kind: 'assistant', t, content: [{ type: 'text', text: 'done' }] }),
      { mode: 0o600 },
    );
  }
  // A meta line the schema refuses: a problem the listing reports by its message.
  writeFileSync(join(dir, '2026-07-04T10-00-00-bad0.jsonl'), line({ kind: 'meta', v: 0, id: '2026-07-04T10-00-00-bad0', project: '/p', createdAt: 'x', title: null }), { mode: 0o600 });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('without zod', () => {
  it('the hook does refuse zod: show, which names a refused line, fails under it', () => {
    expect(cli(['show', '2026-07-02T10-00-00-ab1c'], false).code).toBe(0);
    const r = cli(['show', '2026-07-02T10-00-00-ab1c'], true);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('zod was loaded');
  });

  it('lists cold, lists again after a change, and searches, as with zod', () => {
    const grown = join(root, '-home-ada-code-app', '2026-07-03T10-00-00-ab2c.jsonl');
    const before = readFileSync(grown);
    const run = (noZod: boolean) => {
      writeFileSync(grown, before);
      rmSync(projectCache(join(root, '-home-ada-code-app'), 'index.json'), { force: true });
      rmSync(projectCache(join(root, '-home-ada-code-app'), 'search.idx'), { force: true });
      const cold = cli(['list', '--all', '--json'], noZod);
      const warm = cli(['list', '--all', '--json'], noZod);
      appendFileSync(grown, line({ kind: 'user', t: '2026-07-03T11:00:00.000Z', content: 'one more' }));
      const changed = cli(['list', '--all', '--json'], noZod);
      const search = cli(['search', 'idempotency', '--all', '--json'], noZod);
      return { cold, warm, changed, search };
    };
    const base = run(false);
    const none = run(true);
    for (const k of ['cold', 'warm', 'changed', 'search'] as const) {
      expect(none[k].err, k).not.toContain('zod was loaded');
      expect(none[k].code, k).toBe(base[k].code);
      expect(none[k].out, k).toBe(base[k].out);
    }
    expect(JSON.parse(none.cold.out).problems).toEqual([expect.objectContaining({ message: expect.stringContaining('line 1 is not a valid meta line') })]);
    expect(JSON.parse(none.changed.out).sessions.map((s: { preview: string }) => s.preview)).toContain('one more');
    expect(JSON.parse(none.search.out).hits.length).toBeGreaterThan(0);
  });
});
