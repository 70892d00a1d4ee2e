// The shared History-view fixture set (test/fixtures/history-view/) in real Neovim: materialised
// into the workspace's store with times computed from now, listed by the real sidecar in the
// user's zone (Neovim sends it at initialize from TZ=Asia/Kolkata), drawn by :LevelHistory! with
// one header whenever the sidecar's group changes, and by :LevelHistory in vim.ui.select. The
// groups, labels, titles and order must be the expected file's, none computed by the plugin.

import { afterEach, describe, expect, it } from 'vitest';
import { Nvim, removeWorkspaces, stopAll, workspace } from './helpers.js';
// @ts-expect-error: a plain .mjs shared with the other suites, without types
import { materialise } from '../../fixtures/history-view/materialise.mjs';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

interface Row {
  id: string;
  group: string;
  groupLabel: string;
  title: string;
  description: string;
}

/** What the History buffer must show for `rows`: a blank line and a header per group, then the rows. */
function drawn(rows: Row[]): string[] {
  const out: string[] = [];
  let group: string | undefined;
  for (const r of rows) {
    if (r.group !== group) {
      group = r.group;
      out.push('', r.groupLabel);
    }
    out.push(`  ${r.title} · ${r.description}`);
  }
  return out;
}

describe('the History view fixture set', () => {
  it('draws the expected groups, labels and order in the History buffer and the picker', async () => {
    const ws = workspace();
    const want = materialise(ws.store, ws.project) as { timeZone: string; rows: Row[]; archived: Row[] };
    // auto_archive_days = 0: the default (30) would archive the two "Older" chats at start.
    const nvim = await Nvim.start(ws, {
      env: { TZ: want.timeZone },
      setup: `{ dir = ${JSON.stringify(ws.store)}, auto_archive_days = 0 }`,
    });
    await nvim.lua('vim.o.columns = 400');
    await nvim.command('LevelHistory!');
    const lines = await nvim.waitFor<string[]>(
      `(function() local l = T.buf().lines; return #l >= ${2 + want.rows.length} and l end)()`,
      'the History buffer',
    );
    expect(lines[0]).toBe(`LevelCode History · ${ws.project} · ${want.rows.length} chats`);
    expect(lines.slice(2)).toEqual(drawn(want.rows));
    // Every group is drawn once, in the order Pinned, Today, Yesterday, Previous 7 days, ...
    const headers = lines.filter((l) => l !== '' && !l.startsWith('  ')).slice(2);
    expect(headers).toEqual(['Pinned', 'Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days', 'Older']);

    // The archived list: its own header.
    await nvim.api.input('A');
    const arch = await nvim.waitFor<string[]>(
      `(function() local l = T.buf().lines; return l[1]:find('archived chats') and #l >= 5 and l end)()`,
      'the archived list',
    );
    expect(arch.slice(2)).toEqual(drawn(want.archived));

    // The picker: no headers, the same rows in the same order; a pinned row says so.
    await nvim.command('LevelHistory');
    const picker = await nvim.select(1);
    expect(picker.items).toEqual(want.rows.map((r) => `${r.title} · ${r.description}${r.group === 'pinned' ? ' · pinned' : ''}`));
  });
});
