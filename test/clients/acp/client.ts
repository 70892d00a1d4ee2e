// The test client: an ACP client built on the official SDK (`client()` from
// @agentclientprotocol/sdk) that drives `levelcode-sessions acp -- AGENT` (or the agent alone,
// for the byte-stream comparison) over real stdio, the way an editor does. It keeps every
// session/update it receives, answers permission requests (allow), serves fs/read_text_file and
// fs/write_text_file on the real disk, and tees every frame both ways for the transcripts.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Readable, Writable, PassThrough } from 'node:stream';
import { client, methods, ndJsonStream, type ClientConnection } from '@agentclientprotocol/sdk';

export interface Driven {
  proc: ChildProcess;
  conn: ClientConnection;
  /** Every session/update, in order, as received (the notification's params). */
  updates: { sessionId: string; update: Record<string, unknown> }[];
  /** The first session/update, received or still to come, that matches. */
  update(pred: (u: Driven['updates'][number]) => boolean): Promise<Driven['updates'][number]>;
  permissions: Record<string, unknown>[];
  /** Every line from the process (stdout) and to it (stdin), in order. */
  frames: { dir: 'in' | 'out'; line: string }[];
  stderr: string[];
  exited: Promise<number | null>;
  close(): Promise<void>;
}

/** `permission`: which option a permission request is answered with (default: allow). */
export function drive(cmd: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv; permission?: 'allow' | 'reject' }): Driven {
  // A process group of its own: close() ends whatever the run left behind (an agent that
  // outlives a killed proxy, or one behind a shell pipeline, does not read its closed stdin).
  const proc = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const updates: Driven['updates'] = [];
  let waiters: { pred: (u: Driven['updates'][number]) => boolean; resolve: (u: Driven['updates'][number]) => void }[] = [];
  const update: Driven['update'] = (pred) => {
    const found = updates.find(pred);
    return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ pred, resolve }));
  };
  const permissions: Record<string, unknown>[] = [];
  const frames: Driven['frames'] = [];
  const stderr: string[] = [];
  proc.stderr!.on('data', (d) => stderr.push(String(d)));
  const exited = new Promise<number | null>((r) => proc.on('exit', (c) => r(c)));
  // Tee both directions line by line.
  const tee = (dir: 'in' | 'out') => {
    let buf = '';
    return (d: Buffer) => {
      buf += d.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        frames.push({ dir, line: buf.slice(0, i) });
        buf = buf.slice(i + 1);
      }
    };
  };
  const fromProc = new PassThrough();
  proc.stdout!.on('data', tee('out'));
  proc.stdout!.pipe(fromProc);
  const toProc = new PassThrough();
  toProc.on('data', tee('in'));
  toProc.pipe(proc.stdin!);
  proc.stdin!.on('error', () => undefined);
  const app = client({ name: 'levelcode-test-client' })
    .onNotification(methods.client.session.update, ({ params }) => {
      const u = params as Driven['updates'][number];
      updates.push(u);
      waiters = waiters.filter((w) => {
        if (!w.pred(u)) return true;
        w.resolve(u);
        return false;
      });
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params as Record<string, unknown>);
      const opts = (params.options ?? []) as { optionId: string; kind: string }[];
      const want = o.permission ?? 'allow';
      const allow = opts.find((x) => x.kind === `${want}_once`) ?? opts.find((x) => x.kind.startsWith(want)) ?? opts[0]!;
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => ({ content: readFileSync(params.path, 'utf8') }))
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      writeFileSync(params.path, params.content);
      return {};
    });
  const conn = app.connect(
    ndJsonStream(Writable.toWeb(toProc) as WritableStream<Uint8Array>, Readable.toWeb(fromProc) as ReadableStream<Uint8Array>),
  );
  return {
    proc,
    conn,
    updates,
    update,
    permissions,
    frames,
    stderr,
    exited,
    async close() {
      conn.close();
      proc.stdin!.end();
      const t = setTimeout(() => proc.kill('SIGTERM'), 5000);
      await exited;
      clearTimeout(t);
      try {
        process.kill(-proc.pid!, 'SIGKILL');
      } catch {
        // The group is empty: nothing was left behind.
      }
    },
  };
}

export const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
  clientInfo: { name: 'levelcode-test-client', version: '1.0.0' },
} as const;
