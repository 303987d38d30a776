import { loadScenarioFile } from './harness/loader/load.ts';
import { formatProblem } from './harness/errors.ts';
for (const f of process.argv.slice(2)) {
  const r = loadScenarioFile(f);
  console.log(f, r.ok ? 'OK ' + r.value.scenario.id : r.problems.map(formatProblem).join('\n'));
}
