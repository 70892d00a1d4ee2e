// `levelcode-sessions import` finds pi, Qwen Code, Continue and Copilot CLI in their default
// folders under HOME (the real tools' files from test/fixtures/import/), through the real binary.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cases as pi } from './cases/pi.js';
import { cases as qwen } from './cases/qwen.js';
import { cases as cont } from './cases/continue.js';
import { cases as copilot } from './cases/copilot-cli.js';
import { at } from '../helpers/items.js';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'levelcode-sessions.js');
let tmp: string;
let home: string;
const CLEAR = {
  CODEX_HOME: '',
  CLAUDE_CONFIG_DIR: '',
  GEMINI_CLI_HOME: '',
  PI_CODING_AGENT_DIR: '',
  QWEN_HOME: '',
  QWEN_RUNTIME_DIR: '',
  CONTINUE_GLOBAL_DIR: '',
  COPILOT_HOME: '',
};

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: tmp,
    env: {
      ...process.env,
      HOME: home,
      LEVELCODE_SESSIONS_DIR: join(tmp, 'store'),
      XDG_CACHE_HOME: join(tmp, 'cache'),
      XDG_CONFIG_HOME: join(home, '.config'),
      ...CLEAR,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'lcs-import-more-'));
  home = join(tmp, 'home');
  await mkdir(home, { recursive: true });
  // Each case lays its tool's data folder out under the folder given: ~/.pi/agent, ~/.qwen, ...
  for (const c of [at(pi, 0), at(qwen, 0), at(cont, 0), at(copilot, 0)]) await c.setup(home);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('levelcode-sessions import: pi, Qwen Code, Continue, Copilot CLI', () => {
  it('finds every one in its default folder, then nothing new on a second run', () => {
    const first = cli(['import', '--json']);
    expect(first.code, first.err).toBe(0);
    const r = JSON.parse(first.out);
    expect(r.sessions.map((s: { source: { tool: string } }) => s.source.tool).sort()).toEqual([
      'continue',
      'continue',
      'copilot-cli',
      'pi',
      'pi', // pi 0.73's fixture holds a session and its fork
      'qwen',
    ]);
    expect(r).toMatchObject({ imported: 6, updated: 0 });
    const second = JSON.parse(cli(['import', '--json']).out);
    expect(second).toMatchObject({ imported: 0, updated: 0, unchanged: 6 });
  });

  it('names each tool on the command line', () => {
    for (const tool of ['pi', 'qwen', 'continue', 'copilot-cli']) {
      const r = cli(['import', tool, '--dry-run', '--json']);
      expect(r.code, `${tool}: ${r.err}`).toBe(0);
    }
  });
});
