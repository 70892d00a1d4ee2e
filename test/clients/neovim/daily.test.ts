// Daily use of the Neovim client (issue 40), in real Neovim 0.7.2 against the real sidecar, with
// vim.ui.select / vim.ui.input replaced by the recording stubs (stubs.lua), as Telescope or
// fzf-lua would replace them: every question goes through them (no inputlist, no confirm());
// :LevelSearch lists one row per chat; the History buffer acts on the chat under the cursor when
// the key is pressed and asks before deleting, even right after a pin re-sorted the rows; the
// Fork-from-turn picker is compact; Rename is pre-filled with the full title; :LevelImport finds
// real tools' files (Claude Code and Codex fixtures) and imports them with progress in the
// command line; a transcript shows no HTML; resume notices speak no "tier".

import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Nvim, cli, cliSession, removeWorkspaces, sessionFile, stopAll, workspace, type Workspace } from './helpers.js';
import { FIXTURES } from '../../import/layout.js';
import { at } from '../../helpers/items.js';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

/** Lines of the current buffer once it has at least `n`. */
async function bufLines(nvim: Nvim, n: number): Promise<string[]> {
  return nvim.waitFor<string[]>(`(function() local l = T.buf().lines; return #l >= ${n} and l end)()`, `${n} buffer lines`);
}

/** The line number (1-based) of the first line containing `text`. */
function lineOf(lines: string[], text: string): number {
  const i = lines.findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`no line contains ${text}: ${JSON.stringify(lines)}`);
  return i + 1;
}

describe('every question through vim.ui.select / vim.ui.input', () => {
  it('asks before `D` deletes, on the chat under the cursor when the key is pressed, also after a pin re-sorted the rows', async () => {
    const ws = workspace();
    const a = cliSession(ws, [{ kind: 'user', content: 'Alpha: the oldest chat' }]);
    const b = cliSession(ws, [{ kind: 'user', content: 'Bravo: the middle chat' }]);
    const c = cliSession(ws, [{ kind: 'user', content: 'Charlie: the newest chat' }]);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory!');
    let lines = await nvim.waitFor<string[]>(
      `(function() local l = T.buf().lines; for _, x in ipairs(l) do if x:find('Alpha') then return l end end end)()`,
      'the History buffer',
    );
    // Newest first: Charlie, Bravo, Alpha. Pin Alpha (the last row): it moves to the top.
    const alpha = lineOf(lines, 'Alpha');
    expect(alpha).toBeGreaterThan(lineOf(lines, 'Charlie'));
    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { ${alpha}, 0 })`);
    await nvim.api.input('p');
    await nvim.note('pinned “Alpha: the oldest chat”');
    lines = await nvim.waitFor<string[]>(
      `(function() local l = T.buf().lines; local a, c; for i, x in ipairs(l) do if x:find('Alpha') then a = i end if x:find('Charlie') then c = i end end; return a and c and a < c and l end)()`,
      'Alpha re-sorted to the top',
    );
    // The cursor went with Alpha; the line number it was on now shows another chat.
    expect(await nvim.lua('return vim.api.nvim_win_get_cursor(0)[1]')).toBe(lineOf(lines, 'Alpha'));
    expect(lines[alpha - 1]).not.toContain('Alpha');

    // `D` right away: the question names Alpha, the chat under the cursor; Cancel keeps it.
    await nvim.api.input('D');
    const ask = await nvim.select(1);
    expect(ask.kind).toBe('levelcode.confirm');
    expect(ask.prompt).toContain('Move “Alpha: the oldest chat” to the trash?');
    expect(ask.items).toEqual(['Move to the trash', 'Cancel']);
    await nvim.choose('Cancel');
    expect(sessionFile(ws, a)).toBeDefined();

    // The cursor on Bravo's line, whatever moved: `D` asks about Bravo and deletes only Bravo.
    lines = (await nvim.buf()).lines;
    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { ${lineOf(lines, 'Bravo')}, 0 })`);
    await nvim.api.input('D');
    const ask2 = await nvim.select(2);
    expect(ask2.prompt).toContain('Move “Bravo: the middle chat” to the trash?');
    await nvim.choose('Move to the trash');
    await nvim.note('moved “Bravo: the middle chat” to the trash');
    expect(sessionFile(ws, b)).toBeUndefined();
    expect(sessionFile(ws, a)).toBeDefined();
    expect(sessionFile(ws, c)).toBeDefined();
    expect((await nvim.ui()).confirms).toEqual([]); // vim.fn.confirm is never called
  });

  it('relink and retention confirm through vim.ui.select', async () => {
    const ws = workspace();
    const old = join(ws.base, 'old-folder');
    mkdirSync(old);
    cliSession(ws, [{ kind: 'user', content: 'A chat of the old folder' }], { project: old });
    const nvim = await Nvim.start(ws);
    await nvim.command(`LevelRelink ${old}`);
    const ask = await nvim.select(1);
    expect(ask.kind).toBe('levelcode.confirm');
    expect(ask.prompt).toContain(`Move 1 chat of ${old} to ${ws.project}?`);
    await nvim.choose('Relink');
    await nvim.note('relinked 1 chat');
    expect((await nvim.ui()).confirms).toEqual([]);
  });

  it('renames with the full title pre-filled, never a shortened one', async () => {
    const ws = workspace();
    const long =
      'Refactor the payment reconciliation job so that retries are idempotent across regions and the ledger stays balanced when a webhook arrives twice';
    const id = cliSession(ws, [{ kind: 'user', content: 'first' }]);
    cli(ws, ['rename', id, long]);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Refactor the payment');
    await nvim.select(2);
    await nvim.choose('Rename');
    const input = await nvim.input(1);
    expect(input.default).toBe(long);
    expect(input.default).not.toContain('…');
    await nvim.answer(null);
  });
});

describe(':LevelSearch', () => {
  it('lists one row per chat with its best snippet; ! puts one entry per chat in the quickfix list', async () => {
    const ws = workspace();
    const chatty: object[] = [];
    for (let i = 0; i < 12; i++) {
      chatty.push({ kind: 'user', content: `Question ${i} about the flaky upload retry` });
      chatty.push({ kind: 'assistant', content: [{ type: 'text', text: `Answer ${i}: the upload retry backs off.` }] });
    }
    const many = cliSession(ws, chatty, { model: 'claude-sonnet-4' });
    const once = cliSession(ws, [{ kind: 'user', content: 'Why does the upload retry twice on 503?' }]);
    cliSession(ws, [{ kind: 'user', content: 'Unrelated: rename the CSS variables' }]);
    const nvim = await Nvim.start(ws);
    await nvim.lua('vim.o.columns = 100');
    await nvim.command('LevelSearch upload retry');
    const picker = await nvim.select(1);
    expect(picker.kind).toBe('levelcode.search');
    expect(picker.prompt).toContain('(2 chats)');
    expect(picker.items).toHaveLength(2);
    const titles = picker.items.map((r) => r.split(' · ')[0]);
    expect(new Set(titles).size).toBe(2);
    for (const row of picker.items) {
      expect(row).toMatch(/upload|retry/i);
      expect(await nvim.lua<number>('return vim.fn.strdisplaywidth(...)', [row])).toBeLessThanOrEqual(92);
    }
    await nvim.choose('Why does the upload');
    expect((await nvim.select(2)).kind).toBe('levelcode.action');
    await nvim.choose(null);

    await nvim.command('LevelSearch! upload retry');
    const qf = await nvim.waitFor<{ text: string; bufnr: number }[]>(
      `(function() local q = vim.fn.getqflist(); return #q > 0 and q end)()`,
      'quickfix entries',
    );
    expect(qf).toHaveLength(2);
    const files = await Promise.all(qf.map((q) => nvim.lua<string>('return vim.api.nvim_buf_get_name(...)', [q.bufnr])));
    expect(files.map((f) => basename(f, '.jsonl')).sort()).toEqual([many, once].sort());
    expect(await nvim.messages()).not.toContain('-- More --');
  });
});

describe('Fork from turn', () => {
  it('lists turns compactly: the number and the first line cut to the window', async () => {
    const ws = workspace();
    const events: object[] = [];
    for (let i = 1; i <= 11; i++) {
      events.push({ kind: 'user', content: `Turn ${i}: ${'a very long first line of the message '.repeat(6)}\nsecond line never shown` });
      events.push({ kind: 'assistant', content: [{ type: 'text', text: `ok ${i}` }] });
    }
    cliSession(ws, events);
    const nvim = await Nvim.start(ws);
    await nvim.lua('vim.o.columns = 80');
    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Turn 1');
    await nvim.select(2);
    await nvim.choose('Fork from turn…');
    const turns = await nvim.select(3);
    expect(turns.kind).toBe('levelcode.turn');
    expect(turns.items).toHaveLength(11);
    expect(turns.items[0]).toMatch(/^ 1 {2}Turn 1: a very long/);
    expect(turns.items[10]).toMatch(/^11 {2}Turn 11: /);
    for (const row of turns.items) {
      expect(row).not.toContain('second line');
      expect(row.endsWith('…')).toBe(true);
      expect(await nvim.lua<number>('return vim.fn.strdisplaywidth(...)', [row])).toBeLessThanOrEqual(72);
    }
    await nvim.choose(null);
  });
});

/** A Claude Code and a Codex data folder under the workspace's home, as the tools lay them out. */
function toolHomes(ws: Workspace): { home: string } {
  const home = join(ws.base, 'home');
  const claude = join(home, '.claude', 'projects', ws.project.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(claude, { recursive: true });
  const uuid = '81de8f02-0841-48b1-9a80-29d83a4a2fd3';
  const real = join(FIXTURES, 'claude-code', 'real-1.0.128', 'projects', '-tmp-levelcode-fixture-demo', `${uuid}.jsonl`);
  writeFileSync(join(claude, `${uuid}.jsonl`), readFileSync(real, 'utf8').replaceAll('/tmp/levelcode-fixture/demo', ws.project));
  const day = join(home, '.codex', 'sessions', '2026', '12', '02');
  mkdirSync(day, { recursive: true });
  const rollout = 'rollout-2026-12-02T18-45-57-01a23813-e62c-7653-913d-2941332094fa.jsonl';
  cpSync(join(FIXTURES, 'codex', 'real-0.171.0', 'sessions', '2026', '12', '02', rollout), join(day, rollout));
  return { home };
}

describe(':LevelImport', () => {
  it('lists the tools found with their counts, imports the chosen one with progress in the command line, and reports per tool', async () => {
    const ws = workspace();
    const { home } = toolHomes(ws);
    const env = { HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' };
    const nvim = await Nvim.start(ws, { env });
    // The empty state names the command.
    await nvim.command('LevelHistory!');
    const empty = await bufLines(nvim, 4);
    expect(empty.join('\n')).toContain(':LevelImport brings in your chats from Claude Code, Codex');
    await nvim.command('LevelHistory');
    await nvim.note(':LevelImport brings in your chats');

    // Record what the command line shows.
    await nvim.lua(`
      T.echoes = {}
      local echo = vim.api.nvim_echo
      vim.api.nvim_echo = function(chunks, hist, opts)
        table.insert(T.echoes, chunks[1] and chunks[1][1] or '')
        return echo(chunks, hist, opts)
      end`);
    await nvim.command('LevelImport');
    const pick = await nvim.select(1);
    expect(pick.kind).toBe('levelcode.import');
    expect(pick.items).toEqual([
      'All of them · 2 chats new or updated',
      'Claude Code · 1 file found · 1 new or updated',
      'Codex · 1 file found · 1 new or updated',
    ]);
    expect(cli(ws, ['list', '--all'])).not.toContain('claude'); // the dry run wrote nothing
    await nvim.choose('Claude Code');
    const done = await nvim.note('imported 1 chat');
    expect(done.msg).toContain('Claude Code: 1 new chat');
    const echoes = await nvim.lua<string[]>('return T.echoes');
    expect(echoes).toContain('LevelCode: importing Claude Code…');
    expect(echoes.some((e) => /importing Claude Code… \d+ of \d+ source files/.test(e))).toBe(true);
    // History (open in a buffer) shows the imported chat; Codex was left alone.
    await nvim.command('LevelHistory!');
    await nvim.waitFor(
      `(function() for _, l in ipairs(T.buf().lines) do if l:find('Claude Code') then return true end end end)()`,
      'the import in History',
    );
    const listed = JSON.parse(cli(ws, ['list', '--all', '--json'])).sessions as { source?: { tool: string } }[];
    expect(listed.map((s) => s.source?.tool)).toEqual(['claude-code']);

    // With a tool named, no question: `:LevelImport codex`.
    await nvim.command('LevelImport codex');
    const codex = await nvim.note('Codex: 1 new chat');
    expect(codex.level).toBe(2);
    expect((await nvim.ui()).selects).toHaveLength(1);
  });

  it('running it again during an import offers to cancel it', async () => {
    const ws = workspace();
    const { home } = toolHomes(ws);
    const nvim = await Nvim.start(ws, { env: { HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' } });
    // Both in one go, before the sidecar has even started: the cancel waits for the request and
    // goes out with it (Neovim drops the sidecar's RequestCancelled answer: the plugin ends it).
    await nvim.lua(`
      require('levelcode.import').run('claude-code', function(err) T.import_err = err end)
      require('levelcode.import').run()
      T.choose('Cancel the import')`);
    const ask = at((await nvim.ui()).selects, 0, 'selects');
    expect(ask.kind).toBe('levelcode.confirm');
    expect(ask.prompt).toContain('Importing Claude Code.');
    expect(ask.items).toEqual(['Cancel the import', 'Cancel']);
    await nvim.note('import of Claude Code cancelled; what was imported before stays in History.');
    expect(await nvim.lua('return T.import_err.code')).toBe(-32800);
    expect(await nvim.lua(`return require('levelcode.import').running()`)).toBeNull();
  });

  it('says so when no tool has chats here', async () => {
    const ws = workspace();
    const home = join(ws.base, 'empty-home');
    mkdirSync(home);
    const nvim = await Nvim.start(ws, { env: { HOME: home, CLAUDE_CONFIG_DIR: '', CODEX_HOME: '' } });
    await nvim.command('LevelImport');
    await nvim.note('found no chats of other AI tools on this machine');
    expect((await nvim.ui()).selects).toHaveLength(0);
  });
});

describe('transcripts and notices', () => {
  it('shows tool calls as one folded "▸" line, no HTML; resume says how in plain words', async () => {
    const ws = workspace();
    const id = cliSession(ws, [
      { kind: 'user', content: 'List the files' },
      { kind: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { command: 'ls <dir>' } }] },
      { kind: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt\nb.txt' }] },
      { kind: 'assistant', content: [{ type: 'text', text: 'Two files: a.txt and b.txt.' }] },
    ]);
    const nvim = await Nvim.start(ws, { setup: `{ dir = ${JSON.stringify(ws.store)}, transcript = { large_bytes = 1e9 } }` });
    await nvim.lua(`require('levelcode.transcript').open({ id = ..., title = 'List the files' })`, [id]);
    const lines = await nvim.waitFor<string[]>(
      `(function() local l = T.buf().lines; for _, x in ipairs(l) do if x:find('Two files') then return l end end end)()`,
      'the transcript',
    );
    const text = lines.join('\n');
    expect(text).not.toMatch(/<\/?(details|summary|code)>/);
    expect(text).toContain('▸ Tool call: `bash`');
    const tool = lineOf(lines, '▸ Tool call');
    expect(await nvim.lua(`return vim.fn.foldclosed(${tool + 1})`)).toBe(tool);
    expect(await nvim.lua(`return vim.fn.foldclosed(${lineOf(lines, 'Two files')})`)).toBe(-1);

    await nvim.lua(`require('levelcode').resume({ id = ... })`, [id]);
    const note = await nvim.note('resumed');
    expect(note.msg).toBe('LevelCode: resumed — the whole chat.');
    expect(note.msg).not.toMatch(/tier|verbatim/);
  });

  it('sends the time zone at initialize', async () => {
    const ws = workspace();
    const nvim = await Nvim.start(ws, { env: { TZ: 'Europe/Berlin' } });
    expect(await nvim.lua(`return require('levelcode.config').init_options().timeZone`)).toBe('Europe/Berlin');
    const fixed = await Nvim.start(ws, { env: { TZ: 'XYZ-5:30' } });
    expect(await fixed.lua(`return require('levelcode.config').init_options().timeZone`)).toBe('+05:30');
  });
});
