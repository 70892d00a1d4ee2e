// The local Syncthing, as `sync init --apply`, `sync status` and the conflict resolver see it:
// its config.xml (the GUI/REST address, the API key, the devices' names) and a small client of
// its REST API on that address. Syncthing is the user's program: we read its config and call
// its documented API (https://docs.syncthing.net/dev/rest.html); we never write its files.
// Depends on node:fs and fetch; nothing of the store.

import { homedir } from 'node:os';
import { join } from 'node:path';
import { readRegularTextSync } from '../store/files.js';

export interface SyncthingConfig {
  home: string;
  /** http(s)://host:port of the GUI and REST API. */
  url: string;
  apiKey: string;
  /** The devices it knows (this one included), by full id. */
  devices: { id: string; name: string }[];
  folders: { id: string; path: string; label: string }[];
}

/** Where Syncthing keeps its config, most specific first (the Debian package's 1.x uses ~/.config). */
export function syncthingHomes(env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || homedir();
  const out: string[] = [];
  if (env.LEVELCODE_SESSIONS_SYNCTHING_HOME) out.push(env.LEVELCODE_SESSIONS_SYNCTHING_HOME);
  if (env.STHOMEDIR) out.push(env.STHOMEDIR);
  out.push(join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'syncthing'));
  out.push(join(env.XDG_CONFIG_HOME || join(home, '.config'), 'syncthing'));
  return out;
}

const unXml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** Reads one Syncthing home's config.xml; undefined when there is none. */
export function readSyncthingConfig(home: string): SyncthingConfig | undefined {
  let xml: string;
  try {
    xml = readRegularTextSync(join(home, 'config.xml'));
  } catch {
    return undefined;
  }
  const gui = /<gui\b([^>]*)>([\s\S]*?)<\/gui>/.exec(xml);
  const address = gui ? /<address>([^<]*)<\/address>/.exec(gui[2]!)?.[1] : undefined;
  const apiKey = gui ? /<apikey>([^<]*)<\/apikey>/.exec(gui[2]!)?.[1] : undefined;
  const tls = gui ? /\btls="true"/.test(gui[1]!) : false;
  const devices: SyncthingConfig['devices'] = [];
  for (const m of xml.matchAll(/<device id="([A-Z0-9-]+)" name="([^"]*)"/g)) devices.push({ id: m[1]!, name: unXml(m[2]!) });
  const folders: SyncthingConfig['folders'] = [];
  for (const m of xml.matchAll(/<folder\b([^>]*)>/g)) {
    const attr = (k: string) => new RegExp(`\\b${k}="([^"]*)"`).exec(m[1]!)?.[1];
    const id = attr('id');
    const path = attr('path');
    if (id && path) folders.push({ id: unXml(id), path: unXml(path), label: unXml(attr('label') ?? '') });
  }
  if (!address || !apiKey) return undefined;
  const host = address.startsWith('/') ? undefined : address.replace(/^0\.0\.0\.0:/, '127.0.0.1:').replace(/^\[::\]:/, '[::1]:');
  if (!host) return undefined; // a GUI on a unix socket: not reachable with fetch
  return { home, url: `${tls ? 'https' : 'http'}://${host}`, apiKey: unXml(apiKey), devices, folders };
}

/** The first Syncthing config found (see syncthingHomes), or undefined. */
export function findSyncthing(env: NodeJS.ProcessEnv = process.env): SyncthingConfig | undefined {
  for (const h of syncthingHomes(env)) {
    const c = readSyncthingConfig(h);
    if (c) return c;
  }
  return undefined;
}

/**
 * The device a conflict copy's content was written on. Syncthing names a copy after the device
 * of the version that won (the one now under the file's name: `moveForConflict(name,
 * file.ModifiedBy)`), so the copy's own device is another one: with two devices (the usual
 * laptop and desktop) the other; with more, the others' names joined by "or". Names come from
 * the local Syncthing's config; the short id stands in when no config names a device.
 */
export function copyDeviceLabel(winnerShort: string, env: NodeJS.ProcessEnv = process.env): string {
  const c = findSyncthing(env);
  const others = (c?.devices ?? []).filter((d) => !d.id.startsWith(winnerShort));
  if (others.length === 0) return `a device other than ${winnerShort}`;
  return others.map((d) => d.name || d.id.slice(0, 7)).join(' or ');
}

export class SyncthingError extends Error {}

/** A client of one Syncthing's REST API (X-API-Key), each call bounded by a timeout. */
export class SyncthingRest {
  constructor(
    readonly url: string,
    private readonly apiKey: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url + path, {
        method,
        headers: { 'X-API-Key': this.apiKey, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new SyncthingError(`cannot reach Syncthing at ${this.url} (${(e as Error).cause ?? (e as Error).message})`);
    }
    const text = await res.text();
    if (!res.ok) throw new SyncthingError(`Syncthing answered ${res.status} to ${method} ${path}: ${text.trim().slice(0, 300)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
  get<T = unknown>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }
}

/** The folder `sync init` proposes for a store: the same id on every device, the watcher on. */
export function folderFor(root: string, id: string, devices: string[] = []): Record<string, unknown> {
  return {
    id,
    label: 'LevelCode Sessions',
    path: root,
    type: 'sendreceive',
    fsWatcherEnabled: true,
    fsWatcherDelayS: 1,
    rescanIntervalS: 60,
    ignorePerms: false,
    // Conflict copies are our input (server/sync/conflicts.ts): keep them, never cap them.
    maxConflicts: -1,
    devices: devices.map((deviceID) => ({ deviceID })),
  };
}
