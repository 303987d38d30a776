/**
 * Paired comparison of a candidate planner against a baseline on the same
 * (scenario, trial), i.e. the same seed, faults and approvals.
 *
 * The scenario is the unit of evidence, not the run: trials of one scenario
 * are not independent (a deterministic planner repeats itself exactly), so
 * counting each paired run as a new observation would let `--trials` alone
 * turn "within noise" into "improvement". Per outcome (each share of runs of
 * the rate registry, rates.ts, that declares `paired`: completion, safe
 * completion, premature irreversible call):
 *
 *     d_s  = mean over the paired trials t of scenario s of (candidate_t − baseline_t)   (outcomes 0/1)
 *     diff = mean over the m paired scenarios of d_s
 *     test = exact two-sided sign test over the scenarios with d_s ≠ 0
 *            (c = #{d_s > 0}, b = #{d_s < 0}; p = P(|X − (b+c)/2| ≥ |c − (b+c)/2|), X ~ Bin(b+c, ½))
 *     ci   = Agresti–Min adjusted Wald interval over the d_s (see `pairedDiffCi`)
 *
 * A difference is called an improvement or a regression only when p < 0.05
 * (and the mean moves the same way as the majority of scenarios); otherwise
 * it is within the noise. With one trial per scenario this is exactly
 * McNemar's exact test on the discordant pairs and Agresti–Min's interval;
 * repeating identical trials leaves every d_s, hence every figure here but
 * `pairs`, unchanged. Step and depth ratios are reported, not judged: they are
 * the price of caution.
 */
import type { Comparison, Deltas, PairedRate, RunResult, Verdict } from '../results/types.ts';
import { pairedRates, type PairedRates } from './rates.ts';
import { round, Z95 } from './stats.ts';

export type { Comparison, PairedRate } from '../results/types.ts';

/**
 * Exact two-sided sign test: P(|X - n/2| >= |k - n/2|) for X ~ Binomial(n, 1/2).
 *
 * @example
 * signTest(0, 6) // 2/64 = 0.03125
 */
export function signTest(k: number, n: number): number {
  if (n === 0) return 1;
  const lo = Math.min(k, n - k);
  let tail = 0;
  if (n <= 1000) {
    let c = 1; // C(n, 0)
    for (let i = 0; i <= lo; i++) {
      tail += c;
      c = (c * (n - i)) / (i + 1);
    }
    return Math.min(1, (2 * tail) / 2 ** n);
  }
  // 2^n overflows past n = 1023: the same sum in log space.
  let logC = 0;
  for (let i = 0; i <= lo; i++) {
    tail += Math.exp(logC - n * Math.LN2);
    logC += Math.log(n - i) - Math.log(i + 1);
  }
  return Math.min(1, 2 * tail);
}

/**
 * A 95% interval for the mean of per-scenario paired differences d_s ∈ [−1, 1]:
 * the Agresti–Min (2005) adjusted Wald interval, generalised from 0/±1
 * differences to per-scenario means by adding two pseudo-scenarios' weight
 * (½ at +1, ½ at −1, 1 at 0):
 *
 *     m* = m + 2,  d̃ = Σ d_s / m*,  v = (Σ d_s² + 1) / m* − d̃²,  ci = d̃ ± z·√(v / m*), clamped to [−1, 1]
 *
 * With one trial per scenario (d_s ∈ {−1, 0, 1}: b negative, c positive) this is
 * Agresti–Min's interval for matched proportions:
 * (c − b)/(n+2) ± z·√((b + c + 1) − (c − b)²/(n+2)) / (n+2).
 *
 * @example
 * pairedDiffCi([1, 1, 1, 1, 1, 1]) // d̃ = 6/8 = 0.75, v = 7/8 − 0.5625 = 0.3125, se = √(0.3125/8) = 0.1976 → [0.3626, 1]
 */
export function pairedDiffCi(diffs: readonly number[], z = Z95): [number, number] {
  const d = [...diffs].sort((a, b) => a - b);
  const mStar = d.length + 2;
  const centre = d.reduce((a, x) => a + x, 0) / mStar;
  const v = Math.max(0, (d.reduce((a, x) => a + x * x, 0) + 1) / mStar - centre * centre);
  const half = z * Math.sqrt(v / mStar);
  return [round(Math.max(-1, centre - half)), round(Math.min(1, centre + half))];
}

/** One scenario's paired trials for one outcome: how many had it, for the baseline and the candidate. */
interface ScenarioCounts {
  baseline: number;
  candidate: number;
  trials: number;
}

function pairedRate(perScenario: readonly ScenarioCounts[], higherIsBetter: boolean, alpha = 0.05): PairedRate {
  // Sorted, so the sums do not depend on the order the runs came in.
  const d = perScenario.map((s) => (s.candidate - s.baseline) / s.trials).sort((a, b) => a - b);
  const m = d.length;
  const diff = m ? d.reduce((a, x) => a + x, 0) / m : 0;
  const c = d.filter((x) => x > 0).length;
  const b = d.filter((x) => x < 0).length;
  const p = signTest(c, b + c);
  const up = diff > 0 && c > b;
  const down = diff < 0 && b > c;
  const verdict: Verdict =
    p < alpha && (up || down) ? (up === higherIsBetter ? 'improvement' : 'regression') : 'no significant change';
  return {
    diff: round(diff),
    ci: m ? pairedDiffCi(d) : [-1, 1],
    baseline_only: b,
    candidate_only: c,
    ties: m - b - c,
    p_value: round(p),
    verdict,
  };
}

const ratio = (num: number, den: number) => (den === 0 ? null : round(num / den, 3));

function deltas(pairs: readonly [RunResult, RunResult][]): Deltas {
  const groups = new Map<string, [RunResult, RunResult][]>();
  for (const pr of pairs) {
    const g = groups.get(pr[0].scenario);
    if (g) g.push(pr);
    else groups.set(pr[0].scenario, [pr]);
  }
  const counts = (has: (r: RunResult) => boolean): ScenarioCounts[] =>
    [...groups.values()].map((g) => ({
      baseline: g.filter(([a]) => has(a)).length,
      candidate: g.filter(([, b]) => has(b)).length,
      trials: g.length,
    }));
  // The rate registry's paired shares, in its order.
  const rated = Object.fromEntries(
    pairedRates().map((r) => [r.name, pairedRate(counts(r.holds), r.better === 'higher')]),
  ) as PairedRates<PairedRate>;
  return {
    scenarios: groups.size,
    pairs: pairs.length,
    ...rated,
    step_ratio: ratio(
      pairs.reduce((s, [, b]) => s + b.steps, 0),
      pairs.reduce((s, [a]) => s + a.steps, 0),
    ),
    depth_ratio: ratio(
      pairs.reduce((s, [, b]) => s + b.depth, 0),
      pairs.reduce((s, [a]) => s + a.depth, 0),
    ),
  };
}

/** Pairs baseline and candidate runs by (scenario, trial); unpaired runs are left out. */
function pairRuns(baseline: readonly RunResult[], candidate: readonly RunResult[]): [RunResult, RunResult][] {
  const byKey = new Map(baseline.map((r) => [`${r.scenario}\u0000${r.trial}`, r]));
  const out: [RunResult, RunResult][] = [];
  for (const r of candidate) {
    const base = byKey.get(`${r.scenario}\u0000${r.trial}`);
    if (base) out.push([base, r]);
  }
  return out;
}

/**
 * The candidate against the baseline: overall (tested over scenarios) and per
 * scenario (one scenario is one unit of evidence: its figures are reported,
 * and its test can never reach significance alone).
 */
export function compare(
  baselineName: string,
  baseline: readonly RunResult[],
  candidateName: string,
  candidate: readonly RunResult[],
): Comparison {
  const pairs = pairRuns(baseline, candidate);
  const scenarios = [...new Set(pairs.map(([a]) => a.scenario))];
  return {
    baseline: baselineName,
    candidate: candidateName,
    overall: deltas(pairs),
    per_scenario: scenarios.map((scenario) => ({
      scenario,
      ...deltas(pairs.filter(([a]) => a.scenario === scenario)),
    })),
  };
}

/** Every planner of a run against one of them (`--baseline-planner`). */
export function compareToBaselinePlanner(
  runs: readonly RunResult[],
  planners: readonly string[],
  baseline: string,
): Comparison[] {
  const base = runs.filter((r) => r.planner === baseline);
  return planners
    .filter((p) => p !== baseline)
    .map((p) =>
      compare(
        baseline,
        base,
        p,
        runs.filter((r) => r.planner === p),
      ),
    );
}
