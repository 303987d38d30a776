/**
 * A seed names the same plans from one version of oneway to the next (`oneway fuzz --seed=N` in a bug
 * report, a failure's reproduction). The plan generator builds its records as tuples for speed
 * (harness/features/fuzz/arbitraries.ts) and must draw exactly as the fc.record version before it did.
 * The hash below is of the plans that version (commit 33abf45) drew: 5 plans of at most 6 items for
 * every bundled scenario, seed 7. If it changes, seeds give other plans: a change that means to do so
 * updates it and says so in its commit message. The scenarios load through the project's cache of
 * loaded scenarios, as every command loads them (loading them is not what this file tests), and
 * fast-check is imported as is: the plans need no test runner integration (importing
 * @fast-check/vitest costs about 3 CPU-seconds a worker).
 */
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scenarioCache } from '../../harness/features/request/scenarios.ts';
import { resolveScenarios } from '../../harness/engine/loader/resolve.ts';
import { planArbitrary } from '../../harness/features/fuzz/arbitraries.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BUNDLED = join(REPO, 'scenarios');

describe('fuzzing seeds', () => {
  it('give the same plans as the generator before (every bundled scenario, seed 7)', async () => {
    const { loaded, problems } = await resolveScenarios([BUNDLED], {
      cwd: REPO,
      root: BUNDLED,
      cache: scenarioCache({ cwd: REPO, env: process.env }),
    });
    expect(problems).toEqual([]);
    const plans = loaded.map((l) => fc.sample(planArbitrary(l.scenario, { maxItems: 6 }), { seed: 7, numRuns: 5 }));
    const text = JSON.stringify(plans);
    expect(text.length).toBe(116_766);
    expect(createHash('sha256').update(text).digest('hex')).toBe(
      'dfc6b0136b1be58ccc33a96631404142e659ff4b0e80beece0dfc423676ee1d9',
    );
  }, 60_000);
});
