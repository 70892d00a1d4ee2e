// Test helpers for the MCP server: a store made through the real CLI, the MCP SDK's own client
// over stdio spawning the real binary (`node bin/levelcode-sessions.js mcp --dir D`), and the
// real agent CLIs installed from the npm registry into .tools/agents/ (git-ignored) on first use.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(REPO, 'bin', 'levelcode-sessions.js');

/** Runs the CLI against a store; throws on a non-zero exit. */
export function cli(root: string, args: string[], input = ''): string {
  const r = spawnSync(process.execPath, [BIN, ...args, '--dir', root], { input, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`levelcode-sessions ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** A session made with `new` and `append`: its id. Events are JSON objects, one a line. */
export function session(root: string, project: string, events: Record<string, unknown>[], model?: string): string {
  const id = cli(root, ['new', '--project', project, ...(model ? ['--model', model] : [])]).trim();
  cli(root, ['append', id], events.map((e) => JSON.stringify(e)).join('\n'));
  return id;
}

export interface Connected {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** The SDK's client, connected over stdio to the real binary serving `root`. */
export async function connect(root: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--dir', root, ...extra],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const client = new Client({ name: 'levelcode-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** A tool's text answer, and whether it is an error. */
export async function callText(c: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const r = (await c.callTool({ name, arguments: args })) as { content: { type: string; text?: string }[]; isError?: boolean };
  return { text: r.content.map((x) => x.text ?? '').join('\n'), isError: r.isError === true };
}

/**
 * The folder an npm package is installed in for the tests (.tools/agents/<name>@<version>),
 * installed with `npm install` the first time. Returns the path of its bin `bin`.
 */
export function installAgent(pkg: string, version: string, bin: string): string {
  const dir = join(REPO, '.tools', 'agents', `${pkg.replace('/', '+')}@${version}`);
  const exe = join(dir, 'node_modules', '.bin', bin);
  if (existsSync(exe)) return exe;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'levelcode-test-agent', private: true }) + '\n');
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', `${pkg}@${version}`], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (r.status !== 0 || !existsSync(exe)) throw new Error(`npm install ${pkg}@${version} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return exe;
}

/**
 * Runs a command without blocking this process (whose fake model API must keep answering), stdin
 * closed; kills it after `timeoutMs` (the test then fails on its exit status, never hangs).
 */
export function runAsync(
  cmd: string,
  args: string[],
  o: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
