// The CLI end to end, through the real binary (bin/levelcode-sessions.js over dist/), against a
// temp store. Checks what a person sees, what a script reads, and the files on disk.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile, appendFile, chmod, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { projectSlug } from '../../server/store/slug.js';
import { projectCache } from '../../server/store/cache-dir.js';
import { cacheFile } from '../../server/search/cache.js';
import { at } from '../helpers/items.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;
let project: string;

function cli(args: string[], opts: { input?: string; cwd?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    input: opts.input ?? '',
    cwd: opts.cwd ?? project,
    env: { ...process.env, LEVELCODE_SESSIONS_DIR: root, XDG_DATA_HOME: join(tmp, 'xdg'), ...opts.env },
    encoding: 'utf8',
    timeout: 20_000, // a CLI that hangs fails its test instead of blocking the run
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-cli-'));
  root = join(tmp, 'store');
  project = join(tmp, 'code', 'thin.ly');
  await mkdir(project, { recursive: true });
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('levelcode-sessions CLI', () => {
  let id: string;

  it('says so when a project has no History yet', () => {
    const r = cli([]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/No sessions for .*thin\.ly yet/);
  });

  it('new prints the id and writes the meta line exactly', async () => {
    const r = cli(['new', '--project', project, '--model', 'claude-sonnet-4']);
    expect(r.code).toBe(0);
    id = r.out.trim();
    expect(id).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-[a-z0-9]{4}$/);
    const file = join(root, projectSlug(project), `${id}.jsonl`);
    const lines = (await readFile(file, 'utf8')).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    const meta = JSON.parse(at(lines, 0));
    expect(Object.keys(meta)).toEqual(['kind', 'v', 'id', 'project', 'createdAt', 'title', 'model', 'device']);
    expect(meta).toMatchObject({ kind: 'meta', v: 1, id, project, title: null, model: 'claude-sonnet-4' });
  });

  it('append reads JSON lines on stdin and writes them verbatim, kind and t first', async () => {
    const events = [
      {
        t: '2026-07-28T09:12:40.000Z',
        kind: 'user',
        content: 'Add idempotency to RefundService',
        contextFiles: ['app/services/refund.rb'],
      },
      { kind: 'assistant', t: '2026-07-28T09:12:50.000Z', content: [{ type: 'text', text: 'Sure — use a **Redis** key.' }] },
      { kind: 'event', t: '2026-07-28T09:13:00.000Z', type: 'checkpoint', n: 3 },
    ];
    const r = cli(['append', id], { input: events.map((e) => JSON.stringify(e)).join('\n') + '\n' });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/appended 3 events/);
    const lines = (await readFile(join(root, projectSlug(project), `${id}.jsonl`), 'utf8')).trim().split('\n');
    expect(lines.slice(1)).toEqual([
      '{"kind":"user","t":"2026-07-28T09:12:40.000Z","content":"Add idempotency to RefundService","contextFiles":["app/services/refund.rb"]}',
      '{"kind":"assistant","t":"2026-07-28T09:12:50.000Z","content":[{"type":"text","text":"Sure — use a **Redis** key."}]}',
      '{"kind":"event","t":"2026-07-28T09:13:00.000Z","type":"checkpoint","n":3}',
    ]);
  });

  it('shows the History of the current folder with title, time, turns and model', () => {
    const r = cli([]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('History of');
    const row = r.out.split('\n').find((l) => l.includes(id))!;
    expect(row).toMatch(/^Add idempotency to RefundService\s+\S.*\s+1 turn\s+claude-sonnet-4\s+\S+$/);
  });

  it('npm start shows the History of the folder npm was typed in (INIT_CWD), as the README says', () => {
    const r = cli([], { cwd: tmp, env: { npm_lifecycle_event: 'start', INIT_CWD: project } });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`History of ${project}`);
    expect(r.out).toContain(id);
  });

  it('list --json gives scripts the entries', () => {
    const r = cli(['list', '--project', project, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.sessions).toHaveLength(1);
    expect(j.sessions[0]).toMatchObject({ id, turns: 1, model: 'claude-sonnet-4', preview: 'Add idempotency to RefundService', project });
  });

  it('rename appends a title event and the History shows it', async () => {
    const r = cli(['rename', id, 'Idempotent', 'refunds', 'via', 'Redis', 'keys']);
    expect(r.code).toBe(0);
    const last = (await readFile(join(root, projectSlug(project), `${id}.jsonl`), 'utf8')).trim().split('\n').pop()!;
    expect(JSON.parse(last)).toMatchObject({ kind: 'title', title: 'Idempotent refunds via Redis keys', source: 'user' });
    expect(cli(['list']).out).toContain('Idempotent refunds via Redis keys');
  });

  it('show prints the transcript, and --json the events', () => {
    const r = cli(['show', id]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Idempotent refunds via Redis keys');
    expect(r.out).toContain('Add idempotency to RefundService');
    expect(r.out).toContain('Sure — use a **Redis** key.');
    const j = JSON.parse(cli(['show', id, '--json']).out);
    expect(j.meta.id).toBe(id);
    expect(j.events.length).toBe(4);
  });

  it('search finds a word in the project, prints hits for people and JSON for scripts, and builds the search cache', async () => {
    const r = cli(['search', 'SURE']);
    expect(r.code).toBe(0);
    expect(r.err).toBe(''); // no progress line: stderr is not a terminal here
    // Grouped by session: a heading (title, the newest hit's time, id), then a line a hit.
    expect(r.out).toBe(`Idempotent refunds via Redis keys  2026-07-28  ${id}\n  #1 assistant: Sure — use a **Redis** key.\n`);
    const j = JSON.parse(cli(['search', 'redis', '--json']).out);
    expect(j).toMatchObject({ total: 1, files: 1, ranked: true, problems: [] }); // total: sessions
    expect(j.hits.map((h: { seq: number; where: string }) => [h.seq, h.where])).toEqual([
      [3, 'title'],
      [1, 'assistant'],
    ]);
    expect(j.hits[1]).toMatchObject({
      sessionId: id,
      kind: 'assistant',
      project,
      title: 'Idempotent refunds via Redis keys',
      snippet: 'Sure — use a **Redis** key.',
    });
    expect((await readdir(join(root, projectSlug(project)))).sort()).toEqual([`${id}.jsonl`]); // caches are in the cache folder
    expect((await readdir(dirname(projectCache(join(root, projectSlug(project)), 'index.json')))).sort()).toEqual(['index.json']);
    expect(await readdir(dirname(cacheFile(root)))).toContain(basename(cacheFile(root)));
    const none = cli(['search', 'nowhere-to-be-found']);
    expect(none.out).toBe(`No matches for nowhere-to-be-found in ${project}.\n`);
    expect(none.code).toBe(1); // as grep and rg: 1 for no match
    const bad = cli(['search']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/search needs a query/);
  });

  it('list --all shows every project', async () => {
    const other = join(tmp, 'other');
    await mkdir(other);
    expect(cli(['new', '--project', other]).code).toBe(0);
    const r = cli(['list', '--all', '--json']);
    expect(JSON.parse(r.out).sessions).toHaveLength(2);
    const here = JSON.parse(cli(['list', '--json']).out);
    expect(here.sessions).toHaveLength(1);
  });

  it('refuses bad input with a clear message, a non-zero exit, and no change', async () => {
    const file = join(root, projectSlug(project), `${id}.jsonl`);
    const before = await readFile(file);
    const cases: [string[], string | undefined, RegExp, number][] = [
      [['append', id], '{"kind":"user","content":"ok"}\n{not json\n', /stdin line 2 is not JSON/, 2],
      [
        ['append', id],
        '\n{"kind":"user"}\n',
        /^levelcode-sessions: stdin line 2: content: content is required\nlevelcode-sessions: nothing was appended \(1 invalid line\)\n$/,
        2,
      ],
      [['append', id], '', /no events on stdin/, 2],
      [['append', '2026-01-01T00-00-00-zzzz'], '{"kind":"user","content":"x"}', /no session 2026-01-01T00-00-00-zzzz/, 3],
      [['append', '../../etc/passwd'], '{"kind":"user","content":"x"}', /not a session id/, 3],
      [['show', 'nope'], undefined, /not a session id/, 3],
      [['new', 'extra'], undefined, /new takes no arguments/, 2],
      [['new', '--project', join(tmp, 'does-not-exist')], undefined, /does not exist/, 1],
      [['new', '--project', 'relative'], undefined, /does not exist|absolute/, 1],
      [['list', '--bogus'], undefined, /Unknown option/, 2],
      [['list', '--limit', 'x'], undefined, /--limit takes a positive whole number/, 2],
      [['frobnicate'], undefined, /unknown command/, 2],
      [['rename', id], undefined, /a session id and a title/, 2],
    ];
    for (const [args, input, msg, code] of cases) {
      const r = cli(args, { input });
      expect(r.err, args.join(' ')).toMatch(msg);
      expect(r.code, args.join(' ')).toBe(code);
    }
    expect(await readFile(file)).toEqual(before);
  });

  it('doctor reports and --fix repairs caches, never session content', async () => {
    const dir = join(root, projectSlug(project));
    const file = join(dir, `${id}.jsonl`);
    await appendFile(file, '{"kind":"user","t":"2026-07-28T10:00:00.000Z","content":"torn');
    await writeFile(projectCache(dir, 'index.json'), '{broken');
    const sessionBefore = await readFile(file);
    const r = cli(['doctor']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/index-corrupt/);
    expect(r.out).toMatch(/torn-line/);
    const fixed = cli(['doctor', '--fix']);
    expect(fixed.out).toMatch(/fixed: index rebuilt/);
    expect(fixed.code).toBe(0); // the torn line is a warning: content is never changed
    expect(await readFile(file)).toEqual(sessionBefore);
    const again = JSON.parse(cli(['doctor', '--json']).out);
    expect(again.findings.map((f: { kind: string }) => f.kind)).toEqual(['torn-line']);
    expect(JSON.parse(await readFile(projectCache(dir, 'index.json'), 'utf8')).entries).toHaveLength(1);
  });

  it('doctor checks search.idx like index.json and removes its leftover temp files with --fix', async () => {
    const dir = join(root, projectSlug(project));
    const file = join(dir, `${id}.jsonl`);
    const idx = projectCache(dir, 'search.idx');
    const temp = join(dir, 'search.idx.1234abcd');
    const OLD_CACHE = 'a cache an older version kept in the store: ignored (caches live in the cache folder now)';
    type F = { kind: string; path: string; message: string; fixed?: string };
    const findings = (r: { out: string }): F[] => JSON.parse(r.out).findings;
    // Its contents are not checked: it is a cache that search rebuilds when it does not check out.
    await writeFile(idx, 'not an index');
    await chmod(idx, 0o600);
    expect(findings(cli(['doctor', '--json'])).map((f) => f.kind)).toEqual(['torn-line']);
    // Too open: reported and fixed the way index.json is.
    await chmod(idx, 0o644);
    await chmod(projectCache(dir, 'index.json'), 0o644);
    const open = cli(['doctor', '--json']);
    expect(open.code).toBe(1);
    const perms = findings(open).filter((f) => f.kind === 'permissions');
    expect(perms.map((f) => f.path).sort()).toEqual([projectCache(dir, 'index.json'), idx]);
    expect(at(perms, 0).message).toBe(at(perms, 1).message);
    // A cache an older version kept in the store (here a temp file of one): named, removed by --fix.
    await writeFile(temp, 'half an index');
    const sessionBefore = await readFile(file);
    const r = cli(['doctor', '--json']);
    expect(findings(r)).toContainEqual({ kind: 'old-cache', path: temp, message: OLD_CACHE });
    const fixed = cli(['doctor', '--fix', '--json']);
    expect(fixed.code).toBe(0);
    const done = findings(fixed);
    expect(done).toContainEqual({ kind: 'old-cache', path: temp, message: OLD_CACHE, fixed: 'removed' });
    expect(done).toContainEqual(expect.objectContaining({ kind: 'permissions', path: idx, fixed: 'chmod 600' }));
    expect((await stat(idx)).mode & 0o777).toBe(0o600);
    expect((await stat(projectCache(dir, 'index.json'))).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).sort()).toEqual([`${id}.jsonl`]);
    expect(await readFile(file)).toEqual(sessionBefore);
    expect(await readFile(idx, 'utf8')).toBe('not an index');
    expect(findings(cli(['doctor', '--json'])).map((f) => f.kind)).toEqual(['torn-line']);
  });

  it('doctor never reads a session file through a symlink, nor from a FIFO', async () => {
    const dir = join(root, projectSlug(project));
    type F = { kind: string; path: string; message: string };
    // Outside the store: a file that would be reported line by line if it were read.
    const outside = join(tmp, 'outside.jsonl');
    await writeFile(outside, 'not json\n');
    const sessions = JSON.parse(cli(['doctor', '--json']).out).sessions;
    const link = join(dir, '2026-07-01T10-00-00-link.jsonl');
    const fifo = join(dir, '2026-07-01T10-00-00-fifo.jsonl');
    await symlink(outside, link);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    try {
      const r = cli(['doctor', '--json', '--fix']);
      const report = JSON.parse(r.out) as { sessions: number; findings: F[] };
      expect(report.findings.filter((f) => f.path === link || f.path === fifo)).toEqual(
        [
          { kind: 'stray-file', path: fifo, message: 'a FIFO, not a session file: never read nor followed (left alone)' },
          { kind: 'stray-file', path: link, message: 'a symlink, not a session file: never read nor followed (left alone)' },
        ].sort((a, b) => (a.path < b.path ? -1 : 1)),
      );
      expect(report.findings.some((f) => f.path === outside)).toBe(false);
      expect(report.sessions).toBe(sessions);
      expect(await readFile(outside, 'utf8')).toBe('not json\n');
    } finally {
      await rm(link);
      await rm(fifo);
    }
  });

  it('show names the field zod names for a refused line, in a process that never validated one', async () => {
    const dir = join(root, projectSlug(project));
    const other = '2026-07-02T10-00-00-zod1';
    const file = join(dir, `${other}.jsonl`);
    const meta = { kind: 'meta', v: 1, id: other, project, createdAt: '2026-07-02T10:00:00.000Z', title: null };
    const refused = { kind: 'compact', t: '2026-07-02T10:00:01.000Z', briefing: 'b', coversThrough: -1 };
    await writeFile(file, `${JSON.stringify(meta)}\n${JSON.stringify(refused)}\n`, { mode: 0o600 });
    try {
      const r = cli(['show', other]);
      expect(r.code).toBe(0);
      expect(r.err).toContain(`${file}:2: not a valid event (coversThrough:`);
    } finally {
      await rm(file);
    }
  });

  it('export writes Markdown and JSON, refusing to overwrite', async () => {
    const out = join(tmp, 'out.md');
    const r = cli(['export', id, '-o', out]);
    expect(r.code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain('Add idempotency to RefundService');
    const again = cli(['export', id, '-o', out]);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/exists; not overwritten/);
    const j = JSON.parse(cli(['export', id, '--format', 'json']).out);
    expect(j.meta.id).toBe(id);
    expect(cli(['export', id, '--format', 'pdf']).code).toBe(2);
  });

  it('delete moves the session to the trash', async () => {
    const r = cli(['delete', id]);
    expect(r.code).toBe(0);
    expect(await readdir(join(root, projectSlug(project)))).not.toContain(`${id}.jsonl`);
    expect(JSON.parse(cli(['list', '--json']).out).sessions).toEqual([]);
  });

  it('--dir overrides the environment', async () => {
    const other = join(tmp, 'store2');
    const r = cli(['new', '--project', project, '--dir', other]);
    expect(r.code).toBe(0);
    expect(await readdir(other)).toEqual([projectSlug(project)]);
  });
});
