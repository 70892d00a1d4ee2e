// `levelcode-sessions import` end to end, through the real binary over dist/, against a temp
// store and the tools' data folders laid out as the tools lay them out: what a person sees,
// what a script reads (--json), the exit codes, and that History, show, search and export treat
// an imported session as one of ours.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, rm, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { claudeLayout, codexLayout } from './layout.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let home: string;

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: tmp,
    env: {
      ...process.env,
      HOME: home,
      LEVELCODE_SESSIONS_DIR: join(tmp, 'store'),
      XDG_CACHE_HOME: join(tmp, 'cache'),
      CODEX_HOME: '',
      CLAUDE_CONFIG_DIR: '',
      ...env,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-import-cli-'));
  home = join(tmp, 'home');
  await mkdir(home, { recursive: true });
  await claudeLayout(home, ['ccl_dag_compact_after_rewind.jsonl', 'ccl_edge_cases.jsonl']);
  await codexLayout(home, [
    { file: 'ccl_rollout_structured_tools.jsonl', as: 'rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl' },
  ]);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('levelcode-sessions import', () => {
  it('an unknown tool is a usage error that lists the known ones', () => {
    const r = cli(['import', 'windsurf']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown tool "windsurf"; known tools: claude-code, codex/);
  });

  it('--dry-run counts what it would import and writes nothing', () => {
    const r = cli(['import', '--dry-run', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ imported: 3, updated: 0 });
    expect(JSON.parse(cli(['list', '--all', '--json']).out).sessions).toEqual([]);
  });

  it('imports every tool found in its default folder, then nothing on a second run', () => {
    const first = cli(['import', '--json']);
    expect(first.code).toBe(0);
    const r = JSON.parse(first.out);
    expect(r).toMatchObject({ imported: 3, updated: 0, unchanged: 0, skipped: 0 });
    expect(r.sessions.map((s: { source: { tool: string } }) => s.source.tool).sort()).toEqual(['claude-code', 'claude-code', 'codex']);
    const second = cli(['import']);
    expect(second.code).toBe(0);
    expect(second.out).toMatch(/Claude Code, Codex: imported 0, updated 0, unchanged 3, skipped 0/);
  });

  it('History lists imported sessions with their source, in their project', () => {
    const listed = JSON.parse(cli(['list', '--all', '--json']).out).sessions;
    const codex = listed.find((s: { source?: { tool: string } }) => s.source?.tool === 'codex');
    expect(codex).toMatchObject({
      project: '/workspace/synthetic-project',
      turns: 1,
      title: 'List the synthetic files.',
      source: { id: '11111111-1111-4111-8111-111111111111', version: '0.0.0-test' },
    });
    const dag = listed.find((s: { source?: { id: string } }) => s.source?.id === 'ccl_dag_compact_after_rewind');
    expect(dag).toMatchObject({ project: '/tmp', turns: 4 });
  });

  it('show, export and search read an imported session as one of ours', () => {
    const listed = JSON.parse(cli(['list', '--all', '--json']).out).sessions;
    const dag = listed.find((s: { source?: { id: string } }) => s.source?.id === 'ccl_dag_compact_after_rewind');
    const md = cli(['export', dag.id]);
    expect(md.code).toBe(0);
    expect(md.out).toContain('Second attempt');
    const found = JSON.parse(cli(['search', 'Kept going', '--all', '--json']).out);
    expect(found.hits.map((h: { sessionId: string }) => h.sessionId)).toContain(dag.id);
  });

  it('--from takes one session file; a missing one is an error with a non-zero exit', () => {
    const r = cli(['import', 'codex', '--from', join(tmp, 'nothing-here.jsonl')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no such file or folder: .*nothing-here\.jsonl/);
    expect(cli(['import', '--from', home]).code).toBe(2);
  });

  it('an unreadable data folder is an error, never "nothing there"', async () => {
    if (process.getuid?.() === 0) {
      // root reads every folder: an unreadable one is made by a folder that is a file instead.
      const r = cli(['import', 'claude-code', '--from', join(home, '.claude', 'projects', '-tmp', 'ccl_edge_cases.jsonl', 'x')]);
      expect(r.code).toBe(1);
      return;
    }
    const locked = join(home, '.claude', 'projects');
    await chmod(locked, 0o000);
    try {
      const r = cli(['import', 'claude-code']);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/EACCES|permission/i);
    } finally {
      await chmod(locked, 0o700);
    }
  });
});
