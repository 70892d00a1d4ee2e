// Test helper: the real sidecar as a child process (`node bin/levelcode-sessions.js serve --stdio
// --dir TMP`), driven by a vscode-jsonrpc client, plus a small fake editor that answers the
// server's callbacks (session/title, session/summarize, window/workDoneProgress/create) and
// records what the server sent (didChange, logMessage, progress).
//
// Needs a build (`npx tsc -p .`): bin/ loads dist/. Depends on vscode-jsonrpc and the protocol
// descriptors only, never on the server's internals. Every waiting function waits for an event,
// never for a fixed time; vitest's test timeout is the only clock.

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, mkdirSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  CancellationTokenSource,
  ResponseError,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { z } from 'zod';
import { sessionNew, sessionAppend, type RequestDescriptor } from '../../server/rpc/protocol.js';

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BIN = join(REPO, 'bin', 'levelcode-sessions.js');

// ---------------------------------------------------------------------------------------------
// Temp folders

const temps: string[] = [];

/** A fresh temp folder (real path), removed by cleanup(). */
export function tempDir(prefix = 'lcs-rpc-'): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  temps.push(d);
  return d;
}

/** A store root and a project folder inside one temp folder. */
export function workspace(): { root: string; project: string; base: string } {
  const base = tempDir();
  const project = join(base, 'project');
  mkdirSync(project);
  return { root: join(base, 'store'), project, base };
}

// ---------------------------------------------------------------------------------------------
// A tiny event log with waitFor

export class Recorder<T> {
  readonly items: T[] = [];
  private waiters: { pred: (t: T) => boolean; resolve: (t: T) => void }[] = [];

  push(item: T): void {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred(item)) return true;
      w.resolve(item);
      return false;
    });
  }

  /** The first item (already recorded or still to come) that matches. */
  waitFor(pred: (t: T) => boolean = () => true): Promise<T> {
    const found = this.items.find(pred);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  /** The next matching item recorded from now on. */
  next(pred: (t: T) => boolean = () => true): Promise<T> {
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }
}

export interface DidChange {
  id: string;
  project: string;
  change: 'created' | 'appended' | 'renamed' | 'deleted' | 'listed';
}

// ---------------------------------------------------------------------------------------------
// The fake editor

export interface FakeEditorOptions {
  /** What session/title answers (a thrown error becomes an error response). */
  title?: (params: { id: string; messages: { role: string; text: string }[] }) => unknown | Promise<unknown>;
  summarize?: (params: { id: string; messages: unknown[]; instructions: string }) => unknown | Promise<unknown>;
  /** Hold every window/workDoneProgress/create answer until release() is called. */
  holdProgressCreate?: boolean;
}

export class FakeEditor {
  readonly didChange = new Recorder<DidChange>();
  readonly logs = new Recorder<{ type: number; message: string }>();
  readonly progressCreated = new Recorder<string | number>();
  readonly progress = new Recorder<{ token: string | number; value: { kind: string; title?: string; message?: string } }>();
  readonly calls = new Recorder<{ method: string; params: unknown }>();
  /** `$/levelcode/importProblem` notifications (followImports). */
  readonly importProblems = new Recorder<{ tool: string; path: string; message: string }>();
  private held: (() => void)[] = [];
  private holding: boolean;

  constructor(
    private readonly conn: MessageConnection,
    private readonly opts: FakeEditorOptions,
  ) {
    this.holding = !!opts.holdProgressCreate;
    conn.onNotification('session/didChange', (p: DidChange) => this.didChange.push(p));
    conn.onNotification('window/logMessage', (p: { type: number; message: string }) => this.logs.push(p));
    conn.onNotification('$/levelcode/importProblem', (p: { tool: string; path: string; message: string }) => this.importProblems.push(p));
    conn.onNotification('$/progress', (p: { token: string | number; value: { kind: string } }) => this.progress.push(p));
    conn.onRequest('window/workDoneProgress/create', async (p: { token: string | number }) => {
      this.calls.push({ method: 'window/workDoneProgress/create', params: p });
      this.progressCreated.push(p.token);
      if (this.holding) await new Promise<void>((r) => this.held.push(r));
      return null;
    });
    conn.onRequest('session/title', async (p: { id: string; messages: { role: string; text: string }[] }) => {
      this.calls.push({ method: 'session/title', params: p });
      if (!this.opts.title) throw new ResponseError(-32601, 'this editor has no title model');
      return this.opts.title(p);
    });
    conn.onRequest('session/summarize', async (p: { id: string; messages: unknown[]; instructions: string }) => {
      this.calls.push({ method: 'session/summarize', params: p });
      if (!this.opts.summarize) throw new ResponseError(-32601, 'this editor has no summariser');
      return this.opts.summarize(p);
    });
  }

  /** Answers the held progress-create requests (and stops holding new ones). */
  release(): void {
    this.holding = false;
    for (const r of this.held.splice(0)) r();
  }
}

// ---------------------------------------------------------------------------------------------
// The sidecar process

export interface StartOptions {
  root: string;
  env?: Record<string, string>;
  editor?: FakeEditorOptions;
  /** Skip initialize (for lifecycle tests). */
  initialize?: boolean;
  callbacks?: string[];
  workDoneProgress?: boolean;
  processId?: number | null;
  trace?: 'off' | 'messages' | 'verbose';
  /** Sent as capabilities.experimental.levelcodeSessions verbatim when given. */
  levelcodeCapability?: unknown;
  /** Sent as initializeParams.initializationOptions when given. */
  initializationOptions?: unknown;
  /** Another build of the sidecar: [node, script], run in the script's folder (default: bin/ here). */
  program?: [string, string];
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const children = new Set<ChildProcess>();

export class Sidecar {
  readonly child: ChildProcess;
  readonly conn: MessageConnection;
  readonly editor: FakeEditor;
  readonly exited: Promise<Exit>;
  private stderrText = '';
  initializeResult: any;

  constructor(readonly opts: StartOptions) {
    const [node, script] = opts.program ?? [process.execPath, BIN];
    this.child = spawn(node, [script, 'serve', '--stdio', '--dir', opts.root], {
      cwd: opts.program ? dirname(script) : REPO,
      env: { ...process.env, LEVELCODE_SESSIONS_POLL: '1', XDG_DATA_HOME: join(opts.root, '..', 'xdg-data'), ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(this.child);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        children.delete(this.child);
        resolve({ code, signal });
      }),
    );
    this.child.stderr!.on('data', (b: Buffer) => (this.stderrText += b.toString('utf8')));
    // Diagnostics: LCS_TEST_STDERR_DIR=/some/dir keeps every sidecar's stderr there.
    const keep = process.env.LCS_TEST_STDERR_DIR;
    if (keep) this.child.stderr!.pipe(createWriteStream(join(keep, `sidecar-${this.child.pid}.log`)));
    this.conn = createMessageConnection(new StreamMessageReader(this.child.stdout!), new StreamMessageWriter(this.child.stdin!));
    // Writes to a sidecar that already exited must not crash the test run.
    this.child.stdin!.on('error', () => undefined);
    this.editor = new FakeEditor(this.conn, opts.editor ?? {});
    this.conn.listen();
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** Fails instead of hanging when the sidecar dies before answering. */
  private orExit<T>(p: Promise<T>, what: string): Promise<T> {
    const died = this.exited.then((e) => {
      throw new Error(`the sidecar exited (${e.code ?? e.signal}) before answering ${what}; stderr:\n${this.stderrText}`);
    });
    return Promise.race([p, died]);
  }

  async initialize(): Promise<any> {
    const o = this.opts;
    this.initializeResult = await this.orExit(
      this.conn.sendRequest('initialize', {
        processId: o.processId === undefined ? process.pid : o.processId,
        rootUri: null,
        trace: o.trace ?? 'off',
        ...(o.initializationOptions !== undefined ? { initializationOptions: o.initializationOptions } : {}),
        capabilities: {
          window: { workDoneProgress: o.workDoneProgress ?? false },
          experimental: { levelcodeSessions: o.levelcodeCapability ?? { callbacks: o.callbacks ?? [] } },
        },
      }),
      'initialize',
    );
    await this.conn.sendNotification('initialized', {});
    return this.initializeResult;
  }

  /** A request by descriptor; the result is checked against the descriptor's result schema. */
  async call<D extends RequestDescriptor>(d: D, params: unknown, token?: CancellationTokenSource): Promise<z.output<D['result']>> {
    const result = await this.orExit(
      token ? this.conn.sendRequest(d.method, params, token.token) : this.conn.sendRequest(d.method, params),
      d.method,
    );
    const parsed = d.result.safeParse(result);
    if (!parsed.success)
      throw new Error(
        `${d.method} answered outside its schema: ${JSON.stringify(parsed.error.issues)}\n${JSON.stringify(result).slice(0, 2000)}`,
      );
    return result as z.output<D['result']>;
  }

  /** The error a request fails with (fails the test when it succeeds). */
  async error(method: string, params: unknown, token?: CancellationTokenSource): Promise<ResponseError<any>> {
    try {
      // (an undefined token would be sent as a second positional param)
      const r = await this.orExit(
        token
          ? this.conn.sendRequest(method, params, token.token)
          : params === undefined
            ? this.conn.sendRequest(method)
            : this.conn.sendRequest(method, params),
        method,
      );
      throw new Error(`${method} succeeded unexpectedly: ${JSON.stringify(r).slice(0, 500)}`);
    } catch (e) {
      if (e instanceof ResponseError) return e;
      throw e;
    }
  }

  /**
   * Resolves when the title the sidecar makes in the background after a session's second user
   * turn is written (or given up): it logs "session <id> titled after its second user turn".
   * Needs `trace: 'messages'` (or 'verbose') so that the log reaches the editor.
   */
  async titleSettled(id: string): Promise<string> {
    if ((this.opts.trace ?? 'off') === 'off') throw new Error('titleSettled needs the sidecar started with trace: "messages"');
    const line = await this.orExit(
      this.editor.logs.waitFor((l) => l.message.includes(`session ${id} titled after its second user turn`)),
      `the title of ${id}`,
    );
    return /\((\w+)\)\s*$/.exec(line.message)?.[1] ?? '';
  }

  /** shutdown + exit; resolves with the exit. */
  async stop(): Promise<Exit> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      try {
        await this.conn.sendRequest('shutdown');
        await this.conn.sendNotification('exit');
      } catch {
        this.child.kill('SIGKILL');
      }
    }
    const exit = await this.exited;
    this.conn.dispose();
    return exit;
  }
}

/** Spawns and (unless told not to) initializes a sidecar. */
export async function startSidecar(opts: StartOptions): Promise<Sidecar> {
  const s = new Sidecar(opts);
  if (opts.initialize !== false) await s.initialize();
  return s;
}

/** Kills whatever a test left running and removes the temp folders. For afterEach. */
export async function cleanup(): Promise<void> {
  const waits: Promise<unknown>[] = [];
  for (const c of children) {
    waits.push(new Promise((r) => c.once('exit', r)));
    c.kill('SIGKILL');
  }
  await Promise.all(waits);
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

export { CancellationTokenSource, ResponseError };

// ---------------------------------------------------------------------------------------------
// Sessions in a test store

/** The file of session `id` in the store at `root` (whatever its project folder). */
export function fileOf(root: string, id: string): string {
  for (const d of readdirSync(root)) {
    const f = join(root, d, `${id}.jsonl`);
    if (existsSync(f)) return f;
  }
  throw new Error(`no file for ${id}`);
}

/**
 * A new session of `project` holding `events`, appended through the sidecar in batches.
 * `settleTitle`: two user turns start a title in the background; wait for it to land (the
 * sidecar must run with trace "messages") so that a file compared afterwards holds still.
 */
export async function sessionWith(
  s: Sidecar,
  project: string,
  events: readonly unknown[],
  opts: { model?: string; batch?: number; settleTitle?: boolean } = {},
): Promise<string> {
  const { id } = await s.call(sessionNew, { project, ...(opts.model ? { model: opts.model } : {}) });
  const batch = opts.batch ?? 1_000;
  for (let i = 0; i < events.length; i += batch) await s.call(sessionAppend, { id, events: events.slice(i, i + batch) as never });
  const users = events.filter((e) => (e as { kind?: string }).kind === 'user').length;
  if (opts.settleTitle && users >= 2) await s.titleSettled(id);
  return id;
}
