// The import door (issue 43): nothing outside a tool's folder is copied into the store, and
// nothing planted in a tool's folder, the store or a project's relinks.jsonl makes a command wait.
//   - a symlinked sub-folder inside a tool's folder (Claude Code <uuid>/subagents/ and <uuid>/,
//     Qwen projects/<p>/chats, opencode storage/part/<msg>/) pointing outside: none of its bytes
//     reach the store or a cache, while the rest of the tool's folder is imported;
//   - a FIFO as ~/.claude.json, as a VS Code workspaceStorage/*/workspace.json, as a store
//     <slug>/*.jsonl: `import` and `import aider` finish; as a project's relinks.jsonl: `list`
//     finishes; a sidecar following imports keeps answering session/list.
// Every CLI run is bounded (door.ts HANG_MS): past it the run is killed and the test fails.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { ledgerPath } from '../../server/import/ledger.js';
import { join } from 'node:path';
import { cleanup, type Sidecar, startSidecar } from '../helpers/sidecar.js';
import { projectSlug } from '../../server/store/slug.js';
import * as P from '../../server/rpc/protocol.js';
import { HISTORY_FILE } from '../../server/import/aider.js';
import { importerOf } from '../../server/import/registry.js';
import { cli, copyFixture, escapes, FIXTURES, HANG_MS, sandbox, type Sandbox } from './door.js';

const aider = importerOf('aider')!;

const boxes: Sandbox[] = [];
const box = () => {
  const s = sandbox();
  boxes.push(s);
  return s;
};
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

/** Resolves after `n` more follow runs of the sidecar (it logs each at debug: trace 'verbose'). */
async function runsDone(side: Sidecar, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await side.editor.logs.next((l) => l.message.includes('followImports: run done'));
}

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('the reliability suite needs root; CI runs as root');
});
afterEach(async () => {
  await cleanup();
});
afterAll(() => {
  for (const b of boxes) rmSync(b.dir, { recursive: true, force: true });
});

describe('a symlinked sub-folder in a tool folder: nothing from outside reaches the store', () => {
  const CLAUDE_ID = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';

  function claudeRoot(s: Sandbox): string {
    const folder = join(s.home, '.claude', 'projects', '-tmp-demo');
    mkdirSync(folder, { recursive: true });
    cpSync(join(FIXTURES, 'claude-code', 'real-2.0.77', 'projects', '-tmp-levelcode-fixture-demo'), folder, { recursive: true });
    cpSync(join(FIXTURES, 'claude-code', 'as_subagent_layout', `${CLAUDE_ID}.jsonl`), join(folder, `${CLAUDE_ID}.jsonl`));
    return folder;
  }

  it('Claude Code <uuid>/subagents/ linked outside', async () => {
    const s = box();
    const folder = claudeRoot(s);
    copyFixture(join('claude-code', 'as_subagent_layout', CLAUDE_ID, 'subagents'), join(s.outside, 'subagents'), true);
    mkdirSync(join(folder, CLAUDE_ID));
    symlinkSync(join(s.outside, 'subagents'), join(folder, CLAUDE_ID, 'subagents'));
    const r = await cli(['import', 'claude-code', '--json'], s.env);
    expect(r.hung).toBe(false);
    expect(JSON.parse(r.stdout).imported).toBeGreaterThan(0);
    expect(escapes(s)).toEqual([]);
  });

  it('Claude Code <uuid>/ linked outside', async () => {
    const s = box();
    const folder = claudeRoot(s);
    copyFixture(join('claude-code', 'as_subagent_layout', CLAUDE_ID), join(s.outside, CLAUDE_ID), true);
    symlinkSync(join(s.outside, CLAUDE_ID), join(folder, CLAUDE_ID));
    const r = await cli(['import', 'claude-code', '--json'], s.env);
    expect(r.hung).toBe(false);
    expect(JSON.parse(r.stdout).imported).toBeGreaterThan(0);
    expect(escapes(s)).toEqual([]);
  });

  it('Qwen projects/<p>/chats linked outside', async () => {
    const s = box();
    const projects = join(s.home, '.qwen', 'projects');
    mkdirSync(join(projects, '-tmp-inside'), { recursive: true });
    copyFixture(join('qwen', 'real-0.15.10', 'projects', '-tmp-levelcode-fixture-qwen', 'chats'), join(projects, '-tmp-inside', 'chats'));
    copyFixture(join('qwen', 'real-0.15.10', 'projects', '-tmp-levelcode-fixture-qwen', 'chats'), join(s.outside, 'chats'), true);
    mkdirSync(join(projects, '-tmp-linked'));
    symlinkSync(join(s.outside, 'chats'), join(projects, '-tmp-linked', 'chats'));
    const r = await cli(['import', 'qwen', '--json'], s.env);
    expect(r.hung).toBe(false);
    expect(JSON.parse(r.stdout).imported).toBe(1);
    expect(escapes(s)).toEqual([]);
  });

  it('opencode storage/part/<msg>/ linked outside', async () => {
    const s = box();
    const storage = join(s.home, '.local', 'share', 'opencode', 'storage');
    copyFixture(join('opencode', 'as_storage_v2_small'), storage);
    rmSync(join(storage, 'part', 'm_user_small'), { recursive: true });
    copyFixture(join('opencode', 'as_storage_v2_small', 'part', 'm_user_small'), join(s.outside, 'm_user_small'), true);
    symlinkSync(join(s.outside, 'm_user_small'), join(storage, 'part', 'm_user_small'));
    const r = await cli(['import', 'opencode', '--json'], s.env);
    expect(r.hung).toBe(false);
    expect(JSON.parse(r.stdout).imported).toBe(1);
    expect(escapes(s)).toEqual([]);
  });
});

describe('a FIFO planted where a file is read: nothing waits', () => {
  it('~/.claude.json as a FIFO: import aider and import finish', async () => {
    const s = box();
    mkfifo(join(s.home, '.claude.json'));
    for (const args of [['import', 'aider'], ['import']]) {
      const r = await cli(args, s.env);
      expect(r.hung, `${args.join(' ')} hung`).toBe(false);
    }
  });

  it('a VS Code workspaceStorage/*/workspace.json as a FIFO: import aider and import finish', async () => {
    const s = box();
    const ws = join(s.home, '.config', 'Code', 'User', 'workspaceStorage', 'abc123');
    mkdirSync(ws, { recursive: true });
    mkfifo(join(ws, 'workspace.json'));
    mkdirSync(join(ws, 'chatSessions'));
    for (const args of [['import', 'aider'], ['import']]) {
      const r = await cli(args, s.env);
      expect(r.hung, `${args.join(' ')} hung`).toBe(false);
    }
  });

  it("aider's default roots are found asynchronously, with FIFOs where it reads and as a project's history", async () => {
    const s = box();
    const project = join(s.dir, 'known-project');
    mkdirSync(project);
    // Codex's config names the project; Claude Code's file and a workspace.json are FIFOs.
    mkdirSync(join(s.home, '.codex'));
    writeFileSync(join(s.home, '.codex', 'config.toml'), `[projects."${project}"]\ntrust_level = "trusted"\n`);
    mkfifo(join(s.home, '.claude.json'));
    const ws = join(s.home, '.config', 'Code', 'User', 'workspaceStorage', 'abc123');
    mkdirSync(ws, { recursive: true });
    mkfifo(join(ws, 'workspace.json'));
    mkfifo(join(project, HISTORY_FILE));
    const found = aider.defaultRoots(s.env, s.home);
    expect(found).toBeInstanceOf(Promise); // read through the async no-follow helpers, not synchronously
    const roots = await Promise.race([found, new Promise<'hung'>((r) => setTimeout(() => r('hung'), HANG_MS))]);
    expect(roots).toEqual([join(project, HISTORY_FILE)]);
    const r = await cli(['import', 'aider'], s.env);
    expect(r.hung).toBe(false);
    expect(r.code).not.toBe(0); // the FIFO is reported, never waited on, never "nothing there"
    expect(r.stderr + r.stdout).toContain(HISTORY_FILE);
  });

  it('a store <slug>/*.jsonl as a FIFO: import aider finishes', async () => {
    const s = box();
    mkdirSync(join(s.store, '-tmp-project-1a2b'), { recursive: true });
    mkfifo(join(s.store, '-tmp-project-1a2b', '20260101T000000Z-abcd.jsonl'));
    const r = await cli(['import', 'aider'], s.env);
    expect(r.hung).toBe(false);
  });

  it("a project's relinks.jsonl as a FIFO: list finishes and says what it refused", async () => {
    const s = box();
    const project = join(s.dir, 'project');
    mkdirSync(project);
    const made = await cli(['new', '--project', project, '--json'], s.env);
    expect(made.code).toBe(0);
    const slugDir = join(s.store, projectSlug(project));
    mkfifo(join(slugDir, 'relinks.jsonl'));
    const r = await cli(['list', '--project', project], s.env);
    expect(r.hung).toBe(false);
    expect(r.stderr + r.stdout).toMatch(/FIFO/);
  });

  it('follow mode tells the editor of a file it cannot import once, and backs off until it changes', async () => {
    const s = box();
    // Aider's history file of a project Codex knows, planted as a link to a file outside: found,
    // and refused each time it is opened (no symlink followed), so the file fails to import.
    const project = join(s.dir, 'followed-project');
    mkdirSync(project);
    mkdirSync(join(s.home, '.codex'));
    writeFileSync(join(s.home, '.codex', 'config.toml'), `[projects."${project}"]\ntrust_level = "trusted"\n`);
    const bad = join(project, HISTORY_FILE);
    writeFileSync(join(s.outside, 'history.md'), '# aider chat started at 2026-01-01 10:00:00\n\n#### outside secret\n\nanswer\n');
    symlinkSync(join(s.outside, 'history.md'), bad);
    const side = await startSidecar({
      root: s.store,
      env: { ...(s.env as Record<string, string>), LEVELCODE_SESSIONS_POLL: '1', LEVELCODE_SESSIONS_IMPORT_POLL_MS: '100' },
      initializationOptions: { followImports: { tools: ['aider'] } },
      trace: 'verbose',
    });
    const told = await Promise.race([
      side.editor.importProblems.waitFor((p) => p.path === bad),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no $/levelcode/importProblem in 30 s')), 30_000)),
    ]);
    expect(told).toMatchObject({ tool: 'aider', path: bad });
    // Many poll runs later: told once, and the file is not read again (its ledger entry waits
    // 30 s, doubling), where before every run re-read it and logged at debug level only.
    await runsDone(side, 10);
    expect(side.editor.importProblems.items.filter((p) => p.path === bad)).toHaveLength(1);
    const ledger = JSON.parse(readFileSync(ledgerPath(s.store, s.env), 'utf8')) as {
      files: Record<string, { failed?: { tries: number; retryAt: number } }>;
    };
    const failed = ledger.files[bad]?.failed;
    expect(failed?.tries).toBe(1);
    expect(failed!.retryAt - Date.now()).toBeGreaterThan(20_000);
    expect(escapes(s)).toEqual([]);
    await side.stop();
  });

  it('a sidecar following imports keeps answering session/list with FIFOs in the tools folders', async () => {
    const s = box();
    mkfifo(join(s.home, '.claude.json'));
    const ws = join(s.home, '.config', 'Code', 'User', 'workspaceStorage', 'abc123');
    mkdirSync(ws, { recursive: true });
    mkfifo(join(ws, 'workspace.json'));
    const claude = join(s.home, '.claude', 'projects', '-tmp-x');
    mkdirSync(claude, { recursive: true });
    mkfifo(join(claude, '11111111-2222-4333-8444-555555555555.jsonl'));
    writeFileSync(join(s.home, 'plain.txt'), 'x');
    const side = await startSidecar({
      root: s.store,
      env: s.env as Record<string, string>,
      initializationOptions: { followImports: true },
      trace: 'verbose',
    });
    // A listing between follow runs, three times over.
    for (let i = 0; i < 3; i++) {
      const listed = await Promise.race([
        side.call(P.sessionList, { all: true }),
        new Promise((_, reject) => setTimeout(() => reject(new Error('session/list did not answer')), 20_000)),
      ]);
      expect(listed).toBeTruthy();
      await runsDone(side, 1);
    }
    await side.stop();
  });
});
