// Lints the Neovim client's Lua (clients/neovim, and the test stubs in test/clients/neovim) with
// luacheck, using clients/neovim/.luacheckrc. A step of `npm test`. luacheck is Debian's
// `lua-check` package (npm has no luacheck); when it is missing this says how to install it and
// fails, so the check is never silently skipped. Exit status: luacheck's (0 clean, 1 warnings,
// 2 errors), or 1 when luacheck is not installed.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = ['--config', 'clients/neovim/.luacheckrc', '--no-color', '--quiet', 'clients/neovim', 'test/clients/neovim'];
const run = spawnSync('luacheck', args, { cwd: repo, stdio: 'inherit' });
if (run.error?.code === 'ENOENT') {
  process.stderr.write(
    "luacheck: not installed. It lints the Neovim client in `npm test`; install Debian's lua-check " + '(apt-get install -y lua-check).\n',
  );
  process.exit(1);
}
if (run.error) {
  process.stderr.write(`luacheck: ${run.error.message}\n`);
  process.exit(1);
}
if (run.status === 0) process.stdout.write('luacheck: clients/neovim clean\n');
process.exit(run.status ?? 1);
