// The CLI as a new user meets it (issue 27), through the real binary against temp stores:
// unreadable stores, folders and files are errors with their paths (never "nothing there"),
// every command has --help and honours or refuses --json, search finds sessions by all their
// words, output piped into `head` ends quietly, and a terminal is told what append waits for.
// Modes mean nothing to root, so as root the CLI runs as nobody (65534) over a store it owns.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { projectSlug } from '../../server/store/slug.js';
import { projectCache } from '../../server/store/cache-dir.js';
import { at } from '../helpers/items.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
const root = process.getuid?.() === 0;
const user = root ? { uid: 65534, gid: 65534 } : {};
let tmp: string;

function env(store: string, extra: Record<string, string> = {}) {
  return {
    ...process.env,
    LEVELCODE_SESSIONS_DIR: store,
    XDG_CACHE_HOME: join(tmp, 'cache'),
    XDG_DATA_HOME: join(tmp, 'xdg'),
    NO_COLOR: '',
    ...extra,
  };
}

function cli(store: string, args: string[], o: { input?: string; cwd: string }) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    input: o.input ?? '',
    cwd: o.cwd,
    env: env(store),
    encoding: 'utf8',
    timeout: 20_000,
    ...user,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Makes everything under `p` the CLI's user's (as root: nobody's). */
async function own(p: string): Promise<void> {
  if (root) spawnSync('chown', ['-R', '65534:65534', p]);
}

/** A store with one project holding two sessions, `a` and `b`; returns what a test needs. */
async function store(name: string) {
  const base = join(tmp, name);
  const project = join(base, 'app');
  const dir = join(base, 'store');
  await mkdir(project, { recursive: true });
  await own(base);
  await chmod(base, 0o755);
  const run = (args: string[], input?: string) => cli(dir, args, { input, cwd: project });
  const a = run(['new', '--model', 'claude-sonnet-4']).out.trim();
  run(
    ['append', a],
    '{"kind":"user","content":"Add idempotency to RefundService"}\n{"kind":"assistant","content":"Use a Redis key per refund."}\n',
  );
  const b = run(['new']).out.trim();
  run(['append', b], '{"kind":"user","content":"Why does the login test flake on CI?"}\n');
  const folder = join(dir, projectSlug(project));
  return { base, project, dir, folder, a, b, run, fileOf: (id: string) => join(folder, `${id}.jsonl`) };
}

const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-first-'));
  await chmod(tmp, 0o755);
  await mkdir(join(tmp, 'xdg'));
  await mkdir(join(tmp, 'cache'));
  await own(join(tmp, 'xdg'));
  await own(join(tmp, 'cache'));
  process.env.LEVELCODE_SESSIONS_CACHE = join(tmp, 'cache'); // the CLI's user's, as the store is
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('an unreadable store, project folder or session file is an error with its path', () => {
  it('a session file: list shows the rest and fails, show, search and doctor name it; doctor --fix mends its mode', async () => {
    const s = await store('file');
    expect(s.run(['search', 'refund']).code).toBe(0); // the search cache knows the file from now on
    await chmod(s.fileOf(s.a), 0o000);
    await rm(projectCache(s.folder, 'index.json'));
    const list = s.run(['list']);
    expect(list.code).toBe(1);
    expect(list.out).toContain(s.b);
    expect(list.err).toContain(`error: ${s.fileOf(s.a)}`);
    expect(list.err).toMatch(/could not be read: this History is incomplete/);
    const show = s.run(['show', s.a]);
    expect(show.code).toBe(1);
    expect(show.err).toContain(s.fileOf(s.a));
    expect(show.err).toMatch(/permission denied/);
    const search = s.run(['search', 'refund']);
    expect(search.code).toBe(2); // grep's convention: 2 for trouble, with or without matches
    expect(search.err).toContain(s.fileOf(s.a));
    const doctor = s.run(['doctor', '--json']);
    expect(doctor.code).toBe(1);
    const kinds = JSON.parse(doctor.out)
      .findings.filter((f: { path: string }) => f.path === s.fileOf(s.a))
      .map((f: { kind: string }) => f.kind);
    expect(kinds).toEqual(['permissions', 'unreadable']);
    const fix = s.run(['doctor', '--fix']);
    expect(fix.out).toMatch(/mode 000 keeps its owner from using the file; expected 600 \(fixed: chmod 600\)/);
    expect(fix.code).toBe(0);
    // Mended whole: the index rebuilt with the file readable again.
    const after = s.run(['doctor']);
    expect(after.out).toContain('No problems found.');
    expect(after.code).toBe(0);
    expect(s.run(['show', s.a]).out).toContain('Add idempotency to RefundService');
    for (const r of [list, show, search, doctor, fix]) noStack(r.err);
  });

  it('a project folder: list, show, search and doctor fail naming it, never "No sessions" or "no session"', async () => {
    const s = await store('folder');
    await chmod(s.folder, 0o000);
    const list = s.run(['list']);
    expect(list.code).toBe(1);
    expect(list.out).toBe('');
    expect(list.err).toContain(`error: ${s.folder}: cannot read folder (EACCES)`);
    expect(list.err.split('\n').filter((l) => l.includes(s.folder))).toHaveLength(1); // once, not once a cache
    const all = s.run(['list', '--all']);
    expect(all.code).toBe(1);
    expect(all.out).not.toMatch(/No sessions/);
    const show = s.run(['show', s.a]);
    expect(show.code).toBe(1);
    expect(show.err).toContain(`cannot read ${s.folder} (EACCES)`);
    const search = s.run(['search', 'refund']);
    expect(search.code).toBe(2); // grep's convention: 2 for trouble
    expect(search.err).toContain(s.folder);
    const doctor = s.run(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.out).toContain(`error: unreadable: ${s.folder}: cannot read the project folder (EACCES)`);
    expect(s.run(['doctor', '--fix']).code).toBe(0);
    expect(s.run(['list']).out).toContain(s.a);
    for (const r of [list, all, show, search, doctor]) noStack(r.err);
  });

  it('search --all with a project folder it cannot read: the hits it found, the folder named, and exit 2 (grep: trouble)', async () => {
    const s = await store('half');
    const other = join(s.base, 'other');
    await mkdir(other);
    await own(other);
    const c = cli(s.dir, ['new'], { cwd: other }).out.trim();
    cli(s.dir, ['append', c], { cwd: other, input: '{"kind":"user","content":"Another refund question"}\n' });
    await chmod(s.folder, 0o000);
    const r = s.run(['search', 'refund', '--all']);
    expect(r.code).toBe(2); // on main: 1, the same as "no match"
    expect(r.out).toContain(c); // what could be read is shown
    expect(r.err).toContain(`error: ${s.folder}: cannot read folder (EACCES)`);
    const j = s.run(['search', 'refund', '--all', '--json']);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.out).problems.map((p: { file: string }) => p.file)).toContain(s.folder);
    const none = s.run(['search', 'nowhere', '--all']);
    expect(none.code).toBe(2); // no match, and trouble: trouble wins
    expect(none.out).toMatch(/in what could be read/);
    await chmod(s.folder, 0o700);
    noStack(r.err);
  });

  it('the store: every command fails naming it, doctor without a stack trace, and --fix gives it back to its owner', async () => {
    const s = await store('root');
    await chmod(s.dir, 0o000);
    for (const args of [['list'], ['list', '--all'], ['show', s.a], ['search', 'refund', '--all'], ['doctor']]) {
      const r = s.run(args);
      expect(r.code, args.join(' ')).toBe(args[0] === 'search' ? 2 : 1); // search: grep's 2 for trouble
      expect(r.out + r.err, args.join(' ')).toContain(s.dir);
      expect(r.out, args.join(' ')).not.toMatch(/No sessions|No matches for refund\./);
      noStack(r.err);
    }
    expect(s.run(['doctor']).out).toContain(`error: unreadable: ${s.dir}: cannot read the store (EACCES)`);
    const fix = s.run(['doctor', '--fix']);
    expect(fix.out).toContain(`${s.dir}: mode 000 keeps its owner from using the store; expected 700 (fixed: chmod 700)`);
    expect(fix.code).toBe(0);
    expect(s.run(['list']).code).toBe(0);
  });
});

describe('commands as gh and rg have them', () => {
  it('every command has --help (exit 0), and the usage names --version', async () => {
    const s = await store('help');
    for (const c of ['list', 'show', 'new', 'append', 'rename', 'delete', 'export', 'search', 'doctor', 'serve']) {
      const r = s.run([c, '--help']);
      expect(r.code, c).toBe(0);
      expect(r.out, c).toMatch(new RegExp(`^Usage: levelcode-sessions ${c}\\b`));
    }
    expect(s.run(['show', s.a, '-h']).out).toMatch(/^Usage: levelcode-sessions show/); // even with other arguments
    const usage = s.run(['--help']);
    expect(usage.out).toContain('--version');
    expect(usage.out).toMatch(/1 failure \(for search: no match\)/);
    expect(s.run(['--version']).out).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('new takes the current folder as its project, as every other command does', async () => {
    const s = await store('new');
    const id = s.run(['new']).out.trim();
    const meta = JSON.parse(at((await readFile(s.fileOf(id), 'utf8')).split('\n'), 0));
    expect(meta.project).toBe(s.project);
  });

  it('History columns line up, the model column padded too', async () => {
    const s = await store('columns');
    const rows = s
      .run(['list'])
      .out.split('\n')
      .filter((l) => l.includes(s.a) || l.includes(s.b));
    expect(rows).toHaveLength(2);
    expect(at(rows, 0).indexOf(at(rows, 0).includes(s.a) ? s.a : s.b)).toBe(at(rows, 1).indexOf(at(rows, 1).includes(s.a) ? s.a : s.b));
    expect(rows.find((l) => l.includes(s.b))).toMatch(/ - {16}\S+$/); // '-' padded to claude-sonnet-4's 15, then the two spaces
  });

  it('export -o onto an existing file keeps it and names --force, which overwrites it', async () => {
    const s = await store('export');
    const target = join(s.base, 'chat.md');
    await writeFile(target, 'mine');
    await own(target);
    const r = s.run(['export', s.a, '-o', target]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${target} exists; not overwritten (add --force to overwrite it)`);
    expect(await readFile(target, 'utf8')).toBe('mine');
    expect(s.run(['export', s.a, '-o', target, '--force']).code).toBe(0);
    expect(await readFile(target, 'utf8')).toContain('Add idempotency to RefundService');
    expect(s.run(['export', s.a, '--force']).code).toBe(2); // --force without -o
  });

  it('--json is honoured by every command that takes it, and refused by serve', async () => {
    const s = await store('json');
    const parsed = (args: string[], input?: string) => {
      const r = s.run([...args, '--json'], input);
      expect(r.code, args.join(' ')).toBe(0);
      return JSON.parse(r.out);
    };
    const made = parsed(['new']);
    expect(made.project).toBe(s.project);
    expect(parsed(['append', made.id], '{"kind":"user","content":"json please"}\n')).toMatchObject({ appended: 1 });
    expect(parsed(['rename', made.id, 'A', ' title'])).toEqual({ id: made.id, title: 'A title' });
    expect(parsed(['list']).sessions.map((x: { id: string }) => x.id)).toContain(made.id);
    expect(parsed(['show', made.id]).meta.id).toBe(made.id);
    expect(parsed(['export', made.id]).meta.id).toBe(made.id);
    expect(parsed(['search', 'json']).hits[0].sessionId).toBe(made.id);
    expect(parsed(['doctor']).ok).toBe(true);
    expect(parsed(['delete', made.id])).toEqual({ id: made.id, trashed: true });
    const serve = s.run(['serve', '--stdio', '--json']);
    expect(serve.code).toBe(2);
    expect(serve.err).toMatch(/--json does not apply/);
  });

  it('an invalid event is reported once, by its stdin line, and nothing is appended', async () => {
    const s = await store('invalid');
    const before = await readFile(s.fileOf(s.a));
    const r = s.run(['append', s.a], '{"kind":"user","content":"fine"}\n\n{"kind":"nope","content":"x"}\n');
    expect(r.err).toBe(
      'levelcode-sessions: stdin line 3: kind: Invalid option: expected one of "user"|"assistant"|"agent"|"event"|"title"|"compact"\nlevelcode-sessions: nothing was appended (1 invalid line)\n',
    );
    expect(r.code).toBe(2);
    expect(await readFile(s.fileOf(s.a))).toEqual(before);
  });

  it('a user line holding only tool results is not a turn', async () => {
    const s = await store('turns');
    const tool = { kind: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] };
    s.run(['append', s.a], JSON.stringify(tool) + '\n' + JSON.stringify({ kind: 'assistant', content: 'done' }) + '\n');
    const entry = JSON.parse(s.run(['list', '--json']).out).sessions.find((x: { id: string }) => x.id === s.a);
    expect(entry.turns).toBe(1);
    expect(
      s
        .run(['list'])
        .out.split('\n')
        .find((l) => l.includes(s.a)),
    ).toMatch(/ 1 turn /);
  });

  it('append at a terminal says it is reading stdin', async () => {
    const s = await store('tty');
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} append ${s.a}`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], {
      input: '{"kind":"user","content":"typed at a terminal"}\n\x04',
      cwd: s.project,
      env: env(s.dir),
      encoding: 'utf8',
      timeout: 20_000,
      ...user,
    });
    expect(r.stdout).toMatch(/Reading events from stdin, one JSON object a line; end with Ctrl-D/);
    expect(r.stdout).toContain(`appended 1 event to ${s.a}`);
    expect(r.status).toBe(0);
  });

  it('output piped into head ends quietly when head stops reading', async () => {
    const s = await store('epipe');
    const big = Array.from({ length: 200 }, (_, i) => JSON.stringify({ kind: 'user', content: `line ${i} ` + 'x'.repeat(4000) })).join(
      '\n',
    );
    s.run(['append', s.a], big + '\n');
    // The CLI's own exit status and stderr, with head closing the pipe after one line. --norc:
    // bash reads ~/.bashrc when its stdin is a socket (as Node's pipes are) and SHLVL is low, and
    // as another user it may not be allowed to.
    const r = spawnSync(
      'bash',
      [
        '--norc',
        '-c',
        `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} show ${s.a} | head -n 1 >/dev/null; echo "\${PIPESTATUS[0]}"`,
      ],
      {
        cwd: s.project,
        env: env(s.dir),
        encoding: 'utf8',
        timeout: 20_000,
        ...user,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('0\n');
  });
});

describe('search as every search box has it', () => {
  it('finds the sessions holding every word, in any order and any messages; a quoted phrase exactly', async () => {
    const s = await store('words');
    const hits = (q: string[]) =>
      JSON.parse(s.run(['search', ...q, '--json']).out).hits.map(
        (h: { sessionId: string; seq: number }) => `${h.sessionId === s.a ? 'a' : 'b'}#${h.seq}`,
      );
    expect(hits(['redis', 'idempotency']).sort()).toEqual(['a#0', 'a#1']); // one word in each message
    expect(hits(['idempotency redis']).sort()).toEqual(['a#0', 'a#1']); // one argument, any order
    expect(hits(['redis', 'login'])).toEqual([]); // each in another session: none holds both
    expect(hits(['"Redis key"'])).toEqual(['a#1']);
    expect(hits(['"key Redis"'])).toEqual([]);
    expect(hits(['"Redis key"', 'RefundService']).sort()).toEqual(['a#0', 'a#1']);
    const none = s.run(['search', 'redis', 'login']);
    expect(none.code).toBe(1);
    expect(none.out).toMatch(/^No matches for redis login in /);
  });

  it('groups hits by session, highlights them on a terminal, and shows a repeated identical title once', async () => {
    const s = await store('grouped');
    s.run(['rename', s.b, 'Flaky', 'login']);
    s.run(['rename', s.b, 'Flaky', 'login']);
    s.run(['append', s.b], '{"kind":"assistant","content":"The login waits on a timer."}\n');
    const j = JSON.parse(s.run(['search', 'login', '--json']).out);
    expect(j.hits.filter((h: { where: string }) => h.where === 'title')).toHaveLength(1);
    const plain = s.run(['search', 'login']).out.split('\n');
    expect(plain[0]).toMatch(new RegExp(`^Flaky login  \\S.*  ${s.b}$`));
    // Best first: the title, then the user's words, then the assistant's.
    expect(plain.slice(1)).toEqual([
      '  #2 title: Flaky login',
      '  #0 user: Why does the login test flake on CI?',
      '  #3 assistant: The login waits on a timer.',
      '',
    ]);
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} search login`;
    const tty = spawnSync('script', ['-qec', cmd, '/dev/null'], {
      input: '',
      cwd: s.project,
      env: env(s.dir),
      encoding: 'utf8',
      timeout: 20_000,
      ...user,
    });
    expect(tty.stdout).toContain('  #3 assistant: The \x1b[1;31mlogin\x1b[0m waits on a timer.');
    expect(tty.stdout).toContain('\x1b[1mFlaky login\x1b[0m');
  });
});
