#!/usr/bin/env node
// The one binary. All logic lives in dist/ (compiled from server/); this file only loads it: the
// CLI bundled into one file with its code cache (dist/cli/main.cjs, through dist/cli/boot.cjs:
// server/cli/boot.ts) while that build is up to date, else the ES modules tsc wrote
// (dist/cli/main.js). The same CLI either way; the bundle starts faster.
// CommonJS (bin/package.json), so that a command does not start Node's ES loader for nothing.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'cli');
Promise.resolve()
  .then(() => {
    const boot = join(cli, 'boot.cjs');
    const bundle = existsSync(boot) ? require(boot).loadBundle(cli) : undefined;
    return bundle ? bundle.main : import('../dist/cli/main.js').then((m) => m.main);
  })
  .then((main) => main(process.argv.slice(2)))
  .then(
    (code) => { if (typeof code === 'number') process.exitCode = code; },
    (err) => { process.stderr.write(`levelcode-sessions: ${err && err.stack ? err.stack : err}\n`); process.exitCode = 70; },
  );
