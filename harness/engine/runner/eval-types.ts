/** What an evaluation is asked to do: its options and its jobs (evaluate.ts runs them, here or on worker threads). */
import type { LintFinding, Problem } from '../../core/errors.ts';
import type { PlanItem, Scenario } from '../../core/scenario.ts';
import type { RunResult } from '../results/types.ts';
import type { TransportName } from '../sandbox/transport.ts';
import type { BatchGate } from './gate.ts';
import type { PlannerHandle } from './run.ts';

export interface EvalScenario {
  scenario: Scenario;
  file: string;
  toolLines?: Record<string, number>;
}

export interface EvalOptions {
  scenarios: EvalScenario[];
  planners: PlannerHandle[];
  trials: number;
  seed: number;
  outDir: string;
  transport: TransportName;
  maxTurns: number;
  decisionTimeoutMs: number;
  plannerOptions: Record<string, string>;
  /** A planner file's processes' whole environment (`--planner-env`), for worker threads that load it again. */
  plannerEnv?: Readonly<Record<string, string>>;
  /** `--restart-at`: restart faults on every scenario. */
  restartAt?: number[];
  /** The plan every planner is given (--plan); without it, `scripted` alone gets each scenario's reference_plan (evaluate.ts, offeredPlan). */
  plan?: PlanItem[];
  gate?: BatchGate;
  /** The policy the gate enforces, for the results file. */
  guardPolicy?: Record<string, string>;
  problems?: Problem[];
  /** Lint errors the scenarios run with (`--allow-lint-errors`), for the results file. */
  lint?: LintFinding[];
  /** The agent process's limits, when one of the planners is an agent command (`--agent-cmd`), for the results file. */
  agent?: { timeoutMs: number; batchWindowMs: number };
  onRunDone?(run: RunResult, done: number, total: number): void;
  /** Runs in flight at once (default 1). Results are identical whatever the value. */
  concurrency?: number;
  /** Checked before each run starts: true stops the evaluation after the runs in flight. */
  shouldStop?(): boolean;
  /** `i/n` when the scenarios are one shard of a larger evaluation. */
  shard?: string;
  /** Threads to spread runs over: this one and `workers` - 1 worker threads (0 or 1: this thread). Needs planners loaded from files. */
  workers?: number;
  /** Runs of an interrupted evaluation to keep (`--resume`); only the missing ones run. */
  resume?: RunResult[];
}

/**
 * The options one run reads (runJob): what a worker thread is given so its runs are the runs this
 * thread would do. runJob takes exactly these, so an option it starts reading must be listed here,
 * and a worker then gets it too (`--restart-at` was once left out, and workers ran without it).
 */
export const RUN_OPTION_KEYS = [
  'seed',
  'outDir',
  'transport',
  'maxTurns',
  'decisionTimeoutMs',
  'plannerOptions',
  'plan',
  'restartAt',
] as const;

/** What runJob reads: the RUN_OPTION_KEYS, and the guard's gate (a worker rebuilds it from its policy). */
export type RunOptions = Pick<EvalOptions, (typeof RUN_OPTION_KEYS)[number] | 'gate'>;

/** One run to do (exported for `npm run serve`, which runs a job per MCP session as sessions arrive). */
export interface Job {
  index: number;
  scenario: EvalScenario;
  planner: PlannerHandle;
  trial: number;
}
