// Resume, New and the sidecar's lifecycle in real Neovim against the real sidecar: a verbatim
// resume hands the exact conversation to the chat plugin and makes the session live; :LevelNew
// seals it and says "Previous chat saved to History." once; :LevelResumeLast resumes the previous
// chat; a tier-3 resume goes through the cost-consent prompt, the user's `summarize` function and
// the two-step compaction flow, and leaves a compact event in the file; a session another window
// owns is offered as a copy; a sidecar that dies is restarted with a notice.

import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Nvim, alive, cliSession, removeWorkspaces, sessionFile, sessionLines, stopAll, waitUntil, workspace, type Workspace } from './helpers.js';

afterEach(async () => {
  await stopAll();
  removeWorkspaces();
});

/** setup() options that record every resume and summary request in T. */
function setupWith(ws: Workspace, extra = ''): string {
  return `{
    dir = ${JSON.stringify(ws.store)},
    on_resume = function(r) table.insert(T.resumed, r) end,
    ${extra}
  }`;
}

const SMALL = [
  { kind: 'user', content: 'Add idempotency to RefundService', contextFiles: ['app/services/refund.rb'] },
  { kind: 'assistant', content: [{ type: 'text', text: "I'll look at the service first." }, { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'app/services/refund.rb' } }] },
  {
    kind: 'agent',
    messages: [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'app/services/refund.rb' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'class RefundService\nend' }] },
    ],
  },
  { kind: 'assistant', content: [{ type: 'text', text: 'Use a Redis SET NX key per refund request.' }] },
];

describe('resume', () => {
  it('resumes verbatim, appends to the resumed chat, seals it on :LevelNew and resumes it again with :LevelResumeLast', async () => {
    const ws = workspace();
    const id = cliSession(ws, SMALL, { model: 'claude-sonnet-4' });
    const nvim = await Nvim.start(ws, { setup: setupWith(ws) });

    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose('Add idempotency');
    await nvim.select(2);
    await nvim.choose('Resume');
    const note = await nvim.note('resumed');
    expect(note.msg).toBe('LevelCode: resumed “Add idempotency to RefundService” — verbatim (tier 1).');
    const [result] = await nvim.lua<Record<string, unknown>[]>('return T.resumed');
    expect(result).toMatchObject({ id, tier: 1, readOnly: false });
    expect(result.conversation).toEqual([
      { role: 'user', content: 'Add idempotency to RefundService' },
      { role: 'assistant', content: SMALL[1].content },
      { role: 'assistant', content: SMALL[3].content },
    ]);
    expect(result.agentMessages).toEqual(SMALL[2].messages);
    expect(await nvim.lua(`return require('levelcode').current()`)).toBe(id);
    expect(await nvim.lua(`vim.cmd('doautocmd User LevelCodeResumed'); return require('levelcode').last_resume().id`)).toBe(id);

    // A chat plugin forwards the next turn: it lands in the same file, in order.
    await nvim.lua(`
      require('levelcode').append({ { kind = 'user', content = 'and the tests?' } })
      require('levelcode').append({ { kind = 'assistant', content = { { type = 'text', text = 'Two specs.' } } } },
        function(err) T.appended = err == nil end)`);
    await nvim.waitFor('T.appended', 'the appends');
    // (the second user turn also titles the session in the background: that line may land anywhere after it)
    const lines = sessionLines(ws, id).filter((l) => l.kind !== 'title');
    expect(lines.slice(-2)).toMatchObject([
      { kind: 'user', content: 'and the tests?' },
      { kind: 'assistant', content: [{ type: 'text', text: 'Two specs.' }] },
    ]);

    // New chat: the old one is sealed (and titled), a new one is live, the hint shows once.
    await nvim.command('LevelNew');
    await nvim.note('Previous chat saved to History.');
    await nvim.waitFor(`(function() local c = require('levelcode').current(); return c ~= nil and c ~= ${JSON.stringify(id)} end)()`, 'a new live session');
    const sealed = sessionLines(ws, id);
    expect(sealed.at(-1)).toMatchObject({ kind: 'event', type: 'sealed' });
    expect(sealed.some((l) => l.kind === 'title')).toBe(true);
    const second = await nvim.lua<string>(`return require('levelcode').current()`);
    expect(sessionFile(ws, second)).toBeDefined();

    await nvim.lua(`require('levelcode').append({ { kind = 'user', content = 'a second chat' } }, function() T.appended2 = true end)`);
    await nvim.waitFor('T.appended2', 'the append to the second chat');
    await nvim.command('LevelNew');
    await nvim.waitFor(`(function() local c = require('levelcode').current(); return c ~= nil and c ~= ${JSON.stringify(second)} end)()`, 'a third live session');
    expect(sessionLines(ws, second).at(-1)).toMatchObject({ kind: 'event', type: 'sealed' });
    const told = (await nvim.notes()).filter((n) => n.msg.includes('Previous chat saved to History.'));
    expect(told).toHaveLength(1);

    // --continue: the most recent chat other than the (empty) live one is the second chat.
    await nvim.command('LevelResumeLast');
    await nvim.waitFor('#T.resumed >= 2', 'the second resume');
    const resumed = await nvim.lua<Record<string, unknown>[]>('return T.resumed');
    expect(resumed[1]).toMatchObject({ id: second, tier: 1, conversation: [{ role: 'user', content: 'a second chat' }] });
    expect(await nvim.lua(`return require('levelcode').current()`)).toBe(second);
    expect(await nvim.messages()).not.toMatch(/E\d+:|Error|LevelCode: could not/);
  });

  it('keeps a chat plugin\'s turns in order across New Chat (the Lua API)', async () => {
    const ws = workspace();
    const nvim = await Nvim.start(ws);
    // All in one go, as a chat plugin would fire them: the first append creates the chat, new()
    // comes before the first append has even been answered.
    await nvim.lua(`
      local lc = require('levelcode')
      lc.append({ { kind = 'user', content = 'first chat, turn 1' } })
      lc.append({ { kind = 'assistant', content = { { type = 'text', text = 'first chat, answer 1' } } } })
      lc.new(function(err, r) T.new = { err = err, id = r and r.id, previous = r and r.previous and r.previous.id } end)
      lc.append({ { kind = 'user', content = 'second chat, turn 1' } }, function(err) T.done = err == nil end)`);
    await nvim.waitFor('T.done and T.new', 'the appends and the new chat');
    const made = await nvim.lua<{ id: string; previous: string }>('return T.new');
    expect(await nvim.lua(`return require('levelcode').current()`)).toBe(made.id);
    expect(sessionLines(ws, made.previous).slice(1)).toMatchObject([
      { kind: 'user', content: 'first chat, turn 1' },
      { kind: 'assistant' },
      { kind: 'title', title: 'first chat, turn 1', source: 'fallback' },
      { kind: 'event', type: 'sealed' },
    ]);
    expect(sessionLines(ws, made.id).slice(1)).toMatchObject([{ kind: 'user', content: 'second chat, turn 1' }]);
    await nvim.note('Previous chat saved to History.');
    const list = await nvim.lua<{ sessions: { id: string; turns: number }[] }>(`
      require('levelcode').list({}, function(err, r) T.list = r end)
      return vim.wait(10000, function() return T.list ~= nil end) and T.list`);
    expect(list.sessions.map((x) => [x.id, x.turns])).toEqual([
      [made.id, 1],
      [made.previous, 1],
    ]);
  });

  it('offers a copy of a session another Neovim owns', async () => {
    const ws = workspace();
    const id = cliSession(ws, SMALL);
    const owner = await Nvim.start(ws, { setup: setupWith(ws) });
    await owner.lua(`require('levelcode').resume({ id = ..., quiet = true }, function(err) T.owned = err == nil end)`, [id]);
    await owner.waitFor('T.owned', 'the first Neovim to own the session');

    const nvim = await Nvim.start(ws, { setup: setupWith(ws) });
    await nvim.lua(`require('levelcode').resume({ id = ..., title = 'Refunds' })`, [id]);
    const offer = await nvim.select(1);
    expect(offer.kind).toBe('levelcode.readonly');
    expect(offer.prompt).toMatch(/^This chat is open in another window \(process \d+\)\./);
    expect(offer.items).toEqual(['Open a copy', 'View transcript', 'Cancel']);
    await nvim.choose('Open a copy');
    const note = await nvim.note('resumed “Refunds”');
    expect(note.msg).toMatch(new RegExp(`verbatim \\(tier 1\\)\\. \\(a copy of ${id}\\)$`));
    const copy = await nvim.lua<string>(`return require('levelcode').current()`);
    expect(copy).not.toBe(id);
    const copied = sessionLines(ws, copy).filter((l) => l.kind !== 'meta');
    expect(copied.map((l) => l.kind)).toEqual(['user', 'assistant', 'agent', 'assistant', 'event']);
    expect(copied.at(-1)).toMatchObject({ type: 'forked', from: id });
    // The original stays the other window's, untouched.
    expect(sessionLines(ws, id).filter((l) => l.kind !== 'meta')).toHaveLength(SMALL.length);
  });

  it('restarts a sidecar that dies, with a notice, and keeps working', async () => {
    const ws = workspace();
    cliSession(ws, SMALL);
    const nvim = await Nvim.start(ws);
    await nvim.command('LevelHistory');
    await nvim.select(1);
    await nvim.choose(null);
    const pid = await nvim.sidecarPid();
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => !alive(pid), 'the sidecar to die');
    const note = await nvim.note('the sessions sidecar stopped');
    expect(note.msg).toMatch(/restarting it\.$/);
    await nvim.waitFor(`(function() local p = require('levelcode.rpc').pid(); return p and p ~= ${pid} end)()`, 'a new sidecar');
    await nvim.command('LevelHistory');
    expect((await nvim.select(2)).items).toEqual([expect.stringMatching(/^Add idempotency to RefundService · /)]);
  });
});

describe('tier-3 resume (two-step compaction)', () => {
  const SECRET = 'The staging deploy key is swordfish-42.';

  /** A chat far larger than a 4000-token window's budget; its first message holds the secret. */
  function longSession(ws: Workspace): string {
    const events: object[] = [];
    for (let i = 0; i < 12; i++) {
      const filler = `Turn ${i}: ` + 'we looked at the refund flow and the retry queue again. '.repeat(20);
      events.push({ kind: 'user', content: i === 0 ? `${SECRET} ${filler}` : filler });
      events.push({ kind: 'assistant', content: [{ type: 'text', text: `Answer ${i}: ` + 'the queue drains in order and retries are idempotent. '.repeat(20) }] });
    }
    return cliSession(ws, events, { model: 'claude-sonnet-4' });
  }

  const SUMMARIZE = `
    context_window = 4000,
    cmd_env = { LEVELCODE_SESSIONS_CONSENT_TOKENS = '500' },
    summarize = function(request, done)
      table.insert(T.summaries, request)
      -- answered later, as a real model call would be
      vim.defer_fn(function()
        done('BRIEFING: the user shared that the staging deploy key is swordfish-42; we reviewed the refund flow.')
      end, 10)
    end,`;

  /** Waits for the consent prompt, or fails at once with the message the user got instead. */
  async function consent(nvim: Nvim) {
    await nvim.waitFor(
      `#T.selects >= 1 or (function() for _, n in ipairs(T.notes) do if n.level >= vim.log.levels.ERROR then return true end end end)()`,
      'the consent prompt',
    );
    const ui = await nvim.ui();
    const errors = ui.notes.filter((n) => n.level >= 4).map((n) => n.msg);
    expect(errors, 'the sidecar must offer the two-step flow (needsConfirmation, then session/compact) to Neovim').toEqual([]);
    return ui.selects[0];
  }

  it('asks for consent, summarises with the configured function, records the briefing and resumes on it', async () => {
    const ws = workspace();
    const id = longSession(ws);
    const before = readFileSync(sessionFile(ws, id)!, 'utf8');
    const nvim = await Nvim.start(ws, { setup: setupWith(ws, SUMMARIZE) });

    await nvim.command('LevelResumeLast');
    const prompt = await consent(nvim);
    expect(prompt.kind).toBe('levelcode.consent');
    expect(prompt.items).toEqual(['Resume from summary', 'Start fresh instead']);
    expect(prompt.prompt).toMatch(/needs a summary of about \d+k? tokens/);
    await nvim.choose('Resume from summary');

    const note = await nvim.note('resumed');
    expect(note.msg).toContain('(tier 3).');
    expect(note.msg).toContain('Resumed from summary — full transcript in History.');

    const [request] = await nvim.lua<{ id: string; messages: unknown[]; instructions: string }[]>('return T.summaries');
    expect(request.id).toBe(id);
    expect(JSON.stringify(request.messages)).toContain('swordfish-42');
    expect(request.instructions.length).toBeGreaterThan(0);

    const [result] = await nvim.lua<{ id: string; tier: number; conversation: unknown[] }[]>('return T.resumed');
    expect(result.id).toBe(id);
    expect(result.tier).toBe(3);
    expect(JSON.stringify(result.conversation)).toContain('swordfish-42');
    expect(JSON.stringify(result.conversation)).not.toContain(SECRET);

    // The transcript is untouched; one compact event was appended after it.
    const after = readFileSync(sessionFile(ws, id)!, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const added = after.slice(before.length).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const compact = added.filter((e) => e.kind === 'compact');
    expect(compact).toHaveLength(1);
    expect(compact[0].briefing).toContain('swordfish-42');
    expect(typeof compact[0].coversThrough).toBe('number');
  });

  it('offers a copy of a long session another Neovim owns, and resumes the copy from a summary', async () => {
    const ws = workspace();
    const id = longSession(ws);
    const before = readFileSync(sessionFile(ws, id)!, 'utf8');
    const owner = await Nvim.start(ws, { setup: setupWith(ws) });
    await owner.lua(`require('levelcode').resume({ id = ..., quiet = true }, function(err) T.owned = err == nil end)`, [id]);
    await owner.waitFor('T.owned', 'the first Neovim to own the session');

    const nvim = await Nvim.start(ws, { setup: setupWith(ws, SUMMARIZE.replace(/cmd_env = [^\n]*\n/, '')) });
    await nvim.command('LevelResumeLast');
    const offer = await nvim.select(1);
    expect(offer.kind).toBe('levelcode.readonly');
    expect(offer.items).toEqual(['Open a copy', 'View transcript', 'Cancel']);
    await nvim.choose('Open a copy');
    const note = await nvim.note('resumed');
    expect(note.msg).toContain('(tier 3). Resumed from summary — full transcript in History. (a copy of ' + id + ')');
    const [result] = await nvim.lua<{ id: string; conversation: unknown[] }[]>('return T.resumed');
    expect(result.id).not.toBe(id);
    expect(JSON.stringify(result.conversation)).toContain('swordfish-42');
    expect(sessionLines(ws, result.id).filter((l) => l.kind === 'compact')).toHaveLength(1);
    expect(readFileSync(sessionFile(ws, id)!, 'utf8')).toBe(before);
  });

  it('starts fresh instead when the user declines the cost, leaving the session unchanged', async () => {
    const ws = workspace();
    const id = longSession(ws);
    const before = readFileSync(sessionFile(ws, id)!, 'utf8');
    const nvim = await Nvim.start(ws, { setup: setupWith(ws, SUMMARIZE) });

    await nvim.command('LevelResumeLast');
    await consent(nvim);
    await nvim.choose('Start fresh instead');
    await nvim.note('started a fresh chat; the old one stays in History.');
    const fresh = await nvim.lua<string>(`return require('levelcode').current()`);
    expect(fresh).not.toBe(id);
    expect(sessionFile(ws, fresh)).toBeDefined();
    expect(await nvim.lua('return #T.summaries')).toBe(0);
    expect(readFileSync(sessionFile(ws, id)!, 'utf8')).toBe(before);
  });
});
