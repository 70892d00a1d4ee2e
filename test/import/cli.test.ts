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
    // One line per tool: found (source files), imported, updated, unchanged, skipped, problems.
    expect(second.out).toMatch(/^Claude Code: found 2, imported 0, updated 0, unchanged 2, skipped 0, problems 0$/m);
    expect(second.out).toMatch(/^Codex: found 1, imported 0, updated 0, unchanged 1, skipped 0, problems 0$/m);
    expect(JSON.parse(cli(['import', '--json']).out)).toMatchObject({
      tools: [
        { tool: 'claude-code', found: 2, unchanged: 2 },
        { tool: 'codex', found: 1, unchanged: 1 },
      ],
      unknownKinds: [],
      unreadable: [],
      failed: 0,
    });
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

  it('a deleted imported session stays deleted; restore brings it back and import follows it again', async () => {
    const listed = JSON.parse(cli(['list', '--all', '--json']).out).sessions;
    const codex = listed.find((s: { source?: { tool: string } }) => s.source?.tool === 'codex');
    const xdg = { XDG_DATA_HOME: join(tmp, 'xdg-data') };
    expect(cli(['delete', codex.id], xdg).code).toBe(0);
    // The ledger (a cache) wiped too: the store itself remembers.
    await rm(join(tmp, 'cache'), { recursive: true, force: true });
    const again = cli(['import', '--json'], xdg);
    expect(again.code).toBe(0);
    const r = JSON.parse(again.out);
    expect(r.imported).toBe(0);
    expect(r.skippedFiles.map((f: { reason: string }) => f.reason).join('\n')).toMatch(/deleted by the user/);
    expect(cli(['import'], xdg).out).toMatch(/deleted by the user \(restore brings it back\)/);
    expect(JSON.parse(cli(['list', '--all', '--json']).out).sessions.map((s: { id: string }) => s.id)).not.toContain(codex.id);
    expect(cli(['restore', codex.id], xdg).code).toBe(0);
    const after = JSON.parse(cli(['import', '--json'], xdg).out);
    expect(after.skippedFiles).toEqual([]);
    expect(JSON.parse(cli(['list', '--all', '--json']).out).sessions.map((s: { id: string }) => s.id)).toContain(codex.id);
  });

  it('a bad line inside a file is a warning (exit 0); a record kind never seen is counted per tool and version', async () => {
    const { appendFile, readdir } = await import('node:fs/promises');
    const folder = join(home, '.claude', 'projects', '-tmp');
    const file = join(folder, (await readdir(folder)).find((n) => n.endsWith('.jsonl'))!);
    await appendFile(file, 'not json at all\n{"type":"hologram-state","sessionId":"x","version":"9.9.9"}\n');
    // Written a while ago (a file modified this very second is read again next time, unrecorded).
    const { utimes } = await import('node:fs/promises');
    await utimes(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const r = cli(['import', 'claude-code', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.problems.map((p: { message: string }) => p.message).join('\n')).toMatch(/not JSON/);
    expect(report.unknownKinds).toEqual([expect.objectContaining({ tool: 'claude-code', kind: 'hologram-state', count: 1 })]);
    // doctor says so too (from what the last import saw of each file), and the store's own
    // file of deleted imports is no stray file.
    const doc = cli(['doctor', '--json']);
    expect(JSON.parse(doc.out).unknownKinds).toEqual(
      expect.arrayContaining([expect.objectContaining({ tool: 'claude-code', kind: 'hologram-state' })]),
    );
    expect(cli(['doctor']).out).toMatch(/never seen[^\n]*\n {2}claude-code [^:]*: hologram-state ×1/);
    expect(doc.out).not.toMatch(/trashed-imports/);
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
