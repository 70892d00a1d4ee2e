// Starts and talks to the sidecar (`levelcode-sessions serve --stdio`) with vscode-languageclient
// 11 over stdio: the bundled dist/sidecar/cli/main.js by default, or the user's own build
// (levelcodeSessions.sidecarPath). It advertises the callbacks this extension answers, turns
// session/didChange into an event, passes the auto-archive and retention settings and the user's
// time zone as initializationOptions, restarts a sidecar that died (with a notice, and a limit), and
// logs into one LogOutputChannel (the sidecar's stderr and window/logMessage land there too).
//
// Knows nothing of the History view or commands: they use request() and the events.

import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  ResponseError,
  State,
  TransportKind,
  WorkDoneProgress,
  type ClientCapabilities,
  type ErrorHandler,
  type FeatureState,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import type { Settings } from './config';
import {
  DID_CHANGE,
  PROTOCOL_VERSION,
  SUMMARIZE,
  TITLE,
  type DidChangeParams,
  type Feature,
  type Requests,
  type ServerCapability,
  type SummarizeParams,
  type SummarizeResult,
  type TitleParams,
  type TitleResult,
  type ToolInfo,
} from './protocol';
import { setKnownTools } from './continueIn';
import { lifecycleInitOptions } from './history/lifecycle';
import { parseSidecarLine } from './logLines';
import { S } from './strings';

export interface Callbacks {
  summarize(p: SummarizeParams, token: vscode.CancellationToken): Promise<SummarizeResult>;
  title(p: TitleParams, token: vscode.CancellationToken): Promise<TitleResult>;
}

/** At most this many unexpected restarts within RESTART_WINDOW_MS; then the user decides. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60_000;

/** Fills capabilities.experimental.levelcodeSessions: the callbacks answered here. */
class CallbacksFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = {
      ...(capabilities.experimental as object | undefined),
      levelcodeSessions: { callbacks: ['summarize', 'title'] },
    };
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

export class Sidecar implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private restarts: number[] = [];
  private gaveUp = false;
  private capability: ServerCapability | undefined;
  private readonly changeEmitter = new vscode.EventEmitter<DidChangeParams>();
  private readonly readyEmitter = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter, this.readyEmitter];

  /** A session changed in the store (any process). */
  readonly onDidChangeSession = this.changeEmitter.event;
  /** The sidecar is (again) ready: after the first start and after every restart. */
  readonly onDidBecomeReady = this.readyEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
    private readonly settings: () => Settings,
    private readonly callbacks: Callbacks,
  ) {}

  get store(): string | undefined {
    return this.capability?.store;
  }

  /** The AI tools the running sidecar knows (its capability's `tools`); none before it is ready. */
  get tools(): readonly ToolInfo[] {
    return this.capability?.tools ?? [];
  }

  has(feature: Feature): boolean {
    return this.capability?.features.includes(feature) ?? false;
  }

  /**
   * Whether the sidecar has `feature`, once it is up: a command run while it (re)starts (a
   * setting changed a moment ago) waits for its capability rather than taking its absence for
   * "not supported". False when it cannot start.
   */
  async supports(feature: Feature): Promise<boolean> {
    await this.start().catch(() => undefined);
    return this.has(feature);
  }

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** Starts the sidecar (once; concurrent callers share the start). */
  start(): Promise<void> {
    if (this.starting) return this.starting;
    this.gaveUp = false;
    this.starting = this.doStart().catch((e) => {
      this.starting = undefined;
      throw e;
    });
    return this.starting;
  }

  /** Stops and starts again (a setting changed, or the user asked). */
  async restart(): Promise<void> {
    await this.stop();
    this.restarts = [];
    await this.start();
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.starting = undefined;
    this.capability = undefined;
    if (c && c.state !== State.Stopped) {
      try {
        await c.stop(3000);
      } catch (e) {
        this.log.warn(`stopping the sidecar: ${(e as Error).message}`);
      }
    }
    await c?.dispose(3000).catch(() => undefined);
  }

  /** A typed request; waits for the sidecar to be ready. */
  async request<M extends keyof Requests>(method: M, params: Requests[M][0], token?: vscode.CancellationToken): Promise<Requests[M][1]> {
    if (this.gaveUp) throw new Error(S.history.sidecarDown);
    await this.start();
    const c = this.client;
    if (!c) throw new Error(S.history.sidecarDown);
    if (c.state === State.Starting) await waitForRunning(c);
    // Never pass an undefined token: the client would send [params, undefined] as positional params.
    return (await (token ? c.sendRequest(method, params, token) : c.sendRequest(method, params))) as Requests[M][1];
  }

  /**
   * A long request with a work-done token of its own: `onReport` gets the sidecar's `$/progress`
   * reports for it (the caller shows them in its own progress notification), and `token`
   * cancels it ($/cancelRequest).
   */
  async requestWithProgress<M extends keyof Requests>(
    method: M,
    params: Requests[M][0],
    onReport: (message: string | undefined, percentage: number | undefined) => void,
    token?: vscode.CancellationToken,
  ): Promise<Requests[M][1]> {
    await this.start();
    const c = this.client;
    if (!c) throw new Error(S.history.sidecarDown);
    const workDoneToken = `levelcode-${++this.progressTokens}`;
    const sub = c.onProgress(WorkDoneProgress.type, workDoneToken, (v) => {
      if (v.kind !== 'end') onReport(v.message, v.percentage);
    });
    try {
      return await this.request(method, { ...params, workDoneToken }, token);
    } finally {
      sub.dispose();
    }
  }
  private progressTokens = 0;

  private serverOptions(s: Settings): ServerOptions {
    const dirArgs = s.storeFolder ? ['--dir', s.storeFolder] : [];
    const env = {
      ...process.env,
      // The sidecar opens no network connection, and Node parses the bundle this names at every
      // start, before any of the sidecar runs (186 against 113 ms to `initialize` answered where it
      // names the system's bundle; protocol.md "Starting the sidecar"). Empty, Node reads nothing.
      NODE_EXTRA_CA_CERTS: '',
      LEVELCODE_SESSIONS_CONSENT_TOKENS: String(s.consentThreshold),
      // The sidecar writes debug lines only when asked; ask when this log channel shows them.
      ...(this.log.logLevel <= vscode.LogLevel.Debug && this.log.logLevel !== vscode.LogLevel.Off
        ? { LEVELCODE_SESSIONS_LOG: 'debug' }
        : {}),
    };
    const own = s.sidecarPath;
    if (own) {
      if (!existsSync(own)) throw new Error(S.sidecar.notFound(own));
      if (/\.(c|m)?js$/i.test(own)) {
        return { module: own, transport: TransportKind.stdio, args: ['serve', ...dirArgs], options: { env } };
      }
      return { command: own, transport: TransportKind.stdio, args: ['serve', ...dirArgs], options: { env } };
    }
    const bundled = this.context.asAbsolutePath('dist/sidecar/cli/main.js');
    return { module: bundled, transport: TransportKind.stdio, args: ['serve', ...dirArgs], options: { env } };
  }

  private async doStart(): Promise<void> {
    const s = this.settings();
    let serverOptions: ServerOptions;
    try {
      serverOptions = this.serverOptions(s);
    } catch (e) {
      this.fail((e as Error).message);
      throw e;
    }
    const clientOptions: LanguageClientOptions = {
      documentSelector: [],
      // Auto-archive and retention (history/lifecycle.ts): applied once at each start, archiving
      // only. The time zone: History's groups and times (session/list's `view`) are the user's.
      initializationOptions: { ...lifecycleInitOptions(s), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone },
      outputChannel: this.log,
      revealOutputChannelOn: 4 /* RevealOutputChannelOn.Never */,
      errorHandler: this.errorHandler(),
      stdioOptions: {
        stdout: (input) => lines(input, (l) => this.log.info(l)),
        stderr: (input) => lines(input, (l) => this.logSidecarLine(l)),
      },
      initializationFailedHandler: (error) => {
        this.log.error(`initialize failed: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      },
    };
    const client = new LanguageClient('levelcodeSessions', S.sidecar.clientName, serverOptions, clientOptions);
    client.registerFeature(new CallbacksFeature());
    client.onNotification(DID_CHANGE, (p: DidChangeParams) => this.changeEmitter.fire(p));
    client.onRequest(SUMMARIZE, (p: SummarizeParams, token) => this.answer('summarize', () => this.callbacks.summarize(p, token)));
    client.onRequest(TITLE, (p: TitleParams, token) => this.answer('title', () => this.callbacks.title(p, token)));
    this.disposables.push(
      client.onDidChangeState((e) => {
        if (e.newState === State.Running) this.onRunning(client);
      }),
    );
    this.client = client;
    this.log.info(`starting the sidecar (${s.sidecarPath || 'bundled'}${s.storeFolder ? `, store ${s.storeFolder}` : ''})`);
    try {
      await client.start();
    } catch (e) {
      this.fail(S.sidecar.startFailed((e as Error).message));
      throw e;
    }
  }

  private logSidecarLine(line: string): void {
    const { level, message } = parseSidecarLine(line);
    const text = `[sidecar] ${message}`;
    if (level === 'error') this.log.error(text);
    else if (level === 'warn') this.log.warn(text);
    else if (level === 'info') this.log.info(text);
    else this.log.debug(text);
  }

  private onRunning(client: LanguageClient): void {
    if (client !== this.client) return;
    const cap = (client.initializeResult?.capabilities.experimental as { levelcodeSessions?: ServerCapability } | undefined)
      ?.levelcodeSessions;
    this.capability = cap;
    setKnownTools(cap?.tools);
    if (cap && cap.version !== PROTOCOL_VERSION) {
      this.log.error(S.sidecar.tooOld(cap.version, PROTOCOL_VERSION));
      void vscode.window.showErrorMessage(S.sidecar.tooOld(cap.version, PROTOCOL_VERSION));
    }
    this.log.info(`sidecar ready: store ${cap?.store ?? '?'}, features ${cap?.features.join(', ') ?? '?'}`);
    this.readyEmitter.fire();
  }

  /** A callback's failure becomes a JSON-RPC error the sidecar reports as CallbackFailed. */
  private async answer<T>(name: string, fn: () => Promise<T>): Promise<T | ResponseError<void>> {
    try {
      return await fn();
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.log.warn(`${name} callback failed: ${message}`);
      if (e instanceof vscode.CancellationError) return new ResponseError(-32800, message);
      return new ResponseError(-32603, message);
    }
  }

  private errorHandler(): ErrorHandler {
    return {
      error: (error, _message, count) => {
        this.log.error(`connection error: ${error.message}`);
        return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
      },
      closed: () => {
        const now = Date.now();
        this.restarts = this.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
        this.capability = undefined;
        if (this.restarts.length >= MAX_RESTARTS) {
          this.log.error('the sidecar stopped too often; not restarting');
          this.fail(S.sidecar.gaveUp);
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        this.restarts.push(now);
        this.log.warn('the sidecar stopped unexpectedly; restarting');
        void vscode.window.showWarningMessage(S.sidecar.restarting, S.sidecar.showLog).then((pick) => {
          if (pick === S.sidecar.showLog) this.log.show(true);
        });
        return { action: CloseAction.Restart, handled: true };
      },
    };
  }

  private fail(message: string): void {
    this.gaveUp = true;
    void vscode.window.showErrorMessage(message, S.sidecar.restart, S.sidecar.showLog).then((pick) => {
      if (pick === S.sidecar.restart) void this.restart().catch(() => undefined);
      if (pick === S.sidecar.showLog) this.log.show(true);
    });
  }

  async dispose(): Promise<void> {
    await this.stop();
    for (const d of this.disposables) d.dispose();
  }
}

function lines(input: NodeJS.ReadableStream, each: (line: string) => void): void {
  createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', each);
}

function waitForRunning(c: LanguageClient): Promise<void> {
  return new Promise((resolve, reject) => {
    const sub = c.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        sub.dispose();
        resolve();
      } else if (e.newState === State.Stopped) {
        sub.dispose();
        reject(new Error(S.history.sidecarDown));
      }
    });
  });
}
