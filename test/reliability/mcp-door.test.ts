// MCP's doors (issue 43): with LEVELCODE_CURRENT_SESSION set, the calling agent's own session is
// in no answer (the tools, resources/list, list_projects' counts); a frame over the transport's
// 10 MB with no newline gets a JSON-RPC error answer, then the process exits non-zero.
// The real `levelcode-sessions mcp` over real stdio, newline-delimited JSON-RPC by hand.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/sidecar.js';
import { cli, HANG_MS, sandbox } from './door.js';

const s = sandbox('lcs-mcp-');
afterAll(() => rmSync(s.dir, { recursive: true, force: true }));

function mcp(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => {}); // EPIPE once the server has given up on a frame
  let buf = '';
  const answers = new Map<unknown, any>();
  const waiters = new Map<unknown, (v: any) => void>();
  child.stdout.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const m = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      answers.set(m.id, m);
      waiters.get(m.id)?.(m);
    }
  });
  const exited = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  let next = 1;
  const request = (method: string, params: unknown): Promise<any> => {
    const id = next++;
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return new Promise((r) => waiters.set(id, r));
  };
  return {
    child,
    request,
    answers,
    exited,
    waitFor: (id: unknown) => new Promise<any>((r) => (answers.has(id) ? r(answers.get(id)) : waiters.set(id, r))),
  };
}

async function session(project: string, text: string): Promise<string> {
  mkdirSync(project, { recursive: true });
  const made = await cli(['new', '--project', project, '--json'], s.env);
  const id = JSON.parse(made.stdout).id as string;
  const r = await cli(['append', id], s.env, {
    input: `${JSON.stringify({ kind: 'user', t: '2026-01-01T00:00:00.000Z', content: text })}\n`,
  });
  expect(r.code, r.stderr).toBe(0);
  return id;
}

describe('MCP', () => {
  it('leaves the current session out of every answer', async () => {
    const mine = await session(join(s.dir, 'mine'), 'shared-word in my own chat');
    const other = await session(join(s.dir, 'other'), 'shared-word in another chat');
    const m = mcp({ ...s.env, LEVELCODE_CURRENT_SESSION: mine });
    await m.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    m.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const resources = await m.request('resources/list', {});
    const uris = resources.result.resources.map((r: { uri: string }) => r.uri);
    expect(uris.some((u: string) => u.includes(other))).toBe(true);
    expect(uris.some((u: string) => u.includes(mine))).toBe(false);
    const texts: string[] = [];
    for (const [name, args] of [
      ['list_projects', {}],
      ['list_sessions', {}],
      ['search_sessions', { query: 'shared-word' }],
      ['recall', { query: 'shared-word' }],
    ] as const) {
      const r = await m.request('tools/call', { name, arguments: args });
      const t = r.result.content.map((c: { text: string }) => c.text).join('\n');
      expect(t, name).not.toContain(mine);
      texts.push(t);
    }
    expect(texts[0]).toMatch(/^1 project with sessions/);
    expect(texts[0]).not.toContain(join(s.dir, 'mine'));
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('answers a frame over 10 MB with no newline with an error, then exits non-zero', async () => {
    const m = mcp(s.env);
    await m.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    for (let i = 0; i < 11; i++) m.child.stdin.write(chunk);
    const timer = setTimeout(() => m.child.kill('SIGKILL'), HANG_MS);
    const code = await m.exited;
    clearTimeout(timer);
    expect(code).not.toBe(0);
    expect(code).not.toBe(null); // not killed by the bound
    const answer = m.answers.get(null);
    expect(answer?.error?.code).toBe(-32700);
    expect(answer.error.message).toMatch(/no newline/);
  });
});
