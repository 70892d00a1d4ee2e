// The recording ACP proxy (`levelcode-sessions acp -- AGENT`, server/acp/) in front of real ACP
// agents from npm (installed by .ci/acp-agents.sh), driven by a test client built on the official
// SDK (client.ts) over real stdio, each agent pointed at the fake vendor API on 127.0.0.1:
// a chat with a tool call that really runs and a permission request, recorded as it happens;
// list; load (the replayed updates are the ones the client saw live); resume (the fake API's next
// request carries the earlier conversation); a chat saved with one agent resumed in another;
// a chat imported from Codex's own files loaded into each agent; SIGKILL of the agent and of the
// proxy mid-turn; the bytes on both sides of the proxy.
// Each agent's transcript summary goes to test-artifacts/acp-<agent>.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runImport } from '../../../server/import/engine.js';
import { importerOf } from '../../../server/import/registry.js';
import { SessionStore } from '../../../server/store/store.js';
import { History } from '../../../server/listing/history.js';
import { type FakeApi, startFakeApi } from '../../../tools/fixtures/fake-api.mjs';
import { AGENTS, type AgentSpec } from './agents.js';
import { drive, INIT, type Driven } from './client.js';

const REPO = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const BIN = join(REPO, 'bin', 'levelcode-sessions.js');

let api: FakeApi;
let tmp: string;
let storeDir: string;
beforeAll(async () => {
  for (const a of Object.values(AGENTS))
    if (!existsSync(a.command[0]!)) throw new Error(`${a.command[0]} is missing: run bash .ci/acp-agents.sh --install-only`);
  api = await startFakeApi();
  tmp = mkdtempSync(join(tmpdir(), 'lcs-acp-'));
  storeDir = join(tmp, 'store');
});
afterAll(async () => {
  await api?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

type Update = Driven['updates'][number];
type Rec = Record<string, unknown>;

function env(agent: AgentSpec, home: string): NodeJS.ProcessEnv {
  return { ...agent.env(home, api.port), LEVELCODE_SESSIONS_DIR: storeDir };
}

function proxy(agent: AgentSpec, cwd: string, home: string, command = agent.command): Driven {
  return drive(process.execPath, [BIN, 'acp', '--name', agent.name, '--', ...command], { cwd, env: env(agent, home) });
}

async function start(d: Driven): Promise<Rec> {
  return (await d.conn.agent.request('initialize', INIT as never)) as Rec;
}

const prompt = (d: Driven, sessionId: string, text: string) =>
  d.conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }) as Promise<Rec>;

const store = () => new SessionStore({ root: storeDir, agent: 'test' });

/** The chat's model requests (not titles or checks) the fake API got from `from` on. */
function turnRequests(agent: AgentSpec, from: number): Rec[] {
  return api.requests
    .slice(from)
    .filter((r) => agent.apiPath.test(r.url.split('?')[0]!) && agent.isTurn(r.body))
    .map((r) => r.body);
}

function kinds(updates: Update[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const u of updates) out[String(u.update.sessionUpdate)] = (out[String(u.update.sessionUpdate)] ?? 0) + 1;
  return out;
}

/** Every process under `root`, children before grandchildren. */
function treeOf(root: number): number[] {
  const children = (pid: number): number[] =>
    // ps exits 1 when there is none.
    String(spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  const tree: number[] = [];
  const walk = (pid: number) => {
    for (const c of children(pid)) {
      tree.push(c);
      walk(c);
    }
  };
  walk(root);
  return tree;
}

/** SIGKILLs each of `pids` still alive. */
function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Kills the proxy's child (the agent) and every process under it with SIGKILL, all at once. */
function killAgentOf(d: Driven): void {
  killAll(treeOf(d.proc.pid!));
}

const summaries: Record<string, Rec> = {};
const step = (what: string) => process.env.LEVELCODE_ACP_DEBUG && process.stderr.write(`[step ${new Date().toISOString()}] ${what}\n`);

// LEVELCODE_ACP_ONLY=claude,gemini runs those agents alone (while working on one).
const only = process.env.LEVELCODE_ACP_ONLY?.split(',');
const chosen = Object.values(AGENTS).filter((a) => !only || only.includes(a.name));

// Each test drives real agents through several processes; under a loaded machine they take minutes.
describe.each(chosen)('$name behind the proxy', { timeout: 400_000 }, (agent) => {
  const summary: Rec = {};
  summaries[agent.name] = summary;
  let home: string;
  let cwd: string;
  let sessionId: string;
  let storeId: string;
  let live: Update[] = [];

  beforeAll(() => {
    home = join(tmp, agent.name, 'home');
    cwd = join(tmp, agent.name, 'project');
    mkdirSync(home, { recursive: true });
    mkdirSync(cwd, { recursive: true });
  });
  afterAll(() => {
    mkdirSync(join(REPO, 'test-artifacts'), { recursive: true });
    writeFileSync(join(REPO, 'test-artifacts', `acp-${agent.name}.json`), `${JSON.stringify(summary, null, 2)}\n`);
    process.stdout.write(`\n[acp ${agent.name}] ${JSON.stringify(summary)}\n`);
  });

  it('records a chat with a permission request and tool calls as it happens', async () => {
    const d = proxy(agent, cwd, home);
    try {
      const init = await start(d);
      const caps = init.agentCapabilities as Rec;
      expect(caps.loadSession).toBe(true);
      expect((caps.sessionCapabilities as Rec).list).toBeTruthy();
      expect((caps.sessionCapabilities as Rec).resume).toBeTruthy();
      summary.agentInfo = init.agentInfo;
      const created = (await d.conn.agent.request('session/new', { cwd, mcpServers: [] })) as Rec;
      sessionId = created.sessionId as string;
      const first = await prompt(d, sessionId, 'WRITE: save a word to a file');
      expect(first.stopReason).toBe('end_turn');
      expect(d.permissions.length).toBeGreaterThan(0);
      expect(readFileSync(join(cwd, 'acp-proof.txt'), 'utf8')).toContain('levelcode-fixture');
      // On disk while the proxy still runs: the History lists it under cwd with the agent's name.
      const rows = (await new History(store()).list({ project: cwd })).sessions;
      const row = rows.find((r) => r.source?.id === sessionId);
      expect(row?.source?.tool).toBe(agent.name);
      storeId = row!.id;
      const second = await prompt(d, sessionId, 'TOOL: print a word');
      expect(second.stopReason).toBe('end_turn');
      const events = (await store().load(storeId)).events.map((e) => e.event as Rec);
      const text = JSON.stringify(events.map(({ raw: _r, ...e }) => e));
      expect(events.filter((e) => e.kind === 'user')).toHaveLength(2);
      expect(events.filter((e) => e.type === 'acp-permission').length).toBeGreaterThan(0);
      expect(events.filter((e) => e.type === 'acp-stop').map((e) => e.stopReason)).toEqual(['end_turn', 'end_turn']);
      expect(text).toContain('tool_use');
      expect(text).toContain('tool_result');
      expect(text).toContain('levelcode-fixture');
      live = d.updates.filter((u) => u.sessionId === sessionId);
      const listed = (await d.conn.agent.request('session/list', { cwd })) as { sessions: Rec[] };
      expect(listed.sessions.map((s) => s.sessionId)).toContain(sessionId);
      summary.chat = {
        sessionId,
        storeId,
        prompts: 2,
        permissionRequests: d.permissions.length,
        updates: kinds(live),
        storeEvents: events.length,
        eventKinds: events.map((e) => (e.kind === 'event' ? e.type : e.kind)),
        listed: listed.sessions.length,
      };
    } finally {
      await d.close();
    }
  });

  it('load from the store replays what the client saw live, then the chat goes on', async () => {
    const d = proxy(agent, cwd, home);
    try {
      await start(d);
      const loaded = await d.conn.agent.request('session/load', { sessionId: storeId, cwd, mcpServers: [] });
      expect(loaded).toBeTruthy();
      const replayed = d.updates.filter((u) => u.sessionId === storeId);
      const agentSide = replayed.filter((u) => u.update.sessionUpdate !== 'user_message_chunk').map((u) => u.update);
      expect(agentSide).toEqual(live.map((u) => u.update));
      expect(replayed.filter((u) => u.update.sessionUpdate === 'user_message_chunk')).toHaveLength(2);
      const before = api.requests.length;
      const r = await prompt(d, storeId, 'And now?');
      expect(r.stopReason).toBe('end_turn');
      const sent = JSON.stringify(turnRequests(agent, before)[0]);
      expect(sent).toContain('WRITE: save a word to a file');
      expect(sent).toContain('levelcode-fixture');
      summary.load = { replayed: replayed.length, matchesLive: true, nextRequestCarriesEarlier: true };
    } finally {
      await d.close();
    }
  });

  it('resume from the store gives a new agent session the earlier conversation', async () => {
    const d = proxy(agent, cwd, home);
    try {
      await start(d);
      await d.conn.agent.request('session/resume', { sessionId: storeId, cwd, mcpServers: [] });
      expect(d.updates.filter((u) => u.update.sessionUpdate === 'user_message_chunk')).toHaveLength(0);
      const before = api.requests.length;
      await prompt(d, storeId, 'Where were we?');
      const sent = JSON.stringify(turnRequests(agent, before)[0]);
      expect(sent).toContain('TOOL: print a word');
      expect(sent).toContain('And now?');
      const events = (await store().load(storeId)).events.map((e) => e.event as Rec);
      expect(events.filter((e) => e.kind === 'user').map((e) => (e.content as Rec[])[0]!.text)).toEqual([
        'WRITE: save a word to a file',
        'TOOL: print a word',
        'And now?',
        'Where were we?',
      ]);
      summary.resume = { nextRequestCarriesEarlier: true, storeTurns: 4 };
    } finally {
      await d.close();
    }
  });

  it("the agent's own session by its own id: its load where it has one", async () => {
    const d = proxy(agent, cwd, home);
    try {
      const init = await start(d);
      void init;
      const saved = (await store().load(storeId)).events.map((e) => e.event as Rec);
      const before = saved.length;
      const users = saved.filter((e) => e.kind === 'user').length;
      await d.conn.agent.request('session/load', { sessionId, cwd, mcpServers: [] });
      // The agent replayed its own history; nothing of the replay was recorded a second time. (An
      // agent that fails to open its own session is answered from the store: said on stderr.)
      expect(d.updates.filter((u) => u.sessionId === sessionId).length).toBeGreaterThan(0);
      const fellBack = d.stderr.join('').includes('answered from History');
      const after = (await store().load(storeId)).events.map((e) => e.event as Rec);
      if (!fellBack) expect(after.length).toBe(before);
      else expect(after.filter((e) => e.kind === 'user')).toHaveLength(users);
      summary.ownLoad = { updates: d.updates.filter((u) => u.sessionId === sessionId).length, byAgent: !fellBack };
    } finally {
      await d.close();
    }
  });

  it('SIGKILL of the agent mid-turn: the prompt and every earlier line kept, resumable', async () => {
    const d = proxy(agent, cwd, home);
    try {
      await start(d);
      const created = (await d.conn.agent.request('session/new', { cwd, mcpServers: [] })) as Rec;
      const id = created.sessionId as string;
      await prompt(d, id, 'TOOL: print a word');
      const hanging = prompt(d, id, 'HANG on this one').then(
        (r) => ({ ok: r }),
        (e: Error) => ({ error: e.message }),
      );
      // The hanging turn has started.
      await d.update((u) => u.sessionId === id && JSON.stringify(u.update).includes('Working on it'));
      const partial = d.updates.length;
      killAgentOf(d);
      expect(await hanging).toHaveProperty('error');
      void partial;
      await d.exited;
      step('proxy exited');
      const row = (await new History(store()).list({ project: cwd })).sessions.find((r) => r.source?.id === id)!;
      const events = (await store().load(row.id)).events.map((e) => e.event as Rec);
      expect(events.filter((e) => e.kind === 'user')).toHaveLength(2);
      expect(events.some((e) => e.type === 'interrupted')).toBe(true);
      expect(JSON.stringify(events)).toContain('levelcode-fixture');
      // Resumable: a new proxy continues it.
      const d2 = proxy(agent, cwd, home);
      try {
        await start(d2);
        step('d2 started');
        await d2.conn.agent.request('session/resume', { sessionId: row.id, cwd, mcpServers: [] });
        step('d2 resumed');
        const before = api.requests.length;
        expect((await prompt(d2, row.id, 'Still there?')).stopReason).toBe('end_turn');
        step('d2 prompted');
        expect(JSON.stringify(turnRequests(agent, before)[0])).toContain('HANG on this one');
      } finally {
        await d2.close();
      }
      summary.killAgent = { kept: events.length, interruptedMarked: true, resumed: true };
    } finally {
      await d.close().catch(() => undefined);
    }
  });

  it('SIGKILL of the proxy mid-turn: every acknowledged line kept, resumable', async () => {
    const d = proxy(agent, cwd, home);
    let row;
    try {
      await start(d);
      const created = (await d.conn.agent.request('session/new', { cwd, mcpServers: [] })) as Rec;
      const id = created.sessionId as string;
      await prompt(d, id, 'TOOL: print a word');
      void prompt(d, id, 'HANG again').catch(() => undefined);
      // The hanging turn has started.
      await d.update((u) => u.sessionId === id && JSON.stringify(u.update).includes('Working on it'));
      // The agent outlives the killed proxy; d.close() ends it with the proxy's process group.
      d.proc.kill('SIGKILL');
      await d.exited;
      row = (await new History(store()).list({ project: cwd })).sessions.find((r) => r.source?.id === id)!;
      const events = (await store().load(row.id)).events.map((e) => e.event as Rec);
      expect(events.filter((e) => e.kind === 'user')).toHaveLength(2);
      expect(events.filter((e) => e.type === 'acp-stop')).toHaveLength(1);
      summary.killProxy = { kept: events.length };
    } finally {
      await d.close().catch(() => undefined);
    }
    const d2 = proxy(agent, cwd, home);
    try {
      await start(d2);
      await d2.conn.agent.request('session/resume', { sessionId: row.id, cwd, mcpServers: [] });
      const before = api.requests.length;
      expect((await prompt(d2, row.id, 'Back again?')).stopReason).toBe('end_turn');
      expect(JSON.stringify(turnRequests(agent, before)[0])).toContain('HANG again');
      summary.killProxy = { ...(summary.killProxy as Rec), resumed: true };
    } finally {
      await d2.close();
    }
  });

  it('relays the byte stream unchanged apart from the capabilities it adds', async () => {
    const log = join(tmp, `${agent.name}-tap`);
    mkdirSync(log, { recursive: true });
    // The agent's own stdin and stdout, tapped inside the proxy.
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const tapped = ['sh', '-c', `tee ${q(join(log, 'in'))} | ${agent.command.map(q).join(' ')} | tee ${q(join(log, 'out'))}`];
    const d = proxy(agent, cwd, home, tapped);
    try {
      await start(d);
      const created = (await d.conn.agent.request('session/new', { cwd, mcpServers: [] })) as Rec;
      await prompt(d, created.sessionId as string, 'TOOL: print a word');
    } finally {
      await d.close();
    }
    const agentOut = readFileSync(join(log, 'out'), 'utf8').split('\n').filter(Boolean);
    const agentIn = readFileSync(join(log, 'in'), 'utf8').split('\n').filter(Boolean);
    const editorGot = d.frames.filter((f) => f.dir === 'out').map((f) => f.line);
    const editorSent = d.frames.filter((f) => f.dir === 'in').map((f) => f.line);
    expect(agentIn).toEqual(editorSent);
    expect(editorGot.length).toBe(agentOut.length);
    const differing = editorGot.map((l, i) => (l === agentOut[i] ? null : i)).filter((i) => i !== null);
    // Only the initialize answer differs, and only in the session capabilities.
    expect(differing.filter((i) => i !== 0)).toEqual([]);
    const a = JSON.parse(agentOut[0]!);
    const b = JSON.parse(editorGot[0]!);
    const strip = (x: Rec) => {
      const c = { ...(x.result as Rec) };
      const caps = { ...(c.agentCapabilities as Rec) };
      delete caps.loadSession;
      delete caps.sessionCapabilities;
      return { ...c, agentCapabilities: caps };
    };
    expect(strip(b)).toEqual(strip(a));
    summary.bytes = {
      framesFromAgent: agentOut.length,
      framesToAgent: agentIn.length,
      identicalFrames: agentOut.length - differing.length + agentIn.length,
      changedFrames: differing.length ? ['initialize result: the session capabilities the proxy adds'] : [],
    };
  });
});

describe.runIf(chosen.length === Object.keys(AGENTS).length)('across agents', { timeout: 400_000 }, () => {
  it('a chat saved with one agent is loaded and resumed in another', async () => {
    const claude = summaries.claude?.chat as Rec | undefined;
    expect(claude).toBeTruthy();
    const from = claude!.storeId as string;
    for (const agent of [AGENTS.gemini!, AGENTS.qwen!]) {
      const home = join(tmp, agent.name, 'home');
      const cwd = join(tmp, 'claude', 'project');
      const d = proxy(agent, cwd, home);
      try {
        await start(d);
        await d.conn.agent.request('session/load', { sessionId: from, cwd, mcpServers: [] });
        expect(d.updates.filter((u) => u.sessionId === from && u.update.sessionUpdate === 'user_message_chunk').length).toBeGreaterThan(1);
        const before = api.requests.length;
        expect((await prompt(d, from, 'Continue here')).stopReason).toBe('end_turn');
        const sent = JSON.stringify(turnRequests(agent, before)[0]);
        expect(sent).toContain('WRITE: save a word to a file');
        // The continuation is a fork of Claude's session, listed with this agent's name.
        const rows = (await new History(store()).list({ project: cwd })).sessions;
        const fork = rows.find((r) => r.forkedFrom?.id === from && r.source?.tool === agent.name);
        expect(fork).toBeTruthy();
        summaries[agent.name]!.fromClaude = { loaded: from, fork: fork!.id, nextRequestCarriesEarlier: true };
      } finally {
        await d.close();
      }
    }
  });

  it('a Codex chat imported from its own files is loaded into each agent', async () => {
    // The real Codex 0.171.0 rollout of test/fixtures/import/codex, its project moved here.
    const project = join(tmp, 'codex-project');
    const src = join(tmp, 'codex-src');
    copyTree(join(REPO, 'test', 'fixtures', 'import', 'codex', 'real-0.171.0'), src, project, '/tmp/levelcode-fixture/demo');
    mkdirSync(project, { recursive: true });
    await runImport(store(), [{ importer: importerOf('codex')!, roots: [src] }], { ledger: join(tmp, 'ledger-codex.json') });
    // The chat with the shell call (the fixture holds several).
    let row: Awaited<ReturnType<History['list']>>['sessions'][number] | undefined;
    for (const r of (await new History(store()).list({ project })).sessions)
      if (r.source?.tool === 'codex' && JSON.stringify((await store().read(r.id)).events).includes('List the files here. TOOL')) row = r;
    expect(row).toBeTruthy();
    if (!row) return;
    for (const agent of Object.values(AGENTS)) {
      const d = proxy(agent, project, join(tmp, agent.name, 'home'));
      try {
        await start(d);
        await d.conn.agent.request('session/load', { sessionId: row.id, cwd: project, mcpServers: [] });
        const replayed = d.updates.filter((u) => u.sessionId === row.id).map((u) => u.update.sessionUpdate);
        expect(replayed).toContain('user_message_chunk');
        expect(replayed).toContain('tool_call');
        const before = api.requests.length;
        expect((await prompt(d, row.id, 'What did the listing show?')).stopReason).toBe('end_turn');
        expect(JSON.stringify(turnRequests(agent, before)[0])).toContain('List the files here.');
        summaries[agent.name]!.fromCodexImport = { loaded: row.id, replayed: replayed.length, nextRequestCarriesEarlier: true };
      } finally {
        await d.close();
      }
    }
  });
});

/** Copies a fixture tree with the project path the tool recorded changed to `project`. */
function copyTree(from: string, to: string, project: string, was: string): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from)) {
    const a = join(from, e);
    const b = join(to, e);
    if (statSync(a).isDirectory()) copyTree(a, b, project, was);
    else writeFileSync(b, readFileSync(a, 'utf8').replaceAll(was, project));
  }
}
