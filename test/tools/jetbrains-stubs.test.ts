// tools/jetbrains-stubs.mjs, the check that clients/jetbrains/stubs holds exactly the IntelliJ
// classes the plugin adapter uses: it passes on the repository, and on a copy it fails naming a
// class plugin/ uses without a stub, and a stub nothing uses.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

const repo = resolve(import.meta.dirname, '../..');
const script = join(repo, 'tools/jetbrains-stubs.mjs');
const check = (root: string) => spawnSync(process.execPath, [script, '--root', root], { encoding: 'utf8' });
let copy: string;

beforeEach(async () => {
  copy = await mkdtemp(join(tmpdir(), 'lcs-jbstubs-'));
  for (const dir of ['clients/jetbrains/stubs/src', 'clients/jetbrains/src/main/java/dev/levelcode/sessions/plugin'])
    await cp(join(repo, dir), join(copy, dir), { recursive: true });
});
afterEach(() => rm(copy, { recursive: true, force: true }));

describe('the IntelliJ API stub matches what plugin/ uses', () => {
  it('passes on the repository', () => {
    const r = check(repo);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\d+ stub classes for the \d+ IntelliJ classes plugin\/ uses/);
  });

  it('fails naming a class plugin/ imports that has no stub', async () => {
    await rm(join(copy, 'clients/jetbrains/stubs/src/com/intellij/openapi/ui/Messages.java'));
    const r = check(copy);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('plugin/ uses com.intellij.openapi.ui.Messages, which has no stub');
  });

  it('fails naming a stub nothing uses, and one left over when plugin/ stops using it', async () => {
    const extra = join(copy, 'clients/jetbrains/stubs/src/com/intellij/openapi/ui/Unused.java');
    await writeFile(extra, 'package com.intellij.openapi.ui;\n\npublic interface Unused {}\n');
    const terminal = join(copy, 'clients/jetbrains/src/main/java/dev/levelcode/sessions/plugin/IdeTerminal.java');
    await writeFile(terminal, (await readFile(terminal, 'utf8')).replace(/^import org\.jetbrains\.plugins\.terminal\..*$/m, ''));
    const r = check(copy);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the stub com.intellij.openapi.ui.Unused is used neither');
    expect(r.stderr).toContain('the stub org.jetbrains.plugins.terminal.TerminalToolWindowManager is used neither');
    expect(r.stderr).toContain('the stub org.jetbrains.plugins.terminal.ShellTerminalWidget is used neither');
  });
});
