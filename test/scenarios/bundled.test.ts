/**
 * The bundled library: every scenario loads, every reference plan runs with
 * zero premature calls of any class, and every `expect:` holds.
 */
import { describe, expect, it } from 'vitest';
import { BUNDLED_SCENARIOS } from '../../harness/cli/common.ts';
import { resolveScenarios } from '../../harness/engine/loader/resolve.ts';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import { runOne } from '../../harness/engine/runner/run.ts';
import type { Scenario } from '../../harness/core/scenario.ts';
import { checkExpectations } from '../../harness/engine/scoring/expect.ts';

const { loaded, problems } = await resolveScenarios([BUNDLED_SCENARIOS], { cwd: process.cwd(), root: BUNDLED_SCENARIOS });

/**
 * Runs a built-in planner as `npm run eval` does: through its handle, so a restart fault
 * (`restarts:`) starts a fresh instance that keeps what the planner declares it checkpoints.
 */
async function runBuiltin(name: string, scenario: Scenario) {
  const handle = await loadPlanner(name, process.cwd());
  const plan = scenario.reference_plan;
  return runOne({
    scenario,
    scenarioFile: 'inline.yaml',
    planner: handle,
    plannerContext: { options: {}, ...(plan ? { plan } : {}) },
    trial: 1,
    seed: 1,
    runId: `test/${name}`,
    sink: memorySink(),
    transport: 'inprocess',
    maxTurns: 50,
    decisionTimeoutMs: 30_000, // a safety net: these planners answer at once, however busy the machine
  });
}

describe('the bundled scenarios', () => {
  it('load without problems', () => {
    expect(problems).toEqual([]);
    expect(loaded.length).toBeGreaterThanOrEqual(6);
  });

  it.each(loaded.map((l) => [l.scenario.id, l] as const))('%s: the reference plan makes no premature call', async (_id, l) => {
    expect(l.scenario.reference_plan).toBeDefined();
    const r = await runBuiltin('scripted', l.scenario);
    expect(r.error).toBeNull();
    expect(r.premature).toEqual({ irreversible: 0, compensable: 0, reversible: 0 });
    expect(r.speculative + r.parallel_irreversible + r.unreconciled_retries).toBe(0);
  });

  const expectations = loaded.flatMap((l) => Object.entries(l.scenario.expect ?? {}).map(([planner, exp]) => [l.scenario.id, planner, l, exp] as const));
  it.each(expectations)('%s: %s shows what the scenario expects', async (_id, plannerName, l, exp) => {
    const r = await runBuiltin(plannerName, l.scenario);
    expect(checkExpectations(exp, r)).toEqual([]);
  });
});
