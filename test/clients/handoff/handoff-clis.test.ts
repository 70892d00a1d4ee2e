// The real agent CLIs judge the hand-off (issue 38). Each CLI is the newest release from npm,
// installed by .ci/handoff-clis.sh into the git-ignored .tools/ai/, and pointed at the fake model
// API (tools/fixtures/fake-api.mjs) on 127.0.0.1, which logs every request it gets:
//   - a Codex session (written by the real Codex 0.171.0, a shell call and its output) is
//     imported, handed off to Claude Code, and `claude -p --resume <uuid> PROMPT` is run;
//   - a Claude Code session (written by the real Claude Code 2.0.77, a Bash call) is imported,
//     handed off to Codex, and `codex exec resume <uuid> PROMPT` is run.
// The first model request each CLI sends with the new prompt must hold the whole earlier
// conversation, in order, every tool call followed by its result. The requests are written to
// test-artifacts/handoff-requests.json for the record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../../server/store/store.js';
import { listSessions } from '../../../server/listing/history.js';
import { runImport } from '../../../server/import/engine.js';
import { importerOf } from '../../../server/import/registry.js';
import { handOff } from '../../../server/handoff/handoff.js';
// @ts-expect-error: a plain .mjs module without types
import { codexConfig } from '../../../tools/fixtures/codex.mjs';
import { type FakeApi, startFakeApi } from '../../../tools/fixtures/fake-api.mjs';

const REPO = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const AI = process.env.LEVELCODE_AI_TOOLS ?? join(REPO, '.tools', 'ai');
const CLAUDE_BIN = join(AI, 'claude-code', 'node_modules', '.bin');
const CODEX_BIN = join(AI, 'codex', 'node_modules', '.bin');
const FIXTURES = join(REPO, 'test', 'fixtures', 'import');

let tmp: string;
let api: FakeApi;
const record: Record<string, unknown> = {};

beforeAll(async () => {
  for (const bin of [join(CLAUDE_BIN, 'claude'), join(CODEX_BIN, 'codex')])
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run bash .ci/handoff-clis.sh (it installs the CLIs)`);
  tmp = mkdtempSync(join(tmpdir(), 'lcs-handoff-'));
  api = await startFakeApi();
});
afterAll(async () => {
  await api?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(REPO, 'test-artifacts'), { recursive: true });
  writeFileSync(join(REPO, 'test-artifacts', 'handoff-requests.json'), `${JSON.stringify(record, null, 2)}\n`);
});

function run(cmd: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 100_000);
    p.on('error', rej);
    p.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) rej(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${err}\n${out}`));
      else res(out);
    });
  });
}

/** Copies a fixture tree with the project path the tool recorded changed to `project`. */
function copyTree(from: string, to: string, project: string, was: string): void {
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from)) {
    const a = join(from, e);
    const b = join(to, e.replaceAll(was.replace(/\//g, '-'), project.replace(/[^a-zA-Z0-9]/g, '-')));
    if (statSync(a).isDirectory()) copyTree(a, b, project, was);
    else writeFileSync(b, readFileSync(a, 'utf8').replaceAll(was, project));
  }
}

/** Imports `tool`'s fixture folder into a fresh store and answers the store and the session holding `text`. */
async function importOne(tool: string, src: string, text: string): Promise<{ store: SessionStore; id: string }> {
  const store = new SessionStore({ root: join(tmp, `store-${tool}`), agent: 'test' });
  await runImport(store, [{ importer: importerOf(tool)!, roots: [src] }], { ledger: join(tmp, `ledger-${tool}.json`) });
  for (const e of (await listSessions(store.root, {})).sessions) {
    const r = await store.read(e.id);
    if (JSON.stringify(r.events).includes(text)) return { store, id: e.id };
  }
  throw new Error(`no imported ${tool} session holds ${text}`);
}

/** Texts and tool steps of a request's messages, in order, for comparison. */
function steps(items: unknown[]): string[] {
  const out: string[] = [];
  const walk = (v: unknown, role: string): void => {
    if (typeof v === 'string') {
      if (v.trim()) out.push(`${role}: ${v.trim()}`);
      return;
    }
    if (Array.isArray(v)) return v.forEach((x) => walk(x, role));
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    if (o.type === 'tool_use' || o.type === 'function_call') out.push(`call ${o.name}`);
    else if (o.type === 'tool_result' || o.type === 'function_call_output') out.push('result');
    else if (typeof o.text === 'string') walk(o.text, role);
    else if ('content' in o) walk(o.content, typeof o.role === 'string' ? o.role : role);
  };
  walk(items, '');
  return out;
}

/** Whether `want` appears in `got` in order (other entries may sit between). */
function inOrder(got: string[], want: string[]): boolean {
  let at = 0;
  for (const w of want) {
    const i = got.findIndex((g, k) => k >= at && g.includes(w));
    if (i < 0) return false;
    at = i + 1;
  }
  return true;
}

describe('hand-off judged by the real CLIs', () => {
  it('a Codex session handed off to Claude Code: `claude --resume` sends the whole conversation', async () => {
    const project = join(tmp, 'codex-project');
    mkdirSync(project, { recursive: true });
    const src = join(tmp, 'codex-src');
    copyTree(join(FIXTURES, 'codex', 'real-0.171.0'), src, project, '/tmp/levelcode-fixture/demo');
    const { store, id } = await importOne('codex', src, 'List the files here. TOOL');
    const home = join(tmp, 'claude-home');
    mkdirSync(home, { recursive: true });
    const env = {
      PATH: `${CLAUDE_BIN}:${process.env.PATH}`,
      HOME: home,
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`,
      ANTHROPIC_API_KEY: 'sk-ant-fixture',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    };
    const h = await handOff(store, id, { to: 'claude-code', env, home });
    expect(h.installed).toMatch(/^2\./);
    expect(h.argv).toEqual(['claude', '--resume', h.id]);
    expect(h.path).toBe(join(home, '.claude', 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'), `${h.id}.jsonl`));
    const before = api.requests.length;
    await run('claude', ['-p', '--resume', h.id, 'One more prompt after the hand-off', '--output-format', 'json'], { cwd: project, env });
    const sent = api.requests
      .slice(before)
      .filter(
        (r) =>
          r.url.split('?')[0]!.endsWith('/v1/messages') &&
          JSON.stringify(r.body.messages ?? []).includes('One more prompt after the hand-off'),
      );
    expect(sent.length).toBeGreaterThan(0);
    const first = sent[0]!.body.messages as unknown[];
    record['codex -> claude-code'] = { command: h.command, file: h.path, firstRequestMessages: first };
    const got = steps(first);
    expect(
      inOrder(got, [
        'user: List the files here. TOOL',
        'call exec_command',
        'result',
        'assistant: The command printed levelcode-fixture.',
        'user: And what did it print?',
        'assistant: Answer to: And what did it print?',
        'user: One more prompt after the hand-off',
      ]),
      got.join('\n'),
    ).toBe(true);
    // Every tool_use answered by the tool_result at the start of the next message.
    first.forEach((m, i) => {
      const uses = ((m as { content: unknown }).content as { type: string; id: string }[]).filter?.((b) => b.type === 'tool_use') ?? [];
      for (const u of uses) {
        const next = (first[i + 1] as { content: { type: string; tool_use_id?: string }[] }).content;
        expect(next.some((b) => b.type === 'tool_result' && b.tool_use_id === u.id)).toBe(true);
      }
    });
  }, 180_000);

  it('a Claude Code session handed off to Codex: `codex exec resume` sends the whole conversation', async () => {
    const project = join(tmp, 'claude-project');
    mkdirSync(project, { recursive: true });
    const src = join(tmp, 'claude-src');
    copyTree(join(FIXTURES, 'claude-code', 'real-2.0.77'), src, project, '/tmp/levelcode-fixture/demo');
    const { store, id } = await importOne('claude-code', src, 'List the files here. TOOL');
    const home = join(tmp, 'codex-home');
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'config.toml'), codexConfig(api.port));
    const env = {
      PATH: `${CODEX_BIN}:${process.env.PATH}`,
      HOME: home,
      CODEX_HOME: codexHome,
      FIXTURE_API_KEY: 'sk-fixture',
      RUST_LOG: 'error',
      NO_COLOR: '1',
    };
    const h = await handOff(store, id, { to: 'codex', env, home });
    expect(h.installed).toMatch(/^0\./);
    expect(h.argv).toEqual(['codex', 'resume', h.id]);
    expect(h.path.startsWith(join(codexHome, 'sessions'))).toBe(true);
    const before = api.requests.length;
    await run('codex', ['exec', '--skip-git-repo-check', 'resume', h.id, 'One more prompt after the hand-off'], { cwd: project, env });
    const sent = api.requests
      .slice(before)
      .filter(
        (r) =>
          r.url.split('?')[0]!.endsWith('/responses') && JSON.stringify(r.body.input ?? []).includes('One more prompt after the hand-off'),
      );
    expect(sent.length).toBeGreaterThan(0);
    const first = sent[0]!.body.input as unknown[];
    record['claude-code -> codex'] = { command: h.command, file: h.path, firstRequestInput: first };
    const got = steps(first);
    expect(
      inOrder(got, [
        'user: List the files here. TOOL',
        'assistant: Running it.',
        'call Bash',
        'result',
        'assistant: The command printed levelcode-fixture.',
        'user: And what did it print?',
        'user: One more question on the same session',
        'user: One more prompt after the hand-off',
      ]),
      got.join('\n'),
    ).toBe(true);
    const items = first as { type?: string; call_id?: string }[];
    items.forEach((it, i) => {
      if (it.type === 'function_call')
        expect(items.slice(i + 1).some((o) => o.type === 'function_call_output' && o.call_id === it.call_id)).toBe(true);
    });
  }, 180_000);
});
