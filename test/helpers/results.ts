/** Test helpers: run results built by hand, for aggregation and reporter tests. */
import type { RunResult } from '../../harness/engine/results/types.ts';

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
