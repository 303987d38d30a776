import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // Tests import the package by name from source (package.json "exports" points at the compiled dist/).
  resolve: {
    alias: [
      { find: /^oneway$/, replacement: source('./harness/index.ts') },
      { find: /^oneway\/fuzz$/, replacement: source('./harness/features/fuzz/index.ts') },
      { find: /^oneway\/agents$/, replacement: source('./harness/agents.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // A safety net, not a budget: tests wait on events, and tests that start processes (servers,
    // evaluations, a browser) may take long to start while other work shares the cores
    // (scripts/test-under-load.sh runs the suite so).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores on CI: more workers than that only adds contention.
    maxWorkers: 2,
  },
});
