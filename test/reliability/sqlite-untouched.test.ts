// SQLite sources are read without writing a byte of theirs (issue 43): a real opencode 1.2.27
// database in WAL mode, held open by a writer (as the running tool holds it), with commits only
// in its -wal; `levelcode-sessions import opencode` reads them all, and the database, its -wal
// and its -shm are byte-for-byte what they were (SQLite opening the tool's files, even read-only,
// rewrites the -shm; the importer reads a private copy instead, server/import/sqlite.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cli, FIXTURES, filesUnder, sandbox } from './door.js';

const s = sandbox('lcs-sqlite-');
afterAll(() => rmSync(s.dir, { recursive: true, force: true }));
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('SQLite sources', () => {
  it('an import leaves the database, its -wal and its -shm byte-for-byte unchanged', async () => {
    const root = join(s.home, '.local', 'share', 'opencode');
    mkdirSync(root, { recursive: true });
    const db = join(root, 'opencode.db');
    cpSync(join(FIXTURES, 'opencode', 'real-1.2.27', 'opencode.db'), db);
    const writer = new Database(db);
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0');
      const t = 1796221600000;
      const session = (writer.prepare('SELECT id FROM session LIMIT 1').get() as { id: string }).id;
      writer
        .prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)')
        .run('msg_walonly', session, t, t, JSON.stringify({ role: 'user', time: { created: t } }));
      writer
        .prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)')
        .run('prt_walonly', 'msg_walonly', session, t, t, JSON.stringify({ type: 'text', text: 'only-in-the-wal' }));
      const files = [db, `${db}-wal`, `${db}-shm`];
      for (const f of files) expect(existsSync(f), f).toBe(true);
      const before = files.map(sha);
      const r = await cli(['import', 'opencode', '--json'], s.env);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).imported).toBeGreaterThan(0);
      expect(files.map(sha)).toEqual(before);
      expect(filesUnder(s.store).some((f) => f.bytes.includes('only-in-the-wal'))).toBe(true); // the -wal was read
    } finally {
      writer.close();
    }
  });
});
