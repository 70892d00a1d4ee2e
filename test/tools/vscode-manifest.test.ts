// tools/vscode-manifest.mjs: the VS Code continue-in entries generated from the tool descriptors.
// The committed manifest is what the generator writes; `--check` fails (exit 1, naming the file)
// when an entry is missing, edited by hand or a title differs, and writing puts it right again.

import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = join(__dirname, '..', '..');
const script = join(repo, 'tools', 'vscode-manifest.mjs');
const run = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { cwd: repo, encoding: 'utf8' });

describe('vscode-manifest', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lcs-manifest-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function copy(name: string): Promise<string> {
    const to = join(dir, name);
    for (const f of ['package.json', 'package.nls.json']) await cp(join(repo, 'clients', 'vscode', f), join(to, f));
    return to;
  }

  it('finds the committed manifest current', () => {
    const r = run('--check');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('fails the check when an entry is gone or a title is changed, and writing restores both', async () => {
    const client = await copy('broken');
    const pkgFile = join(client, 'package.json');
    const nlsFile = join(client, 'package.nls.json');
    const original = { pkg: await readFile(pkgFile, 'utf8'), nls: await readFile(nlsFile, 'utf8') };
    const pkg = JSON.parse(original.pkg);
    pkg.contributes.menus['view/item/context'] = pkg.contributes.menus['view/item/context'].filter(
      (m: { command: string; group: string }) => !(m.command === 'levelcodeSessions.continueInCodex' && m.group.startsWith('inline')),
    );
    await writeFile(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
    const nls = JSON.parse(original.nls);
    nls['command.continueInGemini'] = 'Continue in Gemini';
    await writeFile(nlsFile, `${JSON.stringify(nls, null, 2)}\n`);

    const bad = run('--check', '--dir', client);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`${pkgFile} differs from the tool descriptors`);
    expect(bad.stderr).toContain(`${nlsFile} differs from the tool descriptors`);

    const fix = run('--dir', client);
    expect(fix.status).toBe(0);
    expect(await readFile(pkgFile, 'utf8')).toBe(original.pkg);
    expect(await readFile(nlsFile, 'utf8')).toBe(original.nls);
    expect(run('--check', '--dir', client).status).toBe(0);
  });

  it('adds the entries of a new resumable tool and drops those of one that no longer resumes', async () => {
    const client = await copy('changed');
    const tools = join(dir, 'tools.mjs');
    await writeFile(
      tools,
      `export const TOOLS = ${JSON.stringify([
        { id: 'claude-code', label: 'Claude Code', resume: ['claude', '--resume', '{id}'], vscodeCommand: 'ClaudeCode' },
        { id: 'windsurf', label: 'Windsurf', resume: ['windsurf', '--resume', '{id}'], vscodeCommand: 'Windsurf' },
        { id: 'zed', label: 'Zed' },
      ])};\n`,
    );
    expect(run('--check', '--dir', client, '--tools', tools).status).toBe(1);
    expect(run('--dir', client, '--tools', tools).status).toBe(0);
    const pkg = JSON.parse(await readFile(join(client, 'package.json'), 'utf8'));
    const nls = JSON.parse(await readFile(join(client, 'package.nls.json'), 'utf8'));
    const ours = (list: { command: string }[]) => list.filter((c) => c.command.startsWith('levelcodeSessions.continueIn'));
    expect(ours(pkg.contributes.commands).map((c) => c.command)).toEqual([
      'levelcodeSessions.continueInClaudeCode',
      'levelcodeSessions.continueInWindsurf',
    ]);
    expect(ours(pkg.contributes.menus['view/item/context'])).toContainEqual({
      command: 'levelcodeSessions.continueInWindsurf',
      when: 'view == levelcodeSessions.history && viewItem =~ /\\bcontinue:windsurf$/',
      group: 'inline@3',
    });
    expect(ours(pkg.contributes.menus.commandPalette)).toHaveLength(2);
    expect(nls['command.continueInWindsurf']).toBe('Continue in Windsurf');
    expect(nls['command.continueInCodex']).toBeUndefined();
    // Everything else is as it was.
    const before = JSON.parse(await readFile(join(repo, 'clients/vscode/package.json'), 'utf8'));
    const others = (list: { command: string }[]) => list.filter((c) => !c.command.startsWith('levelcodeSessions.continueIn'));
    expect(others(pkg.contributes.commands)).toEqual(others(before.contributes.commands));
    expect(others(pkg.contributes.menus['view/item/context'])).toEqual(others(before.contributes.menus['view/item/context']));
    expect(nls.category).toBeDefined();
  });
});
