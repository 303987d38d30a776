/**
 * An evaluation: every planner on every scenario for every trial, each run on
 * the same derived seed across planners (so comparisons are paired), results
 * collected into `results.json` and one JSONL record per run.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { PlanItem, Scenario } from '../../core/scenario.ts';
import { openFileSink, type RecordSink } from '../record/writer.ts';
import { buildResults as assembleResults } from '../results/build.ts';
import type { Results, RunResult } from '../results/types.ts';
import { RunStore } from '../results/run-store.ts';
import { writeResults } from '../results/write.ts';
import { seal } from '../sandbox/seal.ts';
import { ensureDir, isOutputFailure, outputError } from '../io/atomic-write.ts';
import { stableJson } from '../../util/json.ts';
import { tightHeapGrowth } from '../../util/heap.ts';
import { packageVersion } from '../../util/package-root.ts';
import { deriveSeed } from '../../util/rng.ts';
import type { EvalOptions, Job, RunOptions } from './eval-types.ts';
import { runOne, type PlannerHandle } from './run.ts';
import { sealMode } from './sealed-process.ts';
import { runWorkerPool, workerCapable } from './workers.ts';

/** oneway's version, as package.json gives it (results.json `tool.version`, the MCP server's version). */
export const VERSION = packageVersion();

export type { EvalOptions, EvalScenario, Job } from './eval-types.ts';

/** The seed of one (scenario, trial): independent of the planner, so every planner faces the same faults. */
export function runSeed(seed: number, scenario: string, trial: number): number {
  return deriveSeed(seed, scenario, trial);
}

/** The longest file name part safeName writes as is; longer ones keep a prefix and a hash of the whole. */
const SAFE_NAME_MAX = 80;

/**
 * A file-system-safe name for a planner (paths given to --planner contain slashes), one per
 * name: letters, digits, `.`, `_` and `-` stay, and any other character becomes `~` and its
 * UTF-8 bytes in hex (`x/y` → `x~2Fy`, `x y` → `x~20y`), so two names never share a record
 * file. Longer than 80 so written, a name keeps 64 characters and `~~` and 16 hex of a hash of
 * the whole (82 characters: no shorter name is written so).
 *
 * @example
 * safeName('gated')           // 'gated'
 * safeName('planners/my.mjs') // 'planners~2Fmy.mjs'
 */
export function safeName(name: string): string {
  if (name === '') return '~';
  const escaped = name.replace(/[^A-Za-z0-9._-]/gu, (c) => {
    const cp = c.codePointAt(0) ?? 0;
    // A lone surrogate has no UTF-8 bytes of its own: its code unit, marked by a letter hex does not use.
    if (cp >= 0xd800 && cp <= 0xdfff) return `~U${cp.toString(16).toUpperCase()}`;
    return [...Buffer.from(c, 'utf8')].map((b) => `~${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  });
  if (escaped.length <= SAFE_NAME_MAX) return escaped;
  return `${escaped.slice(0, 64)}~~${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

export function recordPath(scenario: string, planner: string, trial: number): string {
  return `runs/${scenario}/${safeName(planner)}-t${trial}.jsonl`;
}

/**
 * The plan a run's planner is given (`PlannerContext.plan`): the user's `--plan` when there is one;
 * else the scenario's `reference_plan`, to the built-in `scripted` planner only. Any other planner
 * gets none: the reference plan is the answer key, and a planner that replayed it would tie it.
 *
 * @example
 * offeredPlan(gated, scenario, undefined) // undefined
 * offeredPlan(scripted, scenario, undefined) // scenario.reference_plan
 */
export function offeredPlan(
  planner: Pick<PlannerHandle, 'replaysReferencePlan'>,
  scenario: Scenario,
  given: PlanItem[] | undefined,
): PlanItem[] | undefined {
  return given ?? (planner.replaysReferencePlan ? scenario.reference_plan : undefined);
}

/**
 * One run, its record written as it goes. `syncFiles`: the record's file is created at once, on this
 * thread (record/writer.ts, openFileSink), for a caller whose thread has nothing else to do while
 * it waits: a serial evaluation, a worker thread of planners that only compute.
 */
export async function runJob(job: Job, opts: RunOptions, how: { syncFiles?: boolean } = {}): Promise<RunResult> {
  const { scenario, file } = job.scenario;
  const { planner, trial } = job;
  const seed = runSeed(opts.seed, scenario.id, trial);
  const record = recordPath(scenario.id, planner.name, trial);
  const t0 = Date.now();
  const plan = offeredPlan(planner, scenario, opts.plan);
  const sink = await recordSink(opts.outDir, join(opts.outDir, record), how.syncFiles === true);
  const outcome = await runOne({
    scenario,
    scenarioFile: file,
    planner,
    plannerContext: { options: opts.plannerOptions, ...(plan ? { plan } : {}) },
    trial,
    seed,
    runId: `${scenario.id}/${planner.name}/${trial}`,
    sink,
    transport: opts.transport,
    maxTurns: opts.maxTurns,
    decisionTimeoutMs: opts.decisionTimeoutMs,
    ...(opts.gate ? { gate: opts.gate } : {}),
    ...(opts.restartAt ? { restartAt: opts.restartAt } : {}),
    // Scored once: the findings come from the same step sets as the scores.
    findings: true,
  });
  // A record that could not be written (a full disk) ends the evaluation as the user's error, after this run.
  if (sink.failure) throw outputError(sink.failure, join(opts.outDir, record));
  const { events: _events, findings, ...metrics } = outcome;
  return {
    scenario: scenario.id,
    planner: planner.name,
    trial,
    seed,
    ...metrics,
    record,
    findings: findings ?? [],
    wall_ms: Date.now() - t0,
  };
}

/**
 * The run's JSONL record. A file-system failure while writing it is kept, not thrown into the
 * run (where it would read as the planner's fault); `runJob` reports it once the run is over.
 */
async function recordSink(root: string, path: string, sync: boolean): Promise<RecordSink & { failure?: unknown }> {
  let inner: RecordSink;
  try {
    inner = await openFileSink(path, { sync, root });
  } catch (e) {
    throw outputError(e, path);
  }
  const sink: RecordSink & { failure?: unknown } = {
    write(event) {
      if (sink.failure !== undefined) return;
      try {
        inner.write(event);
      } catch (e) {
        if (!isOutputFailure(e)) throw e;
        sink.failure = e;
      }
    },
    close() {
      try {
        inner.close();
      } catch (e) {
        if (!isOutputFailure(e)) throw e;
        sink.failure ??= e;
      }
    },
  };
  return sink;
}

/**
 * Runs jobs with at most `concurrency` in flight. Each run has its own sandbox
 * and seeds, so interleaving cannot change a result; results are kept in job
 * order, so the output is identical to a serial run.
 */
async function runPool(
  jobs: readonly Job[],
  opts: EvalOptions,
  store: (job: Job, run: RunResult) => void,
): Promise<void> {
  let next = 0;
  let finished = 0;
  // The first failure stops new runs; the runs in flight finish, then it is thrown.
  let failure: { error: unknown } | undefined;
  const concurrency = Math.max(1, Math.min(opts.concurrency ?? 1, jobs.length));
  // One run at a time: nothing else can use the wait for a record file (record/writer.ts).
  const how = { syncFiles: concurrency === 1 };
  const worker = async () => {
    while (next < jobs.length && !failure && !opts.shouldStop?.()) {
      const job = jobs[next++] as Job;
      try {
        const run = await runJob(job, opts, how);
        store(job, run);
        opts.onRunDone?.(run, ++finished, jobs.length);
      } catch (error) {
        failure ??= { error };
      }
      // Back to the event loop between runs. Runs whose planners and tools answer at once chain promises
      // without end, so otherwise the loop never turns: timers (decision timeouts, checkpoints, progress)
      // wait, and V8 keeps every object a WeakRef was made for until the loop turns (fetch makes one
      // per request), so memory grew with the number of runs (1.4 GiB at 6,200; npm run bench).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  if (failure) throw failure.error;
}

export async function evaluate(opts: EvalOptions): Promise<Results> {
  const started = Date.now();
  // How planner processes are sealed (a namespace asked for where none can be had is a usage error, before any run).
  sealMode();
  ensureDir(opts.outDir);
  const jobs: Job[] = [];
  for (const scenario of opts.scenarios) {
    for (const planner of opts.planners) {
      for (let trial = 1; trial <= opts.trials; trial++) jobs.push({ index: jobs.length, scenario, planner, trial });
    }
  }
  // --resume: runs that finished before an interruption are kept as they were, not run again.
  const key = (scenario: string, planner: string, trial: number) => `${scenario}\u0000${planner}\u0000${trial}`;
  const kept = new Map((opts.resume ?? []).map((r) => [key(r.scenario, r.planner, r.trial), r]));
  const done: (RunResult | undefined)[] = jobs.map((j) =>
    kept.get(key(j.scenario.scenario.id, j.planner.name, j.trial)),
  );
  const todo = jobs.filter((j) => done[j.index] === undefined);

  const escapesBefore = seal.unattributed.length;
  let frame: Frame | undefined;
  const assemble = (interrupted: boolean): Results => {
    const runs = done.filter((r): r is RunResult => r !== undefined);
    const at = { started, interrupted, unattributed: seal.unattributed.length - escapesBefore };
    return resultsOf((frame ??= frameOf(opts)), runs, at);
  };
  // What finished is on disk as the evaluation goes (at most once a second), marked interrupted until the end.
  // Each write is atomic (results/write.ts); one that fails stops new runs, and the error is thrown once the
  // runs in flight are done: the last checkpoint on disk stays whole. A checkpoint rewrites every run so far,
  // so it grows with the evaluation: the next one waits ten times as long as the last took, which keeps
  // checkpoints under a tenth of the time (once a second, they made a long evaluation quadratic).
  let nextWrite = 0;
  let writeFailure: { error: unknown } | undefined;
  const onRunDone = opts.onRunDone;
  const checkpoint = (run: RunResult, n: number, total: number) => {
    onRunDone?.(run, n + (jobs.length - total), jobs.length);
    if (!writeFailure && Date.now() >= nextWrite) {
      const t0 = Date.now();
      try {
        writeResults(opts.outDir, assemble(true), held.textOf);
      } catch (error) {
        writeFailure = { error };
      }
      nextWrite = Date.now() + Math.max(1000, 10 * (Date.now() - t0));
    }
  };
  const shouldStop = () => writeFailure !== undefined || opts.shouldStop?.() === true;
  // Finished runs are held compactly: their scores in memory, the rest on disk (results/run-store.ts).
  const held = new RunStore(opts.outDir);
  try {
    seal.acquire();
    // A long evaluation's heap stays near what it holds (harness/util/heap.ts).
    const releaseHeap = tightHeapGrowth();
    try {
      const store = (job: Job, run: RunResult) => (done[job.index] = held.hold(run));
      if ((opts.workers ?? 0) > 1 && workerCapable(opts))
        await runWorkerPool(todo, { ...opts, onRunDone: checkpoint, shouldStop }, opts.workers ?? 1, store, runJob);
      else await runPool(todo, { ...opts, onRunDone: checkpoint, shouldStop }, store);
    } finally {
      seal.release();
      releaseHeap();
    }
    if (writeFailure) throw writeFailure.error;
    const results = assemble(done.some((r) => r === undefined));
    writeResults(opts.outDir, results, held.textOf);
    // The caller gets every run whole again.
    results.runs = results.runs.map((r) => held.whole(r));
    return results;
  } finally {
    held.close();
  }
}

/** The results of an evaluation so far (eval's checkpoints and end, serve's sessions), through the one results builder. */
export function buildResults(
  opts: EvalOptions,
  runs: RunResult[],
  at: { started: number; interrupted: boolean; unattributed: number },
): Results {
  return resultsOf(frameOf(opts), runs, at);
}

/** What results say of what was asked: the same at every checkpoint of an evaluation, so made once for it. */
type Frame = Pick<Results, 'tool' | 'config' | 'scenarios' | 'problems' | 'lint'>;

function frameOf(opts: EvalOptions): Frame {
  return {
    tool: { name: 'oneway', version: VERSION },
    config: {
      planners: opts.planners.map((p) => p.name),
      scenarios: opts.scenarios.map((s) => s.scenario.id),
      trials: opts.trials,
      seed: opts.seed,
      guard: opts.gate !== undefined,
      guard_policy: opts.gate ? (opts.guardPolicy ?? null) : null,
      transport: opts.transport,
      max_turns: opts.maxTurns,
      decision_timeout_ms: opts.decisionTimeoutMs,
      ...(opts.restartAt?.length ? { restart_at: opts.restartAt } : {}),
      ...(opts.agent ? { agent_timeout_ms: opts.agent.timeoutMs, batch_window_ms: opts.agent.batchWindowMs } : {}),
      shard: opts.shard ?? null,
      scenario_hashes: Object.fromEntries(opts.scenarios.map((s) => [s.scenario.id, scenarioHash(s.scenario)])),
      // Where cassettes are kept and whether they are recorded or replayed does not change the results.
      planner_option_hashes: Object.fromEntries(
        Object.entries(opts.plannerOptions)
          .filter(([k]) => k !== 'llm_cache' && k !== 'llm_cache_dir')
          .map(([k, v]) => [k, contentHash(v)]),
      ),
      plan_hash: opts.plan ? contentHash(opts.plan) : null,
      seal: { mode: sealMode() },
    },
    scenarios: opts.scenarios.map((s) => ({
      id: s.scenario.id,
      file: s.file,
      title: s.scenario.title,
      tags: s.scenario.tags,
      tool_lines: s.toolLines ?? {},
    })),
    problems: opts.problems ?? [],
    ...(opts.lint?.length ? { lint: opts.lint } : {}),
  };
}

function resultsOf(
  frame: Frame,
  runs: RunResult[],
  at: { started: number; interrupted: boolean; unattributed: number },
): Results {
  return assembleResults({
    tool: frame.tool,
    created_at: new Date(at.started).toISOString(),
    wall_ms: Date.now() - at.started,
    interrupted: at.interrupted,
    config: frame.config,
    scenarios: frame.scenarios,
    problems: frame.problems,
    ...(frame.lint ? { lint: frame.lint } : {}),
    runs,
    unattributed_escapes: at.unattributed,
  });
}

/** A short hash of a JSON value, independent of key order. */
function contentHash(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex').slice(0, 16);
}

const scenarioHashes = new WeakMap<Scenario, string>();

/** A scenario's content hash (as loaded, defaults applied), as `--resume` compares it. */
function scenarioHash(scenario: Scenario): string {
  let h = scenarioHashes.get(scenario);
  if (h === undefined) scenarioHashes.set(scenario, (h = contentHash(scenario)));
  return h;
}
