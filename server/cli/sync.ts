// `levelcode-sessions sync init [--apply]` and `sync status`: the store on every device through
// Syncthing (server/sync). Also `settleConflicts`, which every command that reads or writes
// sessions runs first when the store is synced (it has the ignore file `sync init` writes): the
// CLI's turn at the conflict copies the sidecar resolves as soon as it sees them.
// A thin door: the rules live in server/sync.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRegularTextSync } from '../store/files.js';
import { EXIT, UsageError, parse } from './args.js';
import { FOLDER_ID, STIGNORE, STIGNORE_NAME } from '../sync/names.js';

const USAGE = `Usage: levelcode-sessions sync init [--apply] [--syncthing-home DIR] [--dir DIR] [--json]
       levelcode-sessions sync status [--syncthing-home DIR] [--dir DIR] [--json]

History on every device, through Syncthing (https://syncthing.net; Debian: apt install syncthing).

  init     writes the store's ignore file (.stignore: locks and temp files stay on each device)
           and prints the Syncthing folder to add for the store on this device
  --apply  adds that folder to the Syncthing running here, through its REST API, shared with
           every device it already knows (its address and API key from its config.xml)
  status   the folder's state, its devices (connected, how far synced) and any conflict copies,
           in words; conflict copies are resolved first (a diverged chat becomes a fork)
  --syncthing-home DIR   Syncthing's config folder (default: $LEVELCODE_SESSIONS_SYNCTHING_HOME,
           $STHOMEDIR, ~/.local/state/syncthing, then ~/.config/syncthing)
Exit codes: 0 done, 1 Syncthing unreachable or refusing, 2 usage.`;

export async function cmdSync(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { apply: { type: 'boolean' }, 'syncthing-home': { type: 'string' } });
  if (values.help) return (process.stdout.write(`${USAGE}\n`), EXIT.ok);
  if (positionals.length === 0) return (process.stderr.write(`${USAGE}\n`), EXIT.usage);
  const [sub, ...more] = positionals;
  if (more.length) throw new UsageError(`sync ${sub} takes no arguments (got ${more.join(' ')})`);
  const { resolveStoreRoot } = await import('../store/files.js');
  const root = resolveStoreRoot(values.dir as string | undefined);
  const env = values['syncthing-home']
    ? { ...process.env, LEVELCODE_SESSIONS_SYNCTHING_HOME: values['syncthing-home'] as string }
    : process.env;
  if (sub === 'init') return init(root, !!values.apply, !!values.json, env);
  if (sub === 'status') return status(root, !!values.json, env);
  throw new UsageError(`unknown sync command ${JSON.stringify(sub)} (init or status)`);
}

/** Writes .stignore, or adds our block to one the user has (their lines are kept). */
function writeIgnore(root: string): 'written' | 'updated' | 'unchanged' {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const file = join(root, STIGNORE_NAME);
  const before = readIfThere(file);
  if (before === undefined) {
    writeFileSync(file, STIGNORE, { mode: 0o600, flag: 'wx' });
    return 'written';
  }
  const missing = STIGNORE.split('\n').filter((l) => l && !l.startsWith('//') && !before.split('\n').includes(l));
  if (missing.length === 0) return 'unchanged';
  writeFileSync(file, `${before.endsWith('\n') || before === '' ? '' : '\n'}${STIGNORE}`, { flag: 'a' });
  return 'updated';
}

async function init(root: string, apply: boolean, json: boolean, env: NodeJS.ProcessEnv): Promise<number> {
  const st = await import('../sync/syncthing.js');
  const ignore = writeIgnore(root);
  const id = FOLDER_ID;
  let applied: { action: 'added' | 'present'; url: string; devices: string[] } | undefined;
  if (apply) {
    const conf = st.findSyncthing(env);
    if (!conf) {
      process.stderr.write(
        `levelcode-sessions: no Syncthing config found (looked in ${st.syncthingHomes(env).join(', ')}); start Syncthing once, or give --syncthing-home\n`,
      );
      return EXIT.failure;
    }
    const rest = new st.SyncthingRest(conf.url, conf.apiKey);
    try {
      const me = await rest.get<{ myID: string }>('/rest/system/status');
      const folders = await rest.get<{ id: string; path: string }[]>('/rest/config/folders');
      const known = folders.find((f) => f.id === id);
      const devices = (await rest.get<{ deviceID: string; name: string }[]>('/rest/config/devices'))
        .filter((d) => d.deviceID !== me.myID)
        .map((d) => d.deviceID);
      if (known && known.path.replace(/\/+$/, '') !== root.replace(/\/+$/, '')) {
        process.stderr.write(
          `levelcode-sessions: Syncthing already has a folder ${id} at ${known.path}, not at the store ${root}; nothing changed\n`,
        );
        return EXIT.failure;
      }
      if (!known) await rest.call('PUT', `/rest/config/folders/${id}`, st.folderFor(root, id, [me.myID, ...devices]));
      applied = { action: known ? 'present' : 'added', url: conf.url, devices };
    } catch (e) {
      process.stderr.write(`levelcode-sessions: ${(e as Error).message}\n`);
      return EXIT.failure;
    }
  }
  const folder = st.folderFor(root, id);
  if (json) {
    process.stdout.write(`${JSON.stringify({ root, ignore, folder, ...(applied ? { applied } : {}) })}\n`);
    return EXIT.ok;
  }
  const lines = [
    `Store: ${root}`,
    `Ignore file: ${join(root, STIGNORE_NAME)} (${ignore}): locks and temp files stay on this device.`,
    '',
    'The Syncthing folder for the store on this device:',
    `  Folder ID     ${id}   (the same ID on every device, so they share it)`,
    `  Folder path   ${root}`,
    '  Advanced      watch for changes: on; full rescan every 60 s; conflicts kept: all',
  ];
  if (applied?.action === 'added')
    lines.push('', `Added to the Syncthing at ${applied.url}, shared with ${applied.devices.length} device(s) it knows.`);
  else if (applied) lines.push('', `The Syncthing at ${applied.url} has it already; nothing changed.`);
  else lines.push('', 'Add it in Syncthing\'s web UI ("+ Add Folder"), or run: levelcode-sessions sync init --apply');
  process.stdout.write(lines.join('\n') + '\n');
  return EXIT.ok;
}

interface Completion {
  completion: number;
  needItems: number;
}

async function status(root: string, json: boolean, env: NodeJS.ProcessEnv): Promise<number> {
  const settled = await settleConflicts(root, { force: true, quiet: true });
  const { findConflicts, describeOutcome } = await import('../sync/conflicts.js');
  const store = await storeAt(root);
  const left = await findConflicts(store);
  const ignore = existsSync(join(root, STIGNORE_NAME));
  const report: Record<string, unknown> = { root, ignoreFile: ignore, resolved: settled, conflicts: left };
  const lines = [`Store: ${root}`, ignore ? 'Ignore file: present' : 'Ignore file: missing: run levelcode-sessions sync init'];
  const code = await syncthingStatus(root, env, lines, report);
  for (const r of settled) lines.push(`Conflict ${describeOutcome(r)}`);
  if (left.length === 0) lines.push('Conflicts: none waiting');
  else {
    lines.push(`Conflicts: ${left.length} copy(ies) waiting (resolved when the session is free: another window may hold it):`);
    for (const f of left) lines.push(`  ${f}`);
  }
  if (json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else process.stdout.write(lines.join('\n') + '\n');
  return code;
}

/** What the local Syncthing says of the store's folder and its devices, in words. */
async function syncthingStatus(root: string, env: NodeJS.ProcessEnv, lines: string[], report: Record<string, unknown>): Promise<number> {
  const st = await import('../sync/syncthing.js');
  const conf = st.findSyncthing(env);
  if (!conf) {
    lines.push('Syncthing: no config found on this device (is it installed and started once?)');
    report.syncthing = null;
    return EXIT.failure;
  }
  const rest = new st.SyncthingRest(conf.url, conf.apiKey);
  try {
    const me = await rest.get<{ myID: string }>('/rest/system/status');
    const folders =
      await rest.get<{ id: string; path: string; label: string; devices: { deviceID: string }[]; paused: boolean }[]>(
        '/rest/config/folders',
      );
    const folder = folders.find((f) => f.path.replace(/\/+$/, '') === root.replace(/\/+$/, '')) ?? folders.find((f) => f.id === FOLDER_ID);
    if (!folder) {
      lines.push(`Syncthing (${conf.url}): no folder for this store: run levelcode-sessions sync init --apply`);
      report.syncthing = { url: conf.url, folder: null };
      return EXIT.failure;
    }
    const db = await rest.get<{ state: string; needFiles: number; error?: string }>(
      `/rest/db/status?folder=${encodeURIComponent(folder.id)}`,
    );
    const conns = await rest.get<{ connections: Record<string, { connected: boolean; paused: boolean }> }>('/rest/system/connections');
    const known = await rest.get<{ deviceID: string; name: string }[]>('/rest/config/devices');
    lines.push(`Syncthing folder "${folder.label || folder.id}" (${folder.id}): ${folder.paused ? 'paused' : stateWords(db)}`);
    const others = folder.devices.map((d) => d.deviceID).filter((d) => d !== me.myID);
    lines.push(others.length === 0 ? 'Devices: none share it yet (add a device in Syncthing, then share the folder with it)' : 'Devices:');
    const devices: unknown[] = [];
    for (const d of others) {
      const name = known.find((k) => k.deviceID === d)?.name || d.slice(0, 7);
      const c = conns.connections[d];
      const done = await rest
        .get<Completion>(`/rest/db/completion?folder=${encodeURIComponent(folder.id)}&device=${d}`)
        .catch(() => undefined);
      const words = !c?.connected
        ? c?.paused
          ? 'paused'
          : 'not connected (changes wait until it is)'
        : done && done.needItems === 0
          ? 'connected, has everything'
          : `connected, ${Math.floor(done?.completion ?? 0)}% synced (${done?.needItems ?? '?'} item(s) to go)`;
      lines.push(`  ${name} (${d.slice(0, 7)}): ${words}`);
      devices.push({ id: d, name, connected: !!c?.connected, completion: done?.completion ?? null, needItems: done?.needItems ?? null });
    }
    report.syncthing = { url: conf.url, folder: folder.id, state: db.state, needFiles: db.needFiles, devices };
    return EXIT.ok;
  } catch (e) {
    lines.push(`Syncthing: ${(e as Error).message}`);
    report.syncthing = { url: conf.url, error: (e as Error).message };
    return EXIT.failure;
  }
}

function stateWords(db: { state: string; needFiles: number; error?: string }): string {
  switch (db.state) {
    case 'idle':
      return db.needFiles > 0 ? `waiting for ${db.needFiles} file(s) from other devices` : 'up to date';
    case 'syncing':
    case 'sync-preparing':
    case 'sync-waiting':
      return `syncing (${db.needFiles} file(s) to go)`;
    case 'scanning':
    case 'scan-waiting':
      return 'looking for changes';
    case 'error':
      return `stopped by an error: ${db.error ?? 'see Syncthing'}`;
    default:
      return db.state;
  }
}

async function storeAt(root: string) {
  const { SessionStore } = await import('../store/store.js');
  return new SessionStore({ root, agent: 'cli' });
}

/**
 * The CLI's turn at conflict copies: when the store is synced (it has .stignore, or `force`),
 * every copy is resolved before the command runs; what was done is said on stderr.
 */
export async function settleConflicts(root: string, o: { force?: boolean; quiet?: boolean } = {}) {
  if (!o.force && !existsSync(join(root, STIGNORE_NAME))) return [];
  const { resolveAll, describeOutcome } = await import('../sync/conflicts.js');
  const store = await storeAt(root);
  try {
    const outcomes = await resolveAll(store);
    if (!o.quiet) for (const r of outcomes) process.stderr.write(`levelcode-sessions: sync: ${describeOutcome(r)}\n`);
    return outcomes;
  } finally {
    await store.releaseAll();
  }
}

/** A regular file's text (no symlink followed, no FIFO waited on), or undefined when there is none. */
function readIfThere(file: string): string | undefined {
  try {
    return readRegularTextSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
