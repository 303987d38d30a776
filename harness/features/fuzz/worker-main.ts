/** The worker side of `npm run fuzz -- --workers=N`: rebuild the properties and the planner, then fuzz the scenarios handed over. */
import { loadPlanner } from '../../engine/runner/planners.ts';
import { serveJobs, workerInput } from '../../engine/runner/worker-pool.ts';
import { fuzzScenario } from './fuzz.ts';
import { resolveProperties } from './property-module.ts';
import type { WorkerInit } from './workers.ts';

const init = workerInput<WorkerInit>();
const properties = await resolveProperties(init.properties, init.cwd);
const planner = init.planner ? await loadPlanner(init.planner, init.cwd, {}, init.plannerEnv) : undefined;
serveJobs(async (m) => {
  const s = init.scenarios[m.index];
  if (!s) throw new Error(`no scenario ${m.index}`);
  return fuzzScenario({
    ...init.options,
    scenario: s.scenario,
    scenarioFile: s.file,
    properties,
    ...(planner ? { planner } : {}),
    ...(typeof m.timeLimitMs === 'number' ? { timeLimitMs: m.timeLimitMs } : {}),
  });
});
