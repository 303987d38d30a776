/**
 * `--workers=N`: runs spread over N threads, this one and N - 1 worker threads, for
 * CPU-bound planners on a machine with more than one core (async `--concurrency`
 * only overlaps waiting). Each worker sets up its own seal (a worker has its own
 * globals, so MSW must be set up in every worker), loads the planners from their
 * files and runs jobs as the main thread hands them out; the main thread runs jobs
 * from the same queue. Results are stored by job index, so the output is
 * identical to a serial run.
 *
 * Unless told, `eval` decides (autoWorkers): a long evaluation whose planners all
 * say they only compute goes to workers, one thread per core up to four.
 */
import { runOnWorkers } from './worker-pool.ts';
import { ownModule } from '../../util/module-url.ts';
import type { Policy } from '../guard/policy.ts';
import type { RunResult } from '../results/types.ts';
import { RUN_OPTION_KEYS, type EvalOptions, type Job, type RunOptions } from './eval-types.ts';
import type { PlannerHandle } from './run.ts';

/** What a worker needs to rebuild the evaluation on its side (structured-clonable). */
export interface WorkerInit {
  scenarios: EvalOptions['scenarios'];
  planners: { name: string; source: string }[];
  /** Every option a run reads but the gate, which the worker rebuilds from `guardPolicy`. */
  options: Omit<RunOptions, 'gate'>;
  guardPolicy: Policy | null;
  cwd: string;
  /** A planner file's processes' whole environment (`--planner-env`). */
  plannerEnv: Readonly<Record<string, string>>;
}

/**
 * Runs from which `eval` spreads CPU-bound planners over worker threads by default. Each worker
 * loads, compiles and collects on its own, which only a longer evaluation pays back. On two cores,
 * `--workers=2` (4 runs in flight a worker) against serial, compiled, the bundled suite × eager and
 * gated, once a serial evaluation made its record files at once (it had waited for them ~15% of
 * its time): 30× (2,400 runs) 0.99-1.02×, 50× (4,000) 1.04-1.05×, 75× (6,000) 1.12-1.21×, 100×
 * (8,000) 1.2-1.35×; a worker holds ~60 MiB more. Measured before the main thread ran jobs beside the
 * workers (one worker fewer for the same N); at 8,000 runs that design gave 1.18× and 1.33× on an idle
 * machine; the smaller counts were not measured again.
 */
export const AUTO_WORKERS_MIN_RUNS = 6_000;
/** At most this many threads by default: each worker holds its own heap (about 70 MiB). */
export const AUTO_WORKERS_MAX = 4;
/**
 * A worker's young generation, in MiB. V8's default (three semi-spaces of 16 MiB) let two
 * workers take 312 MiB at 8,000 runs; at 12 it was 261 MiB and as fast (npm run bench).
 */
const WORKER_YOUNG_GENERATION_MB = 12;
/**
 * Runs each worker keeps in flight (or `--concurrency` ÷ workers, if more). A run waited for its
 * record file, made on libuv's pool; with one run at a time a worker sat idle for that, and two
 * workers kept the cores ~83% busy. At 4, 8,000 runs on two workers took 11.6-12.0 s against
 * 14.0-14.2 at 1 (compiled, serial 15.3-16.8 s). A worker of planners that only compute now makes
 * its record files at once (worker-main.ts); runs that wait on a model still need the overlap.
 */
const WORKER_IN_FLIGHT = 4;

/** Whether every planner can be loaded again inside a worker (it came from a file). */
export function workerCapable(opts: Pick<EvalOptions, 'planners'>): boolean {
  return opts.planners.every((p) => typeof p.source === 'string');
}

/**
 * Threads for an evaluation `--workers` was not given for (this one included): one per core, at most
 * AUTO_WORKERS_MAX, when it has at least AUTO_WORKERS_MIN_RUNS runs to do, every planner says it
 * only computes (PlannerFactory.cpuBound) and can be loaded in a worker, runs are not asked to
 * overlap (`--concurrency` above 1 means the planners wait on something) and there are two cores
 * or more; otherwise 1 (this thread).
 *
 * @example
 * autoWorkers({ runs: 8000, planners: [eager, gated], concurrency: 1, cores: 2 }) // 2
 * autoWorkers({ runs: 800, planners: [eager, gated], concurrency: 1, cores: 8 }) // 1
 */
export function autoWorkers(e: {
  runs: number;
  planners: readonly PlannerHandle[];
  concurrency: number;
  cores: number;
}): number {
  if (e.runs < AUTO_WORKERS_MIN_RUNS || e.concurrency > 1 || e.cores < 2 || e.planners.length === 0) return 1;
  if (!e.planners.every((p) => p.cpuBound === true && typeof p.source === 'string')) return 1;
  return Math.min(e.cores, AUTO_WORKERS_MAX);
}

/** One run on this thread (evaluate.ts, runJob: passed in, as evaluate.ts calls this module). */
export type RunHere = (job: Job, opts: EvalOptions, how: { syncFiles?: boolean }) => Promise<RunResult>;

/**
 * Runs `jobs` on `workers` threads: this one and `workers` - 1 worker threads, which take the jobs
 * in order from one queue. This thread runs one at a time when the planners only compute (as many
 * as a worker otherwise); between its runs it hands the workers theirs. A worker adds CPU a thread of this process does not: it loads and
 * compiles the engine again, and collects a heap of its own (`--workers=2`, this thread and one worker,
 * took 1.05-1.32x the CPU-seconds of a serial evaluation on 8,000 runs; npm run bench, the workers row's cpu_ratio).
 */
export async function runWorkerPool(
  jobs: readonly Job[],
  opts: EvalOptions,
  workers: number,
  store: (job: Job, run: RunResult) => void,
  runHere: RunHere,
): Promise<void> {
  const options: Record<string, unknown> = {};
  for (const key of RUN_OPTION_KEYS) if (opts[key] !== undefined) options[key] = opts[key];
  const init: WorkerInit = {
    scenarios: opts.scenarios,
    planners: opts.planners.map((p) => ({ name: p.name, source: p.source as string })),
    options: options as WorkerInit['options'],
    guardPolicy: (opts.guardPolicy as Policy | undefined) ?? null,
    cwd: process.cwd(),
    plannerEnv: opts.plannerEnv ?? {},
  };
  const scenarioIndex = new Map(opts.scenarios.map((s, i) => [s, i]));
  const plannerIndex = new Map(opts.planners.map((p, i) => [p, i]));
  const byIndex = new Map(jobs.map((j) => [j.index, j]));
  const inFlight = Math.max(WORKER_IN_FLIGHT, Math.ceil((opts.concurrency ?? 1) / workers));
  let next = 0;
  let finished = 0;
  // The first failure, on any thread, stops handing out jobs; the runs in flight end, then it is thrown.
  let failure: { error: unknown } | undefined;
  const take = (): Job | undefined =>
    failure || next >= jobs.length || opts.shouldStop?.() ? undefined : (jobs[next++] as Job);
  const finish = (job: Job, run: RunResult) => {
    store(job, run);
    opts.onRunDone?.(run, ++finished, jobs.length);
  };
  const fail = (error: unknown) => {
    failure ??= { error };
  };
  // As a worker of planners that only compute does (worker-main.ts): record files made at once.
  const how = { syncFiles: opts.planners.every((p) => p.cpuBound === true) };
  const here = async () => {
    for (let job = take(); job !== undefined; job = take()) {
      try {
        finish(job, await runHere(job, opts, how));
      } catch (error) {
        fail(error);
      }
      // Back to the event loop between runs, to hand the workers theirs (and as runPool does, evaluate.ts).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };
  const threads = Math.min(workers, jobs.length) - 1;
  await Promise.all([
    // Planners that only compute have nothing to overlap here: one run at a time, as serially.
    ...Array.from({ length: how.syncFiles ? 1 : inFlight }, () => here()),
    threads < 1
      ? Promise.resolve()
      : runOnWorkers<RunResult>({
          entry: ownModule('./worker-main', import.meta.url),
          data: init,
          modules: init.planners.map((p) => p.source),
          workers: threads,
          youngGenerationMb: WORKER_YOUNG_GENERATION_MB,
          inFlight,
          next: () => {
            const job = take();
            if (job === undefined) return undefined;
            return {
              type: 'job',
              index: job.index,
              scenario: scenarioIndex.get(job.scenario) ?? -1,
              planner: plannerIndex.get(job.planner) ?? -1,
              trial: job.trial,
            };
          },
          done: (index, run) => finish(byIndex.get(index) as Job, run),
        }).catch(fail),
  ]);
  if (failure) throw failure.error;
}
