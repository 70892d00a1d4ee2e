// Conformance: the lifecycle rules of a well-mannered language server, through the real
// sidecar process (bin/levelcode-sessions.js serve --stdio): -32002 before initialize, -32600
// after shutdown, exit codes, exit on stdin close and on the client's death, capabilities,
// params validation, `[]` for `{}`, logs by trace level.

import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { createMessageConnection, SocketMessageReader, SocketMessageWriter } from 'vscode-jsonrpc/node';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { cleanup, startSidecar, workspace, Sidecar, BIN } from '../helpers/sidecar.js';
import { ERROR_CODES, RpcErrorCodes } from '../../server/rpc/errors.js';
import { PROTOCOL_VERSION, ServerCapability } from '../../server/rpc/protocol.js';

afterEach(cleanup);

describe('lifecycle', () => {
  it('answers -32002 to requests before initialize, then serves after it', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root, initialize: false });
    expect((await s.error('session/list', {})).code).toBe(RpcErrorCodes.ServerNotInitialized);
    expect((await s.error('shutdown', undefined)).code).toBe(RpcErrorCodes.ServerNotInitialized);
    const init = await s.initialize();
    const caps = ServerCapability.parse(init.capabilities.experimental.levelcodeSessions);
    expect(caps.version).toBe(PROTOCOL_VERSION);
    expect(caps.store).toBe(root);
    expect(caps.features).toEqual(expect.arrayContaining(['fork', 'progress', 'cancel', 'didChange']));
    expect(caps.didChange).toBe('poll'); // the helper forces LEVELCODE_SESSIONS_POLL=1
    expect(init.serverInfo.name).toBe('levelcode-sessions');
    expect((await s.call((await import('../../server/rpc/protocol.js')).sessionList, {})).sessions).toEqual([]);
    expect(await s.stop()).toEqual({ code: 0, signal: null });
  });

  it('refuses a second initialize with -32600', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root });
    const e = await s.error('initialize', { processId: null, rootUri: null, capabilities: {} });
    expect(e.code).toBe(RpcErrorCodes.InvalidRequest);
    expect(await s.stop()).toEqual({ code: 0, signal: null });
  });

  it('answers -32600 after shutdown and exits 0 on exit', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root });
    await s.conn.sendRequest('shutdown');
    expect((await s.error('session/list', {})).code).toBe(RpcErrorCodes.InvalidRequest);
    expect((await s.error('shutdown', undefined)).code).toBe(RpcErrorCodes.InvalidRequest);
    await s.conn.sendNotification('exit');
    expect(await s.exited).toEqual({ code: 0, signal: null });
  });

  it('exits 1 on exit without shutdown', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root });
    await s.conn.sendNotification('exit');
    expect((await s.exited).code).toBe(1);
  });

  it('exits 1 when stdin closes without shutdown, 0 after shutdown', async () => {
    const { root } = workspace();
    const a = await startSidecar({ root });
    a.child.stdin!.end();
    expect((await a.exited).code).toBe(1);
    const b = await startSidecar({ root });
    await b.conn.sendRequest('shutdown');
    b.child.stdin!.end();
    expect((await b.exited).code).toBe(0);
  });

  it('exits when the client process named in initialize dies', async () => {
    const { root } = workspace();
    const client = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const clientGone = new Promise((r) => client.once('exit', r));
    const s = await startSidecar({ root, processId: client.pid! });
    client.kill('SIGKILL');
    await clientGone;
    expect((await s.exited).code).toBe(1);
  });

  it('answers -32601 to an unknown method and keeps serving', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root });
    expect((await s.error('session/nope', {})).code).toBe(RpcErrorCodes.MethodNotFound);
    expect((await s.conn.sendRequest('session/list', {})) as object).toHaveProperty('sessions');
    await s.stop();
  });

  it('validates params with zod: -32602 with the issues in data', async () => {
    const { root } = workspace();
    const s = await startSidecar({ root });
    const e = await s.error('session/read', { id: 'not-an-id', tail: -1 });
    expect(e.code).toBe(RpcErrorCodes.InvalidParams);
    const issues = (e.data as { issues: { path: unknown[]; message: string }[] }).issues;
    expect(issues.map((i) => i.path[0]).sort()).toEqual(['id', 'tail']);
    const both = await s.error('session/read', { id: '2026-07-28T09-12-33-8f3k', tail: 3, from: 1 });
    expect(both.code).toBe(RpcErrorCodes.InvalidParams);
    expect((await s.error('session/new', [])).code).toBe(RpcErrorCodes.InvalidParams); // [] is {} and project is required
    await s.stop();
  });

  it('sends window/logMessage by trace level: nothing at off, info at messages, debug at verbose', async () => {
    const { root } = workspace();
    const quiet = await startSidecar({ root });
    await quiet.conn.sendRequest('session/list', {});
    expect(quiet.editor.logs.items).toEqual([]);
    await quiet.stop();

    const chatty = await startSidecar({ root, trace: 'messages' });
    await chatty.editor.logs.waitFor((l) => l.type === 3 && l.message.startsWith('serving '));
    await chatty.error('session/read', { id: '2026-07-28T09-12-33-8f3k' });
    await chatty.conn.sendNotification('$/setTrace', { value: 'verbose' });
    await chatty.error('session/read', { id: '2026-07-28T09-12-33-8f3k' });
    const debug = await chatty.editor.logs.waitFor((l) => l.type === 5);
    expect(debug.message).toContain(String(RpcErrorCodes.UnknownSession));
    // the first failed read, at 'messages', logged nothing at debug level before the switch
    expect(chatty.editor.logs.items.filter((l) => l.type === 5)).toHaveLength(1);
    await chatty.stop();
    expect(chatty.stderr).toContain('serving ');
  });

  it('lists every error code once, ours outside the reserved ranges', () => {
    const codes = ERROR_CODES.map((c) => c.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const c of ERROR_CODES.filter((c) => !c.reserved)) {
      expect(c.code <= -32000 && c.code >= -32768).toBe(false);
      expect(c.meaning.length).toBeGreaterThan(10);
    }
  });
});

describe('--socket', () => {
  it('connects to a client listening on 127.0.0.1:PORT and serves there', async () => {
    const { root } = workspace();
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const accepted = once(server, 'connection');
    const child = spawn(process.execPath, [BIN, 'serve', `--socket=${port}`, '--dir', root], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    onTestFinished(() => {
      child.kill('SIGKILL'); // no-op once it has exited
      server.close();
    });
    let stdout = '';
    child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
    const [socket] = (await accepted) as [Socket];
    const conn = createMessageConnection(new SocketMessageReader(socket), new SocketMessageWriter(socket));
    conn.listen();
    const init: any = await conn.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
    expect(init.capabilities.experimental.levelcodeSessions.store).toBe(root);
    expect(await conn.sendRequest('session/list', {})).toEqual({ sessions: [], problems: [] });
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    expect(await exited).toBe(0);
    expect(stdout).toBe(''); // frames go to the socket; stdout stays empty
    conn.dispose();
  });
});

describe('raw frames', () => {
  it('writes nothing but Content-Length frames to stdout, and takes [] for {}', async () => {
    const { root } = workspace();
    const s = new Sidecar({ root });
    // Bypass the connection: write frames by hand and parse stdout ourselves.
    s.conn.dispose();
    const chunks: Buffer[] = [];
    let onData = () => {};
    s.child.stdout!.removeAllListeners('data');
    s.child.stdout!.on('data', (b: Buffer) => {
      chunks.push(b);
      onData();
    });
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        onData = () => Buffer.concat(chunks).includes(text) && resolve();
        onData();
      });
    const send = (msg: object) => {
      const body = Buffer.from(JSON.stringify(msg), 'utf8');
      s.child.stdin!.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, 'ascii'), body]));
    };
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { processId: null, rootUri: null, capabilities: { experimental: { levelcodeSessions: [] } } },
    });
    send({ jsonrpc: '2.0', method: 'initialized', params: [] });
    send({ jsonrpc: '2.0', id: 2, method: 'session/list', params: [] });
    send({ jsonrpc: '2.0', id: 3, method: 'shutdown' });
    await seen('"id":3');
    send({ jsonrpc: '2.0', method: 'exit' });
    expect((await s.exited).code).toBe(0);
    const out = Buffer.concat(chunks);
    const frames: any[] = [];
    let at = 0;
    while (at < out.length) {
      const headerEnd = out.indexOf('\r\n\r\n', at);
      expect(headerEnd).toBeGreaterThan(at);
      const header = out.subarray(at, headerEnd).toString('ascii');
      const m = /^Content-Length: (\d+)$/im.exec(header);
      expect(m, `not a frame header: ${JSON.stringify(header)}`).not.toBeNull();
      const len = Number(m![1]);
      frames.push(JSON.parse(out.subarray(headerEnd + 4, headerEnd + 4 + len).toString('utf8')));
      at = headerEnd + 4 + len;
    }
    expect(at).toBe(out.length);
    const byId = new Map(frames.filter((f) => f.id !== undefined).map((f) => [f.id, f]));
    expect(byId.get(1).result.capabilities.experimental.levelcodeSessions.version).toBe(PROTOCOL_VERSION);
    expect(byId.get(2).result).toEqual({ sessions: [], problems: [] });
    expect(byId.get(3)).toEqual({ jsonrpc: '2.0', id: 3, result: null });
  });
});
