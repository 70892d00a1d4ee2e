// One writer per chat across windows (issue 43), in real Neovim against the real sidecar. A
// resumed chat is held by this Neovim's sidecar; when that sidecar dies (restarted with a notice)
// another window may continue the chat meanwhile. Each append carries the seq it expects, so
// Neovim's next append is refused instead of interleaving a second conversation into the file:
// the user is asked (vim.ui.select, kind levelcode.conflict) and "Open a copy" forks the chat at
// the last turn Neovim saw, appends the refused turn there and makes the copy live; "Cancel"
// leaves both chats as they are and hands the error to the caller.

import { afterEach, describe, expect, it } from 'vitest';
import {
  Nvim,
  alive,
  cli,
  cliAppend,
  cliSession,
  removeWorkspaces,
  sessionLines,
  stopAll,
  waitUntil,
  workspace,
  type Workspace,
} from './helpers.js';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

const TWO_TURNS = [
  { kind: 'user', content: 'Move the cron jobs to the queue' },
  { kind: 'assistant', content: [{ type: 'text', text: 'Start with the nightly export.' }] },
  { kind: 'user', content: 'And the weekly digest?' },
  { kind: 'assistant', content: [{ type: 'text', text: 'It can follow the same path.' }] },
  { kind: 'title', title: 'Cron jobs to the queue', source: 'user' },
];

const users = (ws: Workspace, id: string) =>
  sessionLines(ws, id)
    .filter((l) => l.kind === 'user')
    .map((l) => l.content);

/** Resumes `id` in a fresh Neovim, kills its sidecar (the lock goes with it) and waits for the restart. */
async function resumedThenRestarted(ws: Workspace, id: string): Promise<Nvim> {
  const nvim = await Nvim.start(ws, { setup: `{ dir = ${JSON.stringify(ws.store)} }` });
  await nvim.lua(`require('levelcode').resume({ id = ..., quiet = true }, function(err) T.owned = err == nil end)`, [id]);
  await nvim.waitFor('T.owned', 'the resume');
  const pid = await nvim.sidecarPid();
  process.kill(pid, 'SIGKILL');
  await waitUntil(() => !alive(pid), 'the sidecar to die');
  await nvim.waitFor(`(function() local p = require('levelcode.rpc').pid(); return p and p ~= ${pid} end)()`, 'a new sidecar');
  return nvim;
}

const appendTurn = (text: string) =>
  `require('levelcode').append({ { kind = 'user', content = ${JSON.stringify(text)} }, { kind = 'assistant', content = { { type = 'text', text = 'ok' } } } }, function(err, r) T.appended = { err = err and err.code or false, id = require('levelcode').current() } end)`;

describe('a chat continued in another window', () => {
  it('says so, opens a copy at the last turn Neovim saw with the refused turn, and goes on there', async () => {
    const ws = workspace();
    const id = cliSession(ws, TWO_TURNS);
    const nvim = await resumedThenRestarted(ws, id);
    // Meanwhile another window continues the chat.
    cliAppend(ws, id, [{ kind: 'user', content: 'Written in the other window' }]);

    await nvim.lua(appendTurn('Written in Neovim'));
    const ask = await nvim.select(1);
    expect(ask.kind).toBe('levelcode.conflict');
    expect(ask.prompt).toMatch(/^This chat is continuing in another window/);
    expect(ask.items).toEqual(['Open a copy', 'Cancel']);
    expect(users(ws, id)).not.toContain('Written in Neovim');
    await nvim.choose('Open a copy');
    await nvim.waitFor('T.appended', 'the append to land in the copy');
    const appended = await nvim.lua<{ err: number | false; id: string }>('return T.appended');
    expect(appended.err).toBe(false);
    const copy = appended.id;
    expect(copy).not.toBe(id);
    expect((await nvim.note('continuing in a copy')).msg).toContain(copy);
    const meta = sessionLines(ws, copy)[0] as { forkedFrom: { id: string; turn: number } };
    expect(meta.forkedFrom).toEqual({ id, turn: 2 });
    expect(users(ws, copy)).toEqual(['Move the cron jobs to the queue', 'And the weekly digest?', 'Written in Neovim']);
    // The next turn goes to the copy, checked against it; the original keeps one conversation.
    await nvim.lua(`T.appended = nil; ${appendTurn('Neovim again')}`);
    await nvim.waitFor('T.appended', 'the next append');
    expect(await nvim.lua('return T.appended')).toEqual({ err: false, id: copy });
    expect(users(ws, copy).at(-1)).toBe('Neovim again');
    expect(users(ws, id)).toEqual(['Move the cron jobs to the queue', 'And the weekly digest?', 'Written in the other window']);
  });

  it('Cancel writes nothing anywhere and gives the caller the conflict', async () => {
    const ws = workspace();
    const id = cliSession(ws, TWO_TURNS);
    const nvim = await resumedThenRestarted(ws, id);
    cliAppend(ws, id, [{ kind: 'user', content: 'Written in the other window' }]);
    const before = sessionLines(ws, id).length;
    await nvim.lua(appendTurn('Written in Neovim'));
    await nvim.select(1);
    await nvim.choose('Cancel');
    await nvim.waitFor('T.appended', 'the append callback');
    expect(await nvim.lua('return T.appended')).toEqual({ err: -33013, id });
    expect(sessionLines(ws, id)).toHaveLength(before);
    expect((JSON.parse(cli(ws, ['list', '--all', '--json'])) as { sessions: unknown[] }).sessions).toHaveLength(1); // no copy
  });
});
