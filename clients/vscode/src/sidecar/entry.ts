// Entry point of the sidecar bundled into the .vsix (dist/sidecar/cli/main.js): the same thing
// bin/levelcode-sessions.js does for the repo's build, so `node dist/sidecar/cli/main.js serve
// --stdio` is the sidecar itself. Bundled by build.mjs from ../../server; no editor code here.

import { main } from '../../../../server/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`levelcode-sessions: ${err instanceof Error && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 70;
  },
);
