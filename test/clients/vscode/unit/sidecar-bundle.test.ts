// The sidecar bundled into the extension (clients/vscode/dist/sidecar, built by build.mjs before
// this suite runs: .ci/clients-vscode.sh packages the .vsix first) is the same program as the
// repository's CLI, and it runs where the .vsix puts it: in a folder with no node_modules around
// it, under the Node the editor forks it with (the repository's Node 20, and the Node 24 that
// code-server runs, from the tools folder .ci/clients-vscode.sh fills). There it answers
// --version with the repository's version, answers `initialize`, builds the search cache on its
// worker thread (a file of the bundle of its own), and reads the SQLite sources (opencode, Zed,
// Cursor and its CLI's store.db) as the repository's sidecar does: under Node 24 through
// node:sqlite, since the bundle carries no native module.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sessionImport, sessionList, sessionSearch } from '../../../../server/rpc/protocol.js';
import { BIN, cleanup, startSidecar, tempDir } from '../../../helpers/sidecar.js';
import { FIXTURES } from '../../../import/layout.js';

const repo = join(__dirname, '../../../..');
const tools = process.env.LEVELCODE_TOOLS ?? join(repo, '.tools');
const NODE24 = join(tools, 'node_modules/node/bin/node');

/** The bundle copied where nothing of the repository is above it, as an installed .vsix is. */
function installedBundle(): string {
  const built = join(repo, 'clients/vscode/dist/sidecar');
  if (!existsSync(join(built, 'cli/main.js'))) throw new Error('no bundle: run `npm run package:vscode` (or bash .ci/clients-vscode.sh)');
  const dest = join(tempDir('lcs-bundle-'), 'extension', 'dist', 'sidecar');
  cpSync(built, dest, { recursive: true });
  return join(dest, 'cli', 'main.js');
}

/** A tools folder as opencode, Zed and Cursor (the editor, its CLI) lay theirs out, holding the fixtures' databases. */
function sqliteSources(): Record<(typeof SQLITE_TOOLS)[number], string> {
  const base = tempDir('lcs-bundle-src-');
  const opencode = join(base, 'opencode');
  const zed = join(base, 'zed');
  mkdirSync(join(zed, 'threads'), { recursive: true });
  cpSync(join(FIXTURES, 'opencode', 'real-1.2.27'), opencode, { recursive: true });
  cpSync(join(FIXTURES, 'zed', 'threads.db'), join(zed, 'threads', 'threads.db'));
  const cursor = join(base, 'cursor');
  cpSync(join(FIXTURES, 'cursor', 'User'), join(cursor, 'User'), { recursive: true });
  const cursorAgent = join(base, 'cursor-agent');
  cpSync(join(FIXTURES, 'cursor-agent', 'chats'), join(cursorAgent, 'chats'), { recursive: true });
  return { opencode, zed, cursor, 'cursor-agent': cursorAgent };
}

const SQLITE_TOOLS = ['opencode', 'zed', 'cursor', 'cursor-agent'] as const;

/** What importing each SQLite source gives through one sidecar: the sessions' sources, sorted. */
async function imported(program: [string, string]): Promise<unknown> {
  const src = sqliteSources();
  const s = await startSidecar({ root: join(tempDir(), 'store'), program });
  const out: Record<string, unknown> = {};
  for (const tool of SQLITE_TOOLS) {
    const r = await s.call(sessionImport, { tool, from: src[tool] });
    // Problems inside a database (Cursor's garbage bubble) are the same under both; none is a failure to open one.
    expect(
      r.problems.filter((p) => /cannot read|not a readable/.test(p.message)),
      tool,
    ).toEqual([]);
    out[`${tool} problems`] = r.problems.map((p) => p.message);
    out[tool] = r.sessions
      .map((x) => ({ ...x.source, path: x.source.path.slice(x.source.path.indexOf(`/${tool}/`)) }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }
  return out;
}

afterAll(cleanup);

describe('the bundled sidecar', () => {
  it('answers --version with the repository version', () => {
    const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
    const r = spawnSync(process.execPath, [installedBundle(), '--version'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });

  it('needs the Node 24 of the tools folder for the rest', () => {
    expect(existsSync(NODE24), `${NODE24}: run bash .ci/clients-vscode.sh`).toBe(true);
    expect(spawnSync(NODE24, ['--version'], { encoding: 'utf8' }).stdout).toMatch(/^v24\./);
  });

  for (const [name, node] of [
    ['Node 20 (the repository)', process.execPath],
    ['Node 24 (code-server)', NODE24],
  ] as const) {
    it(`answers initialize from an installed folder under ${name}`, async () => {
      const s = await startSidecar({ root: join(tempDir(), 'store'), program: [node, installedBundle()] });
      expect(s.initializeResult.serverInfo.name).toBe('levelcode-sessions');
      expect(s.initializeResult.capabilities).toBeTruthy();
    });
  }

  it('builds the search cache on its worker thread under Node 24 (node:sqlite), then searches ranked', async () => {
    const root = join(tempDir(), 'store');
    const made = spawnSync(
      process.execPath,
      [join(repo, 'bench', 'corpus.mjs'), '--out', root, '--sessions', '60', '--total-mb', '6', '--huge', '', '--projects', '2'],
      { encoding: 'utf8' },
    );
    expect(made.status, made.stderr).toBe(0);
    const env = { LEVELCODE_SESSIONS_CACHE: join(root, '..', 'cache') };
    const s = await startSidecar({ root, env, program: [NODE24, installedBundle()], workDoneProgress: true });
    void s.call(sessionList, { limit: 1 }); // loads the core, which starts the build
    const begin = await s.editor.progress.waitFor((p) => p.value.kind === 'begin' && p.value.title === 'Indexing sessions for search');
    await s.editor.progress.waitFor((p) => p.token === begin.token && p.value.kind === 'end');
    const r = await s.call(sessionSearch, { query: 'idempotency' });
    expect(r.ranked).toBe(true);
    expect(r.total).toBeGreaterThan(0);
    await s.stop();
    expect(s.stderr).toMatch(/search cache built on a worker thread/);
  });

  it('imports the SQLite sources under Node 24 (node:sqlite) as the repository sidecar does', async () => {
    const bundled = await imported([NODE24, installedBundle()]);
    expect(bundled).toEqual(await imported([process.execPath, BIN]));
    expect(SQLITE_TOOLS.every((t) => (bundled as Record<string, unknown[]>)[t]!.length > 0)).toBe(true);
  });
});
