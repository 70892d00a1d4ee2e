// An import through the real CLI (bin/ over dist/) on Claude Code's files laid out as the tool
// lays them out: each new session file's mtime is its last message (a cold History reads the
// newest files first by mtime: protocol.md "Layout"), and the index entry the import wrote
// records that mtime.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cachePaths } from '../../server/store/cache-dir.js';
import { claudeLayout } from '../import/layout.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let root: string;

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: tmp,
    env: { ...process.env, LEVELCODE_SESSIONS_DIR: root, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-import-mtime-'));
  root = join(tmp, 'store');
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('an import', () => {
  it("leaves each new session file's mtime at its last message, and its index entry matches the file", async () => {
    const home = join(tmp, 'home');
    await mkdir(home, { recursive: true });
    await claudeLayout(home, ['ccl_dag_compact_after_rewind.jsonl', 'ccl_edge_cases.jsonl']);
    const env = { HOME: home, CODEX_HOME: '', CLAUDE_CONFIG_DIR: '', XDG_CACHE_HOME: join(tmp, 'cache') };
    const imp = cli(['import', 'claude-code', '--json'], env);
    expect(imp.code, imp.err).toBe(0);
    // The index the import wrote, before any listing.
    const projects = join(cachePaths(root).dir, 'projects');
    const entries = readdirSync(projects).flatMap((d) =>
      JSON.parse(readFileSync(join(projects, d, 'index.json'), 'utf8')).entries.map((e: Record<string, string>) => ({ ...e, dir: d })),
    );
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      const st = lstatSync(join(root, e.dir, `${e.id}.jsonl`), { bigint: true });
      expect(Math.abs(Number(st.mtimeNs / 1_000_000n) - Date.parse(e.updatedAt))).toBeLessThanOrEqual(1);
      expect(e.mtimeNs).toBe(st.mtimeNs.toString());
    }
  });
});
