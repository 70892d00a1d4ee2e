// The sidecar: one JSON-RPC connection in the manner of a language server (vscode-languageserver
// 11 over vscode-jsonrpc 10, Content-Length frames) on stdio or on a TCP socket to 127.0.0.1.
// This file owns the transport and the lifecycle (initialize, shutdown, exit, the client's
// death, stdin closing), validates every request against protocol.ts, and hands it to
// handlers.ts. It also turns store changes (store/watch.ts) into session/didChange.
//
// Invariants: stdout carries frames only (console output is sent to stderr); before
// `initialize` every request answers -32002, after `shutdown` -32600; `exit` ends with 0 after
// shutdown and 1 otherwise, and so does the loss of stdin/socket or of the client's process.
// The locks this sidecar holds are released on every one of those paths.
//
// Built on vscode-languageserver's transport-neutral createConnection(factory, watchDog,
// ProposedFeatures.all) rather than the node entry point's, so that exit goes through here
// (release the locks, return the exit code to the CLI) instead of a bare process.exit.
// Depends on the core (store, watch) and the rpc modules; the core never imports this.

import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import type { MessageType, InitializeParams, InitializeResult, WatchDog, MessageReader, MessageWriter } from 'vscode-languageserver/node';
// Through require (lsp.ts): an ES import of the library alone missed the start's guardrail.
import { lsp, lspNode } from './lsp.js';
const { createConnection, ProposedFeatures, ResponseError, CancellationToken, LogMessageNotification, SetTraceNotification } = lsp;
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter, SocketMessageWriter } = lspNode;
type ResponseError<D> = import('vscode-languageserver').ResponseError<D>;
type CancellationToken = import('vscode-languageserver').CancellationToken;
import type { SessionStore } from '../store/store.js';
import type { History } from '../listing/history.js';
// From store/files.ts: history.ts and the catalog behind it are loaded with the store, after
// initialize has answered.
import { resolveStoreRoot } from '../store/files.js';
import { watchStore, type StoreWatcher } from '../store/watch.js';
import { ConflictSettler } from '../sync/settler.js';
import type { LiveSearch } from './live-search.js';
import { trashSearchable } from '../store/trash.js';
import { toolsCapability } from '../import/tools.js';
import type { Follower } from '../import/follow.js';
import { mkdir } from 'node:fs/promises';
import { Log } from './log.js';
import { FrameGuard } from './frames.js';
import { RpcErrorCodes, invalidParams, rpcError, toResponseError } from './errors.js';
import type { Context, Progress, TitleJobs } from './handlers.js';
import type * as P from './protocol.js';
import { CALLBACKS, DID_CHANGE, IMPORT_PROBLEM, PROTOCOL_VERSION, type Callback, type Feature } from './wire.js';

// `initialize` is answered before the store, the handlers and zod behind them are loaded; they
// are loaded just after it, and every other request (and shutdown) waits for them. Kept for the
// start guardrail (wire.ts, bench/PERFORMANCE.md): what initialize needs must not import zod.
interface Core {
  store: SessionStore;
  history: History;
  ROUTES: typeof import('./handlers.js').ROUTES;
  DEFAULT_CONSENT_THRESHOLD: number;
  titles: TitleJobs;
  /** Resume's two-step flows waiting for session/compact (resume/workflow.ts). */
  pending: Context['pending'];
  sweeping: Context['sweeping'];
  retention: Context['retention'];
  search: LiveSearch;
}

export interface ServeOptions {
  stdio?: boolean;
  /** LSP convention (vscode-languageclient's TransportKind.socket): connect to 127.0.0.1:PORT, where the client listens. */
  socket?: number;
  dir?: string;
  /** vscode-languageclient's --clientProcessId: exit when that process dies (as with initialize's processId). */
  clientProcessId?: number;
}

const SERVER_NAME = 'levelcode-sessions';
const SERVER_VERSION = '0.1.0';
/** How often the process named in initialize's processId is checked. */
const PARENT_POLL_MS = 1000;
/** How often the auto-archive and retention rules of initialize are applied again (6 h). */
const SWEEP_EVERY_MS = Number(process.env.LEVELCODE_SESSIONS_SWEEP_MS) || 6 * 3600_000;

/** Runs the sidecar until the client leaves; resolves with the process exit code. */
export async function serve(opts: ServeOptions): Promise<number> {
  const log = new Log();
  let transport: Transport;
  try {
    transport = opts.socket !== undefined ? await socketTransport(opts.socket) : stdioTransport();
  } catch (e) {
    log.error(`cannot open the transport: ${(e as Error).message}`);
    return 1;
  }
  const sidecar = new Sidecar(resolveStoreRoot(opts.dir), transport, log);
  return sidecar.run(opts.clientProcessId);
}

// ---------------------------------------------------------------------------------------------
// Transports

interface Transport {
  reader: MessageReader;
  /** Called once when the client's bytes break the framing (frames.ts FrameGuard). */
  onBadFrame(cb: (reason: string) => void): void;
  writer: MessageWriter;
  onEnd(cb: () => void): void;
  close(): void;
  stdio: boolean;
}

/** The client's bytes through a FrameGuard: `badFrame` is told the first frame that breaks the framing. */
function guarded(input: NodeJS.ReadableStream): { stream: FrameGuard; onBadFrame: Transport['onBadFrame'] } {
  let listener: ((reason: string) => void) | undefined;
  let early: string | undefined;
  const stream = new FrameGuard((reason) => {
    if (listener) listener(reason);
    else early = reason;
  });
  input.pipe(stream);
  return {
    stream,
    onBadFrame: (cb) => {
      listener = cb;
      if (early !== undefined) cb(early);
    },
  };
}

function stdioTransport(): Transport {
  const g = guarded(process.stdin);
  return {
    reader: new StreamMessageReader(g.stream),
    onBadFrame: g.onBadFrame,
    writer: new StreamMessageWriter(process.stdout, 'utf-8'),
    onEnd: (cb) => {
      process.stdin.once('end', cb);
      process.stdin.once('close', cb);
    },
    close: () => process.stdin.destroy(),
    stdio: true,
  };
}

async function socketTransport(port: number): Promise<Transport> {
  const socket: Socket = connect({ port, host: '127.0.0.1' });
  await once(socket, 'connect');
  const g = guarded(socket);
  return {
    reader: new StreamMessageReader(g.stream),
    onBadFrame: g.onBadFrame,
    writer: new SocketMessageWriter(socket, 'utf-8'),
    onEnd: (cb) => socket.once('close', cb),
    close: () => socket.destroy(),
    stdio: false,
  };
}

// ---------------------------------------------------------------------------------------------

type Phase = 'new' | 'initializing' | 'running' | 'shutdown' | 'exiting';

class Sidecar {
  private phase: Phase = 'new';
  private watcher: StoreWatcher | undefined;
  private parentTimer: NodeJS.Timeout | undefined;
  private core: Core | undefined;
  private readonly settler = new ConflictSettler({
    store: async () => (await this.loadCore()).store,
    log: (line) => this.log.info(line),
  });
  private coreLoading: Promise<Core> | undefined;
  private callbacks = new Set<Callback>();
  /** initializationOptions.timeZone (else the sidecar's own), for session/list's `view`. */
  private zone: Context['zone'] | undefined;
  private clientZone: Context['clientZone'];
  /** initializationOptions.consentThreshold, when the client set it. */
  private consentThreshold: number | undefined;
  private conn!: ReturnType<typeof createConnection<unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown>>;
  private resolveExit!: (code: number) => void;
  private readonly exited = new Promise<number>((r) => (this.resolveExit = r));
  private restoreConsole: (() => void) | undefined;

  constructor(
    private readonly root: string,
    private readonly transport: Transport,
    private readonly log: Log,
  ) {}

  /**
   * The store and the handlers, loaded once: just after initialize has answered, or by the
   * first request. initializationOptions are checked here, with protocol.ts's zod schema.
   */
  private loadCore(): Promise<Core> {
    this.coreLoading ??= (async () => {
      const loading = Promise.all([
        import('../store/store.js'),
        import('../listing/history.js'),
        import('./handlers.js'),
        import('./protocol.js'),
        import('./live-search.js'),
      ]);
      loading.catch(() => undefined); // awaited below; not unhandled if settle() throws first
      // The watcher's snapshot is completed before any request is served, so that what a first
      // session/list shows is what later changes are compared with. Taken while the modules
      // load: their files are read on libuv's threads meanwhile.
      this.watcher?.settle();
      const [{ SessionStore }, { History }, handlers, P, { LiveSearch }] = await loading;
      const store = new SessionStore({
        root: this.root,
        agent: 'sidecar',
        onLockLost: (id, err) => this.log.warn(`lost the lock of ${id}: ${err.message}`),
      });
      // The listing kept in memory between calls, checked against the files on every call.
      const history = new History(store, { cache: true });
      // A session the complete listing places on a cold first page that page lacked (history.ts).
      if (history.cache)
        history.cache.onLate = (row) => {
          if (this.phase === 'running') void this.conn.sendNotification(DID_CHANGE, { id: row.id, project: row.project, change: 'listed' });
        };
      const options = P.InitializationOptions.safeParse(emptyToObject(this.initializationOptions));
      if (options.success) this.consentThreshold = options.data.consentThreshold;
      const timeZone = options.success ? options.data.timeZone : undefined;
      this.zone = handlers.userZone(timeZone, this.log);
      this.clientZone = timeZone === undefined ? undefined : (handlers.parseZone(timeZone) ?? undefined);
      if (!options.success) this.log.warn(`ignoring initializationOptions: ${options.error.issues[0]?.message ?? 'not an object'}`);
      if (options.success) this.startSweep(history, handlers, options.data);
      // The listing kept in memory trusts a live fs.watch watcher for a bounded time (history.ts).
      history.cache?.setWatched(this.watcher?.mode === 'watch');
      if (options.success && options.data.followImports) await this.follow(store, options.data.followImports);
      this.core = {
        store,
        history,
        ROUTES: handlers.ROUTES,
        DEFAULT_CONSENT_THRESHOLD: handlers.DEFAULT_CONSENT_THRESHOLD,
        titles: new handlers.TitleJobs(),
        pending: new handlers.PendingResumes(),
        sweeping: this.sweeping,
        retention: this.retention,
        search: new LiveSearch(this.root, this.log),
      };
      // The search cache: built in the background when it never was (searches scan meanwhile).
      this.core.search.start((title) => this.progress(undefined, title), this.watcher?.mode === 'watch');
      return this.core;
    })();
    return this.coreLoading;
  }

  // ---- Auto-archive and retention at start-up (retention.ts) -----------------------------------

  private retention: Context['retention'] = { keep: null, maxAgeDays: null };
  private sweeping: Promise<unknown> | undefined;

  /**
   * initializationOptions.autoArchiveDays and .retention: the rules kept as session/retention's
   * defaults, and applied now and then every SWEEP_EVERY_MS while the sidecar runs (an editor
   * left open for weeks archives too), archiving only (never deleting). session/list waits for
   * the first sweep.
   */
  private startSweep(history: History, handlers: typeof import('./handlers.js'), o: P.InitializationOptions): void {
    const off = (n: number | undefined) => handlers.ruleValue(n, null);
    const idleDays = o.autoArchiveDays === undefined ? undefined : off(o.autoArchiveDays);
    this.retention = { idleDays, keep: off(o.retention?.keep), maxAgeDays: off(o.retention?.maxAgeDays) };
    const settings = { idleDays: idleDays ?? null, keep: this.retention.keep, maxAgeDays: this.retention.maxAgeDays, delete: false };
    if (settings.idleDays === null && settings.keep === null && settings.maxAgeDays === null) return;
    const sweep = () =>
      handlers
        .sweepAtStart(history, settings)
        .then((r) => {
          for (const i of r.done) this.log.info(`auto-archived ${i.id} (${i.reason}, last active ${i.lastActive})`);
          for (const i of r.skipped) this.log.debug(`not auto-archived ${i.id}: ${i.skipped}`);
        })
        .catch((e: unknown) => this.log.warn(`auto-archive: ${(e as Error)?.message ?? e}`));
    this.sweeping = sweep();
    this.sweepTimer = setInterval(() => {
      if (this.phase === 'running') void sweep();
    }, SWEEP_EVERY_MS);
    this.sweepTimer.unref();
  }
  private sweepTimer: NodeJS.Timeout | undefined;

  /** initializationOptions.followImports: the other tools' folders, watched and imported as they change. */
  private async follow(store: SessionStore, opt: Exclude<P.InitializationOptions['followImports'], false | undefined>): Promise<void> {
    if (this.phase !== 'running') return;
    const [{ IMPORTERS }, { followImports }, { homedir }] = await Promise.all([
      import('../import/registry.js'),
      import('../import/follow.js'),
      import('node:os'),
    ]);
    const o = opt === true ? {} : opt;
    const names = o.tools ?? IMPORTERS.map((i) => i.tool);
    const unknown = [...names, ...Object.keys(o.roots ?? {})].filter((n) => !IMPORTERS.some((i) => i.tool === n));
    if (unknown.length)
      this.log.warn(`followImports: unknown tool ${unknown.join(', ')} ignored; known tools: ${IMPORTERS.map((i) => i.tool).join(', ')}`);
    const jobs = await Promise.all(
      IMPORTERS.filter((i) => names.includes(i.tool)).map(async (importer) => ({
        importer,
        roots: o.roots?.[importer.tool] ?? (await importer.defaultRoots(process.env, homedir())),
      })),
    );
    this.follower = followImports(store, jobs, {
      poll: process.env.LEVELCODE_SESSIONS_POLL === '1',
      pollMs: envInt('LEVELCODE_SESSIONS_IMPORT_POLL_MS', 2000),
      onReport: (r) => {
        if (r.imported || r.updated) this.log.info(`followImports: imported ${r.imported}, updated ${r.updated}`);
        for (const p of r.problems) this.log.debug(`followImports: ${p.path}: ${p.message}`);
        this.log.debug('followImports: run done');
      },
      // Once per file and problem (the follower remembers what it told): the editor shows it.
      onProblem: (p) => {
        this.log.warn(`followImports: ${p.path}: ${p.message}`);
        if (this.phase === 'running') void this.conn.sendNotification(IMPORT_PROBLEM, p);
      },
      onError: (e) => this.log.warn(`followImports: ${(e as Error)?.message ?? e}`),
    });
    this.log.info(`following ${jobs.map((j) => `${j.importer.tool} (${j.roots.join(', ')})`).join('; ')} (${this.follower.mode})`);
  }
  private follower: Follower | undefined;

  /** initialize's initializationOptions, checked when the core is loaded. */
  private initializationOptions: unknown;

  run(clientProcessId?: number): Promise<number> {
    this.watchParent(clientProcessId);
    if (this.transport.stdio) this.restoreConsole = consoleToStderr();
    const self = this;
    const watchDog: WatchDog = {
      get shutdownReceived() {
        return self.shutdownReceived;
      },
      set shutdownReceived(_v: boolean) {
        /* the phase is ours: a shutdown refused before initialize must not count */
      },
      initialize: (params: InitializeParams) => this.watchParent(params.processId),
      exit: (code: number) => void this.finish(code),
    };
    const { reader, writer } = this.transport;
    // Reliability: a frame whose header cannot be read (no or a non-numeric
    // Content-Length, bytes that are no header) puts the stream out of step for good:
    // vscode-jsonrpc reports it and then understands nothing more, so the sidecar used to sit
    // silent, answering nothing, until stdin closed. It now says why on stderr and exits (1) the
    // clean way: locks released, index written, everything acknowledged on disk. A body that is
    // not JSON leaves the stream in step: it is logged and skipped, and serving goes on.
    // Frames.ts stops a header it cannot honour (a negative, garbage or huge Content-Length, a
    // header with no end) before the library buffers or misreads it: the same way out.
    this.transport.onBadFrame((reason) => {
      this.log.error(`unreadable frame header on the transport (${reason}); exiting`);
      void this.finish(this.shutdownReceived ? 0 : 1);
    });
    reader.onError((e) => {
      const msg = (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
      if (/Content-Length|Message header|Header must/i.test(msg)) {
        this.log.error(`unreadable frame header on the transport (${msg}); exiting`);
        void this.finish(this.shutdownReceived ? 0 : 1);
      } else this.log.warn(`unreadable message skipped: ${msg}`);
    });
    this.conn = createConnection((logger) => createProtocolConnection(reader, writer, logger), watchDog, ProposedFeatures.all);
    this.log.send = (type, message) => {
      if (this.phase !== 'exiting') void this.conn.sendNotification(LogMessageNotification.type, { type: type as MessageType, message });
    };

    // A ResponseError returned (not thrown) is sent as the error: that is how the library's own
    // initialize/shutdown wrappers pass refusals through.
    this.conn.onInitialize((params) => this.initialize(params) as Promise<InitializeResult>);
    this.conn.onShutdown(() => this.shutdown() as Promise<undefined>);
    this.conn.onNotification(SetTraceNotification.type, (p) => this.log.setTrace(p?.value));
    this.conn.onRequest((method: string, params: unknown, token: CancellationToken) => this.dispatch(method, params, token));
    this.conn.onNotification((method: string) => this.log.debug(`ignored notification ${method}`));
    this.transport.onEnd(() => void this.finish(this.shutdownReceived ? 0 : 1));
    this.conn.listen();
    return this.exited;
  }

  // -- lifecycle ---------------------------------------------------------------------------------

  /** Settles when initialize has answered; requests that arrive meanwhile wait for it. */
  private initialized: Promise<unknown> = Promise.resolve();

  private initialize(params: InitializeParams): Promise<InitializeResult | ResponseError<unknown>> {
    if (this.phase !== 'new') return Promise.resolve(rpcError('InvalidRequest', 'initialize may be sent only once'));
    this.phase = 'initializing';
    const done = this.doInitialize(params);
    this.initialized = done.catch(() => {
      if (this.phase === 'initializing') this.phase = 'new';
    });
    return done;
  }

  private async doInitialize(params: InitializeParams): Promise<InitializeResult> {
    this.log.setTrace(params.trace);
    this.callbacks = clientCallbacks(params.capabilities?.experimental);
    this.initializationOptions = params.initializationOptions;
    let mode: 'watch' | 'poll' | undefined;
    try {
      await mkdir(this.root, { recursive: true, mode: 0o700 });
      this.watcher = await watchStore(
        {
          root: this.root,
          // The files are stat'ed after initialize is answered, before any request is served
          // (loadCore): the answer needs only the mode.
          deferStats: true,
          onFallback: (reason) => {
            this.core?.history.cache?.setWatched(false);
            this.core?.search.touched(false);
            this.log.warn(reason);
          },
          onFolderTouched: (dir) => {
            this.core?.history.cache?.touched(dir);
            this.core?.search.touchedFolder(dir);
          },
          // A Syncthing conflict copy of a session: made whole in the store (server/sync).
          onConflict: (file) => this.settler.seen(file),
          onError: (e) => this.log.warn(`store watcher: ${(e as Error).message ?? e}`),
        },
        (change) => {
          // A new session may be in a new folder, which the watcher lists without calling it touched.
          if (change.change === 'created') this.core?.search.touched();
          if (this.phase === 'running') void this.conn.sendNotification(DID_CHANGE, change);
        },
      );
      mode = this.watcher.mode;
    } catch (e) {
      this.log.warn(`cannot watch the store ${this.root}: ${(e as Error).message}; session/didChange is off`);
    }
    const features: Feature[] = [
      'export',
      'search',
      'fork',
      'progress',
      'cancel',
      'resume.planner',
      'resume.compact',
      'seal.title',
      'reindex',
      'import',
      'fork.atTurn',
      'relink',
      'lifecycle',
      'resume.targets',
      'handoff',
    ];
    if (trashSearchable()) features.push('restore');
    if (this.watcher) features.push('didChange');
    const levelcodeSessions: P.ServerCapability = {
      version: PROTOCOL_VERSION,
      features,
      store: this.root,
      ...(mode ? { didChange: mode } : {}),
      tools: toolsCapability(),
    };
    this.phase = 'running';
    this.log.info(`serving ${this.root} (callbacks: ${[...this.callbacks].join(', ') || 'none'}; didChange: ${mode ?? 'off'})`);
    // Loaded once the answer is on its way (a timer: after the response is written).
    setTimeout(() => void this.loadCore().catch((e) => this.log.error(`cannot load the store: ${(e as Error)?.stack ?? e}`)), 0);
    return {
      capabilities: { experimental: { levelcodeSessions } },
      serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    };
  }

  /** LSP: exit answers 0 when a shutdown was received before, even if not yet answered. */
  private shutdownReceived = false;

  private async shutdown(): Promise<ResponseError<unknown> | undefined> {
    if (this.phase === 'initializing' || this.phase === 'running') this.shutdownReceived = true;
    if (this.phase === 'initializing') await this.initialized;
    if (this.phase === 'new') return rpcError('ServerNotInitialized', 'shutdown before initialize');
    if (this.phase !== 'running') return rpcError('InvalidRequest', 'shutdown was already received');
    this.phase = 'shutdown';
    this.watcher?.close();
    this.settler.close();
    this.follower?.close();
    const core = await this.loadCore();
    await core.titles.drain();
    // After shutdown nothing is written: a late answer (a summary, a title) that a handler would
    // append, or a request racing the shutdown, is refused by the store itself.
    core.store.closeForWrites();
    await core.store.releaseAll();
    return undefined;
  }

  private watchParent(pid: unknown): void {
    if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0 || this.parentTimer) return;
    this.parentTimer = setInterval(() => {
      try {
        process.kill(pid, 0);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EPERM') return; // alive, another user's
        this.log.info(`client process ${pid} is gone; exiting`);
        void this.finish(this.shutdownReceived ? 0 : 1);
      }
    }, PARENT_POLL_MS);
  }

  private finishing: Promise<void> | undefined;

  private finish(code: number): Promise<void> {
    if (this.finishing) return this.finishing;
    this.phase = 'exiting';
    this.finishing = (async () => {
      if (this.parentTimer) clearInterval(this.parentTimer);
      if (this.sweepTimer) clearInterval(this.sweepTimer);
      this.watcher?.close();
      this.settler.close();
      this.follower?.close();
      this.log.send = undefined;
      const release = async () => {
        // Nothing to release when the core never loaded (no request was served).
        const core = await this.coreLoading;
        if (!core) return;
        await core.titles.drain().catch(() => undefined);
        await core.search.close().catch(() => undefined);
        core.store.closeForWrites();
        await core.store.releaseAll().catch(() => undefined);
      };
      await Promise.race([release(), delay(2000)]);
      try {
        this.conn.dispose();
      } catch {
        /* already gone */
      }
      this.transport.close();
      this.restoreConsole?.();
      // Whatever still holds the event loop (a stuck handle) must not keep a dead sidecar alive.
      setTimeout(() => process.exit(code), 1500).unref();
      this.resolveExit(code);
    })();
    return this.finishing;
  }

  // -- requests ------------------------------------------------------------------------------------

  private async dispatch(method: string, raw: unknown, token: CancellationToken): Promise<unknown> {
    if (this.phase === 'initializing') await this.initialized;
    if (this.phase === 'new') throw rpcError('ServerNotInitialized', `${method} before initialize`);
    if (this.phase !== 'running') throw rpcError('InvalidRequest', `${method} after shutdown`);
    const core = this.core ?? (await this.loadCore());
    const route = core.ROUTES.get(method);
    if (!route) throw new ResponseError(RpcErrorCodes.MethodNotFound, `Unhandled method ${method}`);
    const parsed = route.descriptor.params.safeParse(emptyToObject(raw));
    if (!parsed.success) throw invalidParams(method, parsed.error);
    try {
      return await route.handler(parsed.data, token, this.context(core));
    } catch (e) {
      const err = toResponseError(e, method);
      if (err.code === RpcErrorCodes.InternalError) this.log.error(`${method}: ${(e as Error)?.stack ?? e}`);
      else this.log.debug(`${method}: ${err.code} ${err.message}`);
      throw err;
    }
  }

  private context(core: Core): Context {
    return {
      store: core.store,
      history: core.history,
      callbacks: this.callbacks,
      ask: <R>(method: string, params: unknown, token?: CancellationToken) =>
        askClient<R>(this.conn.sendRequest(method, params, token) as Promise<R>, token),
      progress: (workDoneToken, title) => this.progress(workDoneToken, title),
      log: this.log,
      titleTimeoutMs: envInt('LEVELCODE_SESSIONS_TITLE_TIMEOUT_MS', 20_000),
      consentThreshold: this.consentThreshold ?? envInt('LEVELCODE_SESSIONS_CONSENT_TOKENS', core.DEFAULT_CONSENT_THRESHOLD),
      pending: core.pending,
      titles: core.titles,
      sweeping: core.sweeping,
      retention: core.retention,
      search: core.search,
      zone: this.zone!,
      ...(this.clientZone ? { clientZone: this.clientZone } : {}),
    };
  }

  /** A client-given work-done token, else one created with window/workDoneProgress/create when the client supports it. */
  private async progress(workDoneToken: string | number | undefined, title: string): Promise<Progress> {
    try {
      const r =
        workDoneToken !== undefined
          ? this.conn.window.attachWorkDoneProgress(workDoneToken)
          : await this.conn.window.createWorkDoneProgress();
      r.begin(title, 0, undefined, true);
      const token = 'token' in r ? (r.token as CancellationToken) : CancellationToken.None;
      return {
        report: (message, percentage) => (percentage === undefined ? r.report(message) : r.report(percentage, message)),
        done: () => r.done(),
        token,
      };
    } catch (e) {
      this.log.debug(`no progress for "${title}": ${(e as Error).message}`);
      return { report: () => undefined, done: () => undefined, token: CancellationToken.None };
    }
  }
}

// ---------------------------------------------------------------------------------------------

/** Neovim encodes `{}` as `[]`: an empty array, null or nothing stands for an empty object. */
export function emptyToObject(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (Array.isArray(raw) && raw.length === 0) return {};
  return raw;
}

/**
 * protocol.ts's ClientCapability, checked by hand (zod is not loaded yet when initialize is
 * answered): an object whose optional `callbacks` is an array of strings, else no callbacks.
 */
function clientCallbacks(experimental: unknown): Set<Callback> {
  const own = emptyToObject(
    (experimental && typeof experimental === 'object' ? (experimental as Record<string, unknown>).levelcodeSessions : undefined) ?? {},
  );
  const out = new Set<Callback>();
  if (!own || typeof own !== 'object' || Array.isArray(own)) return out;
  const callbacks = (own as { callbacks?: unknown }).callbacks;
  if (callbacks === undefined) return out;
  if (!Array.isArray(callbacks) || !callbacks.every((c) => typeof c === 'string')) return out;
  for (const c of callbacks) if ((CALLBACKS as readonly string[]).includes(c)) out.add(c as Callback);
  return out;
}

function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toErr = (...args: unknown[]) => console.error(...args);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
  return () => Object.assign(console, saved);
}

/**
 * vscode-jsonrpc keeps waiting for the client's answer after sending $/cancelRequest; a callback
 * must not outlive its cancellation (a client that never answers would hang the request).
 */
function askClient<R>(answer: Promise<R>, token: CancellationToken | undefined): Promise<R> {
  if (!token) return answer;
  return new Promise<R>((resolve, reject) => {
    const sub = token.onCancellationRequested(() => reject(new ResponseError(RpcErrorCodes.RequestCancelled, 'callback cancelled')));
    if (token.isCancellationRequested) reject(new ResponseError(RpcErrorCodes.RequestCancelled, 'callback cancelled'));
    answer.then(resolve, reject).finally(() => sub.dispose());
  });
}

function envInt(name: string, dflt: number): number {
  const v = Number(process.env[name]);
  return Number.isInteger(v) && v > 0 ? v : dflt;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
