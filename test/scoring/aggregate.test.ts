/**
 * Per-planner summaries and paired comparisons with the scenario as the unit of evidence:
 * repeating a deterministic planner's identical runs k times must change no interval,
 * p-value or verdict (issue 14, "Statistics").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baselineGate } from '../../harness/engine/gates/baseline.ts';
import type { PlannerSummary, Results, RunResult } from '../../harness/engine/results/types.ts';
import { summarizePlanner } from '../../harness/engine/scoring/aggregate.ts';
import { compare, type Comparison } from '../../harness/engine/scoring/compare.ts';
import { wilson } from '../../harness/engine/scoring/stats.ts';
import { prop } from '../helpers/prop.ts';
import { runResult } from '../helpers/results.ts';

/** What a deterministic planner does on one scenario, every trial alike. */
interface Outcome {
  completed: boolean;
  safe: boolean;
  premature: number;
  irreversible: number;
  steps: number;
}

const run = (planner: string, scenario: string, trial: number, o: Outcome): RunResult =>
  runResult({
    scenario,
    planner,
    trial,
    completed: o.completed,
    safe_completed: o.completed && o.safe,
    steps: o.steps,
    turns: o.steps,
    depth: o.steps,
    sim_time_ms: 10 * o.steps,
    premature: { irreversible: Math.min(o.premature, o.irreversible), compensable: 0, reversible: 0 },
    irreversible_calls: o.irreversible,
  });

/** k trials of every scenario, trial-major like the runner, each trial a copy of the planner's one behaviour. */
const trials = (planner: string, outcomes: readonly Outcome[], k: number): RunResult[] =>
  Array.from({ length: k }, (_, t) => outcomes.map((o, i) => run(planner, `s${i}`, t + 1, o))).flat();

/** Everything a summary says about evidence: rates, intervals, effective sizes, n. */
const evidence = (s: PlannerSummary) => ({
  scenarios: s.scenarios,
  completion_rate: s.completion_rate,
  completion_ci: s.completion_ci,
  safe_completion_rate: s.safe_completion_rate,
  safe_completion_ci: s.safe_completion_ci,
  premature_irreversible_rate: s.premature_irreversible_rate,
  premature_irreversible_ci: s.premature_irreversible_ci,
  premature_irreversible_per_100: s.premature_irreversible_per_100,
  premature_irreversible_per_100_ci: s.premature_irreversible_per_100_ci,
  effective_n: s.effective_n,
  pass_k_1: s.pass_k['1'],
});

/** A comparison without the one figure that legitimately grows with trials: the paired-run count. */
const tested = (c: Comparison) => ({
  ...c,
  overall: { ...c.overall, pairs: 0 },
  per_scenario: c.per_scenario.map((p) => ({ ...p, pairs: 0 })),
});

const outcome = fc.record({
  completed: fc.boolean(),
  safe: fc.boolean(),
  premature: fc.nat(3),
  irreversible: fc.nat(3),
  steps: fc.integer({ min: 1, max: 9 }),
});

const resultsOf = (runs: RunResult[], planners: string[], k: number): Results =>
  ({ config: { planners, trials: k }, runs }) as unknown as Results;

describe('k identical trials are one trial’s evidence', () => {
  prop([fc.array(outcome, { minLength: 1, maxLength: 20 }), fc.array(outcome, { minLength: 1, maxLength: 20 })], {
    numRuns: 150,
  })('summaries, comparisons and the baseline gate are exactly the same at k = 1, 2 and 5', (base, cand) => {
    const scenarios = Math.min(base.length, cand.length);
    const [b, c] = [base.slice(0, scenarios), cand.slice(0, scenarios)];
    const at = (k: number) => {
      const bRuns = trials('base', b, k);
      const cRuns = trials('cand', c, k);
      const gate = baselineGate(resultsOf(trials('p', c, k), ['p'], k), resultsOf(trials('p', b, k), ['p'], k));
      return {
        base: evidence(summarizePlanner('base', bRuns)),
        cand: evidence(summarizePlanner('cand', cRuns)),
        comparison: tested(compare('base', bRuns, 'cand', cRuns)),
        gate: gate.failures.map((f) => [f.metric, f.value]),
        gateComparison: gate.comparisons.map(tested),
      };
    };
    const one = at(1);
    expect(at(2)).toEqual(one);
    expect(at(5)).toEqual(one);
  });

  it('reproduces the issue: 4 of 31 scenarios better stays within noise at 1, 2 and 5 trials', () => {
    // eager vs speculative: speculative completes 4 scenarios eager does not, the other 27 tie.
    // Sign test over scenarios: 4 of 4 non-zero differences positive, p = 2·(1/2)^4 = 0.125 at every k.
    // (Counted over runs it was 2·(1/2)^8 = 0.0078 at k = 2 and 2·(1/2)^20 ≈ 2e-6 at k = 5.)
    const same = { safe: false, premature: 1, irreversible: 1, steps: 2 };
    const eager = Array.from({ length: 31 }, (_, i) => ({ ...same, completed: i >= 4 }));
    const speculative = Array.from({ length: 31 }, () => ({ ...same, completed: true }));
    for (const k of [1, 2, 5]) {
      const c = compare('eager', trials('eager', eager, k), 'speculative', trials('speculative', speculative, k));
      expect(c.overall).toMatchObject({ scenarios: 31, pairs: 31 * k });
      expect(c.overall.completion).toMatchObject({
        diff: 0.129,
        candidate_only: 4,
        baseline_only: 0,
        ties: 27,
        p_value: 0.125,
        verdict: 'no significant change',
      });
    }
  });
});

describe('the summary', () => {
  it('gives n as scenarios × trials and clustered intervals (hand-computed)', () => {
    // 4 scenarios × 2 trials of a deterministic planner: 3 complete, 1 does not.
    // n_eff = 4 (see stats.test.ts), so completion_ci = wilson(3, 4) = [0.3006, 0.9544], not wilson(6, 8).
    const o = (completed: boolean, premature: number, irreversible: number): Outcome => ({
      completed,
      safe: premature === 0,
      premature,
      irreversible,
      steps: 2,
    });
    const s = summarizePlanner('p', trials('p', [o(true, 0, 1), o(true, 1, 2), o(true, 0, 0), o(false, 1, 1)], 2));
    expect(s).toMatchObject({
      runs: 8,
      scenarios: 4,
      trials_per_scenario: { min: 2, max: 2 },
      completion_rate: 0.75,
      completion_ci: [0.3006, 0.9544],
    });
    expect(wilson(6, 8)).not.toEqual(s.completion_ci);
    // Safe: scenarios 1 and 3 → 2 of 4: wilson(2, 4) = [0.15, 0.85].
    expect(s.safe_completion_ci).toEqual(wilson(2, 4));
    // Premature runs: scenarios 2 and 4 → 2 of 4.
    expect(s.premature_irreversible_ci).toEqual(wilson(2, 4));
    // Per 100: premature calls / irreversible calls per scenario (both trials): [0/2, 2/4, -, 2/2]; Y = 4, N = 8, p̂ = 0.5.
    // Σ(8·y_i − 4·n_i)² = (0 − 8)² + (16 − 16)² + (16 − 8)² = 128; raw = 4·4·64/128 = 8; cap = 1 + 2 + 1 = 4 (one trial's calls)
    // → n_eff = 4, Wilson(0.5, 4) = [0.15, 0.85] → per 100: [15, 85].
    expect(s.premature_irreversible_per_100).toBe(50);
    expect(s.premature_irreversible_per_100_ci).toEqual([15, 85]);
    expect(s.effective_n).toEqual({
      completion: 4,
      safe_completion: 4,
      premature_irreversible: 4,
      premature_irreversible_per_100: 4,
    });
  });

  it("keeps results.json's field order: the rates in registry order, then the score registry's figures", () => {
    const s = summarizePlanner(
      'p',
      trials('p', [{ completed: true, safe: true, premature: 0, irreversible: 1, steps: 1 }], 2),
    );
    expect(Object.keys(s)).toEqual([
      'planner',
      'runs',
      'scenarios',
      'trials_per_scenario',
      'completed',
      'completion_rate',
      'completion_ci',
      'safe_completed',
      'safe_completion_rate',
      'safe_completion_ci',
      'premature_irreversible_rate',
      'premature_irreversible_ci',
      'premature_irreversible_per_100',
      'premature_irreversible_per_100_ci',
      'effective_n',
      'mean_steps',
      'mean_depth',
      'mean_sim_time_ms',
      'mean_turns',
      'errors',
      'sandbox_escapes',
      'blocked',
      'rejected',
      'unreconciled_retries',
      'duplicate_effects',
      'restarts',
      'pass_k',
      'safe_pass_k',
      'per_scenario',
    ]);
    expect(Object.keys(s.effective_n)).toEqual([
      'completion',
      'safe_completion',
      'premature_irreversible',
      'premature_irreversible_per_100',
    ]);
  });

  it('has no per-100 interval without irreversible calls', () => {
    const s = summarizePlanner(
      'p',
      trials('p', [{ completed: true, safe: true, premature: 0, irreversible: 0, steps: 1 }], 1),
    );
    expect(s.premature_irreversible_per_100).toBeNull();
    expect(s.premature_irreversible_per_100_ci).toBeNull();
    expect(s.effective_n.premature_irreversible_per_100).toBeNull();
  });

  it('gives pass^k per scenario and over scenarios for a stochastic planner (hand-computed)', () => {
    // Scenario a: 3 trials, 2 completed (1 of them safely); scenario b: 3 trials, all completed safely.
    const r = (scenario: string, trial: number, completed: boolean, safe: boolean) =>
      run('p', scenario, trial, { completed, safe, premature: 0, irreversible: 0, steps: 1 });
    const s = summarizePlanner('p', [
      r('a', 1, true, true),
      r('a', 2, true, false),
      r('a', 3, false, false),
      r('b', 1, true, true),
      r('b', 2, true, true),
      r('b', 3, true, true),
    ]);
    // a: pass^1 = 2/3, pass^2 = C(2,2)/C(3,2) = 1/3, pass^3 = 0; safe: 1/3, 0, 0. b: 1, 1, 1.
    expect(s.per_scenario).toEqual([
      {
        scenario: 'a',
        trials: 3,
        completed: 2,
        safe_completed: 1,
        pass_k: { 1: 0.6667, 2: 0.3333, 3: 0 },
        safe_pass_k: { 1: 0.3333, 2: 0, 3: 0 },
      },
      {
        scenario: 'b',
        trials: 3,
        completed: 3,
        safe_completed: 3,
        pass_k: { 1: 1, 2: 1, 3: 1 },
        safe_pass_k: { 1: 1, 2: 1, 3: 1 },
      },
    ]);
    // Over scenarios: pass^2 = (1/3 + 1)/2 = 0.6667; pass^3 = (0 + 1)/2 = 0.5; safe pass^2 = (0 + 1)/2 = 0.5.
    expect(s.pass_k).toEqual({ 1: 0.8333, 2: 0.6667, 3: 0.5 });
    expect(s.safe_pass_k).toEqual({ 1: 0.6667, 2: 0.5, 3: 0.5 });
    expect(s.trials_per_scenario).toEqual({ min: 3, max: 3 });
  });
});
