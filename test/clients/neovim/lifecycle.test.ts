// History's lifecycle in real Neovim against the real sidecar (issue 24): the archived list and
// Unarchive (picker and History buffer keys), auto-archive and retention sent as
// initializationOptions, :LevelRetention's dry run and its application (archive, or delete after
// a confirmation naming the count), delete with Undo (:LevelUndo, `u`), fork at a turn, relink,
// and the state of each History row: forked from, moved from, open in another window (a second
// sidecar holds the session), interrupted.

import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import {
  Nvim,
  cli,
  cliAppend,
  cliSession,
  luaString,
  removeWorkspaces,
  sessionFile,
  sessionLines,
  stopAll,
  workspace,
  type Workspace,
} from './helpers.js';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

/** A two-turn chat (the newest) and a one-turn chat, in the project. */
function seed(ws: Workspace): { older: string; newer: string } {
  const older = cliSession(ws, [
    { kind: 'user', content: 'Why does the cache miss on cold start?' },
    { kind: 'assistant', content: [{ type: 'text', text: 'The warmer runs after the first request.' }] },
  ]);
  const newer = cliSession(ws, [
    { kind: 'user', content: 'Add idempotency to RefundService\nwith Redis' },
    { kind: 'assistant', content: [{ type: 'text', text: 'Use a SET NX key per refund.' }] },
    { kind: 'user', content: [{ type: 'text', text: 'and the tests?' }] },
    { kind: 'assistant', content: [{ type: 'text', text: 'Two specs.' }] },
  ]);
  return { older, newer };
}

/** A chat whose only message is `days` old. */
function oldSession(ws: Workspace, text: string, days: number): string {
  return cliSession(ws, [{ kind: 'user', t: ago(days), content: text }]);
}

function listed(ws: Workspace, archived = false): string[] {
  const args = ['list', '--project', ws.project, '--json', ...(archived ? ['--archived'] : [])];
  return (JSON.parse(cli(ws, args)).sessions as { id: string }[]).map((s) => s.id);
}

const historyLines = (nvim: Nvim, n: number) =>
  nvim.waitFor<string[]>(`(function() local l = T.buf().lines; return #l >= ${n} and l end)()`, `${n} History lines`);

/** Rows with their local time (the sidecar's `view.time`, "14:05" today) as HH:MM. */
const hhmm = (rows: string[]) => rows.map((r) => r.replace(/ · \d\d:\d\d · /, ' · HH:MM · '));

describe('archive', () => {
  it('lists the archived chats with :LevelHistory archived and brings one back with Unarchive', async () => {
    const ws = workspace();
    const { older, newer } = seed(ws);
    cli(ws, ['archive', older]);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory archived');
    const picker = await nvim.select(1);
    expect(picker.prompt).toContain('archived');
    expect(hhmm(picker.items)).toEqual(['Why does the cache miss on cold start? · HH:MM · 1 turn · archived']);
    await nvim.choose('Why does the cache');
    const actions = await nvim.select(2);
    expect(actions.items).toContain('Unarchive');
    expect(actions.items).not.toContain('Archive');
    await nvim.choose('Unarchive');
    await nvim.note('unarchived “Why does the cache miss on cold start?”: back in History');
    expect(listed(ws)).toEqual([newer, older]);
    expect(sessionLines(ws, older).at(-1)).toMatchObject({ kind: 'event', type: 'unarchive' });
    await nvim.command('LevelHistory archived');
    await nvim.note('no archived chats for');
  });

  it('archives with `a`, shows the archived list with `A` and unarchives with `a` in the History buffer', async () => {
    const ws = workspace();
    const { older, newer } = seed(ws);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory!');
    await historyLines(nvim, 6);
    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { 6, 0 })`);
    await nvim.api.input('a');
    await nvim.note('archived “Why does the cache miss on cold start?”');
    await nvim.waitFor(`T.buf().lines[1]:find('· 1 chat$') ~= nil`, 'the archived chat to leave History');
    expect(listed(ws, true)).toEqual([older]);

    await nvim.api.input('A');
    const archived = await nvim.waitFor<string[]>(
      `(function() local l = T.buf().lines; return l[1]:find('^LevelCode archived chats') and l end)()`,
      'the archived list',
    );
    expect(archived[0]).toBe(`LevelCode archived chats · ${ws.project} · 1 chat`);
    expect(archived[1]).toContain('a unarchive');
    expect(hhmm(archived.slice(2))).toEqual(['', 'Archived', '  Why does the cache miss on cold start? · HH:MM · 1 turn']);
    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { 5, 0 })`);
    await nvim.api.input('a');
    await nvim.note('unarchived “Why does the cache miss on cold start?”');
    await nvim.waitFor(`T.buf().lines[4] == 'No archived chats for this project.'`, 'the archived list to empty');
    await nvim.api.input('A');
    await nvim.waitFor(`T.buf().lines[1] == ${luaString(`LevelCode History · ${ws.project} · 2 chats`)}`, 'History again');
    expect(listed(ws)).toEqual([newer, older]);
  });

  it('sends auto_archive_days and retention as initializationOptions: idle chats are archived at start', async () => {
    const ws = workspace();
    const fresh = cliSession(ws, [{ kind: 'user', content: 'from today' }]);
    const idle = oldSession(ws, 'from long ago', 40);
    const week = oldSession(ws, 'from last week', 7);

    const off = await Nvim.start(ws, { setup: `{ dir = ${luaString(ws.store)}, auto_archive_days = 0 }` });
    await off.command('LevelHistory');
    expect((await off.select(1)).items).toHaveLength(3);
    await off.choose(null);
    await off.stop();
    expect(listed(ws, true)).toEqual([]);

    // The default, 30 days: the 40-day-old chat is archived before the first list answers.
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory');
    const items = (await nvim.select(1)).items;
    expect(items.map((i) => i.split(' · ')[0])).toEqual(['from today', 'from last week']);
    await nvim.choose(null);
    expect(sessionLines(ws, idle).at(-1)).toMatchObject({ kind: 'event', type: 'archive', auto: true, reason: 'idle' });
    await nvim.stop();

    // retention.keep = 1 at start-up: archiving only, the newest one kept.
    const keep = await Nvim.start(ws, { setup: `{ dir = ${luaString(ws.store)}, retention = { keep = 1 } }` });
    await keep.command('LevelHistory');
    expect((await keep.select(1)).items.map((i) => i.split(' · ')[0])).toEqual(['from today']);
    await keep.choose(null);
    expect(sessionLines(ws, week).at(-1)).toMatchObject({ kind: 'event', type: 'archive', auto: true, reason: 'keep' });
    expect(sessionFile(ws, fresh)).toBeDefined();
  });
});

describe(':LevelRetention', () => {
  it('shows the dry run, archives with !, and deletes only with ! delete after a confirmation', async () => {
    const ws = workspace();
    const recent = cliSession(ws, [{ kind: 'user', content: 'recent work' }]);
    const nvim = await Nvim.start(ws, {
      setup: `{ dir = ${luaString(ws.store)}, auto_archive_days = 0, retention = { keep = 2, max_age_days = 14 } }`,
    });
    // The sidecar applies the rules once at start-up, before its first list answers; chats
    // another process writes after that (an import of old chats, say) wait for :LevelRetention.
    await nvim.command('LevelHistory');
    expect((await nvim.select(1)).items).toHaveLength(1);
    await nvim.choose(null);
    const a = oldSession(ws, 'three weeks old', 21);
    const b = oldSession(ws, 'two months old', 60);
    // One this window holds (resumed here) is left alone, and the dry run says so.
    const held = oldSession(ws, 'a month old, open here', 30);
    await nvim.lua(`require('levelcode').resume({ id = ..., quiet = true }, function(err) T.held = err == nil end)`, [held]);
    await nvim.waitFor('T.held', 'the chat to be held here');
    await nvim.command('LevelRetention');
    const dry = await nvim.waitFor<string[]>(
      `(function() local b = T.buf(); return b.name == 'levelcode://retention' and b.lines end)()`,
      'the retention buffer',
    );
    expect(dry[0]).toBe(`LevelCode retention · ${ws.project} · dry run: nothing changed`);
    expect(dry[1]).toBe('Rules: older than 14 days → archive · keep the newest 2 → archive · pinned chats never fall out');
    expect(dry).toContain('archive · three weeks old · older than 14 days (last active 21 days ago)');
    expect(dry.some((l) => l.startsWith('archive · two months old · '))).toBe(true);
    expect(dry.some((l) => l.includes('recent work'))).toBe(false);
    expect(dry.filter((l) => l.startsWith('left alone · a month old, open here · '))).toHaveLength(1);
    expect(listed(ws)).toEqual([recent, a, held, b]); // the dry run changed nothing

    await nvim.command('LevelRetention!');
    await nvim.note('retention: archived 2 chats.');
    expect(listed(ws)).toEqual([recent, held]);
    expect(listed(ws, true).sort()).toEqual([a, b].sort());

    // Deleting counts every chat of the project; cancelling the confirmation deletes nothing.
    await nvim.command('LevelRetention! delete');
    const asked = await nvim.select(2);
    expect(asked.kind).toBe('levelcode.confirm');
    expect(asked.prompt).toBe(`Move 2 chats of ${ws.project} to the trash?`);
    expect(asked.items).toEqual(['Move to the trash', 'Cancel']);
    await nvim.choose('Cancel');
    await nvim.note('retention: nothing deleted.');
    expect(sessionFile(ws, a)).toBeDefined();

    await nvim.command('LevelRetention! delete');
    await nvim.select(3);
    await nvim.choose('Move to the trash');
    const note = await nvim.note('retention: moved 2 chats to the trash.');
    expect(note.msg).toContain(':LevelUndo');
    expect(sessionFile(ws, a)).toBeUndefined();
    expect(sessionFile(ws, b)).toBeUndefined();
    expect(sessionFile(ws, recent)).toBeDefined();

    await nvim.command('LevelUndo');
    await nvim.note('brought back 2 chats from the trash.');
    expect(sessionFile(ws, a)).toBeDefined();
    expect(sessionFile(ws, b)).toBeDefined();
  });
});

describe('delete and undo', () => {
  it('says how to undo a delete, and :LevelUndo and `u` bring the chat back', async () => {
    const ws = workspace();
    const { older, newer } = seed(ws);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Why does the cache');
    await nvim.select(2);
    await nvim.choose('Delete');
    const note = await nvim.note('moved “Why does the cache miss on cold start?” to the trash.');
    expect(note.msg).toMatch(/:LevelUndo \(or u in History\) brings it back\.$/);
    expect(sessionFile(ws, older)).toBeUndefined();
    await nvim.command('LevelUndo');
    await nvim.note('brought back “Why does the cache miss on cold start?” from the trash.');
    expect(listed(ws)).toEqual([newer, older]);
    await nvim.command('LevelUndo');
    await nvim.note('nothing to undo');

    await nvim.command('LevelHistory!');
    await historyLines(nvim, 6);
    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { 5, 0 })`);
    await nvim.api.input('D');
    const ask = await nvim.select(3);
    expect(ask.prompt).toContain('Move “Add idempotency to RefundService” to the trash?');
    await nvim.choose('Move to the trash');
    await nvim.note('moved “Add idempotency to RefundService');
    await nvim.waitFor(`T.buf().lines[1]:find('· 1 chat$') ~= nil`, 'the deletion in History');
    await nvim.api.input('u');
    await nvim.note('brought back “Add idempotency to RefundService');
    await nvim.waitFor(`T.buf().lines[1]:find('· 2 chats$') ~= nil`, 'the chat back in History');
    expect(listed(ws)).toEqual([newer, older]);
  });

  it('offers no undo when undo_ms is 0', async () => {
    const ws = workspace();
    const { older } = seed(ws);
    const nvim = await Nvim.start(ws, { setup: `{ dir = ${luaString(ws.store)}, undo_ms = 0 }` });
    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Why does the cache');
    await nvim.select(2);
    await nvim.choose('Delete');
    const note = await nvim.note('to the trash.');
    expect(note.msg).not.toContain('LevelUndo');
    await nvim.command('LevelUndo');
    await nvim.note('nothing to undo');
    expect(sessionFile(ws, older)).toBeUndefined();
  });
});

describe('fork at a turn', () => {
  it('picks a turn, forks there, resumes the fork, and History shows where it came from', async () => {
    const ws = workspace();
    const { newer } = seed(ws);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Add idempotency');
    await nvim.select(2);
    await nvim.choose('Fork from turn');
    const turns = await nvim.select(3);
    expect(turns.kind).toBe('levelcode.turn');
    expect(turns.items).toEqual(['1  Add idempotency to RefundService', '2  and the tests?']);
    await nvim.choose('1  ');
    await nvim.note('forked “Add idempotency to RefundService” at turn 1');
    await nvim.note('resumed “Add idempotency to RefundService” — the whole chat.');
    const fork = await nvim.lua<string>(`return require('levelcode').current()`);
    expect(fork).not.toBe(newer);
    const lines = sessionLines(ws, fork);
    expect(lines[0]).toMatchObject({ kind: 'meta', forkedFrom: { id: newer, turn: 1 } });
    expect(lines.filter((l) => l.kind === 'user')).toHaveLength(1);
    const resumed = await nvim.lua<{ id: string; conversation: { role: string }[] }>(`return require('levelcode').last_resume()`);
    expect(resumed.id).toBe(fork);
    expect(resumed.conversation.map((m) => m.role)).toEqual(['user', 'assistant']);

    await nvim.command('LevelHistory');
    const history = await nvim.select(4);
    expect(hhmm(history.items)).toContain(
      'Add idempotency to RefundService · HH:MM · 1 turn · forked from “Add idempotency to RefundService” turn 1 (current)',
    );
  });
});

describe(':LevelRelink', () => {
  it('counts in a dry run, asks, and moves the chats of the old folder here, shown "moved from"', async () => {
    const ws = workspace();
    const old = join(ws.base, 'notes-old');
    mkdirSync(old);
    const ids = [
      cliSession(ws, [{ kind: 'user', content: 'first note' }], { project: old }),
      cliSession(ws, [{ kind: 'user', content: 'second note' }], { project: old }),
    ];
    rmSync(old, { recursive: true }); // the folder moved away
    const nvim = await Nvim.start(ws);

    await nvim.command(`LevelRelink ${old}`);
    const ask = await nvim.select(1);
    expect(ask.prompt).toBe(`Move 2 chats of ${old} to ${ws.project}?`);
    expect(ask.items).toEqual(['Relink', 'Cancel']);
    await nvim.choose('Cancel');
    await nvim.note('relink: nothing moved.');
    expect(listed(ws)).toEqual([]);

    await nvim.command(`LevelRelink ${old}`);
    await nvim.select(2);
    await nvim.choose('Relink');
    await nvim.note(`relinked 2 chats: History of ${ws.project} lists them “moved from ${old}”.`);
    expect(listed(ws).sort()).toEqual([...ids].sort());
    await nvim.command('LevelHistory');
    const items = (await nvim.select(3)).items;
    expect(items).toHaveLength(2);
    for (const item of items) expect(item).toMatch(new RegExp(` · moved from ${old.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));

    await nvim.command(`LevelRelink ${join(ws.base, 'never-had-chats')}`);
    await nvim.note(`no chats are recorded under ${join(ws.base, 'never-had-chats')}.`);
  });
});

describe('row state', () => {
  it('shows a chat another sidecar holds as open in another window, and an interrupted one', async () => {
    const ws = workspace();
    const { older, newer } = seed(ws);
    cliAppend(ws, older, [
      { kind: 'user', content: 'run the migration' },
      { kind: 'event', type: 'interrupted' },
    ]);

    const other = await Nvim.start(ws);
    await other.lua(`require('levelcode').resume({ id = ..., quiet = true }, function(err) T.owned = err == nil end)`, [newer]);
    await other.waitFor('T.owned', 'the other Neovim to hold the chat');
    const holder = await other.sidecarPid();

    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory');
    const items = (await nvim.select(1)).items;
    expect(hhmm(items)).toEqual([
      `Why does the cache miss on cold start? · HH:MM · 2 turns · interrupted`,
      `Add idempotency to RefundService · HH:MM · 2 turns · open in another window (pid ${holder} on ${hostname()})`,
    ]);
    await nvim.choose(null);

    // Once the other window lets go, the row is plain again.
    await other.stop();
    await nvim.command('LevelHistory');
    expect(hhmm((await nvim.select(2)).items)[1]).toBe('Add idempotency to RefundService · HH:MM · 2 turns');
  });
});
