// End to end in real VS Code: "Continue in <tool>" on an imported History row. Sessions the real
// Claude Code 2.0.77 and Codex 0.58.0 wrote (test/fixtures/import/, their folder made this test's
// project) are imported with the CLI; a fake `claude` on the login shell's PATH records the
// argv and folder it is started with. The Claude Code row's action opens a terminal running
// `claude --resume <Claude Code's own id>` in the project; the Codex row's says `codex` is not on
// PATH instead of opening a terminal that fails.

import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath } from '../../../../clients/vscode/src/continueIn.js';
import { S } from '../../../../clients/vscode/src/strings.js';
import { REPO, VsCode, missingPrerequisites, reportIfFailed } from './harness.js';

const missing = missingPrerequisites();
if (missing.length) {
  throw new Error(`the VS Code end-to-end suite needs (run .ci/clients-vscode.sh):\n- ${missing.join('\n- ')}`);
}

const FIXTURES = join(REPO, 'test/fixtures/import');
const RECORDED_AT = '/tmp/levelcode-fixture/demo';
const CLAUDE_ID = '82e0acc4-d7af-45b9-b89d-cdaa9878d3c5';
const CLAUDE_FILE = join(FIXTURES, 'claude-code/real-2.0.77/projects/-tmp-levelcode-fixture-demo', `${CLAUDE_ID}.jsonl`);
const CODEX_FILE = join(
  FIXTURES,
  'codex/real-0.58.0/sessions/2026/12/02/rollout-2026-12-02T18-33-19-01a23808-53c8-75b3-a98d-96fcd7aac6fe.jsonl',
);

/** The login shell's PATH in the test's home: the fake's folder, then the usual ones that hold no `codex`. */
async function shellPath(bin: string): Promise<string> {
  const dirs = [...new Set([...(process.env.PATH ?? '').split(':'), '/usr/local/bin', '/usr/bin', '/bin'])].filter(Boolean);
  const kept: string[] = [];
  for (const d of dirs) if (!(await findOnPath('codex', { PATH: d }))) kept.push(d);
  return [bin, ...kept].join(':');
}

describe('VS Code Continue in <tool> (code-server)', () => {
  let vs: VsCode;
  let record = '';
  let path = '';

  /** A copy of a real tool's session file, naming this test's project where the tool wrote its folder. */
  async function relocated(file: string, name: string): Promise<string> {
    const out = join(vs.root, name);
    await writeFile(out, (await readFile(file, 'utf8')).split(RECORDED_AT).join(vs.project));
    return out;
  }

  beforeAll(async () => {
    vs = await VsCode.create();
    // Where Claude Code's installer puts it. VS Code gives the extension host and its terminals
    // the PATH of the user's login shell, so the fake is put on it by the home's ~/.profile.
    const bin = join(vs.root, 'home/.local/bin');
    await mkdir(bin, { recursive: true });
    record = join(vs.root, 'claude-argv.txt');
    // The fake tool: its folder and each argument on a line of their own, written whole at once.
    await writeFile(
      join(bin, 'claude'),
      `#!/bin/sh\n{ pwd; for a in "$@"; do printf '%s\\n' "$a"; done; } > '${record}.tmp' && mv '${record}.tmp' '${record}'\nsleep 5\n`,
    );
    await chmod(join(bin, 'claude'), 0o755);
    path = await shellPath(bin);
    await writeFile(join(vs.root, 'home/.profile'), `PATH='${path}'\nexport PATH\n`);
    await vs.cli(['import', 'claude-code', '--from', await relocated(CLAUDE_FILE, `${CLAUDE_ID}.jsonl`)]);
    await vs.cli(['import', 'codex', '--from', await relocated(CODEX_FILE, 'rollout-codex.jsonl')]);
    await vs.start();
  }, 240_000);

  afterEach((ctx) => reportIfFailed(vs, ctx, 'continue'));

  afterAll(async () => {
    await vs?.stop();
  }, 60_000);

  it('runs claude --resume with Claude Code’s own id in the project folder, in a terminal', async () => {
    await vs.openHistory();
    await vs.waitForRows(
      (r) => r.some((x) => x.includes('A second session of its own') && x.includes('Claude Code')),
      'the imported Claude Code row',
    );
    expect(existsSync(record)).toBe(false);
    await vs.contextAction('A second session of its own', 'Continue in Claude Code');
    await vs.until(() => existsSync(record), 'the fake claude to record its argv');
    const [cwd, ...argv] = (await readFile(record, 'utf8')).trimEnd().split('\n');
    expect(cwd).toBe(vs.project);
    expect(argv).toEqual(['--resume', CLAUDE_ID]);
    // The terminal is the tool's own, named after it and the chat.
    await vs.page
      .locator('.part.panel', { hasText: 'Claude Code: A second session of its own' })
      .filter({ visible: true })
      .first()
      .waitFor({ timeout: 30_000 });
    await vs.screenshot('continue-01-claude-terminal');
  });

  it('says codex is not on PATH for a Codex row, and opens nothing', async () => {
    expect(await findOnPath('codex', { PATH: path })).toBeUndefined(); // a real codex is left off the PATH
    await vs.waitForRows((r) => r.some((x) => x.includes('List the files here') && x.includes('Codex')), 'the imported Codex row');
    await vs.contextAction('List the files here', 'Continue in Codex');
    const toast = await vs.waitForToast(S.continueIn.notOnPath('Codex', 'codex'));
    expect(await toast.innerText()).toContain('is not on PATH');
    expect(await vs.page.locator('.part.panel', { hasText: 'Codex: ' }).filter({ visible: true }).count()).toBe(0);
    await vs.screenshot('continue-02-codex-not-on-path');
  });
});
