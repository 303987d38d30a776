/** The worker side of `npm run fuzz -- --workers=N`: rebuild the properties and the planner, then fuzz the scenarios handed over. */
import { parentPort, workerData } from 'node:worker_threads';
import { loadPlanner } from '../runner/planners.ts';
import { fuzzScenario } from './fuzz.ts';
import { resolveProperties } from './property-module.ts';
import type { FromWorker, ToWorker, WorkerInit } from './workers.ts';

const init = workerData as WorkerInit;
const port = parentPort;
if (!port) throw new Error('internal: worker-main.ts runs only as a worker thread');

const properties = await resolveProperties(init.properties, init.cwd);
const planner = init.planner ? await loadPlanner(init.planner, init.cwd) : undefined;
port.on('message', async (m: ToWorker) => {
  if (m.type === 'stop') {
    port.close();
    return;
  }
  const s = init.scenarios[m.index];
  try {
    if (!s) throw new Error(`no scenario ${m.index}`);
    const report = await fuzzScenario({
      ...init.options,
      scenario: s.scenario,
      scenarioFile: s.file,
      properties,
      ...(planner ? { planner } : {}),
      ...(m.timeLimitMs !== undefined ? { timeLimitMs: m.timeLimitMs } : {}),
    });
    port.postMessage({ type: 'done', index: m.index, report } satisfies FromWorker);
  } catch (e) {
    port.postMessage({ type: 'failed', index: m.index, message: (e as Error).message } satisfies FromWorker);
  }
});
port.postMessage({ type: 'ready' } satisfies FromWorker);
