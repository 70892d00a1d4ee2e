// The engine's id rule at its edge: two sources born in the same second whose derived ids meet
// each get a session of their own (the second probes the next id), on every run; and the git
// identity an imported session records, so that it follows its folder's move; and a session
// whose folder is no absolute path, left out alone.
import { it, expect } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdirSync, readFileSync, realpathSync, renameSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { projectSlug } from '../../server/store/slug.js';
import { SessionStore } from '../../server/store/store.js';
import { listSessions } from '../../server/listing/history.js';
import { importedId, runImport } from '../../server/import/engine.js';
import type { Importer, MappedSession, SourceFile } from '../../server/import/types.js';

const T = '2026-01-01T00:00:00.000Z';

/**
 * A tool whose source files are `<id>.log` under `dir`, each one session of one user message
 * (`content` given its id), in the folder `projectOf(id)` (dir by default).
 */
function logImporter(dir: string, ids: string[], content: (id: string) => string, projectOf = (_id: string) => dir) {
  const files: SourceFile[] = ids.map((id) => ({ path: join(dir, `${id}.log`), size: 1, mtimeNs: 1n }));
  const importer: Importer = {
    tool: 'test',
    label: 'Test',
    defaultRoots: () => [],
    discover: async () => files,
    read: async (f): Promise<MappedSession[]> => {
      const id = f.path.replace(/^.*\/|\.log$/g, '');
      const source = { tool: 'test', path: f.path, id, project: projectOf(id) };
      return [{ source, createdAt: T, events: [{ kind: 'user', t: T, content: content(id), raw: { id } }], problems: [] }];
    },
  };
  return { files, importer };
}

it('two sources whose derived ids collide get two sessions, found again on the next run', async () => {
  const seen = new Map<string, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; !pair; i++) {
    const id = importedId(T, { tool: 'test', id: `s${i}` });
    const other = seen.get(id);
    if (other) pair = [other, `s${i}`];
    else seen.set(id, `s${i}`);
  }
  const tmp = await mkdtemp(join(tmpdir(), 'lcs-engine-'));
  try {
    const { files, importer } = logImporter(tmp, pair, (id) => `hello from ${id}`);
    const store = new SessionStore({ root: join(tmp, 'store') });
    const o = { ledger: join(tmp, 'ledger.json') };
    // The ledger's tail signature reads each source file: they must exist.
    for (const f of files) await writeFile(f.path, 'x');
    expect(await runImport(store, [{ importer, roots: [tmp] }], o)).toMatchObject({ imported: 2, unchanged: 0 });
    await rm(o.ledger);
    expect(await runImport(store, [{ importer, roots: [tmp] }], o)).toMatchObject({ imported: 0, updated: 0, unchanged: 2 });
    const listed = (await listSessions(store.root, {})).sessions;
    expect(listed.map((s) => s.source?.id).sort()).toEqual([...pair].sort());
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});

it("records an imported session's git identity, so that History follows its folder when it moves", async () => {
  const tmp = realpathSync(await mkdtemp(join(tmpdir(), 'lcs-engine-repo-')));
  const git = (cwd: string, ...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], { cwd, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  try {
    const old = join(tmp, 'thin.ly');
    mkdirSync(old);
    git(old, 'init', '-q');
    git(old, 'commit', '-q', '--allow-empty', '-m', 'root');
    const rootCommit = git(old, 'rev-list', '--max-parents=0', 'HEAD');
    const source = join(tmp, 'chat.log');
    await writeFile(source, 'x');
    const importer: Importer = {
      tool: 'test',
      label: 'Test',
      defaultRoots: () => [],
      discover: async () => [{ path: source, size: 1, mtimeNs: 1n }],
      read: async (f): Promise<MappedSession[]> => [
        {
          source: { tool: 'test', path: f.path, id: 'one', project: old },
          createdAt: T,
          events: [{ kind: 'user', t: T, content: 'before the move', raw: { id: 'one' } }],
          problems: [],
        },
      ],
    };
    const store = new SessionStore({ root: join(tmp, 'store') });
    expect(await runImport(store, [{ importer, roots: [tmp] }], { ledger: join(tmp, 'ledger.json') })).toMatchObject({ imported: 1 });
    const [imported] = (await listSessions(store.root, { project: old })).sessions;
    const meta = JSON.parse(readFileSync(join(store.root, projectSlug(old), `${imported!.id}.jsonl`), 'utf8').split('\n')[0]!);
    expect(meta.repo).toMatchObject({ roots: [rootCommit], prefix: '' });

    const moved = join(tmp, 'thinly');
    renameSync(old, moved);
    const listed = (await listSessions(store.root, { project: moved })).sessions;
    expect(listed).toMatchObject([{ id: imported!.id, movedFrom: old, source: { tool: 'test', id: 'one' } }]);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});

it('a source that cannot be read is not read again until it changes; one that grew is read once, ours is not', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'lcs-engine-'));
  try {
    const path = join(tmp, 'a.log');
    await writeFile(path, 'first\n');
    const { statSync } = await import('node:fs');
    const stat = (): SourceFile => {
      const st = statSync(path, { bigint: true });
      return { path, size: Number(st.size), mtimeNs: st.mtimeNs - 10_000_000_000n, ctimeNs: st.ctimeNs, ino: st.ino };
    };
    let reads = 0;
    let fail = true;
    const importer: Importer = {
      tool: 'test',
      label: 'Test',
      defaultRoots: () => [],
      discover: async () => [stat()],
      read: async (): Promise<MappedSession[]> => {
        reads++;
        if (fail) throw new Error('cannot read it today');
        const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
        return [
          {
            source: { tool: 'test', path, id: 'a', project: tmp },
            createdAt: T,
            events: lines.map((l) => ({ kind: 'user', t: T, content: l, raw: { l } })),
            problems: [],
          },
        ];
      },
    };
    const store = new SessionStore({ root: join(tmp, 'store') });
    const o = { ledger: join(tmp, 'ledger.json') };
    const jobs = [{ importer, roots: [tmp] }];
    const r1 = await runImport(store, jobs, o);
    expect(r1.problems).toEqual([{ path, message: 'cannot read it today', tool: 'test' }]);
    const r2 = await runImport(store, jobs, o);
    expect(reads, 'unchanged and failing: not read again before its retry time').toBe(1);
    expect(r2.problems[0]!.message).toMatch(/cannot read it today \(not read again until it changes\)/);
    fail = false;
    await writeFile(path, 'first\nsecond\n');
    expect(await runImport(store, jobs, o)).toMatchObject({ imported: 1 });
    expect(reads, 'changed: read at once').toBe(2);
    expect(await runImport(store, jobs, o)).toMatchObject({ unchanged: 1 });
    expect(reads, 'unchanged: decided on its stat').toBe(2);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(path, 'third\n');
    // A session that grew: the ledger says which events we hold, so our copy is not read.
    const read = store.read.bind(store);
    let ours = 0;
    store.read = (...a: Parameters<typeof store.read>) => (ours++, read(...a));
    expect(await runImport(store, jobs, o)).toMatchObject({ updated: 1 });
    expect(ours).toBe(0);
    const [entry] = (await listSessions(store.root, {})).sessions;
    const text = readFileSync(join(store.root, projectSlug(realpathSync(tmp)), `${entry!.id}.jsonl`), 'utf8');
    expect(
      text
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l).content),
    ).toEqual(['first', 'second', 'third']);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});

it("a tool's compaction covers the event just before it, also when a record before it was left out", async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'lcs-engine-cover-'));
  try {
    const source = join(tmp, 'chat.log');
    await writeFile(source, 'x');
    let deep: unknown = 'bottom';
    for (let i = 0; i < 600; i++) deep = [deep]; // deeper than the schema takes: left out
    const events = (grown: boolean) => [
      { kind: 'user', t: T, content: 'first question', raw: { n: 1 } },
      { kind: 'user', t: T, content: 'second question', raw: { n: 2 } },
      { kind: 'user', t: T, content: 'a bad one', raw: { n: 3, deep } },
      { kind: 'compact', t: T, briefing: 'the tool compacted here', coversThrough: 0, raw: { n: 4 } },
      { kind: 'user', t: T, content: 'after the compaction', raw: { n: 5 } },
      ...(grown
        ? [
            { kind: 'user', t: T, content: 'another bad one', raw: { n: 6, deep } },
            { kind: 'compact', t: T, briefing: 'compacted again', coversThrough: 0, raw: { n: 7 } },
          ]
        : []),
    ];
    let grown = false;
    const importer: Importer = {
      tool: 'test',
      label: 'Test',
      defaultRoots: () => [],
      discover: async () => [{ path: source, size: grown ? 2 : 1, mtimeNs: grown ? 2n : 1n }],
      read: async (f): Promise<MappedSession[]> => [
        {
          source: { tool: 'test', path: f.path, id: 'one', project: tmp },
          createdAt: T,
          events: events(grown) as MappedSession['events'],
          problems: [],
        },
      ],
    };
    const store = new SessionStore({ root: join(tmp, 'store') });
    const o = { ledger: join(tmp, 'ledger.json') };
    const r = await runImport(store, [{ importer, roots: [tmp] }], o);
    expect(r).toMatchObject({ imported: 1 });
    expect(r.problems.map((p) => p.message).join('\n')).toMatch(/left out/);
    const covered = async () => {
      const [s] = (await listSessions(store.root, {})).sessions;
      const read = await store.read(s!.id);
      return read.events.flatMap((e, i) =>
        e.event.kind === 'compact' ? [{ coversThrough: e.event.coversThrough, before: read.events[i - 1]!.seq }] : [],
      );
    };
    // Held: first question (0), second question (1), the compaction (2): it covers seq 1.
    expect(await covered()).toEqual([{ coversThrough: 1, before: 1 }]);
    grown = true;
    await writeFile(source, 'xx');
    await runImport(store, [{ importer, roots: [tmp] }], o);
    const after = await covered();
    expect(after).toHaveLength(2);
    for (const c of after) expect(c.coversThrough).toBe(c.before);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});

it('a session whose folder is a relative path is left out and said so; the rest is imported', async () => {
  const tmp = await mkdtemp(join(tmpdir(), 'lcs-engine-'));
  try {
    // As a tool that recorded `cwd: "work/app"`.
    const { files, importer } = logImporter(
      tmp,
      ['good', 'relative'],
      (id) => id,
      (id) => (id === 'good' ? tmp : 'work/app'),
    );
    for (const f of files) await writeFile(f.path, 'x');
    const store = new SessionStore({ root: join(tmp, 'store') });
    const r = await runImport(store, [{ importer, roots: [tmp] }], { ledger: join(tmp, 'ledger.json') });
    expect(r).toMatchObject({ imported: 1, skipped: 1, failed: 0 });
    expect(r.problems).toEqual([
      expect.objectContaining({
        path: files[1]!.path,
        message: expect.stringMatching(/^session relative left out: .*absolute path: work\/app/),
      }),
    ]);
    expect((await listSessions(store.root, {})).sessions.map((s) => s.source?.id)).toEqual(['good']);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
});
