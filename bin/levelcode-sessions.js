#!/usr/bin/env node
// The one binary. All logic lives in dist/ (compiled from server/ by tsc); this file only turns
// on Node's compile cache where the running Node has it (module.enableCompileCache, Node 22.1+;
// absent on Node 20, where nothing is cached) and runs dist/cli/main.js. The cache lives in the
// user's cache folder, never in the store: $XDG_CACHE_HOME/levelcode-sessions/compile when that
// variable is set, else Node's default (NODE_COMPILE_CACHE, or the OS temporary folder).
// CommonJS (bin/package.json), so that the cache is on before the first ES module loads.
'use strict';
const { join } = require('node:path');
const mod = require('node:module');

if (typeof mod.enableCompileCache === 'function') {
  const xdg = process.env.XDG_CACHE_HOME;
  try {
    mod.enableCompileCache(xdg ? join(xdg, 'levelcode-sessions', 'compile') : undefined);
  } catch {
    // A cache that cannot be made changes nothing but the speed.
  }
}

import('../dist/cli/main.js')
  .then((m) => m.main(process.argv.slice(2)))
  .then(
    (code) => {
      if (typeof code === 'number') process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`levelcode-sessions: ${err?.stack ? err.stack : err}\n`);
      process.exitCode = 70;
    },
  );
