// An imported session in real Neovim against the real sidecar: a Claude Code session (a file the
// real CLI wrote, its folder moved into the test's project) imported with the CLI shows in
// :LevelHistory with its tool, resumes as one of ours, and "Continue in Claude Code" runs
// `claude --resume ID` in a :terminal in the project folder. The `claude` on PATH is a small
// script that records how it was started (Claude Code itself would need an account).

import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Nvim, cli, removeWorkspaces, stopAll, waitUntil, workspace, type Workspace } from './helpers.js';
import { FIXTURES } from '../../import/layout.js';
import { at, nonEmpty } from '../../helpers/items.js';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

const UUID = '81de8f02-0841-48b1-9a80-29d83a4a2fd3';
const REAL = join(FIXTURES, 'claude-code', 'real-1.0.128', 'projects', '-tmp-levelcode-fixture-demo', `${UUID}.jsonl`);

/** The real CLI's session, as if it had been run in the workspace's project; imported by our CLI. */
function importClaudeSession(ws: Workspace): void {
  const root = join(ws.base, '.claude');
  const folder = join(root, 'projects', ws.project.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${UUID}.jsonl`), readFileSync(REAL, 'utf8').replaceAll('/tmp/levelcode-fixture/demo', ws.project));
  const report = JSON.parse(cli(ws, ['import', 'claude-code', '--from', root, '--json']));
  expect(report.imported).toBe(1);
}

/** A `claude` that writes its working folder and arguments to a file, then waits for input. */
function fakeClaude(ws: Workspace): { bin: string; out: string } {
  const bin = join(ws.base, 'bin');
  mkdirSync(bin);
  const out = join(ws.base, 'claude-started');
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > ${JSON.stringify(out)}\nread line\n`);
  chmodSync(join(bin, 'claude'), 0o755);
  return { bin, out };
}

describe('imported sessions', () => {
  it('shows the source tool in :LevelHistory, resumes, and continues in Claude Code in a terminal', async () => {
    const ws = workspace();
    importClaudeSession(ws);
    const claude = fakeClaude(ws);
    const nvim = await Nvim.start(ws, {
      env: { PATH: `${claude.bin}:${process.env.PATH}` },
      setup: `{ dir = ${JSON.stringify(ws.store)}, on_resume = function(r) table.insert(T.resumed, r) end }`,
    });

    await nvim.command('LevelHistory');
    const history = await nvim.select(1);
    expect(history.items).toHaveLength(1);
    expect(history.items[0]).toMatch(/ · Claude Code · .+ · 4 turns · claude-sonnet-4-5$/);
    await nvim.choose(at(history.items, 0).slice(0, 20));
    const actions = await nvim.select(2);
    expect(actions.items).toEqual([
      'Resume',
      'Continue in Claude Code',
      'Continue in an agent CLI…',
      'Fork from turn…',
      'Open transcript',
      'Rename',
      'Pin',
      'Archive',
      'Delete',
      'Export as Markdown',
    ]);
    await nvim.choose('Resume');
    await nvim.note('resumed');
    const [resumed] = nonEmpty(await nvim.lua<{ conversation: { role: string; content: unknown }[] }[]>('return T.resumed'));
    expect(resumed.conversation[0]).toEqual({ role: 'user', content: 'List the files here. TOOL' });

    await nvim.command('LevelHistory');
    await nvim.select(3);
    await nvim.choose(at(history.items, 0).slice(0, 20));
    await nvim.select(4);
    await nvim.choose('Continue in Claude Code');
    await waitUntil(() => existsSync(claude.out) && readFileSync(claude.out, 'utf8').split('\n').length >= 4, 'claude to start');
    expect(readFileSync(claude.out, 'utf8').split('\n').slice(0, 3)).toEqual([ws.project, '--resume', UUID]);
    expect(await nvim.lua('return vim.bo.buftype')).toBe('terminal');
    expect(await nvim.lua('return vim.api.nvim_buf_get_name(0)')).toMatch(/levelcode:\/\/claude\//);
    expect(await nvim.messages()).not.toMatch(/E\d+:|Error|LevelCode: could not|cannot continue/);
  });

  it('the History buffer shows the tool and `c` continues in it; a session of ours has no tool to continue in', async () => {
    const ws = workspace();
    importClaudeSession(ws);
    const ours = cli(ws, ['new', '--project', ws.project]).trim();
    cli(ws, ['append', ours], JSON.stringify({ kind: 'user', content: 'One of ours' }) + '\n');
    const claude = fakeClaude(ws);
    const nvim = await Nvim.start(ws, { env: { PATH: `${claude.bin}:${process.env.PATH}` } });
    await nvim.command('LevelHistory!');
    const lines = await nvim.waitFor<string[]>(
      `(function() local l = vim.api.nvim_buf_get_lines(0, 0, -1, false); if #l >= 4 then return l end end)()`,
      'the History buffer',
    );
    expect(lines[1]).toContain('c continue in its tool');
    const imported = lines.findIndex((l) => l.includes(' · Claude Code · '));
    const own = lines.findIndex((l) => l.startsWith('  One of ours'));
    expect(imported).toBeGreaterThan(1);
    expect(lines[own]).not.toContain('Claude Code');

    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { ${own + 1}, 0 })`);
    await nvim.api.input('c');
    await nvim.note('was not imported from a tool that can continue it');

    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { ${imported + 1}, 0 })`);
    await nvim.api.input('c');
    await waitUntil(() => existsSync(claude.out) && readFileSync(claude.out, 'utf8').split('\n').length >= 4, 'claude to start');
    expect(readFileSync(claude.out, 'utf8').split('\n').slice(0, 3)).toEqual([ws.project, '--resume', UUID]);
  });
});
