/**
 * Aggregation over trials and scenarios, per planner: pure, from run results.
 *
 * The headline rates are the rate registry's (rates.ts): shares of runs (completed / runs) or per
 * 100 calls, whose intervals treat the scenario as the unit of evidence: runs of one scenario are
 * clustered (see `clusteredWilson` in stats.ts), so repeating identical runs never narrows them.
 * The other summary figures are the score registry's means and sums (registry.ts), and `errors`.
 */
import type { PlannerSummary, RunResult, ScenarioOutcome, UsageTotals } from '../results/types.ts';
import { rateKeys, rates, type EffectiveN, type RateDef, type RateFigures } from './rates.ts';
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

/**
 * One rate of the registry over a planner's runs (`groups`: the same runs by scenario, the
 * clusters of its interval): its summary fields in order (a share's count, the rate, its
 * interval) and the effective sample size behind the interval.
 */
function rateFigures(
  r: RateDef,
  runs: readonly RunResult[],
  groups: readonly (readonly RunResult[])[],
): { fields: Record<string, unknown>; nEff: number | null } {
  const k = rateKeys(r);
  const clusters = (count: (x: RunResult) => number, of: (x: RunResult) => number): Cluster[] =>
    groups.map((rs) => rs.map((x) => ({ successes: count(x), trials: of(x) })));
  if (r.how === 'share') {
    const hits = runs.filter((x) => r.holds(x)).length;
    const c = clusteredWilson(
      clusters(
        (x) => (r.holds(x) ? 1 : 0),
        () => 1,
      ),
    );
    return {
      fields: {
        ...(k.count !== undefined ? { [k.count]: hits } : {}),
        [k.value]: runs.length ? round(hits / runs.length) : 0,
        [k.ci]: c.ci,
      },
      nEff: round(c.n_eff, 2),
    };
  }
  const hits = runs.reduce((a, x) => a + r.hits(x), 0);
  const of = runs.reduce((a, x) => a + r.of(x), 0);
  // Per 100 calls: the scenario is still the cluster (its calls and its runs are not independent).
  const c = clusteredWilson(clusters(r.hits, r.of));
  return {
    fields: {
      [k.value]: of ? round((100 * hits) / of, 2) : null,
      [k.ci]: of ? [round(100 * c.ci[0], 2), round(100 * c.ci[1], 2)] : null,
    },
    nEff: of ? round(c.n_eff, 2) : null,
  };
}

export function summarizePlanner(planner: string, runs: readonly RunResult[]): PlannerSummary {
  const n = runs.length;
  const groups = [...byScenario(runs)];
  // The registry's rates, in its order: their fields, then the effective sizes behind their intervals.
  const clusters = groups.map(([, rs]) => rs);
  const rated = rates().map((r) => ({ r, ...rateFigures(r, runs, clusters) }));
  const rateFields = Object.assign({}, ...rated.map((x) => x.fields)) as RateFigures;
  const effective_n = Object.fromEntries(rated.map((x) => [x.r.name, x.nEff])) as EffectiveN;
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
    ...rateFields,
    effective_n,
    ...figures(runs),
    pass_k,
    safe_pass_k,
    per_scenario,
    ...(runs.some((r) => r.usage) ? { usage: sumUsage(runs) } : {}),
  };
}

/** A summary figure after the headline rates: a registry score's mean or sum over runs, or `errors`. */
export type FigureName = SummaryFigureName | 'errors';

interface Figure {
  key: FigureName;
  /** Whether `--fail-on` may name it. */
  gate: boolean;
  of: (runs: readonly RunResult[]) => number;
}

/** The summary figures after the headline rates, in summary order (`errors`, runs that ended in an error, sits at 50). */
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
