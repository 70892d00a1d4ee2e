// The hand-off in real Neovim against the real sidecar (issue 38): any saved session, continued
// in an agent CLI. "Continue in an agent CLI…" asks the sidecar for a new Claude Code session
// (session/handoff, written under CLAUDE_CONFIG_DIR in the test's folder) and runs
// `claude --resume <uuid>` in a :terminal split in the project folder. The `claude` on PATH is a
// stand-in that answers --version as Claude Code does and records how it was started; the
// session it resumes must be the one the sidecar wrote from the chosen chat. With no agent CLI
// on PATH, one line says what to install.

import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Nvim, cli, removeWorkspaces, stopAll, waitUntil, workspace, type Workspace } from './helpers.js';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

/** A session of ours with a tool call and its result. */
function seed(ws: Workspace): string {
  const id = cli(ws, ['new', '--project', ws.project]).trim();
  const events = [
    { kind: 'user', content: 'List the files here' },
    {
      kind: 'agent',
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_nv1', name: 'Bash', input: { command: 'ls' } }] }],
    },
    { kind: 'agent', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_nv1', content: 'notes.txt' }] }] },
    { kind: 'assistant', content: [{ type: 'text', text: 'One file: notes.txt' }] },
    { kind: 'title', title: 'Files of the project', source: 'user' },
  ];
  cli(ws, ['append', id], events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return id;
}

/** A `claude` that says its version, and otherwise writes its folder and arguments to a file and waits. */
function standIn(ws: Workspace): { bin: string; out: string } {
  const bin = join(ws.base, 'bin');
  mkdirSync(bin);
  const out = join(ws.base, 'claude-started');
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi\nprintf '%s\\n' "$PWD" "$@" > ${JSON.stringify(out)}\nread line\n`,
  );
  chmodSync(join(bin, 'claude'), 0o755);
  return { bin, out };
}

describe('hand-off to an agent CLI', () => {
  it('writes a new Claude Code session of the chosen chat and resumes it in a :terminal split', async () => {
    const ws = workspace();
    const id = seed(ws);
    const claude = standIn(ws);
    const claudeHome = join(ws.base, '.claude');
    const nvim = await Nvim.start(ws, {
      env: { PATH: `${claude.bin}:${dirname(process.execPath)}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: claudeHome },
      setup: `{ dir = ${JSON.stringify(ws.store)} }`,
    });
    await nvim.command('LevelHistory');
    const history = await nvim.select(1);
    await nvim.choose(history.items[0]!.slice(0, 15));
    const actions = await nvim.select(2);
    expect(actions.items[1]).toBe('Continue in an agent CLI…');
    await nvim.choose('Continue in an agent CLI…');
    await waitUntil(() => existsSync(claude.out) && readFileSync(claude.out, 'utf8').split('\n').length >= 4, 'claude to start');
    const [cwd, flag, uuid] = readFileSync(claude.out, 'utf8').split('\n');
    expect([cwd, flag]).toEqual([ws.project, '--resume']);
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    // The session it resumes is the chosen chat, written where Claude Code reads it.
    const file = join(claudeHome, 'projects', ws.project.replace(/[^a-zA-Z0-9]/g, '-'), `${uuid}.jsonl`);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(['user', 'assistant', 'user', 'assistant', 'custom-title']);
    expect(lines[0].message.content).toEqual([{ type: 'text', text: 'List the files here' }]);
    expect(lines[1].message.content).toEqual([{ type: 'tool_use', id: 'toolu_nv1', name: 'Bash', input: { command: 'ls' } }]);
    expect(lines[2].message.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_nv1' });
    expect(lines[4].customTitle).toBe('Files of the project');
    expect(await nvim.lua('return vim.bo.buftype')).toBe('terminal');
    expect(await nvim.lua('return vim.api.nvim_buf_get_name(0)')).toContain(`levelcode://handoff/claude/${uuid}`);
    expect(await nvim.messages()).not.toMatch(/E\d+:|Error|could not/);
    expect(id).toMatch(/^\d{4}-/);
  });

  it('says in one line what to install when no agent CLI is on PATH, and writes nothing', async () => {
    const ws = workspace();
    seed(ws);
    const claudeHome = join(ws.base, '.claude');
    const nvim = await Nvim.start(ws, {
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: claudeHome },
      setup: `{ dir = ${JSON.stringify(ws.store)} }`,
    });
    await nvim.command('LevelHistory');
    const history = await nvim.select(1);
    await nvim.choose(history.items[0]!.slice(0, 15));
    await nvim.select(2);
    await nvim.choose('Continue in an agent CLI…');
    await nvim.note(
      'no agent CLI on PATH to continue in: install Claude Code (npm install -g @anthropic-ai/claude-code) or Codex (npm install -g @openai/codex)',
    );
    expect(existsSync(claudeHome)).toBe(false);
  });
});
