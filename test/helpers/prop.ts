/**
 * A fast-check property as one vitest test, checked with `fc.assert` and a fixed seed (so a run is
 * the same every time, and a failure prints the seed and path to replay it). It is what
 * `@fast-check/vitest`'s `test.prop` does, without importing that package: its import builds a
 * wrapped test for every combination of vitest's modifiers, about 3 CPU-seconds a worker
 * (test/fuzz/example.test.ts still uses it, as docs/fuzzing.md shows users).
 */
import fc from 'fast-check';
import { it } from 'vitest';
import type { Call, Decision } from '../../harness/core/planner.ts';

/** The seed every property here runs with unless it names its own. */
const PROPERTY_SEED = 20261203;

/**
 * @example
 * itProp('reverses twice to itself', [fc.array(fc.nat())], (xs) => { expect([...xs].reverse().reverse()).toEqual(xs); });
 */
export function itProp<Ts extends [unknown, ...unknown[]]>(
  name: string,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  check: (...args: Ts) => void,
  params: fc.Parameters<Ts> = {},
): void {
  it(name, () => {
    const property = fc.property(...([...arbitraries, check] as Parameters<typeof fc.property<Ts>>));
    fc.assert(property, { seed: PROPERTY_SEED, ...params });
  });
}

/**
 * One decision of calls drawn from `calls`: a single call, or a batch of two or three.
 *
 * @example
 * fc.array(decisionOf(callArb), { minLength: 1, maxLength: 8 }) // a decision sequence for runDecisions
 */
export function decisionOf(calls: fc.Arbitrary<Call>): fc.Arbitrary<Decision> {
  return fc
    .array(calls, { minLength: 1, maxLength: 3 })
    .map((cs): Decision => (cs.length === 1 ? { type: 'call', call: cs[0]! } : { type: 'batch', calls: cs }));
}
