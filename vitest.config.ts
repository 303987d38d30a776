import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // Two cores on CI: more workers than that only adds contention.
    maxWorkers: 2,
  },
});
