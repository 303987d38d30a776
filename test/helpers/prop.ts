import fc from 'fast-check';
import { it } from 'vitest';

/**
 * A property as a test, as `test.prop` of @fast-check/vitest writes one, without importing that
 * package: it builds every chain of vitest's test modifiers as it is imported (3-4 CPU-seconds in
 * each worker that imports it; fast-check itself is cheap). The test's name carries the seed, so a
 * failure replays with `{ seed, path }` (fast-check's report gives both). The suite's beforeEach
 * hooks run once for the test, not once per generated value.
 *
 * @example
 * prop([fc.nat(), fc.nat()], { numRuns: 200 })('adds in any order', (a, b) => a + b === b + a);
 */
export function prop<Ts extends [unknown, ...unknown[]]>(
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  params: fc.Parameters<Ts> = {},
) {
  return (name: string, predicate: (...args: Ts) => boolean | void | Promise<boolean | void>, timeout?: number) => {
    const seed = params.seed ?? fc.readConfigureGlobal().seed ?? Date.now() ^ (Math.random() * 0x100000000);
    it(
      `${name} (with seed=${seed})`,
      () =>
        fc.assert(
          fc.asyncProperty(...arbitraries, (...args: Ts) => Promise.resolve(predicate(...args))),
          { ...params, seed },
        ),
      timeout,
    );
  };
}
