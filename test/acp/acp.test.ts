// The ACP proxy's core (server/acp/): the recorder and the replay on plain data, then the real
// proxy binary in front of a minimal agent on the official SDK (test/support/acp-agent.mjs), one
// that has no session/load, list or resume and gains them through the proxy. The real agents
// from npm are judged in test/clients/acp/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SeqEvent, SessionEvent } from '../../server/format/events.js';
import { SessionRecorder } from '../../server/acp/record.js';
import {
  EARLIER_HEADER,
  earlierConversation,
  earlierFromSummary,
  replayUpdates,
  SUMMARY_HEADER,
  summaryPlanOf,
  summaryPrompt,
} from '../../server/acp/replay.js';
import { pieceEvents, tailEvents, toolIds } from '../../server/resume/resume.js';
import { agentName } from '../../server/acp/run.js';
import { SessionStore } from '../../server/store/store.js';
import { History } from '../../server/listing/history.js';
import { estimateTokens } from '../../server/resume/tokens.js';
import { drive, INIT } from '../clients/acp/client.js';

type Rec = Record<string, unknown>;
const note = (update: Rec): Rec => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update } });
const chunk = (text: string, kind = 'agent_message_chunk') => note({ sessionUpdate: kind, content: { type: 'text', text } });
const seq = (events: Rec[]): SeqEvent[] =>
  events.map((event, i) => ({ seq: i, event: { t: '2026-01-01T00:00:00Z', ...event } as unknown as SessionEvent }));

describe('SessionRecorder', () => {
  const live = [
    chunk('Let me '),
    chunk('look.'),
    note({ sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Terminal', kind: 'execute', status: 'pending', rawInput: {} }),
    note({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', rawInput: { command: 'ls' }, title: 'ls' }),
    chunk('thinking…', 'agent_thought_chunk'),
    note({
      sessionUpdate: 'tool_call_update',
      toolCallId: 'c1',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'a.txt' } }],
    }),
    note({ sessionUpdate: 'plan', entries: [{ content: 'ls', status: 'completed', priority: 'high' }] }),
    chunk('Done.'),
  ];
  const prompt = {
    jsonrpc: '2.0',
    id: 3,
    method: 'session/prompt',
    params: { sessionId: 's1', prompt: [{ type: 'text', text: 'list files' }] },
  };
  const answer = { jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } };
  function record(): Rec[] {
    const r = new SessionRecorder();
    const out: Rec[] = [...r.prompt(prompt)];
    for (const n of live) out.push(...r.update(n));
    out.push(...r.stop(answer));
    return out;
  }

  it('coalesces chunks, holds one group at a time, and keeps the messages verbatim in their order', () => {
    const events = record();
    expect(events.map((e) => (e.kind === 'event' ? e.type : e.kind))).toEqual([
      'user',
      'assistant',
      'agent', // the call, with the input its second update gave
      'agent', // the thought
      'agent', // the result
      'acp-plan',
      'assistant',
      'acp-stop',
    ]);
    expect(events[1]!.content).toEqual([{ type: 'text', text: 'Let me look.' }]);
    expect(JSON.stringify(events[2]!.messages)).toContain('"command":"ls"');
    expect(JSON.stringify(events[4]!.messages)).toContain('a.txt');
    const raws = events.slice(1, -1).flatMap((e) => e.raw as Rec[]);
    expect(raws).toEqual(live);
    expect(events[0]!.raw).toEqual([prompt]);
    expect(events.at(-1)!.raw).toEqual([answer]);
  });

  it('a load replays exactly the notifications the editor saw, the prompt as user chunks', () => {
    const replay = replayUpdates(seq(record()), 'other-id');
    expect(replay[0]).toEqual({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 'other-id', update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'list files' } } },
    });
    expect(replay.slice(1).map((n) => (n.params as Rec).update)).toEqual(live.map((n) => (n.params as Rec).update));
  });

  it('a turn cut short: what is held, then an interrupted marker and failed results', () => {
    const r = new SessionRecorder();
    r.prompt(prompt);
    r.update(note({ sessionUpdate: 'tool_call', toolCallId: 'c9', title: 'x', status: 'in_progress', rawInput: { a: 1 } }));
    const out = r.interrupted('the agent exited');
    expect(out.map((e) => (e.kind === 'event' ? e.type : e.kind))).toEqual(['agent', 'agent', 'interrupted']);
    expect(JSON.stringify(out[1]!.messages)).toContain('"is_error":true');
  });
});

describe('a saved session from another tool', () => {
  const imported = seq([
    { kind: 'user', content: 'run ls' },
    {
      kind: 'assistant',
      content: [
        { type: 'text', text: 'Running.' },
        { type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'ls' } },
      ],
    },
    { kind: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'a.txt' }] },
    { kind: 'assistant', content: [{ type: 'text', text: 'One file.' }] },
  ]);

  it('is replayed from its neutral conversation', () => {
    const kinds = replayUpdates(imported, 'x').map((n) => ((n.params as Rec).update as Rec).sessionUpdate);
    expect(kinds).toEqual(['user_message_chunk', 'agent_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk']);
  });

  it('is told whole when it fits, its newest turns when not, saying what was left out', () => {
    const whole = earlierConversation(imported, { window: 100_000 });
    expect(whole.tier).toBe(1);
    expect(whole.text).toContain(EARLIER_HEADER);
    expect(whole.text).toContain('User: run ls');
    expect(whole.text).toContain('[tool result] a.txt');
    const long = seq(
      Array.from({ length: 40 }, (_, i) => [
        { kind: 'user', content: `question ${i} ${'x'.repeat(400)}` },
        { kind: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] },
      ]).flat(),
    );
    const cut = earlierConversation(long, { window: 2_000 });
    expect(cut.tier).toBe(3);
    expect(cut.leftOut).toBeGreaterThan(0);
    expect(cut.text).toContain('question 39');
    expect(cut.text).not.toContain('question 0 ');
    expect(cut.text).toContain(`${cut.leftOut} earlier messages are left out`);
  });

  it('from its last summary when the whole does not fit but that does', () => {
    const events = seq([
      ...Array.from({ length: 20 }, (_, i) => ({ kind: 'user', content: `old ${i} ${'y'.repeat(400)}` })),
      { kind: 'compact', briefing: 'The user asked twenty old questions.', coversThrough: 19 },
      { kind: 'user', content: 'new question' },
    ]);
    const e = earlierConversation(events, { window: 2_000 });
    expect(e.tier).toBe(2);
    expect(e.text).toContain('The user asked twenty old questions.');
    expect(e.text).toContain('new question');
    expect(e.text).not.toContain('old 3 ');
  });
});

it('the door: --help, a missing agent command, an agent that cannot start', () => {
  const BIN = join(resolve(fileURLToPath(new URL('../..', import.meta.url))), 'bin', 'levelcode-sessions.js');
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', input: '' });
  const help = run(['acp', '--help']);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^Usage: levelcode-sessions acp /);
  const none = run(['acp']);
  expect(none.status).toBe(2);
  expect(none.stderr).toContain('acp needs the agent command after --');
  expect(run(['acp', '--window', 'x', '--', 'true']).status).toBe(2);
  const missing = run(['acp', '--', '/nonexistent/agent-binary']);
  expect(missing.status).toBe(127);
  expect(missing.stderr).toContain('cannot start /nonexistent/agent-binary');
  expect(missing.stdout).toBe('');
});

it('names an agent from its command', () => {
  expect(agentName(['gemini', '--experimental-acp'])).toBe('gemini');
  expect(agentName(['npx', '-y', '@zed-industries/claude-agent-acp@latest'])).toBe('claude-agent-acp');
  expect(agentName(['node', '/opt/x/acp-agent.mjs'])).toBe('acp-agent');
  expect(agentName(['/usr/local/bin/qwen', '--acp'])).toBe('qwen');
});

describe('an agent without session/load, list or resume, behind the proxy', () => {
  const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
  const BIN = join(REPO, 'bin', 'levelcode-sessions.js');
  const AGENT = join(REPO, 'test', 'support', 'acp-agent.mjs');
  let tmp: string;
  let cwd: string;
  const env = () => ({ ...process.env, LEVELCODE_SESSIONS_DIR: join(tmp, 'store'), ACP_TEST_ECHO: '1' });
  const proxy = () => drive(process.execPath, [BIN, 'acp', '--', process.execPath, AGENT], { cwd, env: env() });
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'lcs-acp-unit-'));
    cwd = join(tmp, 'project');
    mkdirSync(cwd);
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('gains them: list, load (the live updates replayed), resume (the earlier conversation told), fork', async () => {
    const d = proxy();
    let sessionId: string;
    let live: Rec[];
    try {
      const init = (await d.conn.agent.request('initialize', INIT as never)) as Rec;
      expect(init.agentCapabilities).toMatchObject({ loadSession: true, sessionCapabilities: { list: {}, resume: {} } });
      sessionId = ((await d.conn.agent.request('session/new', { cwd, mcpServers: [] })) as Rec).sessionId as string;
      await d.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'first words' }] });
      await d.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'second words' }] });
      live = d.updates.map((u) => u.update);
      const listed = (await d.conn.agent.request('session/list', { cwd })) as { sessions: Rec[] };
      expect(listed.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    } finally {
      await d.close();
    }
    const rows = (await new History(new SessionStore({ root: join(tmp, 'store') })).list({ project: cwd })).sessions;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.source).toMatchObject({ tool: 'acp-agent', id: sessionId });
    expect(rows[0]!.turns).toBe(2);

    const d2 = proxy();
    try {
      await d2.conn.agent.request('initialize', INIT as never);
      await d2.conn.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
      const replayed = d2.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
      expect(replayed.filter((u) => u.sessionUpdate !== 'user_message_chunk')).toEqual(live);
      const n = d2.updates.length;
      await d2.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'third words' }] });
      const told = JSON.stringify(d2.updates.slice(n));
      expect(told).toContain('first words');
      expect(told).toContain('second words');
      expect(told).toContain('third words');
      expect(d2.updates.slice(n).every((u) => u.sessionId === sessionId)).toBe(true);
    } finally {
      await d2.close();
    }

    const d3 = proxy();
    try {
      await d3.conn.agent.request('initialize', INIT as never);
      await d3.conn.agent.request('session/resume', { sessionId, cwd, mcpServers: [] });
      expect(d3.updates.filter((u) => u.update.sessionUpdate === 'user_message_chunk')).toEqual([]);
      await d3.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'fourth words' }] });
      expect(JSON.stringify(d3.updates)).toContain('third words');
    } finally {
      await d3.close();
    }
    const events = (await new SessionStore({ root: join(tmp, 'store') }).load(rows[0]!.id)).events;
    expect(events.filter((e) => e.event.kind === 'user')).toHaveLength(4);

    // session/fork (unstable in ACP) at a turn: a new session told only the turns it keeps.
    const d4 = proxy();
    try {
      const init = (await d4.conn.agent.request('initialize', INIT as never)) as Rec;
      expect((init.agentCapabilities as Rec).sessionCapabilities).toMatchObject({ fork: {} });
      const forked = (await d4.conn.agent.request('session/fork', {
        sessionId,
        cwd,
        mcpServers: [],
        _meta: { levelcode: { atTurn: 1 } },
      })) as Rec;
      expect(forked.sessionId).not.toBe(sessionId);
      await d4.conn.agent.request('session/prompt', {
        sessionId: forked.sessionId as string,
        prompt: [{ type: 'text', text: 'fifth words' }],
      });
      const told = JSON.stringify(d4.updates);
      expect(told).toContain('first words');
      expect(told).not.toContain('second words');
      const fork = (await new History(new SessionStore({ root: join(tmp, 'store') })).list({ project: cwd })).sessions.find(
        (r) => r.forkedFrom,
      );
      expect(fork).toMatchObject({ forkedFrom: { id: rows[0]!.id, turn: 1 }, source: { tool: 'acp-agent', id: forked.sessionId } });
    } finally {
      await d4.close();
    }
  });

  it('an unknown session is a clear error', async () => {
    const d = proxy();
    try {
      await d.conn.agent.request('initialize', INIT as never);
      await expect(d.conn.agent.request('session/load', { sessionId: 'nope', cwd, mcpServers: [] })).rejects.toMatchObject({
        code: -32002,
      });
    } finally {
      await d.close();
    }
  });
});

// A long chat from another tool: 60 turns, each a question and an answer with a tool call and
// its result, too large for a 4000-token window whole.
const longChat = (): Rec[] =>
  Array.from({ length: 60 }, (_, i) => [
    { kind: 'user', content: `question ${i} ${'x'.repeat(300)}` },
    {
      kind: 'assistant',
      content: [
        { type: 'text', text: `Looking ${i}.` },
        { type: 'tool_use', id: `tu${i}`, name: 'Bash', input: { command: `cat f${i}` } },
      ],
    },
    { kind: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${i}`, content: `file ${i}` }] },
    { kind: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] },
  ]).flat();

describe('tier 3: summarised in pieces through the agent', () => {
  const events = seq(longChat());
  const plan = summaryPlanOf(events, { window: 4_000 })!;

  it('plans pieces that each fit the window and never part a tool call from its result', () => {
    expect(plan).not.toBeNull();
    expect(plan.summary.calls).toBeGreaterThan(1);
    let soFar: string | undefined;
    const groups: SeqEvent[][] = [];
    for (let i = 0; i < plan.summary.calls; i++) {
      const p = summaryPrompt(plan, i, soFar);
      expect(p.text.startsWith(SUMMARY_HEADER)).toBe(true);
      expect(p.tokens).toBeLessThanOrEqual(plan.summary.inputLimit);
      groups.push(pieceEvents(plan, i, soFar).events);
      soFar = `Summary of part ${i}.`;
    }
    groups.push(tailEvents(plan));
    // Every event in exactly one group, in order; every tool id in exactly one group.
    expect(groups.flat().map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    const home = new Map<string, number>();
    groups.forEach((g, gi) =>
      g.forEach(({ event }) =>
        toolIds(event).forEach((id) => {
          expect(home.get(id) ?? gi).toBe(gi);
          home.set(id, gi);
        }),
      ),
    );
    expect(home.size).toBe(60);
  });

  it('tells the last summary, then the verbatim tail, and the compact event covers the head', () => {
    const { earlier, compact } = earlierFromSummary(plan, 'The user asked questions 0 to 53.');
    expect(compact).toEqual({ kind: 'compact', briefing: 'The user asked questions 0 to 53.', coversThrough: plan.summary.coversThrough });
    expect(earlier.tier).toBe(3);
    expect(earlier.pieces).toBe(plan.summary.calls);
    expect(earlier.text).toContain('The user asked questions 0 to 53.');
    expect(earlier.text).toContain('User: question 59');
    expect(earlier.text).not.toContain('question 0 ');
    expect(estimateTokens(earlier.text)).toBeLessThanOrEqual(plan.budget);
  });
});

describe('a resume that needs a summary, behind the proxy', () => {
  const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
  const BIN = join(REPO, 'bin', 'levelcode-sessions.js');
  const AGENT = join(REPO, 'test', 'support', 'acp-agent.mjs');
  let tmp: string;
  let cwd: string;
  let saved: string;
  const log = () => join(tmp, 'summary-prompts.jsonl');
  const proxy = (permission: 'allow' | 'reject', consentTokens = '0') =>
    drive(process.execPath, [BIN, 'acp', '--window', '4000', '--', process.execPath, AGENT], {
      cwd,
      permission,
      env: {
        ...process.env,
        LEVELCODE_SESSIONS_DIR: join(tmp, 'store'),
        ACP_TEST_ECHO: '1',
        ACP_TEST_LOG: log(),
        LEVELCODE_SESSIONS_CONSENT_TOKENS: consentTokens,
      },
    });
  const store = () => new SessionStore({ root: join(tmp, 'store') });
  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'lcs-acp-sum-'));
    cwd = join(tmp, 'project');
    mkdirSync(cwd);
    const st = store();
    const meta = await st.create({
      project: cwd,
      source: { tool: 'claude-code', id: 'imported-1', path: join(tmp, 'imported-1.jsonl'), project: cwd },
    });
    await st.append(meta.id, longChat());
    await st.releaseAll();
    saved = meta.id;
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  /** Resumes the saved chat, prompts once; answers what the editor saw and the continuation's events. */
  async function resumeAndPrompt(permission: 'allow' | 'reject', consentTokens?: string) {
    rmSync(log(), { force: true });
    const before = new Set((await new History(store()).list({ project: cwd })).sessions.map((r) => r.id));
    const d = proxy(permission, consentTokens);
    try {
      await d.conn.agent.request('initialize', INIT as never);
      await d.conn.agent.request('session/resume', { sessionId: saved, cwd, mcpServers: [] });
      await d.conn.agent.request('session/prompt', { sessionId: saved, prompt: [{ type: 'text', text: 'next words' }] });
    } finally {
      await d.close();
    }
    const copy = (await new History(store()).list({ project: cwd })).sessions.find((r) => !before.has(r.id))!;
    const events = (await store().load(copy.id)).events;
    const prompts = existsSync(log())
      ? readFileSync(log(), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { sessionId: string; text: string })
      : [];
    return { d, events, prompts };
  }

  it('asks consent, summarises piece by piece in a hidden session, stores compact events, tells summary and tail', async () => {
    const plan = summaryPlanOf((await store().load(saved)).events, { window: 4_000 })!;
    const { d, events, prompts } = await resumeAndPrompt('allow');
    expect(d.permissions).toHaveLength(1);
    expect(d.permissions[0]).toMatchObject({ sessionId: saved, toolCall: { title: 'Summarise the earlier conversation' } });
    // One prompt a piece, each within the window, all in one session the editor never saw.
    expect(prompts).toHaveLength(plan.summary.calls);
    for (const p of prompts) expect(estimateTokens(p.text)).toBeLessThanOrEqual(plan.summary.inputLimit);
    expect(new Set(prompts.map((p) => p.sessionId)).size).toBe(1);
    expect(d.updates.every((u) => u.sessionId === saved)).toBe(true);
    expect(JSON.stringify(d.updates)).not.toContain('a summary is needed');
    expect(JSON.stringify(d.updates)).not.toContain('summarising');
    // The summary is compact events (the rolling ones, then the last); the transcript is whole.
    const compacts = events.filter((e) => e.event.kind === 'compact').map((e) => e.event as Rec);
    expect(compacts).toHaveLength(plan.summary.calls);
    expect(compacts.slice(0, -1).every((c) => c.rolling === true)).toBe(true);
    const last = compacts.at(-1)!;
    expect(last).toMatchObject({ coversThrough: plan.summary.coversThrough });
    expect(last.briefing).toMatch(/^Summary: the user asked questions 0 to \d+\.$/);
    expect(events.filter((e) => e.event.kind === 'user' && JSON.stringify(e.event).includes('question '))).toHaveLength(60);
    expect(events.find((e) => (e.event as Rec).type === 'acp-earlier')!.event).toMatchObject({ tier: 3, consent: 'allowed' });
    // The next prompt carried the last summary, then the verbatim tail, then the editor's words.
    const told = String((d.updates.find((u) => JSON.stringify(u).includes('echo: '))!.update.content as Rec).text);
    expect(told).toContain(last.briefing as string);
    expect(told).toContain('User: question 59');
    expect(told).not.toContain('question 0 ');
    expect(told.indexOf(last.briefing as string)).toBeLessThan(told.indexOf('User: question 59'));
    expect(told.indexOf('User: question 59')).toBeLessThan(told.indexOf('next words'));
  });

  it('on reject: no summary, the newest turns that fit with the notice', async () => {
    const { d, events, prompts } = await resumeAndPrompt('reject');
    expect(d.permissions).toHaveLength(1);
    expect(prompts).toEqual([]);
    expect(events.some((e) => e.event.kind === 'compact')).toBe(false);
    expect(events.find((e) => (e.event as Rec).type === 'acp-earlier')!.event).toMatchObject({ tier: 3, consent: 'rejected' });
    const told = String((d.updates.find((u) => JSON.stringify(u).includes('echo: '))!.update.content as Rec).text);
    expect(told).toMatch(/\d+ earlier messages are left out here to fit/);
    expect(told).toContain('User: question 59');
    expect(told).not.toContain('Summary:');
  });

  it('under the consent threshold: summarised without asking, as the sidecar does', async () => {
    const plan = summaryPlanOf((await store().load(saved)).events, { window: 4_000 })!;
    const { d, events, prompts } = await resumeAndPrompt('reject', String(plan.summary.inputTokens));
    expect(d.permissions).toEqual([]);
    expect(prompts).toHaveLength(plan.summary.calls);
    expect(events.filter((e) => e.event.kind === 'compact')).toHaveLength(plan.summary.calls);
    const earlier = events.find((e) => (e.event as Rec).type === 'acp-earlier')!.event as Rec;
    expect(earlier).toMatchObject({ tier: 3, pieces: plan.summary.calls });
    expect(earlier.consent).toBeUndefined();
  });
});
