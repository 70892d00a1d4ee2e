// Lints the Neovim client's Lua (clients/neovim, and the test stubs in test/clients/neovim) with
// luacheck, using clients/neovim/.luacheckrc. A step of `npm test`. luacheck is Debian's
// `lua-check` package (npm has no luacheck). When it is missing: as root on a machine with
// apt-get (a fresh Debian box, CI) this installs it, so `npm ci && npm test` sets up what it
// needs; anywhere else it says how to install it and fails, so the check is never skipped.
// Exit status: luacheck's (0 clean, 1 warnings, 2 errors), or 1 when luacheck cannot be had.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = ['--config', 'clients/neovim/.luacheckrc', '--no-color', '--quiet', 'clients/neovim', 'test/clients/neovim'];
const HINT = "install Debian's lua-check (apt-get install -y lua-check)";

const found = () => spawnSync('luacheck', ['--version'], { stdio: 'ignore' }).error?.code !== 'ENOENT';
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

if (!found()) {
  if (process.getuid?.() !== 0 || !has('apt-get')) {
    process.stderr.write(`luacheck: not installed. It lints the Neovim client in \`npm test\`; ${HINT}.\n`);
    process.exit(1);
  }
  process.stderr.write("luacheck: not installed; installing Debian's lua-check (root, apt-get)\n");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const step of [
    ['update', '-qq'],
    ['install', '-y', '-qq', 'lua-check'],
  ]) {
    const r = spawnSync('apt-get', step, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) {
      process.stderr.write(`luacheck: apt-get ${step[0]} failed (exit ${r.status}); ${HINT}.\n`);
      process.exit(1);
    }
  }
}
const run = spawnSync('luacheck', args, { cwd: repo, stdio: 'inherit' });
if (run.error) {
  process.stderr.write(`luacheck: ${run.error.message}\n`);
  process.exit(1);
}
if (run.status === 0) process.stdout.write('luacheck: clients/neovim clean\n');
process.exit(run.status ?? 1);
