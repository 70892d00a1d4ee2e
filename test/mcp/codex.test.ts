// A second real agent: Codex CLI from the npm registry (pinned), with the server in its
// config.toml as the README shows, driven against a fake OpenAI Responses API on 127.0.0.1
// (fake-model.ts) whose canned reply calls search_sessions. Codex starts our binary, lists its
// tools (offered to the model as one namespace), calls the tool and sends the hits back; the
// exchange is asserted in Codex's own rollout file ($CODEX_HOME/sessions/YYYY/MM/DD/).
// Installs the CLI into .tools/agents/ on first run (about 420 MB, a native binary).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, installAgent, runAsync, session } from './harness.js';
import { ANSWER_PREFIX, startFakeModel, type FakeModel } from './fake-model.js';

const VERSION = '0.171.0';

let tmp: string;
let codexHome: string;
let project: string;
let store: string;
let decided: string;
let model: FakeModel;
let codex: string;

const env = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: join(tmp, 'home'),
  CODEX_HOME: codexHome,
  FAKE_API_KEY: 'sk-fake-key-for-tests',
});

beforeAll(async () => {
  codex = installAgent('@openai/codex', VERSION, 'codex');
  tmp = mkdtempSync(join(tmpdir(), 'lcs-mcp-codex-'));
  codexHome = join(tmp, 'codex');
  project = join(tmp, 'payments');
  store = join(tmp, 'store');
  for (const d of [codexHome, project, join(tmp, 'home')]) mkdirSync(d);
  project = realpathSync(project);
  decided = session(store, project, [
    { kind: 'user', content: 'Should refund retries reuse the idempotency key?' },
    {
      kind: 'assistant',
      content: [{ type: 'text', text: "Decision: every retry of a refund reuses the order's idempotency key (docs/adr/007-refunds.md)." }],
    },
  ]);
  model = await startFakeModel({ toolSuffix: '__search_sessions', args: { query: 'refund idempotency' } });
  // The provider points at the fake API; features that reach outside hosts are off; MCP tools
  // are offered directly rather than deferred behind tool search. The [mcp_servers] table is
  // the README's.
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "fake-model"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'sandbox_mode = "read-only"',
      '',
      '[model_providers.fake]',
      'name = "fake"',
      `base_url = "${model.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_API_KEY"',
      '',
      '[features]',
      ...[
        'apps',
        'plugins',
        'remote_plugin',
        'tool_suggest',
        'tool_search_always_defer_mcp_tools',
        'skill_mcp_dependency_install',
        'image_generation',
      ].map((f) => `${f} = false`),
      '',
      '[mcp_servers.levelcode-sessions]',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = ${JSON.stringify([BIN, 'mcp', '--dir', store])}`,
      '',
    ].join('\n'),
  );
}, 300_000);

afterAll(async () => {
  await model?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('Codex calls the MCP server', () => {
  it('lists the server from config.toml', async () => {
    const r = await runAsync(codex, ['mcp', 'list', '--json'], { cwd: project, env: env() });
    expect(r.status, r.stderr).toBe(0);
    const servers = JSON.parse(r.stdout) as { name: string }[];
    expect(servers.map((s) => s.name)).toContain('levelcode-sessions');
  }, 150_000);

  it('calls search_sessions, gets the hits back, and its rollout file holds the exchange', async () => {
    const r = await runAsync(codex, ['exec', '--skip-git-repo-check', 'What did we decide about refund retries?'], {
      cwd: project,
      env: env(),
    });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain(ANSWER_PREFIX);

    // Codex listed our tools and offered them to the model, as one namespace.
    const ns = ((model.requests[0]!.body.tools ?? []) as { type: string; name: string; tools?: { name: string }[] }[]).find(
      (t) => t.type === 'namespace' && /levelcode_sessions/.test(t.name),
    );
    expect(ns?.tools?.map((t) => t.name).sort()).toEqual(['list_projects', 'list_sessions', 'read_session', 'recall', 'search_sessions']);
    expect(model.results.join('\n')).toContain(`${decided}#1`);

    const day = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? day(join(d, e.name)) : [join(d, e.name)]));
    const rollouts = day(join(codexHome, 'sessions')).filter((f) => /rollout-.*\.jsonl$/.test(f));
    const items = rollouts.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { type: string; payload?: Record<string, unknown> })
        .filter((l) => l.type === 'response_item')
        .map((l) => l.payload!),
    );
    const fc = items.find((p) => p.type === 'function_call' && p.name === 'search_sessions');
    expect(fc, 'the tool call in the rollout').toBeDefined();
    expect(fc!.namespace).toMatch(/levelcode_sessions/);
    expect(JSON.parse(String(fc!.arguments))).toEqual({ query: 'refund idempotency' });
    const out = items.find((p) => p.type === 'function_call_output' && p.call_id === fc!.call_id);
    expect(out, 'the tool result in the rollout').toBeDefined();
    const text = JSON.stringify(out!.output);
    expect(text).toContain(`${decided}#1`);
    expect(text).toContain('reuses the order');
  }, 150_000);
});
