/**
 * An evaluation: every planner on every scenario for every trial, each run on
 * the same derived seed across planners (so comparisons are paired), results
 * collected into `results.json` and one JSONL record per run.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../errors.ts';
import type { PlanItem, Scenario } from '../schema/scenario.ts';
import { fileSink } from '../record/writer.ts';
import { RESULTS_SCHEMA_VERSION, type Results, type RunResult } from '../results/types.ts';
import { writeResults } from '../results/write.ts';
import { seal } from '../sandbox/seal.ts';
import type { TransportName } from '../sandbox/transport.ts';
import { summarize } from '../scoring/aggregate.ts';
import { findingsOf } from '../scoring/findings.ts';
import { deriveSeed } from '../util/rng.ts';
import type { BatchGate } from './gate.ts';
import { runOne, type PlannerHandle } from './run.ts';

export const VERSION = '0.1.0';

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
  /** A plan for `scripted` (from --plan); otherwise each scenario's reference_plan. */
  plan?: PlanItem[];
  gate?: BatchGate;
  /** The policy the gate enforces, for the results file. */
  guardPolicy?: Record<string, string>;
  problems?: Problem[];
  onRunDone?(run: RunResult, done: number, total: number): void;
  /** Runs in flight at once (default 1). Results are identical whatever the value. */
  concurrency?: number;
  /** Checked before each run starts: true stops the evaluation after the runs in flight. */
  shouldStop?(): boolean;
  /** `i/n` when the scenarios are one shard of a larger evaluation. */
  shard?: string;
}

/** The seed of one (scenario, trial): independent of the planner, so every planner faces the same faults. */
export function runSeed(seed: number, scenario: string, trial: number): number {
  return deriveSeed(seed, scenario, trial);
}

/** A file-system-safe name for a planner (paths given to --planner contain slashes). */
export function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'planner';
}

export function recordPath(scenario: string, planner: string, trial: number): string {
  return `runs/${scenario}/${safeName(planner)}-t${trial}.jsonl`;
}

interface Job {
  index: number;
  scenario: EvalScenario;
  planner: PlannerHandle;
  trial: number;
}

async function runJob(job: Job, opts: EvalOptions): Promise<RunResult> {
  const { scenario, file } = job.scenario;
  const { planner, trial } = job;
  const seed = runSeed(opts.seed, scenario.id, trial);
  const record = recordPath(scenario.id, planner.name, trial);
  const t0 = Date.now();
  const plan = opts.plan ?? scenario.reference_plan;
  const outcome = await runOne({
    scenario,
    scenarioFile: file,
    planner,
    plannerContext: { options: opts.plannerOptions, ...(plan ? { plan } : {}) },
    trial,
    seed,
    runId: `${scenario.id}/${planner.name}/${trial}`,
    sink: fileSink(join(opts.outDir, record)),
    transport: opts.transport,
    maxTurns: opts.maxTurns,
    decisionTimeoutMs: opts.decisionTimeoutMs,
    ...(opts.gate ? { gate: opts.gate } : {}),
  });
  const { events, ...metrics } = outcome;
  return { scenario: scenario.id, planner: planner.name, trial, seed, ...metrics, record, findings: findingsOf(events), wall_ms: Date.now() - t0 };
}

/**
 * Runs jobs with at most `concurrency` in flight. Each run has its own sandbox
 * and seeds, so interleaving cannot change a result; results are kept in job
 * order, so the output is identical to a serial run.
 */
async function runPool(jobs: readonly Job[], opts: EvalOptions): Promise<RunResult[]> {
  const results: RunResult[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < jobs.length && !opts.shouldStop?.()) {
      const job = jobs[next++] as Job;
      const run = await runJob(job, opts);
      results[job.index] = run;
      opts.onRunDone?.(run, ++done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 1, jobs.length)) }, worker));
  return results.filter((r) => r !== undefined);
}

export async function evaluate(opts: EvalOptions): Promise<Results> {
  const started = Date.now();
  mkdirSync(opts.outDir, { recursive: true });
  const jobs: Job[] = [];
  for (const scenario of opts.scenarios) {
    for (const planner of opts.planners) {
      for (let trial = 1; trial <= opts.trials; trial++) jobs.push({ index: jobs.length, scenario, planner, trial });
    }
  }
  const escapesBefore = seal.unattributed.length;
  seal.acquire();
  let runs: RunResult[];
  try {
    runs = await runPool(jobs, opts);
  } finally {
    seal.release();
  }
  const plannerNames = opts.planners.map((p) => p.name);
  const results: Results = {
    schema_version: RESULTS_SCHEMA_VERSION,
    tool: { name: 'oneway', version: VERSION },
    created_at: new Date(started).toISOString(),
    wall_ms: Date.now() - started,
    interrupted: runs.length < jobs.length,
    config: {
      planners: plannerNames,
      scenarios: opts.scenarios.map((s) => s.scenario.id),
      trials: opts.trials,
      seed: opts.seed,
      guard: opts.gate !== undefined,
      guard_policy: opts.gate ? (opts.guardPolicy ?? null) : null,
      transport: opts.transport,
      max_turns: opts.maxTurns,
      decision_timeout_ms: opts.decisionTimeoutMs,
      shard: opts.shard ?? null,
    },
    scenarios: opts.scenarios.map((s) => ({ id: s.scenario.id, file: s.file, title: s.scenario.title, tags: s.scenario.tags, tool_lines: s.toolLines ?? {} })),
    problems: opts.problems ?? [],
    runs,
    summary: summarize(runs, plannerNames),
    unattributed_escapes: seal.unattributed.length - escapesBefore,
    comparisons: [],
    gates: { expressions: [], baseline: null, failures: [] },
  };
  writeResults(opts.outDir, results);
  return results;
}
