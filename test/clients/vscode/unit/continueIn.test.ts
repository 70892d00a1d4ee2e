// Unit tests of "Continue in <tool>" (clients/vscode/src/continueIn.ts): every tool descriptor
// that resumes by id has its command, menu entries and title in the manifest (which the build
// generates, tools/vscode-manifest.mjs); a row names its tool in its contextValue only when the
// sidecar gave a continueIn; the hand-off tools are the capability's; PATH lookup finds executables only.

import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath, handoffTools, isFolder, rowContext } from '../../../../clients/vscode/src/continueIn.js';
import { TOOLS, toolsCapability, type ToolDescriptor } from '../../../../server/import/tools.js';

const dir = join(__dirname, '../../../../clients/vscode');
const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const nls = JSON.parse(readFileSync(join(dir, 'package.nls.json'), 'utf8')) as Record<string, string>;
const resumable = (TOOLS as readonly ToolDescriptor[]).filter((t) => t.resume);
/** The command of each tool that resumes by id, by tool id. */
const CONTINUE_COMMANDS = Object.fromEntries(resumable.map((t) => [t.id, `levelcodeSessions.continueIn${t.vscodeCommand}`]));

describe('Continue in <tool> in the manifest', () => {
  it('has a command for every tool that resumes by id, titled with its label, and no other', () => {
    expect(resumable.length).toBeGreaterThan(0);
    for (const t of resumable) {
      const id = CONTINUE_COMMANDS[t.id];
      const cmd = manifest.contributes.commands.find((c: { command: string }) => c.command === id);
      expect(cmd, id).toBeDefined();
      expect(nls[cmd.title.slice(1, -1)]).toBe(`Continue in ${t.label}`);
    }
    const listed = manifest.contributes.commands
      .map((c: { command: string }) => c.command)
      .filter((c: string) => c.startsWith('levelcodeSessions.continueIn'));
    expect(listed.sort()).toEqual(Object.values(CONTINUE_COMMANDS).sort());
  });

  it("shows each one inline and in the context menu of its tool's rows only, never in the palette", () => {
    const items = manifest.contributes.menus['view/item/context'] as { command: string; when: string; group: string }[];
    const palette = manifest.contributes.menus.commandPalette as { command: string; when: string }[];
    for (const [tool, id] of Object.entries(CONTINUE_COMMANDS)) {
      const mine = items.filter((m) => m.command === id);
      expect(mine.map((m) => m.group.split('@')[0]).sort()).toEqual(['1_open', 'inline']);
      const row = rowContext('levelcodeSession', { source: { tool }, continueIn: { argv: ['x'], cwd: '/' } });
      for (const m of mine) {
        const re = /viewItem =~ \/(.*)\/$/.exec(m.when)?.[1];
        expect(re, m.when).toBeDefined();
        const rx = new RegExp(re!);
        expect(rx.test(row)).toBe(true);
        expect(rx.test('levelcodeSession')).toBe(false);
        for (const other of Object.keys(CONTINUE_COMMANDS).filter((t) => t !== tool))
          expect(rx.test(`levelcodeSession continue:${other}`), `${tool} vs ${other}`).toBe(false);
      }
      expect(palette.find((p) => p.command === id)?.when).toBe('levelcodeSessions.never');
    }
    // The row's other actions still match a row that can continue in its tool.
    const resume = items.find((m) => m.command === 'levelcodeSessions.resume')!;
    const rx = new RegExp(/viewItem =~ \/(.*)\//.exec(resume.when)![1]!);
    expect(rx.test('levelcodeSession continue:claude-code')).toBe(true);
    expect(rx.test('levelcodeSession')).toBe(true);
    expect(rx.test('levelcodeGroup')).toBe(false);
  });
});

describe('rowContext', () => {
  it('names the tool only where the sidecar gave a continueIn', () => {
    const c = { argv: ['claude', '--resume', 'X'], cwd: '/p' };
    expect(rowContext('levelcodeSession', {})).toBe('levelcodeSession');
    expect(rowContext('levelcodeSession', { source: { tool: 'claude-code' } })).toBe('levelcodeSession');
    expect(rowContext('levelcodeSession', { source: { tool: 'claude-code' }, continueIn: c })).toBe(
      'levelcodeSession continue:claude-code',
    );
    expect(rowContext('levelcodeSession', { source: { tool: 'windsurf' }, continueIn: c })).toBe('levelcodeSession continue:windsurf');
  });
});

describe('handoffTools', () => {
  it("are the capability's tools with a hand-off, in its order", () => {
    expect(handoffTools(toolsCapability())).toEqual([
      { to: 'claude-code', label: 'Claude Code', bin: 'claude', install: 'npm install -g @anthropic-ai/claude-code' },
      { to: 'codex', label: 'Codex', bin: 'codex', install: 'npm install -g @openai/codex' },
    ]);
    expect(handoffTools(undefined)).toEqual([]);
  });
});

describe('findOnPath', () => {
  let root = '';
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'lcs-continue-'));
    for (const d of ['a', 'b', 'c/claude']) await mkdir(join(root, d), { recursive: true });
    await writeFile(join(root, 'a', 'claude'), 'not executable');
    await writeFile(join(root, 'b', 'claude'), '#!/bin/sh\n');
    await chmod(join(root, 'b', 'claude'), 0o755);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('takes the first executable file on PATH, skipping folders and plain files', async () => {
    const PATH = [join(root, 'c'), join(root, 'a'), join(root, 'b')].join(':');
    expect(await findOnPath('claude', { PATH }, 'linux')).toBe(join(root, 'b', 'claude'));
    expect(await findOnPath('codex', { PATH }, 'linux')).toBeUndefined();
    expect(await findOnPath('claude', { PATH: join(root, 'a') }, 'linux')).toBeUndefined();
    expect(await findOnPath('claude', {}, 'linux')).toBeUndefined();
    expect(await findOnPath(join(root, 'b', 'claude'), {}, 'linux')).toBe(join(root, 'b', 'claude'));
  });

  it('isFolder is true for a folder only', async () => {
    expect(await isFolder(root)).toBe(true);
    expect(await isFolder(join(root, 'b', 'claude'))).toBe(false);
    expect(await isFolder(join(root, 'gone'))).toBe(false);
  });
});
