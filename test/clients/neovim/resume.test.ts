// Resume, New and the sidecar's lifecycle in real Neovim against the real sidecar: a verbatim
// resume hands the exact conversation to the chat plugin and makes the session live; :LevelNew
// seals it and says "Previous chat saved to History." once; :LevelResumeLast resumes the previous
// chat; a tier-3 resume goes through the cost-consent prompt, the user's `summarize` function and
// the two-step compaction flow, and leaves a compact event in the file; a head ten times the
// summariser's window goes in pieces that each fit it, and a resume that failed half way goes on
// from the last piece recorded; a session another window owns is offered as a copy; a sidecar
// that dies is restarted with a notice.

import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  Nvim,
  alive,
  cliSession,
  removeWorkspaces,
  sessionFile,
  sessionLines,
  stopAll,
  waitUntil,
  workspace,
  type Workspace,
} from './helpers.js';
import { at, nonEmpty } from '../../helpers/items.js';

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
  {
    kind: 'assistant',
    content: [
      { type: 'text', text: "I'll look at the service first." },
      { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'app/services/refund.rb' } },
    ],
  },
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
    expect(note.msg).toBe('LevelCode: resumed “Add idempotency to RefundService” — the whole chat.');
    const [result] = nonEmpty(await nvim.lua<Record<string, unknown>[]>('return T.resumed'));
    expect(result).toMatchObject({ id, tier: 1, readOnly: false });
    expect(result.conversation).toEqual([
      { role: 'user', content: 'Add idempotency to RefundService' },
      { role: 'assistant', content: at(SMALL, 1).content },
      { role: 'assistant', content: at(SMALL, 3).content },
    ]);
    expect(result.agentMessages).toEqual(at(SMALL, 2).messages);
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
    await nvim.waitFor(
      `(function() local c = require('levelcode').current(); return c ~= nil and c ~= ${JSON.stringify(id)} end)()`,
      'a new live session',
    );
    const sealed = sessionLines(ws, id);
    expect(sealed.at(-1)).toMatchObject({ kind: 'event', type: 'sealed' });
    expect(sealed.some((l) => l.kind === 'title')).toBe(true);
    const second = await nvim.lua<string>(`return require('levelcode').current()`);
    expect(sessionFile(ws, second)).toBeDefined();

    await nvim.lua(`require('levelcode').append({ { kind = 'user', content = 'a second chat' } }, function() T.appended2 = true end)`);
    await nvim.waitFor('T.appended2', 'the append to the second chat');
    await nvim.command('LevelNew');
    await nvim.waitFor(
      `(function() local c = require('levelcode').current(); return c ~= nil and c ~= ${JSON.stringify(second)} end)()`,
      'a third live session',
    );
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

  it("keeps a chat plugin's turns in order across New Chat (the Lua API)", async () => {
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
    expect(note.msg).toMatch(new RegExp(`the whole chat\\. \\(a copy of ${id}\\)$`));
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
      events.push({
        kind: 'assistant',
        content: [{ type: 'text', text: `Answer ${i}: ` + 'the queue drains in order and retries are idempotent. '.repeat(20) }],
      });
    }
    return cliSession(ws, events, { model: 'claude-sonnet-4' });
  }

  const SUMMARIZE = `
    context_window = 4000,
    summary_window = 100000, -- one piece: the summariser's window holds the whole head
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
    return at(ui.selects, 0, 'selects');
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
    expect(note.msg).toContain('— from a new summary and the recent turns.');
    expect(note.msg).not.toContain('tier');
    expect(note.msg).toContain('Resumed from summary — full transcript in History.');

    const [request] = nonEmpty(await nvim.lua<{ id: string; messages: unknown[]; instructions: string }[]>('return T.summaries'));
    expect(request.id).toBe(id);
    expect(JSON.stringify(request.messages)).toContain('swordfish-42');
    expect(request.instructions.length).toBeGreaterThan(0);

    const [result] = nonEmpty(await nvim.lua<{ id: string; tier: number; conversation: unknown[] }[]>('return T.resumed'));
    expect(result.id).toBe(id);
    expect(result.tier).toBe(3);
    expect(JSON.stringify(result.conversation)).toContain('swordfish-42');
    expect(JSON.stringify(result.conversation)).not.toContain(SECRET);

    // The transcript is untouched; one compact event was appended after it.
    const after = readFileSync(sessionFile(ws, id)!, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const added = after
      .slice(before.length)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const compact = added.filter((e) => e.kind === 'compact');
    expect(compact).toHaveLength(1);
    expect(at(compact, 0).briefing).toContain('swordfish-42');
    expect(typeof at(compact, 0).coversThrough).toBe('number');
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
    expect(note.msg).toMatch(/from a new summary and the recent turns\. Resumed from .*History\. \(a copy of /);
    expect(note.msg).toContain('(a copy of ' + id + ')');
    const [result] = nonEmpty(await nvim.lua<{ id: string; conversation: unknown[] }[]>('return T.resumed'));
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

describe('tier-3 resume in pieces (two steps, a head ten windows long)', () => {
  const FACT = 'FACT: the staging database is pg-stage-7 on port 6432';
  const WINDOW = 3000;

  /** 60 turns of ~600 tokens (ASCII, no slashes: vim.json measures them as the sidecar does). */
  function headSession(ws: Workspace): string {
    const events: object[] = [];
    for (let i = 0; i < 60; i++) {
      const pad = 'we looked at the refund flow and the retry queue again. '.repeat(20);
      events.push({ kind: 'user', content: i === 0 ? `Set up staging.\n${FACT}\nTURN-${i} ${pad}` : `TURN-${i}: go on. ${pad}` });
      events.push({ kind: 'assistant', content: [{ type: 'text', text: `Answer ${i}: ` + 'the queue drains in order. '.repeat(20) }] });
    }
    return cliSession(ws, events, { model: 'claude-sonnet-4' });
  }

  // The model: refuses a request larger than its window (counted as the sidecar estimates:
  // characters of each message's JSON / 4); else the FACT lines it was sent. T.fail_at makes
  // that call fail as a rate-limited model would.
  const PIECES = `
    context_window = ${WINDOW},
    summary_window = ${WINDOW},
    cmd_env = { LEVELCODE_SESSIONS_CONSENT_TOKENS = '100000000' },
    summarize = function(request, done)
      local enc = vim.json.encode -- compact, as JSON.stringify (vim.fn.json_encode adds spaces)
      local n = math.ceil(#enc(request.instructions) / 4)
      for _, m in ipairs(request.messages) do n = n + math.ceil(#enc(m) / 4) end
      local blob = enc(request.messages)
      local turns = {}
      for t in blob:gmatch('TURN%-(%d+)') do table.insert(turns, tonumber(t)) end
      table.insert(T.summaries, { piece = request.piece, size = n, inputTokens = request.inputTokens, coversThrough = request.coversThrough, turns = turns })
      if T.fail_at == #T.summaries then return done(nil, 'rate limited') end
      if n > ${WINDOW} then return done(nil, 'input of ' .. n .. ' tokens exceeds the window') end
      local facts = {}
      for f in blob:gmatch('FACT:[^"\\\\]*') do facts[f] = true end
      local lines = vim.tbl_keys(facts)
      table.sort(lines)
      table.insert(lines, '(through ' .. request.coversThrough .. ')')
      vim.defer_fn(function() done(table.concat(lines, '\\n')) end, 1)
    end,`;

  type Call = { piece: { index: number; count: number }; size: number; inputTokens: number; coversThrough: number; turns: number[] };

  it('every request fits the window; a failure half way keeps the pieces done, and resuming again asks only for the rest', async () => {
    const ws = workspace();
    const id = headSession(ws);
    const before = readFileSync(sessionFile(ws, id)!, 'utf8');
    const nvim = await Nvim.start(ws, { setup: setupWith(ws, PIECES) });

    await nvim.lua(`T.fail_at = 4; require('levelcode').resume({ id = ... }, function(err) T.first = err and 'failed' or 'resumed' end)`, [
      id,
    ]);
    await nvim.waitFor('T.first', 'the first resume to end');
    expect(await nvim.lua('return T.first')).toBe('failed');
    const failure = await nvim.note('the summary failed');
    expect(failure.msg).toContain('the summary failed (rate limited); the 3 parts summarised before are kept');
    const first = await nvim.lua<Call[]>('return T.summaries');
    expect(first).toHaveLength(4);
    const count = at(first, 0).piece.count;
    expect(count).toBeGreaterThanOrEqual(10);
    expect(first.map((c) => c.piece.index)).toEqual([0, 1, 2, 3]);
    const kept = readFileSync(sessionFile(ws, id)!, 'utf8');
    expect(kept.startsWith(before)).toBe(true);
    const rolling = kept
      .slice(before.length)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rolling.map((e) => [e.kind, e.rolling])).toEqual([
      ['compact', true],
      ['compact', true],
      ['compact', true],
    ]);

    await nvim.lua(
      `T.fail_at = nil; T.summaries = {}; require('levelcode').resume({ id = ... }, function(err, r) T.second = err and 'failed' or 'resumed' end)`,
      [id],
    );
    await nvim.waitFor('T.second', 'the second resume to end');
    expect(await nvim.lua('return T.second')).toBe('resumed');
    const note = await nvim.note('resumed');
    expect(note.msg).toMatch(/from a new summary and the recent turns\. Resumed from .*History\./);
    const rest = await nvim.lua<Call[]>('return T.summaries');
    expect(rest.map((c) => c.piece)).toEqual(rest.map((_, index) => ({ index, count: count - 3 })));
    for (const c of [...first, ...rest]) {
      expect(c.size).toBeLessThanOrEqual(WINDOW);
      expect(c.size).toBe(c.inputTokens);
    }
    const done = first.slice(0, 3).flatMap((c) => c.turns);
    for (const c of rest) for (const t of c.turns) expect(done).not.toContain(t);

    const [result] = nonEmpty(await nvim.lua<{ tier: number; conversation: { content: string }[] }[]>('return T.resumed'));
    expect(result.tier).toBe(3);
    expect(at(result.conversation, 0).content).toContain(FACT);
    const after = readFileSync(sessionFile(ws, id)!, 'utf8');
    expect(after.startsWith(kept)).toBe(true);
    const added = after
      .slice(before.length)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(added.every((e) => e.kind === 'compact')).toBe(true);
    expect(added).toHaveLength(count);
    expect(added.at(-1)!.rolling).toBeUndefined();
    expect(String(added.at(-1)!.briefing)).toContain(FACT);
  });
});
