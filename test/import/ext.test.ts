// The Cline, Roo Code and Aider importers beyond the contract: a Cline task rewritten whole as the
// extension goes on (and cut back by a checkpoint restore) followed live through the real
// engine, a torn history file, Aider's file growing by a chat, and `import all` finding each
// tool in its default place through the real binary.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SessionStore } from '../../server/store/store.js';
import { History } from '../../server/listing/history.js';
import { followImports } from '../../server/import/follow.js';
import { runImport } from '../../server/import/engine.js';
import { importerOf } from '../../server/import/registry.js';
import { aiderSessionId } from '../../server/import/aider.js';
import { FIXTURES } from './layout.js';

const cline = importerOf('cline')!;
const aider = importerOf('aider')!;

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
const TASK = '1767603600000';
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-import-ext-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

let n = 0;
async function clineWorld() {
  const base = join(tmp, `c${++n}`);
  const ext = join(base, 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev');
  await cp(join(FIXTURES, 'cline', 'built-cline', 'saoudrizwan.claude-dev'), ext, { recursive: true });
  const api = join(ext, 'tasks', TASK, 'api_conversation_history.json');
  const full = JSON.parse(await readFile(api, 'utf8')) as unknown[];
  return {
    base,
    root: join(base, 'Code'),
    api,
    full,
    store: new SessionStore({ root: join(base, 'store'), agent: 'test' }),
    ledger: join(base, 'ledger.json'),
  };
}

async function texts(store: SessionStore): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await new History(store).list({ all: true })).sessions) {
    const r = await store.read(e.id);
    if (r.meta.source?.id === TASK) out.push(...r.events.map((x) => JSON.stringify((x.event as { raw?: unknown }).raw)));
  }
  return out;
}

describe('cline: a task file rewritten whole', () => {
  it('followed live: each rewrite adds what is new; a restore that cuts it back loses nothing of ours', async () => {
    const w = await clineWorld();
    await writeFile(w.api, JSON.stringify(w.full.slice(0, 2)));
    // Every run's report: the follower also runs by itself (once at the start), so a change may
    // be imported by that run rather than by the runNow() that follows it; each exactly once.
    const reports: { imported: number; updated: number }[] = [];
    const f = followImports(w.store, [{ importer: cline, roots: [w.root] }], {
      poll: true,
      pollMs: 60_000,
      onReport: (r) => reports.push(r),
    });
    const sum = (k: 'imported' | 'updated') => reports.reduce((n, r) => n + r[k], 0);
    try {
      await f.runNow();
      expect(sum('imported')).toBe(2);
      expect(await texts(w.store)).toEqual(w.full.slice(0, 2).map((m) => JSON.stringify(m)));
      await writeFile(w.api, JSON.stringify(w.full.slice(0, 6)));
      await f.runNow();
      expect(sum('updated')).toBe(1);
      expect(await texts(w.store)).toEqual(w.full.slice(0, 6).map((m) => JSON.stringify(m)));
      // A checkpoint restore rewrites the history shorter, then the task goes on another way.
      const other = { role: 'user', content: [{ type: 'text', text: '<user_message>\nsomething else\n</user_message>' }] };
      await writeFile(w.api, JSON.stringify([...w.full.slice(0, 3), other]));
      await f.runNow();
      expect(sum('updated')).toBe(2);
      expect(await texts(w.store)).toEqual([...w.full.slice(0, 6), other].map((m) => JSON.stringify(m)));
      expect((await f.runNow()).updated).toBe(0);
      expect([sum('imported'), sum('updated')]).toEqual([2, 2]);
    } finally {
      f.close();
    }
  });

  it('a history file caught half-written is a problem, read whole next time', async () => {
    const w = await clineWorld();
    const text = await readFile(w.api, 'utf8');
    await writeFile(w.api, text.slice(0, text.length / 2));
    const torn = await runImport(w.store, [{ importer: cline, roots: [w.root] }], { ledger: w.ledger });
    expect(torn.problems.map((p) => p.message).join('\n')).toMatch(/not complete JSON/);
    expect(torn.imported).toBe(1); // the other task
    await writeFile(w.api, text);
    const whole = await runImport(w.store, [{ importer: cline, roots: [w.root] }], { ledger: w.ledger });
    expect([whole.imported, whole.problems]).toEqual([1, []]);
    expect((await texts(w.store)).length).toBe(w.full.length);
  });
});

describe('aider: one file, many chats', () => {
  it('a chat appended to the file is a new session; the earlier ones get nothing twice', async () => {
    const repo = join(tmp, 'aider-repo');
    await mkdir(repo, { recursive: true });
    const file = join(repo, '.aider.chat.history.md');
    const text = await readFile(join(FIXTURES, 'aider', 'agentsview_aider_chat_history.md'), 'utf8');
    await writeFile(file, text);
    const store = new SessionStore({ root: join(tmp, 'aider-store'), agent: 'test' });
    const ledger = join(tmp, 'aider-ledger.json');
    expect((await runImport(store, [{ importer: aider, roots: [repo] }], { ledger })).imported).toBe(2);
    const lines = text.split('\n').length;
    await appendFile(
      file,
      '#### and log each retry  \n\nLogging added.\n\n> Applied edit to src/webhook.py  \n\n# aider chat started at 2026-06-10 09:00:00\n\n#### one more thing  \n\nSure.\n',
    );
    const grown = await runImport(store, [{ importer: aider, roots: [repo] }], { ledger });
    // The empty third chat now has an input (imported), and a fourth chat began.
    expect([grown.imported, grown.updated]).toEqual([2, 0]);
    const ids = (await new History(store).list({ all: true })).sessions.length;
    expect(ids).toBe(4);
    const sources = [];
    for (const e of (await new History(store).list({ all: true })).sessions) sources.push((await store.read(e.id)).meta.source?.id);
    expect(sources.sort()).toEqual([2, 18, 25, lines + 6].map((l) => aiderSessionId(file, l)).sort());
  });
});

describe('import all finds Cline, Roo Code and Aider in their default places', () => {
  it('the extensions under VS Code and Cursor, Aider in a folder Claude Code knows', async () => {
    const home = join(tmp, 'home');
    await cp(
      join(FIXTURES, 'cline', 'built-cline', 'saoudrizwan.claude-dev'),
      join(home, '.config/Code/User/globalStorage/saoudrizwan.claude-dev'),
      { recursive: true },
    );
    await cp(
      join(FIXTURES, 'cline', 'built-roo', 'rooveterinaryinc.roo-cline'),
      join(home, '.config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline'),
      { recursive: true },
    );
    const repo = join(tmp, 'some repo');
    await mkdir(repo, { recursive: true });
    await cp(join(FIXTURES, 'aider', 'agentsview_aider_chat_history.md'), join(repo, '.aider.chat.history.md'));
    await writeFile(join(home, '.claude.json'), JSON.stringify({ projects: { [repo]: {}, '/nowhere/at/all': {} } }));
    const r = spawnSync(process.execPath, [bin, 'import', '--json'], {
      cwd: tmp,
      env: {
        ...process.env,
        HOME: home,
        LEVELCODE_SESSIONS_DIR: join(tmp, 'all-store'),
        XDG_CACHE_HOME: join(tmp, 'cache'),
        XDG_CONFIG_HOME: '',
        XDG_DATA_HOME: '',
        CODEX_HOME: '',
        CLAUDE_CONFIG_DIR: '',
        GEMINI_CLI_HOME: '',
        CLINE_DIR: '',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { imported: number; sessions: { source: { tool: string; project: string } }[] };
    const by = (tool: string) => out.sessions.filter((s) => s.source.tool === tool).length;
    expect([by('cline'), by('roo-code'), by('aider')]).toEqual([2, 1, 2]);
    expect(out.sessions.find((s) => s.source.tool === 'aider')!.source.project).toBe(repo);
  });
});
