/**
 * `--workers=N`: runs spread over worker threads, for CPU-bound planners on a
 * machine with more than one core (async `--concurrency` only overlaps waiting).
 * Each worker sets up its own seal (a worker has its own globals, so MSW must
 * be set up in every worker), loads the planners from their files and runs
 * jobs as the main thread hands them out; results come back by job index, so
 * the output is identical to a serial run.
 */
import { runOnWorkers } from './worker-pool.ts';
import { ownModule } from '../../util/module-url.ts';
import type { Policy } from '../guard/policy.ts';
import type { RunResult } from '../results/types.ts';
import type { EvalOptions, Job } from './eval-types.ts';

/** What a worker needs to rebuild the evaluation on its side (structured-clonable). */
export interface WorkerInit {
  scenarios: EvalOptions['scenarios'];
  planners: { name: string; source: string }[];
  options: Pick<
    EvalOptions,
    'trials' | 'seed' | 'outDir' | 'transport' | 'maxTurns' | 'decisionTimeoutMs' | 'plannerOptions' | 'plan'
  >;
  guardPolicy: Policy | null;
  cwd: string;
}

/** Whether every planner can be loaded again inside a worker (it came from a file). */
export function workerCapable(opts: EvalOptions): boolean {
  return opts.planners.every((p) => typeof p.source === 'string');
}

export async function runWorkerPool(
  jobs: readonly Job[],
  opts: EvalOptions,
  workers: number,
  store: (job: Job, run: RunResult) => void,
): Promise<void> {
  const init: WorkerInit = {
    scenarios: opts.scenarios,
    planners: opts.planners.map((p) => ({ name: p.name, source: p.source as string })),
    options: {
      trials: opts.trials,
      seed: opts.seed,
      outDir: opts.outDir,
      transport: opts.transport,
      maxTurns: opts.maxTurns,
      decisionTimeoutMs: opts.decisionTimeoutMs,
      plannerOptions: opts.plannerOptions,
      ...(opts.plan ? { plan: opts.plan } : {}),
    },
    guardPolicy: (opts.guardPolicy as Policy | undefined) ?? null,
    cwd: process.cwd(),
  };
  const scenarioIndex = new Map(opts.scenarios.map((s, i) => [s, i]));
  const plannerIndex = new Map(opts.planners.map((p, i) => [p, i]));
  const byIndex = new Map(jobs.map((j) => [j.index, j]));
  let next = 0;
  let finished = 0;
  await runOnWorkers<RunResult>({
    entry: ownModule('./worker-main', import.meta.url),
    data: init,
    workers: Math.min(workers, jobs.length),
    next: () => {
      if (next >= jobs.length || opts.shouldStop?.()) return undefined;
      const job = jobs[next++] as Job;
      return {
        type: 'job',
        index: job.index,
        scenario: scenarioIndex.get(job.scenario) ?? -1,
        planner: plannerIndex.get(job.planner) ?? -1,
        trial: job.trial,
      };
    },
    done: (index, run) => {
      store(byIndex.get(index) as Job, run);
      opts.onRunDone?.(run, ++finished, jobs.length);
    },
  });
}
