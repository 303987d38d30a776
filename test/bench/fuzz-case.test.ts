/**
 * The bench's fuzz case (harness/features/bench/cases.ts `fuzzing`): the README's fuzzing row is its
 * warm pass, beside the same pass from a cold start and each built-in property alone. The numbers are
 * measurements (npm run bench); what is tested is that each row measures what its label says.
 */
import { describe, expect, it } from 'vitest';
import { fuzzing } from '../../harness/features/bench/cases.ts';
import { BUILTIN_PROPERTIES } from '../../harness/features/fuzz/properties.ts';
import { loaded, TINY } from '../loader/helpers.ts';

describe('the bench fuzz case', () => {
  it('runs the fuzz case twice (cold, then warm: 100 plans a scenario each), then every built-in property', async () => {
    const { scenario } = loaded(TINY);
    const r = await fuzzing([scenario, scenario]);
    for (const pass of [r.cold, r.warm]) {
      expect(pass.properties).toEqual(['scoring-oracle', 'seal']);
      expect(pass.plans).toBe(200);
      expect(pass.plans_per_s).toBeGreaterThan(0);
      expect(pass.plans_per_cpu_s).toBeGreaterThan(0);
    }
    expect(r.per_property.map((p) => p.properties)).toEqual(BUILTIN_PROPERTIES.map((p) => [p.name]));
    for (const p of r.per_property) expect(p.plans).toBeGreaterThan(0);
  }, 120_000);
});
