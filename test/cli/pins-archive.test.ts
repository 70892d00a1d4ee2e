// Pins, archive and retention through the real CLI (bin/ over dist/) on real files: the order of
// History, the archived list, search of archived sessions, auto-archive of sessions whose events
// are old, retention's dry run against its real run, and a store with these events (and a kind
// no reader knows) still listed and read.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, readFile, rm, writeFile, appendFile, stat } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { projectSlug } from '../../server/store/slug.js';
import { parseEventLine } from '../../server/store/reader.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;

function cli(args: string[], opts: { input?: string; cwd?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    input: opts.input ?? '',
    cwd: opts.cwd ?? tmp,
    env: { ...process.env, LEVELCODE_SESSIONS_DIR: root, XDG_DATA_HOME: join(tmp, 'xdg'), ...opts.env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

/** A project folder of its own (a fresh History). */
async function newProject(name: string): Promise<string> {
  const p = join(tmp, 'code', name);
  await mkdir(p, { recursive: true });
  return p;
}

/** A session of `project` whose one user message says `text` at `t`. */
function session(project: string, text: string, t: string): string {
  const r = cli(['new', '--project', project]);
  expect(r.code).toBe(0);
  const id = r.out.trim();
  const a = cli(['append', id], { input: `${JSON.stringify({ kind: 'user', t, content: text })}\n` });
  expect(a.code, a.err).toBe(0);
  return id;
}

const fileOf = (project: string, id: string) => join(root, projectSlug(project), `${id}.jsonl`);

function list(project: string, extra: string[] = []): { id: string; pinned: boolean; archived: boolean }[] {
  const r = cli(['list', '--project', project, '--json', ...extra]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out).sessions;
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

async function lastLine(file: string): Promise<Record<string, unknown>> {
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!);
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-life-'));
  root = join(tmp, 'store');
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('pin and unpin', () => {
  it('pin moves a session first in its project, unpin puts it back', async () => {
    const p = await newProject('pins');
    const older = session(p, 'the older one', ago(2));
    const newer = session(p, 'the newer one', ago(1));
    expect(ids(list(p))).toEqual([newer, older]);

    const r = cli(['pin', older, '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ id: older, pinned: true, changed: true });
    expect(await lastLine(fileOf(p, older))).toMatchObject({ kind: 'event', type: 'pin' });
    const rows = list(p);
    expect(ids(rows)).toEqual([older, newer]);
    expect(rows.map((x) => x.pinned)).toEqual([true, false]);
    const text = cli(['list', '--project', p]);
    expect(text.out.split('\n')[0]).toMatch(new RegExp(`the older one .*${older}.*\\(pinned\\)`));

    // Pinned already: nothing appended.
    const size = (await stat(fileOf(p, older))).size;
    expect(JSON.parse(cli(['pin', older, '--json']).out).changed).toBe(false);
    expect((await stat(fileOf(p, older))).size).toBe(size);

    expect(cli(['unpin', older]).out).toMatch(/unpinned/);
    expect(ids(list(p))).toEqual([newer, older]);
    expect(list(p).every((x) => !x.pinned)).toBe(true);
  });

  it('an unknown session is exit 3, and nothing is written', () => {
    const r = cli(['pin', '2026-01-01T00-00-00-zzzz']);
    expect(r.code).toBe(3);
  });
});

describe('archive and unarchive', () => {
  it('hides a session from the list, shows it in --archived and in search, and brings it back', async () => {
    const p = await newProject('archive');
    const keep = session(p, 'kept in view', ago(1));
    const gone = session(p, 'the zeppelin plan', ago(2));
    expect(cli(['archive', gone]).out).toMatch(`archived ${gone}`);
    expect(await lastLine(fileOf(p, gone))).toMatchObject({ kind: 'event', type: 'archive' });
    expect(await lastLine(fileOf(p, gone))).not.toHaveProperty('auto');

    expect(ids(list(p))).toEqual([keep]);
    const archived = list(p, ['--archived']);
    expect(ids(archived)).toEqual([gone]);
    expect(archived[0]!.archived).toBe(true);
    const found = cli(['search', 'zeppelin', '--project', p, '--json']);
    expect(found.code, found.err).toBe(0);
    expect(JSON.parse(found.out).hits.map((h: { sessionId: string }) => h.sessionId)).toEqual([gone]);

    expect(JSON.parse(cli(['unarchive', gone, '--json']).out)).toEqual({ id: gone, archived: false, changed: true });
    expect(ids(list(p))).toEqual([keep, gone]);
    expect(list(p, ['--archived'])).toEqual([]);

    // Continued after its archive (a resume, an import's new records): back in History.
    expect(cli(['archive', keep]).code).toBe(0);
    expect(ids(list(p))).toEqual([gone]);
    const more = { kind: 'assistant', t: ago(0), content: [{ type: 'text', text: 'one more answer' }] };
    expect(cli(['append', keep], { input: `${JSON.stringify(more)}\n` }).code).toBe(0);
    expect(list(p)).toMatchObject([{ id: keep, archived: false }, { id: gone }]);
  });
});

describe('auto-archive and retention', () => {
  it('archives the sessions idle more than 30 days, as its dry run said, and not one brought back', async () => {
    const p = await newProject('idle');
    const old = session(p, 'from last quarter', ago(45));
    const fresh = session(p, 'from last week', ago(5));
    const pinnedOld = session(p, 'old but pinned', ago(90));
    expect(cli(['pin', pinnedOld]).code).toBe(0);
    const sizes = async () => Promise.all([old, fresh, pinnedOld].map(async (id) => (await stat(fileOf(p, id))).size));
    const before = await sizes();

    const dry = cli(['retention', '--dry-run', '--project', p, '--json']);
    expect(dry.code, dry.err).toBe(0);
    const plan = JSON.parse(dry.out);
    expect(plan.dryRun).toBe(true);
    expect(plan.settings).toEqual({ idleDays: 30, keep: null, maxAgeDays: null, delete: false });
    expect(plan.done.map((i: { id: string; action: string; reason: string }) => [i.id, i.action, i.reason])).toEqual([
      [old, 'archive', 'idle'],
    ]);
    expect(await sizes()).toEqual(before); // a dry run writes nothing
    expect(cli(['retention', '--dry-run', '--project', p]).out).toMatch(new RegExp(`would archive  ${old} .*idle`));

    const run = cli(['retention', '--project', p, '--json']);
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out).done.map((i: { id: string }) => i.id)).toEqual(plan.done.map((i: { id: string }) => i.id));
    expect(await lastLine(fileOf(p, old))).toMatchObject({ kind: 'event', type: 'archive', auto: true, reason: 'idle' });
    expect(ids(list(p))).toEqual([pinnedOld, fresh]);
    expect(ids(list(p, ['--archived']))).toEqual([old]);

    // Brought back: active again from its unarchive, so not archived at once.
    expect(cli(['unarchive', old]).code).toBe(0);
    expect(JSON.parse(cli(['retention', '--project', p, '--json']).out).done).toEqual([]);
    // The off switch, by flag and by environment.
    expect(JSON.parse(cli(['retention', '--dry-run', '--project', p, '--idle-days', '1', '--json']).out).done.length).toBe(1);
    const envOff = cli(['retention', '--dry-run', '--project', p, '--json'], { env: { LEVELCODE_SESSIONS_AUTO_ARCHIVE_DAYS: '1' } });
    expect(JSON.parse(envOff.out).settings.idleDays).toBe(1);
    expect(JSON.parse(cli(['retention', '--dry-run', '--project', p, '--idle-days', 'off', '--max-age', '0', '--json']).out).done).toEqual(
      [],
    );
    expect(cli(['retention', '--idle-days', 'soon']).code).toBe(2);
  });

  it('keep N: the dry run names exactly what the real run then archives', async () => {
    const p = await newProject('keep');
    const s = [5, 4, 3, 2, 1].map((d) => session(p, `session ${d} days ago`, ago(d)));
    expect(cli(['pin', s[0]!]).code).toBe(0); // the oldest, pinned: never falls out, not counted
    const dry = JSON.parse(cli(['retention', '--dry-run', '--keep', '2', '--idle-days', 'off', '--project', p, '--json']).out);
    expect(dry.done.map((i: { id: string; reason: string }) => [i.id, i.reason])).toEqual([
      [s[2], 'keep'],
      [s[1], 'keep'],
    ]);
    const run = cli(['retention', '--keep', '2', '--idle-days', 'off', '--project', p]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(new RegExp(`archived  ${s[2]}`));
    expect(run.out).toMatch(new RegExp(`archived  ${s[1]}`));
    expect(ids(list(p, ['--archived'])).sort()).toEqual(dry.done.map((i: { id: string }) => i.id).sort());
    expect(ids(list(p))).toEqual([s[0], s[4], s[3]]);
  });

  it('--delete moves what --max-age lets go to the trash, after saying so in a dry run', async () => {
    const p = await newProject('delete');
    const old = session(p, 'ancient', ago(400));
    const young = session(p, 'young', ago(3));
    const dry = JSON.parse(cli(['retention', '--dry-run', '--delete', '--max-age', '365', '--project', p, '--json']).out);
    expect(dry.done.map((i: { id: string; action: string }) => [i.id, i.action])).toEqual([[old, 'delete']]);
    expect(existsSync(fileOf(p, old))).toBe(true);
    const run = cli(['retention', '--delete', '--max-age', '365', '--project', p]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(new RegExp(`moved to the trash  ${old}`));
    expect(existsSync(fileOf(p, old))).toBe(false);
    const infoDir = join(tmp, 'xdg', 'Trash', 'info');
    const infos = readdirSync(infoDir).map((f) => readFileSync(join(infoDir, f), 'utf8'));
    expect(infos.some((t) => t.includes(`${old}.jsonl`))).toBe(true);
    expect(ids(list(p))).toEqual([young]);
  });
});

describe('a store with the new events, read as an older reader would', () => {
  it('lifecycle lines are plain markers: valid events, no problem reported; an unknown kind is one skipped line', async () => {
    // What an older build checks each line with is the same schema: `event` with any `type`.
    for (const type of ['pin', 'unpin', 'archive', 'unarchive']) {
      const r = parseEventLine(Buffer.from(JSON.stringify({ kind: 'event', t: ago(0), type, auto: true, reason: 'idle' })));
      expect('event' in r).toBe(true);
    }
    expect('error' in parseEventLine(Buffer.from(JSON.stringify({ kind: 'pin', t: ago(0) })))).toBe(true);

    const p = await newProject('older');
    const id = session(p, 'written by a newer build', ago(1));
    expect(cli(['pin', id]).code).toBe(0);
    expect(cli(['archive', id]).code).toBe(0);
    await appendFile(fileOf(p, id), `${JSON.stringify({ kind: 'future-kind', t: ago(0), x: 1 })}\n`);
    const shown = cli(['show', id, '--json']);
    expect(shown.code, shown.err).toBe(0);
    const read = JSON.parse(shown.out);
    expect(read.problems).toHaveLength(1);
    expect(read.problems[0].line).toBe(5); // the unknown kind only: meta, user, pin, archive, then it
    const archived = list(p, ['--archived']);
    expect(archived).toMatchObject([{ id, pinned: true, archived: true }]);
    const md = cli(['show', id]).out;
    expect(md).toMatch(/Pinned · /);
    expect(md).toMatch(/Archived · /);
  });

  it('a lifecycle line in another key order, written by another tool, counts the same', async () => {
    const p = await newProject('keyorder');
    const id = session(p, 'pinned by hand', ago(1));
    await appendFile(fileOf(p, id), `${JSON.stringify({ type: 'pin', t: ago(0), kind: 'event' })}\n`);
    expect(list(p)).toMatchObject([{ id, pinned: true }]);
    await appendFile(fileOf(p, id), `{"kind":"event","t":"${ago(0)}","note":"${'x'.repeat(200)}","type":"archive"}\n`);
    expect(list(p)).toEqual([]);
    expect(list(p, ['--archived'])).toMatchObject([{ id, pinned: true, archived: true }]);
    // An answer written by another writer (folded from the index by its first bytes): back.
    await appendFile(fileOf(p, id), `{"kind":"assistant","t":"${ago(0)}","content":[{"type":"text","text":"later"}]}\n`);
    expect(list(p)).toMatchObject([{ id, pinned: true, archived: false }]);
  });

  it('an index of the previous format is rebuilt with the new fields, not trusted', async () => {
    const p = await newProject('oldindex');
    const id = session(p, 'indexed before', ago(1));
    expect(cli(['pin', id]).code).toBe(0);
    const { projectCache } = await import('../../server/store/cache-dir.js');
    const index = projectCache(join(root, projectSlug(p)), 'index.json');
    const body = JSON.parse(await readFile(index, 'utf8'));
    expect(body.format).toBe(8);
    body.format = 4;
    for (const e of body.entries) {
      delete e.interrupted;
      delete e.pinned;
      delete e.archived;
      delete e.unarchivedAt;
    }
    await writeFile(index, JSON.stringify(body));
    expect(list(p)).toMatchObject([{ id, pinned: true, archived: false }]);
  });
});
