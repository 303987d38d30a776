/**
 * `npm run fuzz -- --workers=N`: scenarios fuzzed side by side on worker
 * threads, one scenario per worker at a time. Fuzzing one scenario is
 * sequential (fast-check's search and shrinking), so the parallelism is across
 * scenarios, and every scenario's report is the one a serial run gives.
 * Each worker loads the properties and the planner again from their names or
 * files (functions do not cross threads), and holds its own seal.
 */
import { Worker } from 'node:worker_threads';
import type { Scenario } from '../schema/scenario.ts';
import type { FuzzOptions, FuzzReport } from './fuzz.ts';

/** What a worker needs to fuzz on its side (structured-clonable). */
export interface WorkerInit {
  scenarios: { scenario: Scenario; file: string }[];
  /** `--property` values: built-in names and module paths. */
  properties: string[];
  /** `--planner` value, if any. */
  planner?: string;
  options: Pick<FuzzOptions, 'runs' | 'seed' | 'path' | 'guard' | 'transport' | 'plannerOptions' | 'arbitrary'>;
  cwd: string;
}

export type ToWorker = { type: 'job'; index: number; timeLimitMs?: number } | { type: 'stop' };
export type FromWorker = { type: 'ready' } | { type: 'done'; index: number; report: FuzzReport } | { type: 'failed'; index: number; message: string };

/**
 * Fuzzes every scenario of `init` over `workers` threads; `done` gets each report as it arrives.
 *
 * @example
 * await fuzzOnWorkers(init, 2, (i, report) => reports[i] = report, () => undefined);
 */
export async function fuzzOnWorkers(
  init: WorkerInit,
  workers: number,
  done: (index: number, report: FuzzReport) => void,
  timeLimitFor: (remaining: number) => number | undefined,
): Promise<void> {
  let next = 0;
  const total = init.scenarios.length;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const w = new Worker(new URL('./worker-boot.mjs', import.meta.url), { workerData: init });
      const give = () => {
        if (next >= total) {
          w.postMessage({ type: 'stop' } satisfies ToWorker);
          return;
        }
        const limit = timeLimitFor(total - next);
        w.postMessage({ type: 'job', index: next++, ...(limit !== undefined ? { timeLimitMs: limit } : {}) } satisfies ToWorker);
      };
      w.on('message', (m: FromWorker) => {
        if (m.type === 'ready') return give();
        if (m.type === 'failed') return reject(new Error(`worker failed on scenario ${init.scenarios[m.index]?.scenario.id}: ${m.message}`));
        done(m.index, m.report);
        give();
      });
      w.on('error', reject);
      w.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with code ${code}`))));
    });
  await Promise.all(Array.from({ length: Math.max(1, Math.min(workers, total)) }, one));
}
