/**
 * What `eval` and `eval:merge` share after the runs: the comparison against a
 * baseline planner, the --fail-on gates and the --baseline gate, attached to
 * the results (pure: results in, results out).
 */
import type { Results } from '../results/types.ts';
import { compareToBaselinePlanner } from '../scoring/compare.ts';
import { baselineGate } from './baseline.ts';
import { evaluateGates, type Gate } from './fail-on.ts';

export interface GateOptions {
  baselinePlanner?: string;
  gates: readonly Gate[];
  baseline?: { label: string; results: Results };
}

export function applyGates(results: Results, opts: GateOptions): Results {
  const comparisons = opts.baselinePlanner !== undefined ? compareToBaselinePlanner(results.runs, results.config.planners, opts.baselinePlanner) : [];
  const failures = evaluateGates(opts.gates, results.summary);
  let baseline: Results['gates']['baseline'] = null;
  if (opts.baseline) {
    const b = baselineGate(results, opts.baseline.results);
    failures.push(...b.failures);
    baseline = { file: opts.baseline.label, comparisons: b.comparisons };
  }
  return { ...results, comparisons, gates: { expressions: opts.gates.map((g) => g.source), baseline, failures } };
}
