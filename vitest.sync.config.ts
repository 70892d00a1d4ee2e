import { defineConfig } from 'vitest/config';

// npm run test:sync: History on every device, on two real Syncthing daemons (Debian's syncthing)
// on 127.0.0.1 (test/sync/syncthing/devices.ts). One file, in order: the scenarios share the two devices.
export default defineConfig({
  test: {
    include: ['test/sync/syncthing/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 180_000,
    pool: 'forks',
    setupFiles: ['test/support/cache-env.ts'],
    fileParallelism: false,
  },
});
