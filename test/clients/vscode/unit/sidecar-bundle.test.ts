// The sidecar bundled into the extension (clients/vscode/dist/sidecar, built by build.mjs before
// this suite runs: .ci/clients-vscode.sh packages the .vsix first) is the same program as the
// repository's CLI: it answers --version with the repository's version, which it reads from the
// package.json build.mjs writes beside it (the bundle has no repository around it).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = join(__dirname, '../../../..');

describe('the bundled sidecar', () => {
  it('answers --version with the repository version', () => {
    const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
    const r = spawnSync(process.execPath, [join(repo, 'clients/vscode/dist/sidecar/cli/main.js'), '--version'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });
});
