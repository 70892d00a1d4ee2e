#!/usr/bin/env node
// `npm run bench` (ACP part): the latency the recording proxy adds to a prompt round trip.
// A client on the official SDK sends N prompts to a minimal SDK agent (test/support/acp-agent.mjs),
// first directly (the baseline), then through `levelcode-sessions acp -- node acp-agent.mjs`
// (each prompt and its updates recorded, fsync'd, into a temp store), and prints the median and
// p90 of each with their ratio. Loopback and temp folders only; every process is ours and ended.
// Usage: node bench/acp.mjs [--prompts N]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { client, methods, ndJsonStream } from '@agentclientprotocol/sdk';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const AGENT = join(REPO, 'test', 'support', 'acp-agent.mjs');
const BIN = join(REPO, 'bin', 'levelcode-sessions.js');
const { values } = parseArgs({ options: { prompts: { type: 'string', default: '200' } } });
const N = Number(values.prompts);

async function measure(cmd, args, env) {
  const proc = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const conn = client({ name: 'bench' })
    .onNotification(methods.client.session.update, () => {})
    .connect(ndJsonStream(Writable.toWeb(proc.stdin), Readable.toWeb(proc.stdout)));
  const cwd = mkdtempSync(join(tmpdir(), 'lcs-acp-bench-cwd-'));
  try {
    await conn.agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await conn.agent.request('session/new', { cwd, mcpServers: [] });
    const times = [];
    for (let i = 0; i < N + 10; i++) {
      const t = process.hrtime.bigint();
      await conn.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: `prompt ${i}` }] });
      if (i >= 10) times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    return { median: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)] };
  } finally {
    conn.close();
    proc.stdin.end();
    await new Promise((r) => proc.on('exit', r));
    rmSync(cwd, { recursive: true, force: true });
  }
}

const store = mkdtempSync(join(tmpdir(), 'lcs-acp-bench-store-'));
try {
  const direct = await measure(process.execPath, [AGENT], process.env);
  const proxied = await measure(process.execPath, [BIN, 'acp', '--name', 'bench', '--', process.execPath, AGENT], {
    ...process.env,
    LEVELCODE_SESSIONS_DIR: store,
  });
  const ms = (v) => `${v.toFixed(2)} ms`;
  console.log(`\nACP proxy: prompt round trip (${N} prompts, 3 chunks and a tool call each, recorded and fsync'd)`);
  console.log(`  direct to the agent   median ${ms(direct.median)}  p90 ${ms(direct.p90)}   (baseline)`);
  console.log(
    `  through the proxy     median ${ms(proxied.median)}  p90 ${ms(proxied.p90)}   ratio ${(proxied.median / direct.median).toFixed(2)}x (+${ms(proxied.median - direct.median)})`,
  );
} finally {
  rmSync(store, { recursive: true, force: true });
}
