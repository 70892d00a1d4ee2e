// Reliability of the store under faults and hostile files: a real full disk (a size-limited
// tmpfs), a read-only store, missing and replaced folders, unreadable files, files built to
// hurt (a 50 MB line, 100,000-deep nesting, invalid UTF-8, NUL bytes, __proto__ keys,
// duplicated meta lines), ids and symlinks that try to leave the store, and file modes.
// Needs root (mount, other uids): CI runs as root. Prints its figures at the end.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, readFile, writeFile, appendFile, rm, stat, chmod, symlink, readdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../server/store/store.js';
import { History } from '../../server/listing/history.js';
import { projectSlug } from '../../server/store/slug.js';
import { StoreError } from '../../server/store/errors.js';
import { figures, printFigures } from './figures.js';
import { projectCache } from '../../server/store/cache-dir.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('the reliability suite needs root (tmpfs mounts, other uids); CI runs as root');
  tmp = await mkdtemp(join(tmpdir(), 'lcs-rel-'));
  await chmod(tmp, 0o755);
});
afterAll(async () => {
  printFigures('store faults and hostile files');
  await rm(tmp, { recursive: true, force: true });
});

function mountTmpfs(dir: string, size: string) {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir]);
}
function umount(dir: string) {
  spawnSync('umount', ['-l', dir]);
}
const user = (content: unknown) => ({ kind: 'user', t: new Date().toISOString(), content });

describe('a real full disk', () => {
  it('fails the append clearly, keeps the file valid, and succeeds once space is freed', async () => {
    const mnt = join(tmp, 'small');
    await mkdir(mnt);
    mountTmpfs(mnt, '2m');
    try {
      const root = join(mnt, 'store');
      const project = join(tmp, 'p-full');
      await mkdir(project);
      const s = new SessionStore({ root });
      const { id } = await s.create({ project });
      const acked: number[] = [];
      let failure: unknown;
      for (let n = 0; n < 1000 && !failure; n++) {
        try {
          await s.append(id, [{ ...user('z'.repeat(40_000)), n }]);
          acked.push(n);
        } catch (e) {
          failure = e;
        }
      }
      figures.faults++;
      expect(failure).toBeInstanceOf(StoreError);
      expect((failure as StoreError).code).toBe('no-space');
      expect((failure as StoreError).message).toMatch(/disk is full/);
      // The file holds exactly the acknowledged events, no torn line.
      const r = await s.read(id);
      expect(r.problems).toEqual([]);
      expect(r.events.map((e) => (e.event as Record<string, unknown>).n)).toEqual(acked);
      figures.acknowledged += acked.length;
      // Listing still works (index writes may fail: it is a cache) and the old index is whole.
      const listed = await new History(new SessionStore({ root })).list({ project });
      expect(listed.sessions.map((x) => x.id)).toEqual([id]);
      const idx = projectCache(join(root, projectSlug(project)), 'index.json');
      expect(() => JSON.parse(readFileSync(idx, 'utf8'))).not.toThrow();
      // Free space: a filler written by someone else.
      await rm(join(mnt, 'store', projectSlug(project), 'index.json'), { force: true });
      await s.append(id, [{ ...user('after space freed'), n: -1 }]).catch(async () => {
        // If the disk is still too full for even a small line, free more.
        throw new Error('append after freeing space failed');
      });
      const after = await s.read(id);
      expect(after.events.at(-1)!.event).toMatchObject({ content: 'after space freed' });
      expect(after.problems).toEqual([]);
      await s.releaseAll();
    } finally {
      umount(mnt);
    }
  });

  it('never leaves index.json half-written when its write hits a full disk', async () => {
    const mnt = join(tmp, 'small2');
    await mkdir(mnt);
    mountTmpfs(mnt, '1m');
    const cacheWas = process.env.LEVELCODE_SESSIONS_CACHE;
    process.env.LEVELCODE_SESSIONS_CACHE = join(mnt, 'cache'); // the cache on the full disk too
    try {
      const root = join(mnt, 'store');
      const project = join(tmp, 'p-full2');
      await mkdir(project);
      const s = new SessionStore({ root });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const { id } = await s.create({ project });
        await s.append(id, [user(`session ${i}`)]);
        ids.push(id);
      }
      await s.releaseAll();
      const dir = join(root, projectSlug(project));
      const before = await readFile(projectCache(dir, 'index.json'), 'utf8');
      // Another process appends behind the index's back: the next list must rewrite it.
      await appendFile(
        join(dir, `${ids[0]}.jsonl`),
        JSON.stringify({ kind: 'user', t: new Date().toISOString(), content: 'again' }) + '\n',
      );
      // Fill the disk to the last byte.
      const filler = join(mnt, 'filler');
      try {
        await writeFile(filler, Buffer.alloc(2 * 1024 * 1024));
      } catch {
        /* ENOSPC: the disk is now full */
      }
      const r = await new History(new SessionStore({ root })).list({ project });
      figures.faults++;
      expect(r.sessions.map((x) => x.id).sort()).toEqual([...ids].sort());
      expect(r.sessions.find((x) => x.id === ids[0])!.turns).toBe(2);
      expect(r.problems).toEqual([]); // a cache not written is no problem of the user's files
      // The old index is untouched and whole (atomic write: temp file, then rename).
      expect(await readFile(projectCache(dir, 'index.json'), 'utf8')).toBe(before);
      expect((await readdir(dirname(projectCache(dir, 'index.json')))).filter((n) => n.startsWith('index.json.'))).toEqual([]);
      await rm(filler, { force: true });
      const healed = await new History(new SessionStore({ root })).list({ project });
      expect(healed.problems).toEqual([]);
      expect(JSON.parse(await readFile(projectCache(dir, 'index.json'), 'utf8')).entries).toHaveLength(5);
    } finally {
      process.env.LEVELCODE_SESSIONS_CACHE = cacheWas;
      umount(mnt);
    }
  });
});

describe('a store that cannot be written', () => {
  it('read-only: clear errors, listing and reading still work', async () => {
    const mnt = join(tmp, 'ro');
    await mkdir(mnt);
    mountTmpfs(mnt, '4m');
    try {
      const root = join(mnt, 'store');
      const project = join(tmp, 'p-ro');
      await mkdir(project);
      const s = new SessionStore({ root });
      const { id } = await s.create({ project });
      await s.append(id, [user('hello')]);
      await s.releaseAll();
      execFileSync('mount', ['-o', 'remount,ro', mnt]);
      const ro = new SessionStore({ root });
      const e = await ro.append(id, [user('x')]).catch((x) => x);
      figures.faults++;
      expect(e).toBeInstanceOf(StoreError);
      expect(['read-only', 'io']).toContain(e.code);
      expect(e.message).toMatch(/read-only|EROFS|permission/i);
      const created = await ro.create({ project }).catch((x) => x);
      expect(created).toBeInstanceOf(StoreError);
      expect((await new History(ro).list({ project })).sessions.map((x) => x.id)).toEqual([id]);
      expect((await ro.read(id)).events).toHaveLength(1);
    } finally {
      umount(mnt);
    }
  });

  it('a missing store lists nothing and names unknown sessions', async () => {
    const s = new SessionStore({ root: join(tmp, 'nowhere') });
    figures.faults++;
    expect(await new History(s).list({ all: true })).toEqual({ sessions: [], problems: [] });
    await expect(s.read('2026-01-01T00-00-00-aaaa')).rejects.toMatchObject({ code: 'unknown-session' });
  });

  it('a project folder replaced by a file: clear error, other projects unaffected', async () => {
    const root = join(tmp, 'store-replaced');
    const p1 = join(tmp, 'p-rep1');
    const p2 = join(tmp, 'p-rep2');
    await mkdir(p1);
    await mkdir(p2);
    const s = new SessionStore({ root });
    const a = await s.create({ project: p1 });
    const b = await s.create({ project: p2 });
    await s.releaseAll();
    const d1 = join(root, projectSlug(p1));
    await rm(d1, { recursive: true });
    await writeFile(d1, 'not a folder');
    figures.faults++;
    const e = await s.create({ project: p1 }).catch((x) => x);
    expect(e).toBeInstanceOf(StoreError);
    expect(e.message).toMatch(/not a folder/);
    expect((await new History(s).list({ all: true })).sessions.map((x) => x.id)).toEqual([b.id]);
    const listed = await new History(s).list({ project: p1 });
    expect(listed.sessions).toEqual([]);
    await expect(s.read(a.id)).rejects.toMatchObject({ code: 'unknown-session' });
    expect(await readFile(d1, 'utf8')).toBe('not a folder');
  });

  it('a session file with its permissions removed: the others list, it says why', async () => {
    const root = join(tmp, 'store-perm');
    const project = join(tmp, 'p-perm');
    await mkdir(project);
    const s = new SessionStore({ root });
    const a = await s.create({ project });
    await s.append(a.id, [user('readable')]);
    const b = await s.create({ project });
    await s.append(b.id, [user('locked away')]);
    await s.releaseAll();
    await rm(projectCache(join(root, projectSlug(project)), 'index.json'));
    // Run the CLI as an ordinary user (root ignores modes).
    execFileSync('chown', ['-R', '65534:65534', root]);
    await chmod(project, 0o755);
    await chmod(join(root, projectSlug(project), `${b.id}.jsonl`), 0o000);
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args, '--dir', root], { uid: 65534, gid: 65534, encoding: 'utf8', cwd: '/' });
    figures.faults++;
    const list = run('list', '--project', project, '--json');
    expect(list.status).toBe(1); // the listing is incomplete: it fails, and lists what it could read
    const j = JSON.parse(list.stdout);
    expect(j.sessions.map((x: { id: string }) => x.id)).toEqual([a.id]);
    expect(JSON.stringify(j.problems)).toMatch(/EACCES|permission/i);
    const show = run('show', b.id);
    expect(show.status).toBe(1);
    expect(show.stderr).toMatch(/permission denied/);
    expect(run('show', a.id).stdout).toContain('readable');
  });
});

describe('doctor --fix and what its user cannot mend', () => {
  it("mends the modes of what the user owns, and names what another user's file needs", async () => {
    const root = join(tmp, 'store-owner');
    const project = join(tmp, 'p-owner');
    await mkdir(project);
    const s = new SessionStore({ root });
    const mine = await s.create({ project });
    const theirs = await s.create({ project });
    await s.releaseAll();
    execFileSync('chown', ['-R', '65534:65534', root]);
    const dir = join(root, projectSlug(project));
    await chmod(join(dir, `${mine.id}.jsonl`), 0o000);
    // A file root left in the user's store, readable by others: only root can change its mode.
    execFileSync('chown', ['0:0', join(dir, `${theirs.id}.jsonl`)]);
    await chmod(join(dir, `${theirs.id}.jsonl`), 0o644);
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, ...args, '--dir', root], { uid: 65534, gid: 65534, encoding: 'utf8', cwd: '/' });
    figures.faults++;
    const fix = run('doctor', '--fix');
    expect(fix.stdout).toContain(`${mine.id}.jsonl: mode 000 keeps its owner from using the file; expected 600 (fixed: chmod 600)`);
    expect(fix.stdout).toContain(
      `${theirs.id}.jsonl: mode 644 lets others read the file; expected 600; not fixed: it belongs to uid 0, and only its owner or root can change its mode`,
    );
    expect(fix.status).toBe(1); // a problem remains
    expect(fix.stderr).toBe('');
    expect((await stat(join(dir, `${mine.id}.jsonl`))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, `${theirs.id}.jsonl`))).mode & 0o777).toBe(0o644);
  });
});

describe('hostile session files', () => {
  it('reads them with problems reported, bounded memory, no pollution, no crash', async () => {
    const root = join(tmp, 'store-hostile');
    const project = join(tmp, 'p-hostile');
    await mkdir(project);
    const dir = join(root, projectSlug(project));
    await mkdir(dir, { recursive: true });
    const id = '2026-07-28T09-12-33-h0st';
    const meta = JSON.stringify({ kind: 'meta', v: 1, id, project, createdAt: '2026-07-28T09:12:33.000Z', title: null });
    const t = '2026-07-28T09:12:34.000Z';
    const parts: Buffer[] = [
      Buffer.from(meta + '\n'),
      Buffer.from(JSON.stringify({ kind: 'user', t, content: 'first' }) + '\n'),
      // a 50 MB line
      Buffer.from(JSON.stringify({ kind: 'assistant', t, content: [{ type: 'text', text: 'y'.repeat(50 * 1024 * 1024) }] }) + '\n'),
      // nested 100,000 deep
      Buffer.from(`{"kind":"agent","t":"${t}","messages":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}\n`),
      // invalid UTF-8 inside a string
      Buffer.concat([Buffer.from(`{"kind":"user","t":"${t}","content":"bad `), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}\n')]),
      // raw NUL bytes
      Buffer.from(`{"kind":"user","t":"${t}","content":"nul\u0000here"}\n`),
      Buffer.from('\u0000\u0000\u0000\n'),
      // __proto__ and constructor keys
      Buffer.from(
        `{"kind":"user","t":"${t}","content":"proto","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}\n`,
      ),
      // a duplicated meta line
      Buffer.from(meta + '\n'),
      Buffer.from(JSON.stringify({ kind: 'user', t, content: 'last' }) + '\n'),
    ];
    await writeFile(join(dir, `${id}.jsonl`), Buffer.concat(parts), { mode: 0o600 });
    figures.hostileFiles++;
    const s = new SessionStore({ root });
    const r = await s.read(id);
    const contents = r.events.map((e) => (e.event as { content?: unknown }).content);
    expect(contents[0]).toBe('first');
    expect(contents.at(-1)).toBe('last');
    expect(contents).toContain('proto');
    expect(r.problems.map((p) => p.line)).toEqual([4, 5, 6, 7, 9]);
    expect(r.problems.find((p) => p.line === 4)!.message).toMatch(/nested deeper/);
    expect(r.problems.find((p) => p.line === 5)!.message).toMatch(/UTF-8/);
    expect(r.problems.find((p) => p.line === 9)!.message).toMatch(/not a valid event/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    const proto = r.events.find((e) => (e.event as { content?: unknown }).content === 'proto')!.event as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    const { sessions } = await new History(s).list({ project });
    expect(sessions[0]).toMatchObject({ id, turns: 4, preview: 'last' });
    // The CLI, in a process with a 300 MB heap limit, reads and exports it whole.
    for (const args of [
      ['show', id, '--json'],
      ['export', id],
      ['doctor', '--json'],
      ['list', '--all', '--json'],
    ]) {
      const out = spawnSync(process.execPath, ['--max-old-space-size=300', bin, ...args, '--dir', root], {
        encoding: 'utf8',
        maxBuffer: 512 * 1024 * 1024,
      });
      expect(out.status, `${args.join(' ')}: ${out.stderr.slice(0, 500)}`).not.toBeNull();
      expect([0, 1]).toContain(out.status);
      expect(out.stderr).not.toMatch(/heap out of memory|Maximum call stack|TypeError/);
    }
  });
});

describe('escaping the store', () => {
  it('refuses ids that try to leave it', async () => {
    const s = new SessionStore({ root: join(tmp, 'store-esc') });
    const evil = [
      '../../etc/passwd',
      '/etc/passwd',
      '2026-07-28T09-12-33-8f3k/../../../etc/passwd',
      '2026-07-28T09-12-33-8f3k\u0000',
      '2026-07-28T09-12-33-8f3k'.repeat(400),
      '2026-07-28T09-12-33-8f3\u0137', // a look-alike letter
      '２０２６-07-28T09-12-33-8f3k', // fullwidth digits
      '2026-07-28T09-12-33-8f3k\u200b',
      '',
    ];
    for (const id of evil) {
      figures.escapes++;
      await expect(s.read(id)).rejects.toMatchObject({ code: 'bad-id' });
      await expect(s.append(id, [user('x')])).rejects.toMatchObject({ code: 'bad-id' });
    }
  });

  it('never follows symlinks planted in the store to read or write outside it', async () => {
    const root = join(tmp, 'store-sym');
    const outside = join(tmp, 'outside');
    const project = join(tmp, 'p-sym');
    await mkdir(project);
    await mkdir(outside);
    const s = new SessionStore({ root });
    const real = await s.create({ project });
    await s.releaseAll();
    // A project folder that is a symlink to a folder outside holding a session file.
    const foreignId = '2026-07-28T09-12-33-f0re';
    await writeFile(
      join(outside, `${foreignId}.jsonl`),
      JSON.stringify({ kind: 'meta', v: 1, id: foreignId, project: '/x', createdAt: '2026-07-28T09:12:33.000Z', title: null }) + '\n',
    );
    const before = await readdir(outside);
    await symlink(outside, join(root, '-x'));
    // A session file that is a symlink to a file outside.
    const linkedId = '2026-07-28T09-12-33-l1nk';
    await symlink(join(outside, `${foreignId}.jsonl`), join(root, projectSlug(project), `${linkedId}.jsonl`));
    figures.escapes += 2;
    const all = await new History(new SessionStore({ root })).list({ all: true });
    expect(all.sessions.map((x) => x.id)).toEqual([real.id]);
    expect((await new History(new SessionStore({ root })).list({ project: '/x' })).sessions).toEqual([]);
    await expect(s.read(foreignId)).rejects.toMatchObject({ code: 'unknown-session' });
    await expect(s.read(linkedId)).rejects.toMatchObject({ code: 'unknown-session' });
    await expect(s.append(linkedId, [user('x')])).rejects.toMatchObject({ code: 'unknown-session' });
    expect(await readdir(outside)).toEqual(before); // no index.json written outside
  });
});

describe('file modes', () => {
  it('are 0600 for files and 0700 for folders, whatever the umask', async () => {
    const root = join(tmp, 'store-modes');
    const project = join(tmp, 'p-modes');
    await mkdir(project);
    const r = spawnSync('sh', ['-c', `umask 000 && "${process.execPath}" "${bin}" new --project "${project}" --dir "${root}"`], {
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const id = r.stdout.trim();
    const a = spawnSync('sh', ['-c', `umask 000 && "${process.execPath}" "${bin}" append ${id} --dir "${root}"`], {
      input: '{"kind":"user","content":"x"}\n',
      encoding: 'utf8',
    });
    expect(a.status, a.stderr).toBe(0);
    const dir = join(root, projectSlug(project));
    const mode = async (p: string) => (await stat(p)).mode & 0o777;
    expect(await mode(root)).toBe(0o700);
    expect(await mode(dir)).toBe(0o700);
    expect(await mode(join(dir, `${id}.jsonl`))).toBe(0o600);
    expect(await mode(projectCache(dir, 'index.json'))).toBe(0o600);
    figures.modesChecked += 4;
  });
});
