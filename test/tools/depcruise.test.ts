// The import rules (.dependency-cruiser.cjs) fail when broken: dependency-cruiser, with the
// repository's own config, on a small tree in a temporary folder. A clean tree passes; a store
// module importing listing, two modules importing each other, and the VS Code client importing a
// server value (a type is fine) fail with the rules' names.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

const repo = resolve(import.meta.dirname, '../..');
const bin = join(repo, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
let tree: string;

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(tree, path)), { recursive: true });
  await writeFile(join(tree, path), text);
}

const cruise = () =>
  spawnSync(process.execPath, [bin, '--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'server', 'clients/vscode/src'], {
    cwd: tree,
    encoding: 'utf8',
  });

beforeAll(async () => {
  tree = await mkdtemp(join(tmpdir(), 'lcs-depcruise-'));
  await copyFile(join(repo, '.dependency-cruiser.cjs'), join(tree, '.dependency-cruiser.cjs'));
  await put(
    'tsconfig.json',
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' }, include: ['server/**/*.ts'] }),
  );
  await put('server/format/event.ts', 'export const KIND = "event";\n');
  await put('server/store/a.ts', "import { KIND } from '../format/event.js';\nexport const a = KIND;\n");
  await put('server/listing/b.ts', "import { a } from '../store/a.js';\nexport const b = a;\n");
  await put('clients/vscode/src/ok.ts', "import type { b } from '../../../server/listing/b.js';\nexport type B = typeof b;\n");
});
afterAll(() => rm(tree, { recursive: true, force: true }));

describe('the dependency rules', () => {
  it('pass on layers that only go down', () => {
    const r = cruise();
    expect(r.stdout + r.stderr).not.toMatch(/error /);
    expect(r.status).toBe(0);
  });

  it('fail naming store-imports-only-format, no-circular and vscode-client-types-only', async () => {
    await put('server/store/a.ts', "import { b } from '../listing/b.js';\nexport const a = 'a';\nexport const both = b;\n");
    await put('clients/vscode/src/bad.ts', "import { KIND } from '../../../server/format/event.js';\nexport const k = KIND;\n");
    const r = cruise();
    expect(r.status).not.toBe(0);
    expect(r.stdout).toContain('error store-imports-only-format: server/store/a.ts → server/listing/b.ts');
    expect(r.stdout).toMatch(/error no-circular: server\/(store\/a|listing\/b)\.ts →/);
    expect(r.stdout).toContain('error vscode-client-types-only: clients/vscode/src/bad.ts → server/format/event.ts');
    expect(r.stdout).not.toContain('clients/vscode/src/ok.ts');
  });
});
