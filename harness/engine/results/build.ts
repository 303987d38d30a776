/**
 * The one place a `Results` is assembled. `oneway eval` (each checkpoint, and
 * the end), `eval:merge` and `oneway serve` give it what ran; it adds the
 * per-planner summary, the analysis asked for (every planner against a
 * baseline planner) and the gates (`--fail-on`, `--baseline`). Pure: what ran
 * in, results out.
 */
import { baselineGate } from '../gates/baseline.ts';
import { evaluateGates, skippedGates, type FailOnGate } from '../gates/fail-on.ts';
import { summarize } from '../scoring/aggregate.ts';
import { compareToBaselinePlanner } from '../scoring/compare.ts';
import { RESULTS_SCHEMA_VERSION, type Results } from './types.ts';

/** What ran: everything in results.json but what the builder derives (summary, comparisons, gates). */
export type RanResults = Omit<Results, 'schema_version' | 'summary' | 'comparisons' | 'gates'>;

/** The analysis and gates asked for (none by default). */
export interface Analysis {
  /** `--baseline-planner`: every other planner against it, paired by (scenario, trial). */
  baselinePlanner?: string;
  /** `--fail-on` gates. */
  gates?: readonly FailOnGate[];
  /** `--baseline`: a committed results.json the results must not regress from. */
  baseline?: { label: string; results: Results };
}

/**
 * Results from what ran. Keys keep results.json's order.
 *
 * @example
 * buildResults({ tool, created_at, wall_ms, interrupted: false, config, scenarios, problems: [], runs, unattributed_escapes: 0 }, { gates })
 */
export function buildResults(ran: RanResults, analysis: Analysis = {}): Results {
  const summary = summarize(ran.runs, ran.config.planners);
  const comparisons =
    analysis.baselinePlanner !== undefined
      ? compareToBaselinePlanner(ran.runs, ran.config.planners, analysis.baselinePlanner)
      : [];
  const gates = analysis.gates ?? [];
  const failures = evaluateGates(gates, summary);
  const skipped = skippedGates(gates, summary);
  let baseline: Results['gates']['baseline'] = null;
  if (analysis.baseline) {
    const b = baselineGate(ran, analysis.baseline.results);
    failures.push(...b.failures);
    baseline = { file: analysis.baseline.label, comparisons: b.comparisons };
  }
  return {
    schema_version: RESULTS_SCHEMA_VERSION,
    tool: ran.tool,
    created_at: ran.created_at,
    wall_ms: ran.wall_ms,
    interrupted: ran.interrupted,
    config: ran.config,
    scenarios: ran.scenarios,
    problems: ran.problems,
    ...(ran.lint?.length ? { lint: ran.lint } : {}),
    runs: ran.runs,
    summary,
    unattributed_escapes: ran.unattributed_escapes,
    comparisons,
    gates: { expressions: gates.map((g) => g.source), baseline, failures, ...(skipped.length ? { skipped } : {}) },
  };
}

/**
 * The same results with the analysis and gates asked for (any earlier ones replaced).
 *
 * @example
 * const results = analyseResults(await evaluate(opts), { baselinePlanner: 'eager', gates: [parseGate('premature_irreversible_rate>0')] });
 */
export function analyseResults(results: Results, analysis: Analysis): Results {
  const { schema_version: _v, summary: _s, comparisons: _c, gates: _g, ...ran } = results;
  return buildResults(ran, analysis);
}
