/**
 * `--baseline=FILE`: the current results against a committed results.json,
 * planner by planner, paired by (scenario, trial). A regression beyond noise
 * (see harness/engine/scoring/compare.ts: an exact sign test over per-scenario
 * differences, the scenario being the unit of evidence) in any paired rate of
 * the rate registry (completion, safe completion, the premature-irreversible
 * rate) fails the gate.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../../core/errors.ts';
import { RESULTS_SCHEMA_VERSION, type Results } from '../results/types.ts';
import { compare, type Comparison, type PairedRate } from '../scoring/compare.ts';
import { pairedOf, pairedRates } from '../scoring/rates.ts';
import type { GateFailure } from './fail-on.ts';
import { plural } from '../../util/plural.ts';

export function readBaseline(path: string): Results {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(
      `cannot read the baseline ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'pass the results.json of an earlier evaluation',
    );
  }
  let parsed: Results;
  try {
    parsed = JSON.parse(raw) as Results;
  } catch (e) {
    throw new UsageError(`the baseline ${path} is not JSON: ${(e as Error).message}`);
  }
  if (parsed?.schema_version !== RESULTS_SCHEMA_VERSION || !Array.isArray(parsed.runs)) {
    throw new UsageError(
      `the baseline ${path} is not a oneway results.json (schema_version ${RESULTS_SCHEMA_VERSION})`,
    );
  }
  return parsed;
}

export function baselineGate(
  current: Pick<Results, 'config' | 'runs'>,
  baseline: Pick<Results, 'config' | 'runs'>,
): { comparisons: Comparison[]; failures: GateFailure[] } {
  const comparisons: Comparison[] = [];
  const failures: GateFailure[] = [];
  for (const planner of current.config.planners) {
    if (!baseline.config.planners.includes(planner)) continue;
    const c = compare(
      planner,
      baseline.runs.filter((r) => r.planner === planner),
      planner,
      current.runs.filter((r) => r.planner === planner),
    );
    comparisons.push(c);
    for (const r of pairedRates()) {
      const d = pairedOf<PairedRate>(c.overall, r);
      if (d?.verdict !== 'regression') continue;
      failures.push({
        gate: 'baseline',
        planner,
        metric: r.name,
        value: d.diff,
        threshold: 'no regression beyond noise (sign test over scenarios, p < 0.05)',
        message: `baseline regression: ${planner} ${r.noun} changed by ${d.diff > 0 ? '+' : ''}${(d.diff * 100).toFixed(0)} points over ${plural(c.overall.scenarios, 'scenario')} (${d.baseline_only + d.candidate_only} changed; ${plural(c.overall.pairs, 'paired run')}) (p = ${d.p_value})`,
      });
    }
  }
  return { comparisons, failures };
}
