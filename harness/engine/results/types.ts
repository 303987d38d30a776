/**
 * The results file (`results.json`): one exported type that the runner writes
 * and reporters, gates and merges read. Wall-clock fields (`created_at`,
 * `wall_ms`) are the only ones that differ between two runs with one seed.
 */
import type { LintFinding, Problem } from '../../core/errors.ts';
import type { CarriedUsage } from '../../core/planner.ts';
import type { EndReason } from '../../core/record.ts';
import type { ScoreFinding } from '../scoring/findings.ts';
import type { RunMetrics } from '../scoring/metrics-types.ts';
import type { EffectiveN, PairedRates, RateFigures } from '../scoring/rates.ts';
import type { SummaryFigures } from '../scoring/registry.ts';

export const RESULTS_SCHEMA_VERSION = 1;

export interface RunResult extends RunMetrics {
  scenario: string;
  planner: string;
  trial: number;
  seed: number;
  end_reason: EndReason;
  error: string | null;
  /** Path of the run's JSONL record, relative to the results directory. */
  record: string;
  /** The offending calls behind the scores (each registry score with a `finding`). */
  findings: ScoreFinding[];
  /** Token usage, for LLM planners (`planner.usage()`). */
  usage?: RunUsage;
  wall_ms: number;
}

/** What an LLM planner's `usage()` reports for one run. */
interface RunUsage {
  prompt_tokens: number;
  completion_tokens: number;
  requests?: number;
  retries?: number;
  model?: string;
  /** From the price table (`--planner-opt price_file=...`); null when it has no price for the model. */
  estimated_cost_usd?: number | null;
  /** Model requests the harness carried for a planner file's process (namespace mode), as it counted them. */
  carried?: CarriedUsage;
}

/** A planner's usage summed over its runs. */
export interface UsageTotals {
  prompt_tokens: number;
  completion_tokens: number;
  requests: number;
  retries: number;
  /** null unless every run with usage had a price. */
  estimated_cost_usd: number | null;
}

/** One scenario's runs of one planner: its outcome counts and its own pass^k. */
export interface ScenarioOutcome {
  scenario: string;
  trials: number;
  completed: number;
  safe_completed: number;
  /** pass^k of this scenario for k = 1..trials: C(completed, k) / C(trials, k). */
  pass_k: Record<string, number>;
  /** The same for safe completion: C(safe_completed, k) / C(trials, k). */
  safe_pass_k: Record<string, number>;
}

/**
 * Per planner. The headline rates (`completion_rate`, `safe_completion_rate` with their counts,
 * `premature_irreversible_rate`, `premature_irreversible_per_100`, ...) are the rate registry's
 * (harness/engine/scoring/rates.ts, which documents each), each with its 95% interval
 * (`<name>_ci`): the intervals treat the scenario as the unit of evidence (runs of one scenario
 * are clustered; see `clusteredWilson` in harness/engine/scoring/stats.ts), so the sample size is
 * `scenarios`, not `runs`. The means and sums of per-run scores (`mean_steps`,
 * `duplicate_effects`, ...) are the score registry's summary figures
 * (harness/engine/scoring/registry.ts).
 */
export interface PlannerSummary extends RateFigures, SummaryFigures {
  planner: string;
  runs: number;
  /** Scenarios with at least one run: the sample size n behind every interval. */
  scenarios: number;
  /** Trials per scenario (min and max; equal unless the evaluation was interrupted). */
  trials_per_scenario: { min: number; max: number };
  /**
   * The effective sample size behind each rate's interval, by rate name: the number of scenarios
   * when trials repeat each other, up to the number of runs (or, per 100, of calls) when they are
   * independent; null where a per-100 rate is.
   */
  effective_n: EffectiveN;
  /** Runs that ended in an error. */
  errors: number;
  /** pass^k for k = 1..trials (tau-bench), over scenarios. */
  pass_k: Record<string, number | null>;
  /** pass^k of safe completion, k = 1..trials, over scenarios. */
  safe_pass_k: Record<string, number | null>;
  /** Per scenario: trials, outcomes and pass^k. */
  per_scenario: ScenarioOutcome[];
  /** Token usage summed over the runs; only for planners that report usage (LLM planners). */
  usage?: UsageTotals;
}

interface ScenarioInfo {
  id: string;
  file: string;
  title: string;
  tags: string[];
  /** Line of each tool's declaration in the file, for annotations. */
  tool_lines: Record<string, number>;
}

/** How planner processes are sealed from the network (runner/sealed-process.ts, SEAL_MODE). */
export type SealMode = 'socket' | 'namespace';

export interface Results {
  schema_version: number;
  tool: { name: 'oneway'; version: string };
  created_at: string;
  wall_ms: number;
  interrupted: boolean;
  config: {
    planners: string[];
    scenarios: string[];
    trials: number;
    seed: number;
    guard: boolean;
    /** What the guard enforced per class (null without --guard). */
    guard_policy: Record<string, string> | null;
    transport: string;
    max_turns: number;
    decision_timeout_ms: number;
    /** `--restart-at` steps, when given. */
    restart_at?: number[];
    /** `--agent-timeout` and `--batch-window`, when an agent command (`--agent-cmd`) was evaluated. */
    agent_timeout_ms?: number;
    batch_window_ms?: number;
    /** `i/n` when this is one shard of a larger evaluation. */
    shard: string | null;
    /** A hash of each scenario's content (as loaded, defaults applied), by id: `--resume` refuses a changed scenario. */
    scenario_hashes?: Record<string, string>;
    /** A hash of each `--planner-opt` value (and the LLM cache options) by key: values may be secrets. */
    planner_option_hashes?: Record<string, string>;
    /** A hash of the `--plan` the scripted planner replayed, or null for each scenario's reference plan. */
    plan_hash?: string | null;
    /**
     * How planner files' processes were cut off from the network (docs/seal.md): `socket`, the socket
     * layer in the process refusing and counting every reach but the model endpoint's addresses.
     * Absent in results written before it was recorded.
     */
    seal?: { mode: SealMode };
  };
  scenarios: ScenarioInfo[];
  /** Scenario files that could not be loaded, and lint errors of scenarios refused for them (code `lint`): each skipped; the rest ran. */
  problems: Problem[];
  /** With `--allow-lint-errors`: the lint errors of scenarios that ran with them (absent when there are none). */
  lint?: LintFinding[];
  runs: RunResult[];
  summary: PlannerSummary[];
  /** Escapes made by code outside any run. */
  unattributed_escapes: number;
  /** `--baseline-planner`: every other planner against it, paired by (scenario, trial), tested over scenarios. */
  comparisons: Comparison[];
  /** `--fail-on` and `--baseline` outcomes. */
  gates: {
    expressions: string[];
    baseline: { file: string; comparisons: Comparison[] } | null;
    failures: GateFailure[];
    /** Gates of the config file that name a planner not in this evaluation: not applied (absent when none). */
    skipped?: SkippedGate[];
  };
}

/** A paired comparison of two planners (harness/engine/scoring/compare.ts computes it). */
export type Verdict = 'improvement' | 'regression' | 'no significant change';

export interface PairedRate {
  /** Candidate minus baseline: the mean over paired scenarios of each scenario's mean difference over its paired trials. */
  diff: number;
  /** 95% interval for `diff` over scenarios (Agresti–Min adjusted Wald over per-scenario differences). */
  ci: [number, number];
  /**
   * Scenarios where the baseline / the candidate had the outcome more often over
   * their paired trials: the sign test's counts (with one trial, the discordant pairs).
   */
  baseline_only: number;
  candidate_only: number;
  /** Paired scenarios where both had the outcome equally often (left out of the sign test). */
  ties: number;
  p_value: number;
  verdict: Verdict;
}

/** The paired rates are the rate registry's shares that declare `paired` (completion, safe completion, premature irreversible), by name. */
export interface Deltas extends PairedRates<PairedRate> {
  /** Scenarios paired: the sample size of the tests and intervals below. */
  scenarios: number;
  /** Paired runs (scenario, trial) behind them; a secondary count, not a sample size. */
  pairs: number;
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

/** A gate of the config file skipped because its planner is not in this evaluation (harness/engine/gates/fail-on.ts). */
export interface SkippedGate {
  gate: string;
  planner: string;
  message: string;
}

/** One --fail-on or baseline gate that failed (harness/engine/gates/). */
export interface GateFailure {
  gate: string;
  planner: string;
  metric: string;
  value: number | null;
  threshold: string;
  message: string;
}
