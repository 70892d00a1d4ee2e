// The SQLite sources (opencode 1.2+, Zed) read another tool's live database: read-only, safe
// while the tool writes it (WAL: the last committed state, never a half-written transaction),
// a write that reached only the -wal seen as a change, the database's bytes never touched, and
// a database we cannot read one problem line, never a crash of the whole import.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../server/store/store.js';
import { runImport } from '../../server/import/engine.js';
import { followImports } from '../../server/import/follow.js';
import { importerOf } from '../../server/import/registry.js';
import { FIXTURES } from './layout.js';
import { readAll, turns } from './helpers.js';
import { nonEmpty } from '../helpers/items.js';

const opencode = importerOf('opencode')!;
const zed = importerOf('zed')!;

type Db = { exec(s: string): void; prepare(s: string): { run(...a: unknown[]): unknown }; pragma(s: string): unknown; close(): void };
const Database = createRequire(import.meta.url)('better-sqlite3') as new (p: string) => Db;

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-sqlite-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const sha = async (p: string) =>
  createHash('sha1')
    .update(await readFile(p))
    .digest('hex');

/** A copy of the real opencode 1.2.27 database, switched to WAL and held open by a writer. */
async function liveOpencode(name: string): Promise<{ root: string; db: string; writer: Db }> {
  const root = join(tmp, name, 'opencode');
  await mkdir(root, { recursive: true });
  const db = join(root, 'opencode.db');
  await cp(join(FIXTURES, 'opencode', 'real-1.2.27', 'opencode.db'), db);
  const writer = new Database(db);
  writer.pragma('journal_mode = WAL');
  writer.pragma('wal_autocheckpoint = 0');
  return { root, db, writer };
}

function addPrompt(w: Db, session: string, n: number, text: string): void {
  const t = 1796221600000 + n * 1000;
  w.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run(
    `msg_zz${n}`,
    session,
    t,
    t,
    JSON.stringify({ role: 'user', time: { created: t } }),
  );
  w.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(
    `prt_zz${n}`,
    `msg_zz${n}`,
    session,
    t,
    t,
    JSON.stringify({ type: 'text', text }),
  );
}

const SES = 'ses_dc8dab6d5ffemgBJf69liGkqNE';

describe('SQLite sources', () => {
  it('reads the committed state while another connection writes, and sees a write that is only in the -wal', async () => {
    const { root, db, writer } = await liveOpencode('wal');
    try {
      addPrompt(writer, SES, 1, 'committed while the tool runs');
      const mainBytes = await sha(db);
      writer.exec('BEGIN IMMEDIATE');
      addPrompt(writer, SES, 2, 'not yet committed');
      const [file] = nonEmpty(await opencode.discover(root));
      expect(file.parts).toEqual([`${db}-wal`]);
      const during = (await opencode.read(file)).find((s) => s.source.id === SES)!;
      expect(during.problems).toEqual([]);
      const texts = during.events.filter((e) => e.kind === 'user').map((e) => e.content);
      expect(texts).toContain('committed while the tool runs');
      expect(texts).not.toContain('not yet committed');
      writer.exec('COMMIT');
      const [after] = nonEmpty(await opencode.discover(root));
      expect(after.size).toBeGreaterThan(file.size);
      const grown = (await opencode.read(after)).find((s) => s.source.id === SES)!;
      expect(turns(grown.events)).toBe(turns(during.events) + 1);
      // Reading never checkpointed, wrote or migrated the tool's database.
      expect(await sha(db)).toBe(mainBytes);
    } finally {
      writer.close();
    }
  });

  it('follows a database live: a prompt committed to the -wal becomes a turn of ours', async () => {
    const { root, writer } = await liveOpencode('follow');
    const store = new SessionStore({ root: join(tmp, 'follow', 'store'), agent: 'test' });
    // Every run's report: the follower also runs by itself (once at the start), so the prompt may
    // be imported by that run rather than by the runNow() after it; either way exactly once.
    const reports: { imported: number; updated: number }[] = [];
    const f = followImports(store, [{ importer: opencode, roots: [root] }], {
      poll: true,
      pollMs: 3_600_000,
      onReport: (r) => reports.push(r),
    });
    const sums = () => [reports.reduce((n, r) => n + r.imported, 0), reports.reduce((n, r) => n + r.updated, 0)];
    try {
      await f.runNow();
      expect(sums()).toEqual([2, 0]);
      addPrompt(writer, SES, 3, 'written while we follow');
      await f.runNow();
      expect(sums()).toEqual([2, 1]);
      const again = await f.runNow();
      expect([again.imported, again.updated]).toEqual([0, 0]);
    } finally {
      f.close();
      writer.close();
    }
  });

  it('a database that is not one is one problem line, and the other sources still import', async () => {
    const root = join(tmp, 'bad', 'opencode');
    await mkdir(join(root, 'storage'), { recursive: true });
    await writeFile(join(root, 'opencode.db'), 'this is not a SQLite database, only text '.repeat(200));
    await cp(join(FIXTURES, 'opencode', 'as_storage_v2_small'), join(root, 'storage'), { recursive: true });
    const zroot = join(tmp, 'bad', 'zed', 'threads');
    await mkdir(zroot, { recursive: true });
    await writeFile(join(zroot, 'threads.db'), Buffer.alloc(8192, 7));
    const store = new SessionStore({ root: join(tmp, 'bad', 'store'), agent: 'test' });
    const r = await runImport(
      store,
      [
        { importer: opencode, roots: [root] },
        { importer: zed, roots: [join(tmp, 'bad', 'zed')] },
      ],
      { ledger: join(tmp, 'bad', 'ledger.json') },
    );
    expect(r.imported).toBe(1); // the JSON tree beside the bad database
    const bad = r.problems.filter((p) => /not a readable SQLite database/.test(p.message));
    expect(bad.map((p) => p.path).sort()).toEqual([join(root, 'opencode.db'), join(zroot, 'threads.db')].sort());
    expect(r.problems.length).toBe(2);
  });

  it('a zstd body that does not decompress is a problem of its thread, the others are read', async () => {
    const dir = join(tmp, 'zstd', 'threads');
    await mkdir(dir, { recursive: true });
    const db = join(dir, 'threads.db');
    await cp(join(FIXTURES, 'zed', 'threads.db'), db);
    const w = new Database(db);
    w.prepare("INSERT INTO threads VALUES ('bad-thread', NULL, '/x', NULL, 's', '2026-01-01T00:00:00Z', 'zstd', ?)").run(
      Buffer.from('not zstd at all'),
    );
    w.close();
    const got = await readAll(zed, join(tmp, 'zstd'));
    expect(got.filter((s) => s.events.length > 0).length).toBe(2);
    expect(got.find((s) => s.source.id === 'bad-thread')!.problems.join(' ')).toMatch(/cannot decompress/);
  });
});
