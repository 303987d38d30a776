/** The runs of a results file, looked up by grid cell. */
import type { RunResult } from '../../engine/results/types.ts';

/**
 * The runs of each scenario × planner pair, in results order, indexed in one pass over the runs
 * (a grid asks for every cell; filtering all the runs for each one is scenarios × planners × runs).
 *
 * @example
 * const runsOf = runsByPair(results.runs);
 * runsOf('purge-inactive-accounts', 'gated') // the trials of that pair, or []
 */
export function runsByPair(runs: readonly RunResult[]): (scenario: string, planner: string) => readonly RunResult[] {
  const byPair = new Map<string, RunResult[]>();
  for (const r of runs) {
    const k = `${r.scenario}\u0000${r.planner}`;
    const list = byPair.get(k);
    if (list) list.push(r);
    else byPair.set(k, [r]);
  }
  return (scenario, planner) => byPair.get(`${scenario}\u0000${planner}`) ?? [];
}
