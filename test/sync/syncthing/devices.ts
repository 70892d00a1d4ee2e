// Two (or more) real Syncthing devices on 127.0.0.1 for the sync suite (issue 41), as
// /work/shared/recipes/sync-and-acp.md lays them out: each its own home (key, certificate,
// config.xml), GUI/REST and sync ports, global and local discovery, relays, NAT traversal,
// usage and crash reporting and upgrades off, so nothing leaves loopback. Device ids are
// exchanged through the REST API; the store of each device becomes the shared folder through
// `levelcode-sessions sync init --apply` (the command a user runs), then its rescan is made short.
// A partition is stopping one daemon by its pid; `start()` brings it back with the same home.
// Every daemon is stopped by its pid in `stop()`/`stopAll()`.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { BIN } from '../../helpers/sidecar.js';
import { STIGNORE } from '../../../server/sync/names.js';

/** The patterns of the ignore file `sync init` writes, as regexes over one path segment. */
const IGNORED = STIGNORE.split('\n')
  .filter((l) => l.trim() && !l.startsWith('//'))
  .map(
    (l) =>
      new RegExp(
        `^${l
          .replace('(?d)', '')
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')}$`,
      ),
  );

/** Whether Syncthing keeps a path of the store home: a segment of it matches the ignore file. */
export function ignoredHere(rel: string): boolean {
  return rel.split('/').some((seg) => IGNORED.some((re) => re.test(seg)));
}

export const FOLDER = 'levelcode-sessions';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a truthy value; fails after `ms` (a hang guard, not a timing claim). */
export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 120_000,
  every = 150,
): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as T;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(every);
  }
}

export class Device {
  readonly home: string;
  readonly store: string;
  readonly cache: string;
  readonly xdgData: string;
  guiPort = 0;
  syncPort = 0;
  apiKey = '';
  id = '';
  proc: ChildProcess | undefined;
  private log = '';

  constructor(
    readonly name: string,
    readonly base: string,
  ) {
    this.home = join(base, 'syncthing');
    this.store = join(base, 'store');
    this.cache = join(base, 'cache');
    this.xdgData = join(base, 'xdg-data');
    for (const d of [this.store, this.cache, this.xdgData]) mkdirSync(d, { recursive: true, mode: 0o700 });
  }

  get url(): string {
    return `http://127.0.0.1:${this.guiPort}`;
  }

  /** The environment of this device's levelcode-sessions processes (sidecar, CLI). */
  get env(): Record<string, string> {
    return {
      LEVELCODE_SESSIONS_DEVICE: this.name,
      LEVELCODE_SESSIONS_SYNCTHING_HOME: this.home,
      LEVELCODE_SESSIONS_CACHE: this.cache,
      XDG_DATA_HOME: this.xdgData,
    };
  }

  /** Generates the key and config, and sets ports and every option that could leave loopback. */
  async generate(): Promise<void> {
    const r = spawnSync('syncthing', ['generate', `--home=${this.home}`, '--no-default-folder'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`syncthing generate failed: ${r.stderr}`);
    this.guiPort = await freePort();
    this.syncPort = await freePort();
    const file = join(this.home, 'config.xml');
    let xml = readFileSync(file, 'utf8');
    const set = (tag: string, value: string) => {
      const re = new RegExp(`<${tag}>[^<]*</${tag}>`);
      if (!re.test(xml)) throw new Error(`config.xml has no <${tag}>`);
      xml = xml.replace(re, `<${tag}>${value}</${tag}>`);
    };
    xml = xml.replace(/(<device id="[A-Z0-9-]+" name=")[^"]*"/, `$1${this.name}"`);
    xml = xml.replace(/(<gui [^>]*>\s*<address>)[^<]*/, `$1127.0.0.1:${this.guiPort}`);
    set('listenAddress', `tcp://127.0.0.1:${this.syncPort}`);
    set('globalAnnounceEnabled', 'false');
    set('localAnnounceEnabled', 'false');
    set('relaysEnabled', 'false');
    set('natEnabled', 'false');
    set('urAccepted', '-1');
    set('autoUpgradeIntervalH', '0');
    set('crashReportingEnabled', 'false');
    set('startBrowser', 'false');
    set('reconnectionIntervalS', '1');
    writeFileSync(file, xml);
    this.apiKey = /<apikey>([^<]+)<\/apikey>/.exec(xml)![1]!;
    this.id = /<device id="([A-Z0-9-]+)"/.exec(xml)![1]!;
  }

  async start(): Promise<void> {
    if (this.proc) return;
    const p = spawn('syncthing', ['serve', `--home=${this.home}`, '--no-browser', '--no-restart', '--no-upgrade'], {
      env: { ...process.env, STNODEFAULTFOLDER: '1', STNOUPGRADE: '1', STNORESTART: '1', HOME: this.base },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = p;
    const keep = (b: Buffer) => {
      this.log = (this.log + b.toString('utf8')).slice(-20_000);
    };
    p.stdout!.on('data', keep);
    p.stderr!.on('data', keep);
    p.once('exit', () => {
      if (this.proc === p) this.proc = undefined;
    });
    await until(
      `${this.name}'s Syncthing REST API`,
      async () => (await this.get<{ ping: string }>('/rest/system/ping')).ping === 'pong',
      60_000,
    );
  }

  /** Stops the daemon by its pid (SIGTERM; SIGKILL after 10 s) and waits for it. */
  async stop(): Promise<void> {
    const p = this.proc;
    if (!p) return;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill('SIGTERM');
    const t = setTimeout(() => p.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(t);
    this.proc = undefined;
  }

  get running(): boolean {
    return !!this.proc;
  }

  get daemonLog(): string {
    return this.log;
  }

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.url + path, {
      method,
      headers: { 'X-API-Key': this.apiKey, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${this.name}: ${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  get<T = unknown>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  async connected(to: Device): Promise<boolean> {
    const c = await this.get<{ connections: Record<string, { connected: boolean }> }>('/rest/system/connections');
    return !!c.connections[to.id]?.connected;
  }

  /** The CLI on this device (its store, its device name, its Syncthing). */
  cli(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [BIN, ...args, '--dir', this.store], {
      env: { ...process.env, ...this.env },
      input,
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /**
   * The files of the store Syncthing may carry: every name but .stfolder, .stignore and what
   * .stignore keeps here. Path (relative) to sha-256 of the content.
   */
  carried(): Map<string, string> {
    const out = new Map<string, string>();
    const walk = (dir: string) => {
      for (const n of readdirSync(dir)) {
        const p = join(dir, n);
        const rel = relative(this.store, p);
        if (rel === '.stfolder' || rel === '.stignore' || rel === '.stversions') continue;
        // What the ignore file keeps home, and Syncthing's own temp files (.syncthing.*.tmp).
        if (ignoredHere(rel) || n.startsWith('.syncthing.')) continue;
        const st = statSync(p);
        if (st.isDirectory()) walk(p);
        else out.set(rel, createHash('sha256').update(readFileSync(p)).digest('hex'));
      }
    };
    if (existsSync(this.store)) walk(this.store);
    return out;
  }
}

/** Makes two devices know each other (ids and explicit addresses through REST) and share the store. */
export async function pair(a: Device, b: Device): Promise<void> {
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const) {
    await x.call('PUT', `/rest/config/devices/${y.id}`, {
      deviceID: y.id,
      name: y.name,
      addresses: [`tcp://127.0.0.1:${y.syncPort}`],
      autoAcceptFolders: false,
    });
  }
  for (const d of [a, b]) {
    // The command a user runs: .stignore, and the folder through the REST API, shared with the other.
    const r = d.cli(['sync', 'init', '--apply']);
    if (r.status !== 0) throw new Error(`sync init --apply on ${d.name}: ${r.stderr}${r.stdout}`);
    // Short rescans for the test (the watcher is on already; 1 s delay).
    await d.call('PATCH', `/rest/config/folders/${FOLDER}`, { rescanIntervalS: 2, fsWatcherDelayS: 1 });
  }
  await until('the two devices to connect', async () => (await a.connected(b)) && (await b.connected(a)), 60_000);
}

/** Every event line of every session of a store, by session id (meta line first). */
export function storeSessions(store: string): Map<string, { meta: any; events: any[]; file: string }> {
  const out = new Map<string, { meta: any; events: any[]; file: string }>();
  for (const d of readdirSync(store)) {
    const dir = join(store, d);
    if (!statSync(dir).isDirectory() || d.startsWith('.')) continue;
    for (const n of readdirSync(dir)) {
      if (!/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[a-z0-9]{4}\.jsonl$/.test(n)) continue;
      const lines = readFileSync(join(dir, n), 'utf8').split('\n');
      lines.pop();
      const parsed = lines.map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return undefined;
        }
      });
      out.set(n.slice(0, -6), { meta: parsed[0], events: parsed.slice(1).filter(Boolean), file: join(dir, n) });
    }
  }
  return out;
}

export function conflictCopies(store: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync(store)) {
    const dir = join(store, d);
    if (!statSync(dir).isDirectory()) continue;
    for (const n of readdirSync(dir)) if (n.includes('.sync-conflict-')) out.push(join(dir, n));
  }
  return out;
}

/**
 * Waits until both stores hold the same carried files with the same content, no conflict copy
 * is left, and that holds for `stableMs`. Answers how long it took.
 */
export async function converged(a: Device, b: Device, o: { stableMs?: number; ms?: number } = {}): Promise<number> {
  const t0 = Date.now();
  const stable = o.stableMs ?? 2500;
  let since = 0;
  let last = '';
  await until(
    'the two stores to converge',
    () => {
      const x = a.carried();
      const y = b.carried();
      const same = x.size === y.size && [...x].every(([k, v]) => y.get(k) === v) && conflictCopies(a.store).length === 0;
      const key = JSON.stringify([...x].sort());
      if (!same || key !== last) {
        last = same ? key : '';
        since = Date.now();
        return false;
      }
      return Date.now() - since >= stable;
    },
    o.ms ?? 180_000,
    250,
  );
  return Date.now() - t0 - stable;
}
