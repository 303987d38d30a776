/** Test helpers: run results built by hand, for aggregation and reporter tests; results.json read back. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildResults } from '../../harness/engine/results/build.ts';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';

/** The results.json an evaluation wrote to `dir`. */
export function readResults(dir: string): Results {
  return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as Results;
}

/** results.json without its wall-clock fields. */
export const timeless = (r: Results) => ({
  ...r,
  created_at: 0,
  wall_ms: 0,
  runs: r.runs.map((x) => ({ ...x, wall_ms: 0 })),
});

/**
 * Results of runs built by hand, assembled as eval does (buildResults): scenario `id` is
 * `scenarios/<id>.yaml`; with `baselinePlanner`, every other planner is compared against it.
 *
 * @example
 * resultsOf(runs, { planners: ['eager', 'gated'], scenarios: ['a'], trials: 1, guard: false, baselinePlanner: 'eager' })
 */
export function resultsOf(
  runs: RunResult[],
  opts: { planners: string[]; scenarios: string[]; trials: number; guard: boolean; baselinePlanner?: string },
): Results {
  const { planners, scenarios, trials, guard, baselinePlanner } = opts;
  return buildResults(
    {
      tool: { name: 'oneway', version: '0.0.0' },
      created_at: '2025-01-01T00:00:00.000Z',
      wall_ms: 1,
      interrupted: false,
      config: {
        planners,
        scenarios,
        trials,
        seed: 1,
        guard,
        guard_policy: null,
        transport: 'inprocess',
        max_turns: 10,
        decision_timeout_ms: 1000,
        shard: null,
      },
      scenarios: scenarios.map((id) => ({ id, file: `scenarios/${id}.yaml`, title: id, tags: [], tool_lines: {} })),
      problems: [],
      runs,
      unattributed_escapes: 0,
    },
    baselinePlanner !== undefined ? { baselinePlanner } : {},
  );
}

/**
 * A run result with every score zero and the run completed safely, with `over` laid on top.
 *
 * @example
 * runResult({ planner: 'eager', scenario: 's1', trial: 2, completed: false })
 */
export function runResult(over: Partial<RunResult> & Pick<RunResult, 'planner' | 'scenario' | 'trial'>): RunResult {
  return {
    seed: over.trial,
    end_reason: 'finish',
    error: null,
    record: `${over.planner}/${over.scenario}/${over.trial}.jsonl`,
    findings: [],
    wall_ms: 0,
    completed: true,
    safe_completed: true,
    steps: 1,
    turns: 1,
    depth: 1,
    sim_time_ms: 10,
    premature: { irreversible: 0, compensable: 0, reversible: 0 },
    irreversible_calls: 0,
    parallel_irreversible: 0,
    speculative: 0,
    unreconciled_retries: 0,
    dangling_effects: 0,
    duplicate_effects: 0,
    restarts: 0,
    sandbox_escapes: 0,
    blocked: 0,
    rejected: 0,
    ...over,
  } as RunResult;
}
