/**
 * `npm run fuzz -- --workers=N`: scenarios fuzzed side by side on worker
 * threads, one scenario per worker at a time. Fuzzing one scenario is
 * sequential (fast-check's search and shrinking), so the parallelism is across
 * scenarios, and every scenario's report is the one a serial run gives.
 * Each worker loads the properties and the planner again from their names or
 * files (functions do not cross threads), and holds its own seal.
 */
import { runOnWorkers } from '../../engine/runner/worker-pool.ts';
import { ownModule } from '../../util/module-url.ts';
import type { Scenario } from '../../core/scenario.ts';
import type { FuzzOptions, FuzzReport } from './fuzz.ts';

/** What a worker needs to fuzz on its side (structured-clonable). */
export interface WorkerInit {
  scenarios: { scenario: Scenario; file: string }[];
  /** `--property` values: built-in names and module paths. */
  properties: string[];
  /** `--planner` value, if any. */
  planner?: string;
  /** Its file's processes' whole environment (`--planner-env`). */
  plannerEnv?: Record<string, string>;
  options: Pick<
    FuzzOptions,
    'runs' | 'seed' | 'path' | 'guard' | 'transport' | 'plannerOptions' | 'arbitrary' | 'shrink'
  >;
  cwd: string;
}

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
  await runOnWorkers<FuzzReport>({
    entry: ownModule('./worker-main', import.meta.url),
    data: init,
    modules: [...init.properties, ...(init.planner !== undefined ? [init.planner] : [])],
    workers: Math.min(workers, total),
    next: () => {
      if (next >= total) return undefined;
      const limit = timeLimitFor(total - next);
      return { type: 'job', index: next++, ...(limit !== undefined ? { timeLimitMs: limit } : {}) };
    },
    done,
  });
}
