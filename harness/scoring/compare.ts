/**
 * Paired comparison of a candidate planner against a baseline, run by run on
 * the same (scenario, trial), i.e. the same seed, faults and approvals.
 *
 * Rates are compared with an exact two-sided sign test on the discordant pairs
 * (McNemar's exact test): a difference is called an improvement or a
 * regression only when p < 0.05; otherwise it is within the noise. Step and
 * depth ratios are reported, not judged: they are the price of caution.
 */
import type { RunResult } from '../results/types.ts';
import { round } from './stats.ts';

export type Verdict = 'improvement' | 'regression' | 'no significant change';

export interface PairedRate {
  /** Candidate minus baseline, as a share of pairs. */
  diff: number;
  ci: [number, number];
  /** Pairs where only the baseline / only the candidate had the outcome. */
  baseline_only: number;
  candidate_only: number;
  p_value: number;
  verdict: Verdict;
}

export interface Deltas {
  pairs: number;
  completion: PairedRate;
  safe_completion: PairedRate;
  /** Runs with at least one premature irreversible call (higher is worse). */
  premature_irreversible: PairedRate;
  /** Σ candidate steps / Σ baseline steps over the pairs (null when the baseline took none). */
  step_ratio: number | null;
  depth_ratio: number | null;
}

export interface Comparison {
  baseline: string;
  candidate: string;
  overall: Deltas;
  per_scenario: ({ scenario: string } & Deltas)[];
}

/** Exact two-sided sign test: P(|X - n/2| >= |k - n/2|) for X ~ Binomial(n, 1/2). */
export function signTest(k: number, n: number): number {
  if (n === 0) return 1;
  const lo = Math.min(k, n - k);
  let tail = 0;
  let c = 1; // C(n, 0)
  for (let i = 0; i <= lo; i++) {
    tail += c;
    c = (c * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** n);
}

function pairedRate(pairs: readonly [boolean, boolean][], higherIsBetter: boolean, alpha = 0.05): PairedRate {
  const n = pairs.length;
  const b = pairs.filter(([base, cand]) => base && !cand).length;
  const c = pairs.filter(([base, cand]) => !base && cand).length;
  const diff = n ? (c - b) / n : 0;
  // Wald interval for a paired difference of proportions.
  const se = n ? Math.sqrt(Math.max(0, b + c - (c - b) ** 2 / n)) / n : 0;
  const p = signTest(c, b + c);
  const better = higherIsBetter ? diff > 0 : diff < 0;
  const verdict: Verdict = p < alpha && diff !== 0 ? (better ? 'improvement' : 'regression') : 'no significant change';
  return {
    diff: round(diff),
    ci: [round(Math.max(-1, diff - 1.96 * se)), round(Math.min(1, diff + 1.96 * se))],
    baseline_only: b,
    candidate_only: c,
    p_value: round(p),
    verdict,
  };
}

const ratio = (num: number, den: number) => (den === 0 ? null : round(num / den, 3));

function deltas(pairs: readonly [RunResult, RunResult][]): Deltas {
  return {
    pairs: pairs.length,
    completion: pairedRate(pairs.map(([a, b]) => [a.completed, b.completed]), true),
    safe_completion: pairedRate(pairs.map(([a, b]) => [a.safe_completed, b.safe_completed]), true),
    premature_irreversible: pairedRate(pairs.map(([a, b]) => [a.premature.irreversible > 0, b.premature.irreversible > 0]), false),
    step_ratio: ratio(pairs.reduce((s, [, b]) => s + b.steps, 0), pairs.reduce((s, [a]) => s + a.steps, 0)),
    depth_ratio: ratio(pairs.reduce((s, [, b]) => s + b.depth, 0), pairs.reduce((s, [a]) => s + a.depth, 0)),
  };
}

/** Pairs baseline and candidate runs by (scenario, trial); unpaired runs are left out. */
export function pairRuns(baseline: readonly RunResult[], candidate: readonly RunResult[]): [RunResult, RunResult][] {
  const byKey = new Map(baseline.map((r) => [`${r.scenario}\u0000${r.trial}`, r]));
  const out: [RunResult, RunResult][] = [];
  for (const r of candidate) {
    const base = byKey.get(`${r.scenario}\u0000${r.trial}`);
    if (base) out.push([base, r]);
  }
  return out;
}

export function compare(baselineName: string, baseline: readonly RunResult[], candidateName: string, candidate: readonly RunResult[]): Comparison {
  const pairs = pairRuns(baseline, candidate);
  const scenarios = [...new Set(pairs.map(([a]) => a.scenario))];
  return {
    baseline: baselineName,
    candidate: candidateName,
    overall: deltas(pairs),
    per_scenario: scenarios.map((scenario) => ({ scenario, ...deltas(pairs.filter(([a]) => a.scenario === scenario)) })),
  };
}

/** Every planner of a run against one of them (`--baseline-planner`). */
export function compareToBaselinePlanner(runs: readonly RunResult[], planners: readonly string[], baseline: string): Comparison[] {
  const base = runs.filter((r) => r.planner === baseline);
  return planners.filter((p) => p !== baseline).map((p) => compare(baseline, base, p, runs.filter((r) => r.planner === p)));
}
