// The Neovim plugin loads cleanly: with `-u NONE`, sourcing plugin/levelcode.lua defines the
// commands without loading any Lua module or starting the sidecar; every module loads on 0.7.2;
// the vimdoc has valid tags; `:checkhealth levelcode` passes against the real sidecar.

import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Nvim, PLUGIN, REPO, removeWorkspaces, stopAll, workspace } from './helpers.js';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

describe('loading', () => {
  it('defines its commands lazily and without errors under -u NONE', async () => {
    const ws = workspace();
    const nvim = await Nvim.start(ws, { setup: null, stubs: false });
    const state = await nvim.lua<Record<string, unknown>>(`
      return {
        commands = vim.tbl_map(function(c) return vim.fn.exists(':' .. c) end,
          { 'LevelHistory', 'LevelResumeLast', 'LevelNew', 'LevelExport', 'LevelRename', 'LevelSearch',
            'LevelUndo', 'LevelRetention', 'LevelRelink' }),
        loaded = package.loaded['levelcode'] ~= nil or package.loaded['levelcode.rpc'] ~= nil,
        errmsg = vim.v.errmsg,
        clients = #vim.lsp.get_active_clients(),
      }`);
    expect(state.commands).toEqual([2, 2, 2, 2, 2, 2, 2, 2, 2]);
    expect(state.loaded).toBe(false);
    expect(state.errmsg).toBe('');
    expect(state.clients).toBe(0);
    // Sourcing it again (a plugin manager may) is harmless.
    await nvim.command('runtime plugin/levelcode.lua');
    expect(await nvim.lua('return vim.v.errmsg')).toBe('');
    expect(await nvim.messages()).not.toMatch(/E\d+:|Error/);
  });

  it('loads every module and accepts setup() with no options', async () => {
    const ws = workspace();
    const nvim = await Nvim.start(ws, { setup: null });
    const errors = await nvim.lua<string[]>(`
      local errs = {}
      for _, m in ipairs({ 'levelcode', 'levelcode.config', 'levelcode.util', 'levelcode.rpc', 'levelcode.session',
                           'levelcode.resume', 'levelcode.transcript', 'levelcode.history', 'levelcode.lifecycle',
                           'levelcode.health' }) do
        local ok, e = pcall(require, m)
        if not ok then table.insert(errs, m .. ': ' .. tostring(e)) end
      end
      local ok, e = pcall(require('levelcode').setup)
      if not ok then table.insert(errs, 'setup: ' .. tostring(e)) end
      return errs`);
    expect(errors).toEqual([]);
    const cmd = await nvim.lua<string[]>(`return require('levelcode.config').command()`);
    expect(cmd).toEqual(['node', join(REPO, 'bin', 'levelcode-sessions.js'), 'serve', '--stdio']);
    // The lifecycle options become initializationOptions (protocol.md `initialize`).
    // …and the user's time zone, which the sidecar groups History in (an IANA name or "+05:30").
    expect(await nvim.lua(`return require('levelcode.config').init_options()`)).toEqual({
      autoArchiveDays: 30,
      timeZone: expect.stringMatching(/^([A-Za-z_]+\/[A-Za-z_/+-]+|UTC|[+-]\d\d:\d\d)$/),
    });
    await nvim.lua(`require('levelcode').setup({ auto_archive_days = 0, retention = { keep = 20, max_age_days = 90 } })`);
    expect(await nvim.lua(`return require('levelcode.config').init_options()`)).toEqual({
      autoArchiveDays: 0,
      retention: { keep: 20, maxAgeDays: 90 },
      timeZone: expect.any(String),
    });
    const bad = await nvim.lua<string>(`local ok, e = pcall(require('levelcode').setup, { auto_archive_days = '30' }); return tostring(e)`);
    expect(bad).toContain('`auto_archive_days` must be a number');
  });

  it('has vimdoc with valid, unique tags', async () => {
    const ws = workspace();
    const doc = join(ws.base, 'docrtp', 'doc');
    cpSync(join(PLUGIN, 'doc'), doc, { recursive: true });
    const nvim = await Nvim.start(ws, { setup: null });
    await nvim.command(`helptags ${doc}`);
    expect(await nvim.lua('return vim.v.errmsg')).toBe('');
    const tags = readFileSync(join(doc, 'tags'), 'utf8');
    for (const tag of [
      'levelcode',
      ':LevelHistory',
      ':LevelResumeLast',
      ':LevelNew',
      ':LevelExport',
      ':LevelRename',
      ':LevelSearch',
      ':LevelUndo',
      ':LevelRetention',
      ':LevelRelink',
      'levelcode-lifecycle',
      'levelcode-retention',
      'levelcode-fork',
      'levelcode-row-state',
      'levelcode-summarize',
      'levelcode-api',
      'levelcode.append()',
    ]) {
      expect(tags).toMatch(new RegExp(`^${tag.replace(/[.()]/g, '\\$&')}\\t`, 'm'));
    }
    await nvim.command(`set rtp+=${join(ws.base, 'docrtp')}`);
    await nvim.command('help levelcode-summarize');
    expect(await nvim.lua('return vim.api.nvim_buf_get_name(0)')).toMatch(/levelcode\.txt$/);
  });

  it(":help levelcode works after the README's plain-package setup, and doc/tags stays out of git", async () => {
    const ws = workspace();
    // README.md: ln -s <checkout>/clients/neovim ~/.local/share/nvim/site/pack/levelcode/opt/levelcode
    const opt = join(ws.xdg.data, 'nvim', 'site', 'pack', 'levelcode', 'opt');
    mkdirSync(opt, { recursive: true });
    symlinkSync(PLUGIN, join(opt, 'levelcode'));
    rmSync(join(PLUGIN, 'doc', 'tags'), { force: true }); // as on a fresh clone
    const nvim = await Nvim.start(ws, { onRtp: false, loadPlugin: false, setup: null, stubs: false });
    await nvim.command('packadd levelcode');
    await nvim.lua(`require('levelcode').setup({})`);
    await nvim.command('help levelcode');
    expect(await nvim.lua('return vim.api.nvim_buf_get_name(0)')).toMatch(/levelcode\.txt$/);
    await nvim.command('help :LevelHistory');
    expect(await nvim.lua('return vim.api.nvim_buf_get_name(0)')).toMatch(/levelcode\.txt$/);
    expect(await nvim.lua('return vim.v.errmsg')).toBe('');
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', join(PLUGIN, 'doc')], {
      cwd: REPO,
      encoding: 'utf8',
    });
    expect(status).toBe('');
  });

  it(':checkhealth levelcode passes', async () => {
    const ws = workspace();
    const nvim = await Nvim.start(ws);
    await nvim.command('checkhealth levelcode');
    const view = await nvim.buf();
    const text = view.lines.join('\n');
    expect(text).not.toMatch(/ERROR/);
    expect(text).toMatch(/OK:? .*Neovim \d+\.\d+\.\d+/);
    expect(text).toMatch(/OK:? .*The sidecar starts: levelcode-sessions 0\.1\.0, protocol version 1/);
    expect(text).toContain(ws.store);
    expect(text).toMatch(/OK:? .*doctor: 0 session\(s\) in 0 project\(s\), no problems/);
    expect(text).toMatch(/OK:? .*At start-up the sidecar applies: archive chats idle 30 days \(archiving only/);
    expect(text).toMatch(/OK:? .*:LevelUndo brings a deleted chat back for 30 s/);
    expect(await nvim.lua(`return require('levelcode.rpc').server().store`)).toBe(ws.store);

    // setup() again with another store: the running sidecar is replaced by one on that store,
    // with no restart notice (it was stopped on purpose).
    const other = join(ws.base, 'other-store');
    await nvim.lua(`require('levelcode').setup({ dir = ... })`, [other]);
    await nvim.lua(`require('levelcode').list({}, function(err) T.listed = err == nil end)`);
    await nvim.waitFor('T.listed', 'a listing from the new sidecar');
    expect(await nvim.lua(`return require('levelcode.rpc').server().store`)).toBe(other);
    expect(await nvim.lua(`return #vim.tbl_filter(function(n) return n.msg:find('sidecar stopped') end, T.notes)`)).toBe(0);
  });
});
