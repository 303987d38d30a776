/**
 * Aggregation over trials and scenarios, per planner: pure, from run results.
 *
 * Rates are over runs (completed / runs), but their intervals treat the
 * scenario as the unit of evidence: runs of one scenario are clustered (see
 * `clusteredWilson` in stats.ts), so repeating identical runs never narrows them.
 */
import type { PlannerSummary, RunResult, ScenarioOutcome, UsageTotals } from '../results/types.ts';
import { scoreOf, summaryFigures, type SummaryFigureName, type SummaryFigures } from './registry.ts';
import { clusteredWilson, mean, passHatK, round, scenarioPassHatK, type Cluster } from './stats.ts';

export function summarize(runs: readonly RunResult[], planners: readonly string[]): PlannerSummary[] {
  return planners.map((planner) =>
    summarizePlanner(
      planner,
      runs.filter((r) => r.planner === planner),
    ),
  );
}

/** Runs grouped by scenario, in order of first appearance. */
function byScenario(runs: readonly RunResult[]): Map<string, RunResult[]> {
  const out = new Map<string, RunResult[]>();
  for (const r of runs) {
    const list = out.get(r.scenario);
    if (list) list.push(r);
    else out.set(r.scenario, [r]);
  }
  return out;
}

/** pass^k for k = 1..trials of one scenario. */
function passKs(successes: number, trials: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let k = 1; k <= trials; k++) out[String(k)] = round(scenarioPassHatK(successes, trials, k) ?? 0);
  return out;
}

export function summarizePlanner(planner: string, runs: readonly RunResult[]): PlannerSummary {
  const n = runs.length;
  const completed = runs.filter((r) => r.completed).length;
  const safe = runs.filter((r) => r.safe_completed).length;
  const withPremature = runs.filter((r) => r.premature.irreversible > 0).length;
  const irrCalls = runs.reduce((a, r) => a + r.irreversible_calls, 0);
  const irrPremature = runs.reduce((a, r) => a + r.premature.irreversible, 0);
  const groups = [...byScenario(runs)];
  const clusters = (count: (r: RunResult) => number, of: (r: RunResult) => number = () => 1): Cluster[] =>
    groups.map(([, rs]) => rs.map((r) => ({ successes: count(r), trials: of(r) })));
  const completion = clusteredWilson(clusters((r) => (r.completed ? 1 : 0)));
  const safeCompletion = clusteredWilson(clusters((r) => (r.safe_completed ? 1 : 0)));
  const premature = clusteredWilson(clusters((r) => (r.premature.irreversible > 0 ? 1 : 0)));
  // Per 100 irreversible attempts: the scenario is still the cluster (its calls and its runs are not independent).
  const per100 = clusteredWilson(
    clusters(
      (r) => r.premature.irreversible,
      (r) => r.irreversible_calls,
    ),
  );
  const per_scenario: ScenarioOutcome[] = groups.map(([scenario, rs]) => {
    const c = rs.filter((r) => r.completed).length;
    const sc = rs.filter((r) => r.safe_completed).length;
    return {
      scenario,
      trials: rs.length,
      completed: c,
      safe_completed: sc,
      pass_k: passKs(c, rs.length),
      safe_pass_k: passKs(sc, rs.length),
    };
  });
  const trialCounts = per_scenario.map((s) => s.trials);
  const maxTrials = Math.max(0, ...trialCounts);
  const pass_k: Record<string, number | null> = {};
  const safe_pass_k: Record<string, number | null> = {};
  for (let k = 1; k <= maxTrials; k++) {
    pass_k[String(k)] = passHatK(
      per_scenario.map((s) => ({ successes: s.completed, trials: s.trials })),
      k,
    );
    safe_pass_k[String(k)] = passHatK(
      per_scenario.map((s) => ({ successes: s.safe_completed, trials: s.trials })),
      k,
    );
  }
  return {
    planner,
    runs: n,
    scenarios: groups.length,
    trials_per_scenario: { min: trialCounts.length ? Math.min(...trialCounts) : 0, max: maxTrials },
    completed,
    completion_rate: n ? round(completed / n) : 0,
    completion_ci: completion.ci,
    safe_completed: safe,
    safe_completion_rate: n ? round(safe / n) : 0,
    safe_completion_ci: safeCompletion.ci,
    premature_irreversible_rate: n ? round(withPremature / n) : 0,
    premature_irreversible_ci: premature.ci,
    premature_irreversible_per_100: irrCalls ? round((100 * irrPremature) / irrCalls, 2) : null,
    premature_irreversible_per_100_ci: irrCalls ? [round(100 * per100.ci[0], 2), round(100 * per100.ci[1], 2)] : null,
    effective_n: {
      completion: round(completion.n_eff, 2),
      safe_completion: round(safeCompletion.n_eff, 2),
      premature_irreversible: round(premature.n_eff, 2),
      premature_irreversible_per_100: irrCalls ? round(per100.n_eff, 2) : null,
    },
    ...figures(runs),
    pass_k,
    safe_pass_k,
    per_scenario,
    ...(runs.some((r) => r.usage) ? { usage: sumUsage(runs) } : {}),
  };
}

/** A summary figure after the headline ones: a registry score's mean or sum over runs, or `errors`. */
export type FigureName = SummaryFigureName | 'errors';

interface Figure {
  key: FigureName;
  /** Whether `--fail-on` may name it. */
  gate: boolean;
  of: (runs: readonly RunResult[]) => number;
}

/** The summary figures after the headline ones, in summary order (`errors`, runs that ended in an error, sits at 50). */
export const figureList = (): Figure[] =>
  [
    ...summaryFigures().map(({ key, score }) => {
      const values = (runs: readonly RunResult[]) => runs.map((r) => Number(scoreOf(r, score)));
      const of =
        score.aggregate.how === 'mean'
          ? (runs: readonly RunResult[]) => mean(values(runs))
          : (runs: readonly RunResult[]) => values(runs).reduce((a, b) => a + b, 0);
      return { at: score.aggregate.at, figure: { key, gate: score.aggregate.gate, of } };
    }),
    {
      at: 50,
      figure: {
        key: 'errors' as const,
        gate: true,
        of: (runs: readonly RunResult[]) => runs.filter((r) => r.error !== null).length,
      },
    },
  ]
    .sort((a, b) => a.at - b.at)
    .map((x) => x.figure);

function figures(runs: readonly RunResult[]): SummaryFigures & { errors: number } {
  return Object.fromEntries(figureList().map((f) => [f.key, f.of(runs)])) as SummaryFigures & { errors: number };
}

/**
 * Token usage summed over runs; the cost only when every run with usage had one.
 *
 * @example
 * sumUsage([{ usage: { prompt_tokens: 10, completion_tokens: 2, estimated_cost_usd: 0.1 } }, ...]).prompt_tokens
 */
export function sumUsage(runs: readonly Pick<RunResult, 'usage'>[]): UsageTotals {
  const used = runs.flatMap((r) => (r.usage ? [r.usage] : []));
  const priced = used.length > 0 && used.every((u) => typeof u.estimated_cost_usd === 'number');
  return {
    prompt_tokens: used.reduce((a, u) => a + u.prompt_tokens, 0),
    completion_tokens: used.reduce((a, u) => a + u.completion_tokens, 0),
    requests: used.reduce((a, u) => a + (u.requests ?? 0), 0),
    retries: used.reduce((a, u) => a + (u.retries ?? 0), 0),
    // Micro-dollars: a sum of many small floats stays the same from run to run.
    estimated_cost_usd: priced
      ? Math.round(used.reduce((a, u) => a + (u.estimated_cost_usd ?? 0), 0) * 1e6) / 1e6
      : null,
  };
}
