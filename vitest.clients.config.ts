// The editor-client suites: real editors driving the real sidecar. Kept out of `npm test`
// (vitest.config.ts excludes test/clients/**) because they need the editors installed:
// run with `npx vitest run -c vitest.clients.config.ts test/clients/neovim` (see .ci/).
// Each client adds its folder to `include`.

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/clients/neovim/**/*.test.ts',
      'test/clients/vscode/**/*.test.ts',
      'test/clients/handoff/**/*.test.ts',
      'test/clients/acp/**/*.test.ts',
    ],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
