/**
 * `--workers=N`: runs spread over worker threads, for CPU-bound planners on a
 * machine with more than one core (async `--concurrency` only overlaps waiting).
 * Each worker sets up its own seal (a worker has its own globals, so MSW must
 * be set up in every worker), loads the planners from their files and runs
 * jobs as the main thread hands them out; results come back by job index, so
 * the output is identical to a serial run.
 */
import { Worker } from 'node:worker_threads';
import type { Policy } from '../guard/policy.ts';
import type { RunResult } from '../results/types.ts';
import type { EvalOptions, Job } from './evaluate.ts';

/** What a worker needs to rebuild the evaluation on its side (structured-clonable). */
export interface WorkerInit {
  scenarios: EvalOptions['scenarios'];
  planners: { name: string; source: string }[];
  options: Pick<EvalOptions, 'trials' | 'seed' | 'outDir' | 'transport' | 'maxTurns' | 'decisionTimeoutMs' | 'plannerOptions' | 'plan'>;
  guardPolicy: Policy | null;
  cwd: string;
}

export type ToWorker = { type: 'job'; index: number; scenario: number; planner: number; trial: number } | { type: 'stop' };
export type FromWorker = { type: 'ready' } | { type: 'done'; index: number; run: RunResult } | { type: 'failed'; index: number; message: string };

/** Whether every planner can be loaded again inside a worker (it came from a file). */
export function workerCapable(opts: EvalOptions): boolean {
  return opts.planners.every((p) => typeof p.source === 'string');
}

export async function runWorkerPool(jobs: readonly Job[], opts: EvalOptions, workers: number, store: (job: Job, run: RunResult) => void): Promise<void> {
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
  let next = 0;
  let finished = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      // The boot file registers tsx in the worker: the planners and the engine are TypeScript.
      const w = new Worker(new URL('./worker-boot.mjs', import.meta.url), { workerData: init });
      const inFlight = new Map<number, Job>();
      const give = () => {
        if (next >= jobs.length || opts.shouldStop?.()) {
          w.postMessage({ type: 'stop' } satisfies ToWorker);
          return;
        }
        const job = jobs[next++] as Job;
        inFlight.set(job.index, job);
        w.postMessage({ type: 'job', index: job.index, scenario: scenarioIndex.get(job.scenario) ?? -1, planner: plannerIndex.get(job.planner) ?? -1, trial: job.trial } satisfies ToWorker);
      };
      w.on('message', (m: FromWorker) => {
        if (m.type === 'ready') return give();
        const job = inFlight.get(m.index);
        inFlight.delete(m.index);
        if (m.type === 'failed' || !job) return reject(new Error(`worker failed on job ${m.index}: ${m.type === 'failed' ? m.message : 'unknown job'}`));
        store(job, m.run);
        opts.onRunDone?.(m.run, ++finished, jobs.length);
        give();
      });
      w.on('error', reject);
      w.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with code ${code}`))));
    });
  await Promise.all(Array.from({ length: Math.max(1, Math.min(workers, jobs.length)) }, one));
}
