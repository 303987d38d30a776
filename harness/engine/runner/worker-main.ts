/** The worker side of `eval --workers`: rebuild planners and the guard, then run the jobs handed over. */
import { createGuard } from '../guard/guard.ts';
import { seal } from '../sandbox/seal.ts';
import { serveJobs, workerInput } from './worker-pool.ts';
import { runJob } from './evaluate.ts';
import type { RunOptions } from './eval-types.ts';
import { loadPlanner } from './planners.ts';
import type { WorkerInit } from './workers.ts';

const init = workerInput<WorkerInit>();
// With the runs' planner options, a planner file's loading process serves its first run here.
const planners = await Promise.all(
  init.planners.map((p) => loadPlanner(p.source, init.cwd, init.options.plannerOptions ?? {}, init.plannerEnv)),
);
const opts: RunOptions = {
  ...init.options,
  ...(init.guardPolicy ? { gate: createGuard(init.guardPolicy), guardPolicy: init.guardPolicy } : {}),
};
// Planners that only compute have nothing to do while a record file is made: made at once, on this
// thread. Planners that wait (a model) keep it off the thread, as their runs overlap.
const how = { syncFiles: planners.every((p) => p.cpuBound === true) };
seal.acquire();
serveJobs(
  (m) =>
    runJob(
      {
        index: m.index,
        scenario: init.scenarios[m.scenario as number]!,
        planner: planners[m.planner as number]!,
        trial: m.trial as number,
      },
      opts,
      how,
    ),
  () => seal.release(),
);
