// Installs the repository's git hooks (.githooks/: commit-msg) by pointing git's core.hooksPath
// at them. Run by `npm ci`/`npm install` (the prepare script). Outside a git checkout of this
// folder (a packed tarball, an install as a dependency) it does nothing.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: repo, encoding: 'utf8' });
if (top.status === 0 && resolve(top.stdout.trim()) === repo) {
  const set = spawnSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: repo, encoding: 'utf8' });
  if (set.status !== 0) {
    process.stderr.write(`hooks: could not set core.hooksPath: ${set.stderr}`);
    process.exit(1);
  }
}
