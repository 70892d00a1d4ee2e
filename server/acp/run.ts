// The proxy as a process: starts the agent command with piped stdio (its stderr is ours), frames
// both sides with the SDK's ndJsonStream (our stdin/stdout toward the editor), relays until one
// side closes, and ends the other: the editor gone closes the agent's stdin (then SIGTERM after
// a grace period); the agent gone fails what the editor waits for and ends our stdout. The
// store's locks are released on every way out. Our stdout carries ACP frames only.

import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { basename } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { SessionStore } from '../store/store.js';
import { resolveStoreRoot } from '../store/files.js';
import { AcpProxy } from './proxy.js';

export interface RunOptions {
  command: string[];
  name?: string;
  dir?: string;
  window?: number;
}

/** The agent's name from its command: `npx -y @zed-industries/claude-agent-acp` is claude-agent-acp. */
export function agentName(command: readonly string[]): string {
  const words = command.filter((w) => !w.startsWith('-'));
  const runners = new Set(['node', 'npx', 'bunx', 'pnpm', 'dlx', 'uvx', 'exec', 'env', 'bun', 'deno', 'run']);
  const word = words.find((w) => !runners.has(basename(w))) ?? command[0] ?? 'agent';
  return basename(word.replace(/@[^/@]*$/, '')).replace(/\.(m?js|cjs|ts|exe|cmd)$/, '') || 'agent';
}

export async function runProxy(o: RunOptions): Promise<number> {
  const [cmd, ...args] = o.command;
  if (!cmd) throw new Error('no agent command');
  const store = new SessionStore({ root: resolveStoreRoot(o.dir), agent: 'acp' });
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 1) : 1)));
    child.on('error', (e) => {
      process.stderr.write(`[levelcode-sessions acp] cannot start ${cmd}: ${e.message}\n`);
      resolve(127);
    });
  });
  child.stdin.on('error', () => undefined);
  // The agent's stdout may stay open after it died (a process it started holds it): its exit
  // ends the relay all the same, a moment later, once what it wrote last is read.
  child.on('exit', () => setTimeout(() => child.stdout.destroy(), 300).unref());
  // A signal goes to the agent; we end when it does (or a moment later, whatever it does).
  const onSignal = (sig: NodeJS.Signals) => () => {
    child.kill(sig);
    setTimeout(() => process.exit(128 + 15), 5_000).unref();
  };
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, onSignal(sig));
  // The sidecar's consent threshold for a summary (protocol.md): the same variable.
  const consent = Number.parseInt(process.env.LEVELCODE_SESSIONS_CONSENT_TOKENS ?? '', 10);
  const proxy = new AcpProxy({
    store,
    name: o.name ?? agentName(o.command),
    agentPath: cmd,
    window: o.window,
    ...(Number.isInteger(consent) && consent >= 0 ? { consentThreshold: consent } : {}),
  });
  const editor = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const agent = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  let code: number;
  try {
    const first = await proxy.run(editor, agent);
    if (first === 'editor') {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGTERM'), 5_000);
      code = await exited;
      clearTimeout(timer);
    } else code = await exited;
    await proxy.settled();
  } finally {
    await store.releaseAll().catch(() => undefined);
    // A process the agent left behind may hold its pipes open: they must not keep us alive.
    child.stdout.destroy();
    child.stdin.destroy();
    process.stdin.destroy();
  }
  return code;
}
