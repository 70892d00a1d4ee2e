// Entry point of the sidecar bundled into the .vsix (dist/sidecar/cli/main.js): what
// bin/levelcode-sessions.js does for the repo's build, so `node dist/sidecar/cli/main.js serve
// --stdio` is the sidecar itself. build.mjs bundles it with ../../server (TypeScript, compiled by
// esbuild). Plain JS on purpose: the server is type-checked by the repo's own build, not here.

import { main } from '../../../server/cli/main.ts';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`levelcode-sessions: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 70;
  },
);
