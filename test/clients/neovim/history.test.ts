// History in real Neovim against the real sidecar: sessions written by the CLI are listed
// newest first in vim.ui.select; rename and delete round-trip to the store's files; the
// transcript opens read-only as Markdown (end first for a large session); export to a buffer is
// the sidecar's Markdown and parses as such; a change made by another process (the CLI) appears
// in an open History buffer; search fills a picker and the quickfix list.

import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import MarkdownIt from 'markdown-it';
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
import { environOf } from '../../helpers/proc.js';
import { at } from '../../helpers/items.js';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

/**
 * Where the OS trash (freedesktop.org layout, as the `trash` package writes it) put a file whose
 * name ends with `name`: the home trash under XDG_DATA_HOME, or a `.Trash-<uid>` at a mount point.
 */
function trashedFrom(ws: Workspace, name: string): string | undefined {
  const candidates = [join(ws.xdg.data, 'Trash')];
  for (let dir = ws.base; ; dir = dirname(dir)) {
    candidates.push(join(dir, `.Trash-${process.getuid!()}`), join(dir, '.Trash', String(process.getuid!())));
    if (dir === dirname(dir)) break;
  }
  for (const trash of candidates) {
    const info = join(trash, 'info');
    if (!existsSync(info)) continue;
    for (const f of readdirSync(info)) {
      const text = readFileSync(join(info, f), 'utf8');
      if (text.includes(encodeURI(name))) return join(trash, 'files', f.replace(/\.trashinfo$/, ''));
    }
  }
  return undefined;
}

const ACTIONS = [
  'Resume',
  'Continue in an agent CLI…',
  'Fork from turn…',
  'Open transcript',
  'Rename',
  'Pin',
  'Archive',
  'Delete',
  'Export as Markdown',
];

/** Two sessions in the project (the refund one newest), one in another project. */
function seed(ws: Workspace): { older: string; newer: string; other: string } {
  const older = cliSession(
    ws,
    [
      { kind: 'user', content: 'Why does the cache miss on cold start?' },
      { kind: 'assistant', content: [{ type: 'text', text: 'Because the warmer runs after the first request.' }] },
    ],
    { model: 'gpt-4.1' },
  );
  const newer = cliSession(
    ws,
    [
      { kind: 'user', content: 'Add idempotency to RefundService' },
      {
        kind: 'assistant',
        content: [
          { type: 'text', text: 'Use a Redis `SET NX` key per refund request:\n\n```ruby\nredis.set(key, 1, nx: true, ex: 86_400)\n```' },
        ],
      },
      { kind: 'user', content: 'and the tests?' },
      { kind: 'assistant', content: [{ type: 'text', text: 'Two specs: a replay returns the first result, and a race is serialised.' }] },
    ],
    { model: 'claude-sonnet-4' },
  );
  const other = cliSession(ws, [{ kind: 'user', content: 'A question in another project' }], { project: ws.base });
  return { older, newer, other };
}

describe('History', () => {
  it('starts the sidecar with NODE_EXTRA_CA_CERTS empty, unless cmd_env sets it', async () => {
    // Node reads the bundle that variable names at every start; the sidecar opens no connection.
    const ws = workspace();
    seed(ws);
    const bundle = join(ws.base, 'extra-ca.pem');
    writeFileSync(bundle, ''); // an empty bundle: Node reads it without a warning
    const nvim = await Nvim.start(ws, { env: { NODE_EXTRA_CA_CERTS: bundle } });
    await nvim.command('LevelHistory');
    expect((await nvim.select(1)).items).toHaveLength(2);
    expect(environOf(nvim.proc.pid!).get('NODE_EXTRA_CA_CERTS')).toBe(bundle);
    const sidecar = environOf(await nvim.sidecarPid());
    expect(sidecar.get('NODE_EXTRA_CA_CERTS')).toBe('');
    expect(sidecar.get('XDG_DATA_HOME')).toBe(ws.xdg.data); // the rest of Neovim's environment is kept
    await nvim.choose(null);

    const own = await Nvim.start(ws, {
      env: { NODE_EXTRA_CA_CERTS: bundle },
      setup: `{ dir = ${luaString(ws.store)}, cmd_env = { NODE_EXTRA_CA_CERTS = ${luaString(bundle)}, LEVELCODE_SESSIONS_LOG = 'warn' } }`,
    });
    await own.command('LevelHistory');
    expect((await own.select(1)).items).toHaveLength(2);
    const set = environOf(await own.sidecarPid());
    expect(set.get('NODE_EXTRA_CA_CERTS')).toBe(bundle);
    expect(set.get('LEVELCODE_SESSIONS_LOG')).toBe('warn');
    await own.choose(null);
  });

  it('lists the sessions the CLI wrote, newest first, with title, time, turns and model', async () => {
    const ws = workspace();
    seed(ws);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory');
    const history = await nvim.select(1);
    expect(history.kind).toBe('levelcode.history');
    // The sidecar's row (session/list `view`): title · local time · turns · model.
    expect(history.items).toHaveLength(2);
    expect(history.items[0]).toMatch(/^Add idempotency to RefundService · \d\d:\d\d · 2 turns · claude-sonnet-4$/);
    expect(history.items[1]).toMatch(/^Why does the cache miss on cold start\? · \d\d:\d\d · 1 turn · gpt-4\.1$/);
    await nvim.choose('Why does the cache');
    const actions = await nvim.select(2);
    expect(actions.items).toEqual(ACTIONS);
    expect(actions.prompt).toContain('Why does the cache miss on cold start?');
    // The row's detail: the device the chat was created on (issue 41).
    expect(actions.prompt).toMatch(/\(created on [^)]+\)/);
    await nvim.choose(null);
    expect(await nvim.messages()).not.toMatch(/E\d+:|Error|LevelCode: could not/);
  });

  it('renames and deletes, round trip through the store', async () => {
    const ws = workspace();
    const { older, newer } = seed(ws);
    const nvim = await Nvim.start(ws);

    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Add idempotency');
    await nvim.select(2);
    await nvim.choose('Rename');
    const input = await nvim.input(1);
    expect(input.default).toBe('Add idempotency to RefundService');
    await nvim.answer('Idempotent refunds via Redis keys');
    await nvim.note('renamed to “Idempotent refunds via Redis keys”');
    const title = sessionLines(ws, newer).filter((l) => l.kind === 'title');
    expect(title).toMatchObject([{ kind: 'title', title: 'Idempotent refunds via Redis keys', source: 'user' }]);
    expect(JSON.parse(cli(ws, ['list', '--project', ws.project, '--json'])).sessions[0].title).toBe('Idempotent refunds via Redis keys');

    await nvim.command('LevelHistory');
    const again = await nvim.select(3);
    expect(again.items[0]).toMatch(/^Idempotent refunds via Redis keys · /);

    await nvim.choose('Why does the cache');
    await nvim.select(4);
    await nvim.choose('Delete');
    await nvim.note('moved “Why does the cache miss on cold start?” to the trash');
    expect(sessionFile(ws, older)).toBeUndefined();
    const trashed = trashedFrom(ws, `${older}.jsonl`);
    expect(trashed).toBeDefined();
    expect(JSON.parse(at(readFileSync(trashed!, 'utf8').split('\n'), 0))).toMatchObject({ kind: 'meta', id: older });

    await nvim.command('LevelHistory');
    const after = await nvim.select(5);
    expect(after.items).toHaveLength(1);
    expect(after.items[0]).toMatch(/^Idempotent refunds via Redis keys/);

    // :LevelRename with an argument renames the current chat once there is one.
    await nvim.lua(`require('levelcode').resume({ id = ..., quiet = true })`, [newer]);
    await nvim.waitFor(`require('levelcode').current() == ${JSON.stringify(newer)}`, 'the resumed session to be current');
    await nvim.command('LevelRename Refunds, done right');
    await nvim.note('renamed to “Refunds, done right”');
    expect(
      sessionLines(ws, newer)
        .filter((l) => l.kind === 'title')
        .at(-1),
    ).toMatchObject({ title: 'Refunds, done right' });
  });

  it('pins a chat first and archives one out of History, round trip through the store', async () => {
    const ws = workspace();
    const { older } = seed(ws);
    const nvim = await Nvim.start(ws);

    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Why does the cache');
    await nvim.select(2);
    await nvim.choose('Pin');
    await nvim.note('pinned “Why does the cache miss on cold start?”');
    expect(
      sessionLines(ws, older)
        .filter((l) => l.kind === 'event')
        .map((l) => l.type),
    ).toEqual(['pin']);

    await nvim.command('LevelHistory');
    const pinned = await nvim.select(3);
    expect(pinned.items).toHaveLength(2);
    expect(pinned.items[0]).toMatch(/^Why does the cache miss on cold start\? · \d\d:\d\d · 1 turn · gpt-4\.1 · pinned$/);
    expect(pinned.items[1]).toMatch(/^Add idempotency to RefundService · \d\d:\d\d · 2 turns · claude-sonnet-4$/);
    await nvim.choose('Why does the cache');
    expect((await nvim.select(4)).items).toContain('Unpin');
    await nvim.choose(null);

    await nvim.command('LevelHistory');
    await nvim.select(5);
    await nvim.choose('Add idempotency');
    await nvim.select(6);
    await nvim.choose('Archive');
    await nvim.note('archived “Add idempotency to RefundService”');
    expect(cli(ws, ['list', '--project', ws.project])).not.toContain('Add idempotency');
    expect(cli(ws, ['list', '--project', ws.project, '--archived'])).toContain('Add idempotency');
    await nvim.command('LevelHistory');
    const left = (await nvim.select(7)).items;
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^Why does the cache miss on cold start\? · .* · pinned$/);
    await nvim.choose(null);
    expect(await nvim.messages()).not.toMatch(/E\d+:|Error|LevelCode: could not/);
  });

  it('opens a transcript read-only as Markdown, named after the session, the end first when large', async () => {
    const ws = workspace();
    const { newer } = seed(ws);
    // large_bytes = 0: every session counts as large, so the tail preview is drawn first.
    const nvim = await Nvim.start(ws, {
      setup: `{ dir = ${JSON.stringify(ws.store)}, transcript = { large_bytes = 0, tail_events = 2 } }`,
    });
    await nvim.lua(`
      T.drawn = {}
      local set_lines = vim.api.nvim_buf_set_lines
      vim.api.nvim_buf_set_lines = function(buf, s, e, strict, lines)
        local ok, name = pcall(vim.api.nvim_buf_get_name, buf)
        if ok and name:find('levelcode://', 1, true) then table.insert(T.drawn, table.concat(lines, '\\n')) end
        return set_lines(buf, s, e, strict, lines)
      end`);
    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Add idempotency');
    await nvim.select(2);
    await nvim.choose('Open transcript');
    const markdown = cli(ws, ['export', newer]);
    await nvim.waitFor(`T.drawn[#T.drawn] == ${JSON.stringify(markdown.replace(/\n$/, ''))}`, 'the full transcript');
    const view = await nvim.buf();
    expect(view.name).toMatch(new RegExp(`^levelcode://${newer}/add-idempotency-to-refundservice\\.md$`));
    expect(view.filetype).toBe('markdown');
    expect(view.modifiable).toBe(false);
    expect(view.readonly).toBe(true);
    expect(view.buftype).toBe('nofile');
    expect(view.lines[0]).toBe('# Add idempotency to RefundService');
    // The cursor is at the end, where the latest turn is.
    expect(await nvim.lua('return vim.api.nvim_win_get_cursor(0)[1]')).toBe(view.lines.length);
    // The end came first: a preview of the last 2 of 4 events before the whole transcript.
    const drawn = await nvim.lua<string[]>('return T.drawn');
    const preview = drawn.find((d) => d.includes('_Showing the last 2 of 4 events'));
    expect(preview).toBeDefined();
    expect(preview).toContain('and the tests?');
    expect(preview).not.toContain('Add idempotency to RefundService\n\n## ');
    expect(drawn.indexOf(preview!)).toBeLessThan(drawn.length - 1);

    // An open transcript follows its session: a turn appended by another process shows up, and
    // the cursor, which was at the end, stays there.
    cliAppend(ws, newer, [{ kind: 'user', content: 'A follow-up from the terminal' }]);
    await nvim.waitFor(`vim.tbl_contains(T.buf().lines, 'A follow-up from the terminal')`, 'the appended turn in the open transcript');
    expect(await nvim.lua('return vim.api.nvim_win_get_cursor(0)[1] == vim.api.nvim_buf_line_count(0)')).toBe(true);
    expect((await nvim.buf()).modifiable).toBe(false);
  });

  it('exports to a buffer as valid Markdown, and to a file', async () => {
    const ws = workspace();
    const { newer } = seed(ws);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelExport');
    const which = await nvim.select(1);
    expect(which.prompt).toContain('Export which chat?');
    await nvim.choose('Add idempotency');
    await nvim.note('exported “Add idempotency to RefundService” to a new buffer');
    const view = await nvim.buf();
    expect(view.filetype).toBe('markdown');
    expect(view.buftype).toBe('');
    expect(view.modified).toBe(false);
    const text = view.lines.join('\n') + '\n';
    expect(text).toBe(cli(ws, ['export', newer]));

    const tokens = new MarkdownIt().parse(text, {});
    const headings = tokens.filter((t) => t.type === 'heading_open');
    expect(headings.filter((t) => t.tag === 'h1')).toHaveLength(1);
    const inlineAfter = (t: (typeof tokens)[number]) => at(tokens, tokens.indexOf(t) + 1).content;
    expect(inlineAfter(at(headings, 0))).toBe('Add idempotency to RefundService');
    const h2 = headings.filter((t) => t.tag === 'h2').map(inlineAfter);
    // One heading per turn (the sidecar's export), the speakers inside it.
    expect(h2.filter((h) => /^Turn \d · /.test(h))).toHaveLength(2);
    expect(h2).toHaveLength(2);
    const fence = tokens.find((t) => t.type === 'fence');
    expect(fence?.info).toBe('ruby');
    expect(fence?.content).toBe('redis.set(key, 1, nx: true, ex: 86_400)\n');

    const out = join(ws.base, 'refunds.md');
    await nvim.command(`LevelExport ${out}`);
    await nvim.select(2);
    await nvim.choose('Add idempotency');
    await nvim.note(`exported to ${out}`);
    expect(readFileSync(out, 'utf8')).toBe(text);
  });

  it('shows a change made by another process in an open History', async () => {
    const ws = workspace();
    const { newer } = seed(ws);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory!');
    const first = await nvim.waitFor<string[]>(`(function() local l = T.buf().lines; return #l >= 6 and l end)()`, 'the History buffer');
    const hhmm = (lines: string[]) => lines.map((l) => l.replace(/ · \d\d:\d\d · /, ' · HH:MM · '));
    expect(first[0]).toBe(`LevelCode History · ${ws.project} · 2 chats`);
    expect(hhmm(first.slice(2))).toEqual([
      '',
      'Today',
      '  Add idempotency to RefundService · HH:MM · 2 turns · claude-sonnet-4',
      '  Why does the cache miss on cold start? · HH:MM · 1 turn · gpt-4.1',
    ]);
    const view = await nvim.buf();
    expect(view.name).toBe('levelcode://history');
    expect(view.modifiable).toBe(false);

    // Another process writes a new session, then renames an old one and appends to it.
    const id = cliSession(ws, [{ kind: 'user', content: 'Brand new question from the terminal' }]);
    await nvim.waitFor(
      `(function() for _, l in ipairs(T.buf().lines) do if l:find('^  Brand new question from the terminal · %d%d:%d%d · 1 turn$') then return true end end end)()`,
      'the new session in History',
    );
    cli(ws, ['rename', newer, 'Renamed from the terminal']);
    cliAppend(ws, newer, [{ kind: 'user', content: 'one more question' }]);
    const lines = await nvim.waitFor<string[]>(
      `(function() local l = T.buf().lines; return (l[5] or ''):find('^  Renamed from the terminal · %d%d:%d%d · 3 turns · claude%-sonnet%-4$') and l end)()`,
      'the rename and the append in History',
    );
    expect(lines[0]).toBe(`LevelCode History · ${ws.project} · 3 chats`);
    expect(hhmm([at(lines, 5)])).toEqual(['  Brand new question from the terminal · HH:MM · 1 turn']);

    cli(ws, ['delete', id]);
    await nvim.waitFor(`T.buf().lines[1] == ${JSON.stringify(`LevelCode History · ${ws.project} · 2 chats`)}`, 'the deletion in History');

    // The History buffer's keys act on the line under the cursor.
    await nvim.lua(`vim.api.nvim_win_set_cursor(0, { 5, 0 })`);
    await nvim.api.input('<CR>');
    const actions = await nvim.select(1);
    expect(actions.items).toEqual(ACTIONS);
    expect(actions.prompt).toContain('Renamed from the terminal');
    await nvim.choose(null);
  });

  it('searches into a picker and into the quickfix list', async () => {
    const ws = workspace();
    const { newer } = seed(ws);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelSearch redis');
    const picker = await nvim.select(1);
    expect(picker.kind).toBe('levelcode.search');
    expect(picker.items.length).toBeGreaterThanOrEqual(1);
    // One row a chat: its title, its date, its best snippet.
    expect(picker.items[0]).toMatch(/^Add idempotency to RefundService · \d{4}-\d\d-\d\d · .*Redis/);
    await nvim.choose('Add idempotency');
    expect((await nvim.select(2)).items).toEqual(ACTIONS);
    await nvim.choose(null);

    await nvim.command('LevelSearch! cold start');
    const qf = await nvim.waitFor<{ text: string; lnum: number; bufnr: number }[]>(
      `(function() local q = vim.fn.getqflist(); return #q > 0 and q end)()`,
      'quickfix entries',
    );
    expect(qf).toHaveLength(1);
    expect(at(qf, 0).text).toMatch(/^Why does the cache miss on cold start\? · .*cold start/);
    expect(at(qf, 0).lnum).toBe(2);
    const file = await nvim.lua<string>('return vim.api.nvim_buf_get_name(...)', [at(qf, 0).bufnr]);
    expect(file).toMatch(/\.jsonl$/);
    expect(file).not.toContain(newer);
    expect(await nvim.lua('return vim.fn.getqflist({ title = 1 }).title')).toBe('LevelCode search: cold start');
  });
});
