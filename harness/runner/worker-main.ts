/** The worker side of `--workers`: rebuild planners and the guard, then run the jobs handed over. */
import { parentPort, workerData } from 'node:worker_threads';
import { createGuard } from '../guard/guard.ts';
import { seal } from '../sandbox/seal.ts';
import { runJob, type EvalOptions } from './evaluate.ts';
import { loadPlanner } from './planners.ts';
import type { FromWorker, ToWorker, WorkerInit } from './workers.ts';

const init = workerData as WorkerInit;
const port = parentPort;
if (!port) throw new Error('internal: worker-main.ts runs only as a worker thread');

const planners = await Promise.all(init.planners.map((p) => loadPlanner(p.source, init.cwd)));
const opts: EvalOptions = {
  ...init.options,
  scenarios: init.scenarios,
  planners,
  ...(init.guardPolicy ? { gate: createGuard(init.guardPolicy), guardPolicy: init.guardPolicy } : {}),
};
seal.acquire();
port.on('message', async (m: ToWorker) => {
  if (m.type === 'stop') {
    seal.release();
    port.close();
    return;
  }
  const job = { index: m.index, scenario: init.scenarios[m.scenario]!, planner: planners[m.planner]!, trial: m.trial };
  try {
    const run = await runJob(job, opts);
    port.postMessage({ type: 'done', index: m.index, run } satisfies FromWorker);
  } catch (e) {
    port.postMessage({ type: 'failed', index: m.index, message: (e as Error).message } satisfies FromWorker);
  }
});
port.postMessage({ type: 'ready' } satisfies FromWorker);
