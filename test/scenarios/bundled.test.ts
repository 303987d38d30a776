/**
 * The bundled library: every scenario loads, every reference plan runs with
 * zero premature calls of any class, and every `expect:` holds.
 */
import { describe, expect, it } from 'vitest';
import { BUNDLED_SCENARIOS } from '../../harness/cli/common.ts';
import { resolveScenarios } from '../../harness/loader/resolve.ts';
import { loadPlanner } from '../../harness/runner/planners.ts';
import { checkExpectations } from '../../harness/scoring/expect.ts';
import { runPlanner } from '../helpers/run.ts';

const { loaded, problems } = await resolveScenarios([BUNDLED_SCENARIOS], { cwd: process.cwd(), root: BUNDLED_SCENARIOS });

describe('the bundled scenarios', () => {
  it('load without problems', () => {
    expect(problems).toEqual([]);
    expect(loaded.length).toBeGreaterThanOrEqual(6);
  });

  it.each(loaded.map((l) => [l.scenario.id, l] as const))('%s: the reference plan makes no premature call', async (_id, l) => {
    const handle = await loadPlanner('scripted', process.cwd());
    expect(l.scenario.reference_plan).toBeDefined();
    const planner = handle.create({ seed: 1, trial: 1, scenario: l.scenario.id, options: {}, plan: l.scenario.reference_plan ?? [] });
    const r = await runPlanner(l.scenario, planner, { seed: 1 });
    expect(r.error).toBeNull();
    expect(r.premature).toEqual({ irreversible: 0, compensable: 0, reversible: 0 });
    expect(r.speculative + r.parallel_irreversible + r.unreconciled_retries).toBe(0);
  });

  const expectations = loaded.flatMap((l) => Object.entries(l.scenario.expect ?? {}).map(([planner, exp]) => [l.scenario.id, planner, l, exp] as const));
  it.each(expectations)('%s: %s shows what the scenario expects', async (_id, plannerName, l, exp) => {
    const handle = await loadPlanner(plannerName, process.cwd());
    const planner = handle.create({ seed: 1, trial: 1, scenario: l.scenario.id, options: {}, ...(l.scenario.reference_plan ? { plan: l.scenario.reference_plan } : {}) });
    const r = await runPlanner(l.scenario, planner, { seed: 1 });
    expect(checkExpectations(exp, r)).toEqual([]);
  });
});
