import { defineConfig } from 'vitest/config';

// npm run test:reliability: crash, concurrency, faults and hostile input. Needs root (CI is).
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/support/cache-env.ts'],
    fileParallelism: false,
  },
});
