import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The fast inner loop (`npm run test:unit`): tests that run oneway's code in this process, on its
 * thread. Everything else is the `integration` project: tests that start processes, worker threads,
 * servers or a browser, the whole-CLI evaluations of the bundled suite, and the long property and
 * growth suites. `npm test` runs both.
 */
const UNIT_DIRS = [
  'architecture',
  'bad-input',
  'effects',
  'fuzz',
  'guard',
  'lint',
  'llm',
  'loader',
  'planners',
  'recover',
  'report',
  'restarts',
  'rules',
  'sandbox',
  'scenarios',
  'scoring',
  'templates',
];
const OTHER_DIRS = readdirSync(source('./test'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && !UNIT_DIRS.includes(e.name))
  .map((e) => e.name);
const NOT_UNIT = [
  'test/loader/scenario-cache.test.ts', // whole-CLI evaluations of the bundled suite, cached and not
  'test/planners/variants.test.ts', // every bundled scenario through the run loop, 20 seeds
  'test/bad-input/loader-fuzz.test.ts', // long property runs
  'test/fuzz/cli.test.ts', // --workers: worker threads
  'test/report/html.browser.test.ts', // a browser
  'test/sandbox/seal-socket.test.ts', // sockets and servers on loopback
  'test/scoring/permutation.property.test.ts', // long property runs
];
/**
 * Files that replace a module other files import (vi.mock): each runs with a module cache of its
 * own (the `isolated` project), so what ran before it in its worker cannot decide whether the mock
 * takes. Elsewhere a test is given the dependency instead (a parameter the production code takes);
 * `npm run check` (scripts/check-mocks.mjs) fails on a vi.mock outside this list.
 */
const ISOLATED = [
  'test/cli/settings.test.ts', // what the engine is asked, from the three entry points
  'test/cli/watch.test.ts', // what the engine is asked at each change
  'test/runner/results-memory.test.ts', // every run's events, watched as runOne returns them
];

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
    // A safety net, not a budget: tests wait on events, and tests that start processes (servers,
    // evaluations, a browser) may take long to start while other work shares the cores
    // (scripts/test-under-load.sh runs the suite so).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Two cores on CI: more workers than that only adds contention.
    maxWorkers: 2,
    // The files of a worker share one module cache: the engine is imported once a worker, not once
    // a file (import was a fifth of the suite's time). Such a test leaves no global state behind:
    // environment variables through vi.stubEnv, servers closed in afterAll, signal handlers removed.
    // Nor does it vi.mock a module: whether the mock takes would depend on which files ran before it
    // in its worker. It is given the dependency instead, or listed in ISOLATED above.
    isolate: false,
    // Planner processes sealed at the socket level, the mode every machine has (CI's included), so the
    // seal tests exercise it wherever they run; test/reliability/seal-namespace.test.ts asks for the
    // network-namespace mode itself, and skips, saying why, where none can be had.
    env: { ONEWAY_SEAL: 'socket' },
    // Every temporary directory of the run in one, removed at its end (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT_DIRS.map((dir) => `test/${dir}/**/*.test.ts`),
          exclude: [...configDefaults.exclude, ...NOT_UNIT, ...ISOLATED],
        },
      },
      // Every other directory (a new one too), and the files above.
      {
        extends: true,
        test: {
          name: 'integration',
          include: [...OTHER_DIRS.map((dir) => `test/${dir}/**/*.test.ts`), ...NOT_UNIT],
          exclude: [...configDefaults.exclude, ...ISOLATED],
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
