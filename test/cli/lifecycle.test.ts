// Issue 24 through the real CLI (bin/ over dist/) on real files and real git repositories in temp
// dirs: restore after delete, fork --at, a repository folder moved with mv whose earlier sessions
// show at the new path "moved from", and relink (dry run, then real) for a plain folder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { realpathSync } from 'node:fs';
import { projectSlug } from '../../server/store/slug.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;

function cli(args: string[], o: { cwd?: string; input?: string } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    input: o.input ?? '',
    cwd: o.cwd ?? tmp,
    env: { ...process.env, LEVELCODE_SESSIONS_DIR: root, XDG_DATA_HOME: join(tmp, 'xdg') },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function repo(path: string, remote?: string): string {
  mkdirSync(path, { recursive: true });
  git(path, 'init', '-q');
  git(path, 'commit', '-q', '--allow-empty', '-m', `root of ${path}`);
  if (remote) git(path, 'remote', 'add', 'origin', remote);
  return git(path, 'rev-list', '--max-parents=0', 'HEAD');
}

const lines = (...events: unknown[]) => events.map((e) => JSON.stringify(e)).join('\n');
const toolTurn = (n: number) => [
  { kind: 'user', content: `question ${n}` },
  { kind: 'assistant', content: [{ type: 'tool_use', id: `t${n}`, name: 'read', input: {} }] },
  { kind: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: `result ${n}` }] },
  { kind: 'assistant', content: `answer ${n}` },
];

function session(project: string, ...events: unknown[]): string {
  const id = cli(['new', '--project', project]).out.trim();
  if (events.length) expect(cli(['append', id], { input: lines(...events) }).code).toBe(0);
  return id;
}

function listJson(project: string) {
  const r = cli(['list', '--project', project, '--json']);
  expect(r.code).toBe(0);
  return JSON.parse(r.out).sessions as { id: string; project: string; turns: number; movedFrom?: string; forkedFrom?: unknown }[];
}

beforeAll(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), 'lcs-life-')));
  root = join(tmp, 'store');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('restore', () => {
  it('brings a deleted session back, listed and showable; refuses when the place is taken', () => {
    const project = join(tmp, 'restore');
    mkdirSync(project);
    const id = session(project, ...toolTurn(1));
    const file = join(root, projectSlug(project), `${id}.jsonl`);
    const bytes = readFileSync(file);
    expect(cli(['delete', id]).code).toBe(0);
    expect(listJson(project)).toEqual([]);
    const r = cli(['restore', id, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ id, project, path: file });
    expect(readFileSync(file)).toEqual(bytes);
    expect(listJson(project).map((s) => s.id)).toEqual([id]);
    expect(cli(['show', id]).out).toContain('question 1');
    expect(cli(['append', id], { input: lines({ kind: 'user', content: 'again' }) }).code).toBe(0);
    // Deleted again, and a file put at its place: restore refuses and both copies stay.
    expect(cli(['delete', id]).code).toBe(0);
    const other = session(project);
    renameSync(join(root, projectSlug(project), `${other}.jsonl`), file);
    const taken = cli(['restore', id]);
    expect(taken.code).toBe(1);
    expect(taken.err).toContain('nothing was changed');
    expect(readFileSync(file, 'utf8')).toContain(other);
    const trashed = readdirSync(join(tmp, 'xdg', 'Trash', 'files')).map((n) => readFileSync(join(tmp, 'xdg', 'Trash', 'files', n), 'utf8'));
    expect(trashed.some((t) => t.includes('"again"'))).toBe(true);
    expect(cli(['restore', '2020-01-01T00-00-00-zzzz']).code).toBe(3);
  });
});

describe('restore, a store whose path needs URI escapes', () => {
  it('finds the .trashinfo Path decoded', () => {
    const dir = join(tmp, 'st ore é%');
    const project = join(tmp, 'escaped');
    mkdirSync(project);
    const id = cli(['new', '--project', project, '--dir', dir]).out.trim();
    expect(cli(['delete', id, '--dir', dir]).code).toBe(0);
    const infos = readdirSync(join(tmp, 'xdg', 'Trash', 'info')).map((n) => readFileSync(join(tmp, 'xdg', 'Trash', 'info', n), 'utf8'));
    expect(infos.some((t) => t.includes('st%20ore'))).toBe(true);
    // Another store's session of that id is not this one's.
    expect(cli(['restore', id]).code).toBe(3);
    const r = cli(['restore', id, '--dir', dir, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).path).toBe(join(dir, projectSlug(project), `${id}.jsonl`));
  });
});

describe('fork --at', () => {
  it('holds exactly turns 1-2, tool pairs whole, and records the parent', () => {
    const project = join(tmp, 'fork');
    mkdirSync(project);
    const id = session(project, ...toolTurn(1), ...toolTurn(2), ...toolTurn(3));
    const r = cli(['fork', id, '--at', '2', '--json']);
    expect(r.code).toBe(0);
    const f = JSON.parse(r.out);
    expect(f).toMatchObject({ forkedFrom: id, turn: 2, copied: 8 });
    const file = readFileSync(join(root, projectSlug(project), `${f.id}.jsonl`), 'utf8')
      .trim()
      .split('\n');
    expect(JSON.parse(file[0]!).forkedFrom).toEqual({ id, turn: 2 });
    const events = file.slice(1).map((l) => JSON.parse(l));
    expect(events.map((e) => e.kind)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'event',
    ]);
    expect(JSON.stringify(events)).not.toContain('question 3');
    expect(JSON.stringify(events)).toContain('"tool_use_id":"t2"');
    const row = listJson(project).find((s) => s.id === f.id);
    expect(row).toMatchObject({ turns: 2, forkedFrom: { id, turn: 2 } });
    expect(cli(['list', '--project', project]).out).toContain(`forked from ${id} at turn 2`);
    const bad = cli(['fork', id, '--at', '4']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('has 3 turns');
    expect(cli(['fork', id, '--at', 'x']).code).toBe(2);
  });
});

describe('a moved repository folder', () => {
  it('shows its earlier sessions at the new path, "moved from" the old one; never an unrelated folder', () => {
    const old = join(tmp, 'code', 'app');
    const root1 = repo(old, 'https://user:secret@example.com/team/app.git');
    const id = session(old, { kind: 'user', content: 'before the move' });
    const meta = JSON.parse(readFileSync(join(root, projectSlug(old), `${id}.jsonl`), 'utf8').split('\n')[0]!);
    expect(meta.repo).toEqual({ roots: [root1], prefix: '', remotes: ['https://example.com/team/app'] });
    // A newer session of that folder without an identity (as an import writes them): it stays
    // under its recorded path, and does not hide the one that has an identity.
    const bare = '2099-01-01T00-00-00-zzzz';
    const bareMeta = { kind: 'meta', v: 1, id: bare, project: old, createdAt: '2099-01-01T00:00:00.000Z', title: null };
    writeFileSync(join(root, projectSlug(old), `${bare}.jsonl`), `${JSON.stringify(bareMeta)}\n`, { mode: 0o600 });
    // An unrelated repository whose folder is gone too: never shown elsewhere.
    const stranger = join(tmp, 'code', 'other');
    repo(stranger);
    const sid = session(stranger, { kind: 'user', content: 'unrelated' });
    rmSync(stranger, { recursive: true });
    const moved = join(tmp, 'work', 'app-renamed');
    mkdirSync(dirname(moved), { recursive: true });
    renameSync(old, moved);
    const rows = listJson(moved);
    expect(rows.map((s) => s.id)).toEqual([id]);
    expect(rows[0]).toMatchObject({ project: moved, movedFrom: old, turns: 1 });
    expect(rows.some((s) => s.id === sid)).toBe(false);
    const text = cli([], { cwd: moved });
    expect(text.out).toContain(`moved from ${old}`);
    // A search of the new folder covers its History: the moved session, never the stranger's
    // nor the one without an identity left under the old path.
    const found = JSON.parse(cli(['search', 'before', '--project', moved, '--json']).out);
    expect(found.hits.map((h: { sessionId: string }) => h.sessionId)).toEqual([id]);
    expect(cli(['search', 'unrelated', '--project', moved]).code).toBe(1);
    // Its fork needs the folder named (the one it is listed under): never guessed.
    const lost = cli(['fork', id]);
    expect(lost.code).toBe(1);
    expect(lost.err).toContain('--project');
    const fork = JSON.parse(cli(['fork', id, '--project', moved, '--json']).out);
    expect(fork).toMatchObject({ project: moved, forkedFrom: id, turn: 1 });
    rmSync(join(root, projectSlug(moved)), { recursive: true });
    // A session of the new path joins them; the old folder back in place ends the following.
    const id2 = session(moved, { kind: 'user', content: 'after the move' });
    expect(listJson(moved).map((s) => s.id)).toEqual([id2, id]);
    mkdirSync(old, { recursive: true });
    expect(listJson(moved).map((s) => s.id)).toEqual([id2]);
    rmSync(old, { recursive: true });
    // The same repository at another folder of it (a subfolder) is not the same project.
    const sub = join(moved, 'sub');
    mkdirSync(sub);
    expect(listJson(sub)).toEqual([]);
  });
});

describe('relink', () => {
  it('dry run says what would move and moves nothing; then moves the files unchanged', () => {
    const old = join(tmp, 'plain', 'notes');
    mkdirSync(old, { recursive: true });
    const a = session(old, { kind: 'user', content: 'first' });
    const b = session(old, { kind: 'user', content: 'second' });
    const oldFile = join(root, projectSlug(old), `${a}.jsonl`);
    const bytes = readFileSync(oldFile);
    const next = join(tmp, 'plain', 'notes-2026');
    renameSync(old, next);
    expect(listJson(next)).toEqual([]); // not a git repository: never guessed
    const dry = cli(['relink', old, next, '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.out)).toMatchObject({ from: old, to: next, dryRun: true });
    expect(
      JSON.parse(dry.out)
        .sessions.map((s: { id: string }) => s.id)
        .sort(),
    ).toEqual([a, b].sort());
    expect(existsSync(oldFile)).toBe(true);
    expect(listJson(next)).toEqual([]);
    const real = cli(['relink', old, next, '--json']);
    expect(real.code).toBe(0);
    expect(JSON.parse(real.out)).toMatchObject({ dryRun: false });
    expect(existsSync(oldFile)).toBe(false);
    const newFile = join(root, projectSlug(next), `${a}.jsonl`);
    expect(readFileSync(newFile)).toEqual(bytes);
    const rows = listJson(next);
    expect(rows.map((s) => s.id).sort()).toEqual([a, b].sort());
    expect(rows.every((s) => s.project === next && s.movedFrom === old)).toBe(true);
    expect(cli(['show', a]).out).toContain('first');
    expect(cli(['append', a], { input: lines({ kind: 'user', content: 'continued' }) }).code).toBe(0);
    expect(listJson(next).find((s) => s.id === a)).toMatchObject({ turns: 2 });
    const f = JSON.parse(cli(['fork', a, '--json']).out);
    expect(f.project).toBe(next);
    expect(cli(['doctor']).out).not.toContain('relinks.jsonl');
    expect(cli(['relink', old, join(tmp, 'nowhere')]).code).toBe(1);
  });
});
