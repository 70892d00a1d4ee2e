// Test helpers for the Neovim client: a real Neovim (`nvim --embed --headless -u NONE`) with
// clients/neovim on the runtime path, driven through the npm `neovim` client; the real sidecar it
// starts against a temp store; and the CLI (`node bin/levelcode-sessions.js`) as "another
// process" writing to that store. Every Neovim and sidecar a test starts is stopped in `stop()`.
//
// Waiting is always for a condition, polled, with a generous deadline; nothing asserts on time.
// The npm `neovim` package replaces console.*: diagnostics go to process.stdout.write.
// Needs a build (`npx tsc -p .`): bin/ loads dist/.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { attach, type NeovimClient } from 'neovim';
import { at } from '../../helpers/items.js';

export const REPO = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const BIN = join(REPO, 'bin', 'levelcode-sessions.js');
export const PLUGIN = join(REPO, 'clients', 'neovim');
const STUBS = join(REPO, 'test', 'clients', 'neovim', 'stubs.lua');

if (!existsSync(join(REPO, 'dist', 'cli', 'main.js'))) {
  throw new Error('dist/ is missing: run `npx tsc -p .` before the Neovim client tests');
}

// ---------------------------------------------------------------------------------------------
// Workspaces: a store, a project folder and XDG folders, all inside one temp folder

export interface Workspace {
  base: string;
  store: string;
  project: string;
  xdg: { data: string; cache: string; state: string; config: string };
}

const temps: string[] = [];

export function workspace(): Workspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'lcs-nvim-')));
  temps.push(base);
  const xdg = {
    data: join(base, 'xdg-data'),
    cache: join(base, 'xdg-cache'),
    state: join(base, 'xdg-state'),
    config: join(base, 'xdg-config'),
  };
  for (const d of Object.values(xdg)) mkdirSync(d);
  const project = join(base, 'project');
  mkdirSync(project);
  return { base, store: join(base, 'store'), project, xdg };
}

export function removeWorkspaces(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

function xdgEnv(ws: Workspace): NodeJS.ProcessEnv {
  return {
    ...process.env,
    XDG_DATA_HOME: ws.xdg.data,
    XDG_CACHE_HOME: ws.xdg.cache,
    XDG_STATE_HOME: ws.xdg.state,
    XDG_CONFIG_HOME: ws.xdg.config,
    LEVELCODE_SESSIONS_DIR: ws.store,
  };
}

// ---------------------------------------------------------------------------------------------
// The CLI as another process

export function cli(ws: Workspace, args: string[], input?: string): string {
  return execFileSync(process.execPath, [BIN, ...args, '--dir', ws.store], { input, env: xdgEnv(ws), encoding: 'utf8' });
}

/** A session written by the CLI; returns its id. */
export function cliSession(ws: Workspace, events: object[], opts: { model?: string; project?: string } = {}): string {
  const args = ['new', '--project', opts.project ?? ws.project];
  if (opts.model) args.push('--model', opts.model);
  const id = cli(ws, args).trim();
  if (events.length) cliAppend(ws, id, events);
  return id;
}

export function cliAppend(ws: Workspace, id: string, events: object[]): void {
  cli(ws, ['append', id], events.map((e) => JSON.stringify(e)).join('\n') + '\n');
}

/** The session file of `id` in the store (any project folder), or undefined. */
export function sessionFile(ws: Workspace, id: string): string | undefined {
  if (!existsSync(ws.store)) return undefined;
  for (const dir of readdirSync(ws.store)) {
    const f = join(ws.store, dir, `${id}.jsonl`);
    if (existsSync(f)) return f;
  }
  return undefined;
}

/** The JSON lines of a session file. */
export function sessionLines(ws: Workspace, id: string): Record<string, unknown>[] {
  const f = sessionFile(ws, id);
  if (!f) throw new Error(`no session file for ${id}`);
  return readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// ---------------------------------------------------------------------------------------------
// Neovim

export interface Note {
  msg: string;
  level: number;
}
export interface SelectView {
  prompt: string | null;
  kind: string | null;
  items: string[];
  done: boolean;
}
export interface InputView {
  prompt: string | null;
  default: string | null;
  done: boolean;
}
export interface ConfirmView {
  msg: string;
  choices: string | null;
}
export interface UiView {
  selects: SelectView[];
  inputs: InputView[];
  notes: Note[];
  confirms: ConfirmView[];
}
export interface BufView {
  buf: number;
  name: string;
  lines: string[];
  filetype: string;
  modifiable: boolean;
  readonly: boolean;
  buftype: string;
  modified: boolean;
}

export interface StartOptions {
  /** Lua table source given to require('levelcode').setup(...), e.g. `{ dir = '...' }`; null: no setup call. */
  setup?: string | null;
  /** Put clients/neovim on the runtime path with --cmd (default true; false: the test adds it). */
  onRtp?: boolean;
  /** Source plugin/levelcode.lua (as a plugin manager would). Default true. */
  loadPlugin?: boolean;
  /** Install the test stubs (vim.ui.select/input, vim.notify). Default true. */
  stubs?: boolean;
  env?: NodeJS.ProcessEnv;
}

const running = new Set<Nvim>();

export class Nvim {
  private sidecarPids = new Set<number>();

  private constructor(
    readonly proc: ChildProcess,
    readonly api: NeovimClient,
    readonly ws: Workspace,
  ) {}

  static async start(ws: Workspace, opts: StartOptions = {}): Promise<Nvim> {
    const rtp = opts.onRtp === false ? [] : ['--cmd', `set rtp^=${PLUGIN}`];
    const proc = spawn('nvim', ['--embed', '--headless', '-u', 'NONE', '-i', 'NONE', '-n', ...rtp], {
      cwd: ws.project,
      env: { ...xdgEnv(ws), ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    proc.stderr?.on('data', (d: Buffer) => process.stdout.write(`[nvim stderr] ${d}`));
    const api = attach({ proc });
    const nvim = new Nvim(proc, api, ws);
    running.add(nvim);
    await api.command('set nomore');
    if (opts.stubs !== false) await api.command(`luafile ${STUBS}`);
    if (opts.loadPlugin !== false) await api.command('runtime plugin/levelcode.lua');
    const setup = opts.setup === undefined ? `{ dir = ${luaString(ws.store)} }` : opts.setup;
    if (setup !== null) await api.lua(`require('levelcode').setup(${setup})`);
    return nvim;
  }

  /** Runs Lua (a chunk: use `return` for a value). */
  async lua<T = unknown>(code: string, args: unknown[] = []): Promise<T> {
    const v = (await this.api.lua(code, args as never)) as T;
    await this.trackSidecar();
    return v;
  }

  async command(cmd: string): Promise<void> {
    await this.api.command(cmd);
    await this.trackSidecar();
  }

  /** Polls a Lua expression until it is truthy (not nil/false); returns its value. */
  async waitFor<T = unknown>(expr: string, what: string, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      last = await this.api.lua(`return ${expr}`);
      await this.trackSidecar();
      if (last !== null && last !== undefined && last !== false) return last as T;
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what} (${expr}); last value ${JSON.stringify(last)}; ui: ${JSON.stringify(await this.ui())}`,
        );
      await sleep(50);
    }
  }

  ui(): Promise<UiView> {
    return this.api.lua('return T.view()') as Promise<UiView>;
  }

  /** Waits for the n-th vim.ui.select (1-based) and returns it. */
  async select(n: number): Promise<SelectView> {
    await this.waitFor(`#T.selects >= ${n}`, `vim.ui.select #${n}`);
    return at((await this.ui()).selects, n - 1, 'selects');
  }

  async choose(label: string | null): Promise<void> {
    await this.lua('T.choose(...)', [label]);
  }

  async input(n: number): Promise<InputView> {
    await this.waitFor(`#T.inputs >= ${n}`, `vim.ui.input #${n}`);
    return at((await this.ui()).inputs, n - 1, 'inputs');
  }

  async answer(text: string | null): Promise<void> {
    await this.lua('T.answer(...)', [text]);
  }

  /** Waits for a vim.notify message containing `text`; returns it. */
  async note(text: string, timeoutMs = 30_000): Promise<Note> {
    const i = await this.waitFor<number>(
      `(function() for i, n in ipairs(T.notes) do if n.msg:find(${luaString(text)}, 1, true) then return i end end end)()`,
      `a message containing "${text}"`,
      timeoutMs,
    );
    return at((await this.ui()).notes, i - 1, 'notes');
  }

  async notes(): Promise<Note[]> {
    return (await this.ui()).notes;
  }

  buf(buf?: number): Promise<BufView> {
    return this.lua<BufView>('return T.buf(...)', buf === undefined ? [] : [buf]);
  }

  messages(): Promise<string> {
    return this.api.commandOutput('messages');
  }

  /** The sidecar's pid, once it runs (remembered so stop() can make sure it ended). */
  async sidecarPid(): Promise<number> {
    const pid = await this.waitFor<number>(`require('levelcode.rpc').pid()`, 'the sidecar pid');
    this.sidecarPids.add(pid);
    return pid;
  }

  private async trackSidecar(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const pid = (await this.api.lua(`return package.loaded['levelcode.rpc'] and require('levelcode.rpc').pid() or nil`)) as number | null;
    if (typeof pid === 'number') this.sidecarPids.add(pid);
  }

  /** Quits Neovim (:qa!), then makes sure it and every sidecar it started are gone. */
  async stop(): Promise<void> {
    running.delete(this);
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      await this.trackSidecar().catch(() => undefined);
      const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
      this.api.command('qa!').catch(() => undefined);
      if (!(await within(exited, 10_000))) {
        this.proc.kill('SIGKILL');
        await exited;
      }
    }
    for (const pid of this.sidecarPids) {
      if (!(await waitGone(pid, 10_000))) {
        process.stdout.write(`[neovim test] sidecar ${pid} outlived Neovim; killing it\n`);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone meanwhile */
        }
      }
    }
  }
}

/** Stops every Neovim still running (afterEach). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((n) => n.stop()));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

export async function waitUntil(cond: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function within(p: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    void p.then(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A Lua string literal. */
export function luaString(s: string): string {
  return JSON.stringify(s);
}
