// `levelcode-sessions sync init` and `sync status` without a Syncthing (the real daemons are in
// test/sync/syncthing, npm run test:sync), and the CLI's turn at conflict copies: a synced store's copies are
// resolved before a command reads it, and the copy goes to the OS trash (a temp XDG_DATA_HOME).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFile, appendFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let store: string;
let project: string;

function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [bin, ...args, '--dir', store], {
    input,
    encoding: 'utf8',
    env: {
      ...process.env,
      XDG_DATA_HOME: join(tmp, 'data'),
      HOME: tmp,
      LEVELCODE_SESSIONS_SYNCTHING_HOME: join(tmp, 'no-syncthing'),
      LEVELCODE_SESSIONS_DEVICE: 'laptop',
    },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-cli-sync-'));
  store = join(tmp, 'store');
  project = join(tmp, 'proj');
  await mkdir(project);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('sync init and sync status', () => {
  it('init writes the ignore file and prints the folder; again it changes nothing; the user’s lines stay', async () => {
    const r = run(['sync', 'init']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`Folder path   ${store}`);
    expect(r.out).toContain('Folder ID     levelcode-sessions');
    expect(r.out).toContain('(written)');
    const ignore = await readFile(join(store, '.stignore'), 'utf8');
    expect(ignore).toContain('(?d)*.jsonl.lock\n');
    expect(run(['sync', 'init']).out).toContain('(unchanged)');
    await writeFile(join(store, '.stignore'), 'my-own-pattern\n');
    expect(run(['sync', 'init']).out).toContain('(updated)');
    const both = await readFile(join(store, '.stignore'), 'utf8');
    expect(both.startsWith('my-own-pattern\n')).toBe(true);
    expect(both).toContain('(?d)*.jsonl.lock.*');
    expect(JSON.parse(run(['sync', 'init', '--json']).out)).toMatchObject({
      root: store,
      ignore: 'unchanged',
      folder: { id: 'levelcode-sessions', path: store },
    });
  });

  it('init --apply and status without a Syncthing say so and exit 1; no subcommand is a usage error', () => {
    const a = run(['sync', 'init', '--apply']);
    expect(a.code).toBe(1);
    expect(a.err).toContain('no Syncthing config found');
    const s = run(['sync', 'status']);
    expect(s.code).toBe(1);
    expect(s.out).toContain('Syncthing: no config found on this device');
    expect(s.out).toContain('Conflicts: none waiting');
    expect(run(['sync']).code).toBe(2);
    expect(run(['sync', 'nope']).code).toBe(2);
  });

  it('a conflict copy in a synced store is resolved by the next command, then in the OS trash', async () => {
    const id = run(['new', '--project', project]).out.trim();
    expect(run(['append', id], '{"kind":"user","content":"shared"}\n').code).toBe(0);
    const dir = (await readdir(store, { withFileTypes: true })).find((d) => d.isDirectory() && !d.name.startsWith('.'))!.name;
    const file = join(store, dir, `${id}.jsonl`);
    expect(JSON.parse((await readFile(file, 'utf8')).split('\n')[0]!).device).toBe('laptop');
    const copy = join(store, dir, `${id}.sync-conflict-20260728-091500-ABCDEF7.jsonl`);
    await copyFile(file, copy);
    await appendFile(copy, `${JSON.stringify({ kind: 'user', t: '2026-07-28T09:15:00.000Z', content: 'from the desktop' })}\n`);
    await appendFile(file, `${JSON.stringify({ kind: 'user', t: '2026-07-28T09:14:00.000Z', content: 'from the laptop' })}\n`);
    const l = run(['list', '--project', project, '--json']);
    expect(l.code, l.err).toBe(0);
    expect(l.err).toMatch(/sync: .*diverged from session .*: kept whole as fork/);
    const rows = JSON.parse(l.out).sessions;
    expect(rows).toHaveLength(2);
    const fork = rows.find((r: { id: string }) => r.id !== id);
    expect(fork.forkedFrom).toMatchObject({ id, turn: 1 });
    expect(existsSync(copy)).toBe(false);
    const infos = join(tmp, 'data', 'Trash', 'info');
    const paths = await Promise.all((await readdir(infos)).map((n) => readFile(join(infos, n), 'utf8')));
    expect(paths.some((t) => t.includes('sync-conflict'))).toBe(true);
    // The text listing says where the fork came from.
    expect(run(['list', '--project', project]).out).toMatch(/continued on .* after turn 1/);
  });
});
