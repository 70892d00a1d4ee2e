// A real agent calls the server: Claude Code from the npm registry (pinned), with the server
// added the way the README says (`claude mcp add`), driven against a fake Anthropic API on
// 127.0.0.1 (fake-model.ts) whose canned reply calls search_sessions. Claude Code starts our
// binary, lists its tools, calls the tool, and sends the hits back to the model; the exchange
// is asserted in Claude Code's own session file (~/.claude/projects/<cwd>/<uuid>.jsonl).
// Installs the CLI into .tools/agents/ on first run (about 400 MB, a native binary).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, installAgent, runAsync, session } from './harness.js';
import { ANSWER_PREFIX, startFakeModel, type FakeModel } from './fake-model.js';

const VERSION = '2.1.332';
const SERVER = 'levelcode-sessions';
const TOOL = `mcp__${SERVER}__search_sessions`;

let tmp: string;
let home: string;
let project: string;
let store: string;
let decided: string;
let model: FakeModel;
let claude: string;

function run(args: string[]) {
  return runAsync(claude, args, {
    cwd: project,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
  });
}

beforeAll(async () => {
  claude = installAgent('@anthropic-ai/claude-code', VERSION, 'claude');
  tmp = mkdtempSync(join(tmpdir(), 'lcs-mcp-claude-'));
  home = join(tmp, 'home');
  project = join(tmp, 'payments');
  store = join(tmp, 'store');
  mkdirSync(home);
  mkdirSync(project);
  project = realpathSync(project);
  decided = session(store, project, [
    { kind: 'user', content: 'Should refund retries reuse the idempotency key?' },
    {
      kind: 'assistant',
      content: [
        {
          type: 'text',
          text: "Decision: every retry of a refund reuses the order's idempotency key, so the provider never pays twice (docs/adr/007-refunds.md).",
        },
      ],
    },
  ]);
  session(store, join(tmp), [{ kind: 'user', content: 'Unrelated: rename the logger.' }]);
  model = await startFakeModel({ toolSuffix: '__search_sessions', args: { query: 'refund idempotency', project } });
}, 300_000);

afterAll(async () => {
  await model?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('Claude Code calls the MCP server', () => {
  it('adds the server with `claude mcp add` and finds it connected', async () => {
    const add = await run(['mcp', 'add', '--scope', 'user', SERVER, '--', process.execPath, BIN, 'mcp', '--dir', store]);
    expect(add.status, add.stderr).toBe(0);
    const list = await run(['mcp', 'list']);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${SERVER}:.*Connected`));
  }, 150_000);

  it('calls search_sessions, gets the hits back, and its session file holds the exchange', async () => {
    const r = await run(['-p', 'What did we decide about refund retries?', '--output-format', 'json', '--allowedTools', TOOL]);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const out = JSON.parse(r.stdout) as { result: string; session_id: string };
    expect(out.result).toContain(ANSWER_PREFIX);

    // Claude Code listed every tool of ours, and named them to the model (as tools, or as
    // deferred tools behind its ToolSearch, which the fake model then calls to load ours).
    const sent = JSON.stringify(model.requests[0]!.body);
    for (const t of ['search_sessions', 'recall', 'read_session', 'list_sessions', 'list_projects'])
      expect(sent).toContain(`mcp__${SERVER}__${t}`);
    // What the tool answered reached the model: the decision, cited by id and turn.
    expect(model.results.join('\n')).toContain(`${decided}#1`);

    const dir = join(home, '.claude', 'projects');
    const folder = readdirSync(dir).find((d) => readdirSync(join(dir, d)).includes(`${out.session_id}.jsonl`));
    expect(folder, `no session file for ${out.session_id} under ${dir}`).toBeDefined();
    const lines = readFileSync(join(dir, folder!, `${out.session_id}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; message?: { content?: unknown } });
    const blocks = lines.flatMap((l) =>
      Array.isArray(l.message?.content) ? (l.message!.content as Record<string, unknown>[]).map((b) => ({ type: l.type, b })) : [],
    );
    const use = blocks.find((x) => x.type === 'assistant' && x.b.type === 'tool_use' && x.b.name === TOOL);
    expect(use, 'the tool call in the session file').toBeDefined();
    expect(use!.b.input).toEqual({ query: 'refund idempotency', project });
    const result = blocks.find((x) => x.type === 'user' && x.b.type === 'tool_result' && x.b.tool_use_id === use!.b.id);
    expect(result, 'the tool result in the session file').toBeDefined();
    const text = JSON.stringify(result!.b.content);
    expect(text).toContain(`${decided}#1`);
    expect(text).toContain('reuses the order');
    expect(result!.b.is_error ?? false).toBe(false);
    const answer = blocks.find((x) => x.type === 'assistant' && x.b.type === 'text' && String(x.b.text).startsWith(ANSWER_PREFIX));
    expect(answer, 'the answer after the tool result').toBeDefined();
  }, 150_000);
});
