#!/usr/bin/env node
// The one binary. All logic lives in dist/ (compiled from server/); this file only loads it.
import('../dist/cli/main.js').then((m) => m.main(process.argv.slice(2))).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { process.stderr.write(`levelcode-sessions: ${err && err.stack ? err.stack : err}\n`); process.exitCode = 70; },
);
