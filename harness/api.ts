/**
 * The programmatic API: `evaluate(config)` runs an evaluation as `oneway eval` does and returns
 * its results object (the content of results.json). The config is the one oneway.config.* holds
 * (harness/cli/config.ts), plus what only code can give: planner objects instead of names.
 *
 * @example
 * import { evaluate } from 'oneway';
 * const results = await evaluate({ scenarios: ['scenarios/'], planners: ['eager', 'gated'], trials: 2 });
 * const gated = results.summary.find((s) => s.planner === 'gated');
 * if (gated && gated.premature_irreversible_rate > 0) process.exitCode = 1;
 */
import { relative, resolve } from 'node:path';
import { formatProblem, UsageError, type Problem } from './core/errors.ts';
import { analyseResults } from './engine/results/build.ts';
import { readBaseline } from './engine/gates/baseline.ts';
import { parseGate } from './engine/gates/fail-on.ts';
import { createGuard } from './engine/guard/guard.ts';
import { DEFAULT_POLICY, loadPolicyFile, type Policy } from './engine/guard/policy.ts';
import type { Planner, PlannerFactory } from './core/planner.ts';
import { makeChalk } from './features/report/color.ts';
import { parseReporters, writeReports } from './features/report/index.ts';
import { lockOutDir } from './engine/results/lock.ts';
import type { Results } from './engine/results/types.ts';
import { writeResults } from './engine/results/write.ts';
import { evaluate as runEvaluation, type EvalOptions } from './engine/runner/evaluate.ts';
import { loadPlanner, toHandle } from './engine/runner/planners.ts';
import type { PlannerHandle } from './engine/runner/run.ts';
import { ensureDir } from './engine/io/atomic-write.ts';
import { llmPlannerOptions, type OnewayConfig } from './cli/config.ts';
import { resolveScenarioSpecs, scenarioHome, scenarioSpecs } from './cli/common.ts';

export { defineConfig, type OnewayConfig, type LlmConfig, type FuzzConfig } from './cli/config.ts';

/** What `evaluate` takes: the config file's settings, with planners also as objects. */
export interface EvaluateConfig extends Omit<OnewayConfig, 'planners' | 'fuzz'> {
  /** Built-in planner names, planner module paths, or Planner / PlannerFactory objects (default: gated). */
  planners?: (string | Planner | PlannerFactory)[];
  /** Relative paths start here (default: process.cwd()). */
  cwd?: string;
  /** Called as each run finishes. */
  onRunDone?: EvalOptions['onRunDone'];
}

/**
 * Runs an evaluation and returns its results: scenarios × planners × trials, scored, with the
 * gates (`failOn`, `baseline`) applied (`results.gates.failures`). results.json, the run records
 * and the reports asked for (`reporters`, none by default; `table` prints to stdout) are written
 * under `out` (default reports/latest). Scenario files with problems are skipped and listed in
 * `results.problems`; a usage error (an unknown planner, no scenario at all, ...) throws a
 * UsageError with a hint.
 */
export async function evaluate(config: EvaluateConfig = {}): Promise<Results> {
  const cwd = resolve(config.cwd ?? process.cwd());
  const home = scenarioHome({ cwd }, config.bundled);
  const io = { cwd, env: process.env };
  const resolved = await resolveScenarioSpecs(scenarioSpecs(config.scenarios, home, io), io, home.root);
  const problems: Problem[] = [...resolved.problems];
  if (resolved.loaded.length === 0)
    throw new UsageError(
      `no scenario could be loaded${problems.length ? `:\n${problems.map(formatProblem).join('\n')}` : ''}`,
    );

  const planners: PlannerHandle[] = [];
  for (const [i, p] of (config.planners ?? ['gated']).entries()) {
    planners.push(
      typeof p === 'string'
        ? await loadPlanner(p, cwd)
        : toHandle({ default: p }, `planner-${i + 1}`, `planners[${i}]`),
    );
  }
  const names = planners.map((p) => p.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new UsageError(`planner "${dup}" is given twice`);
  const reporters = parseReporters(config.reporters ?? []);
  const gates = (config.failOn ?? []).map(parseGate);
  let policy: Policy | undefined;
  if (typeof config.guard === 'string') {
    const p = loadPolicyFile(resolve(cwd, config.guard));
    if (!p.ok) throw new UsageError(`the guard policy has problems:\n${p.problems.map(formatProblem).join('\n')}`);
    policy = p.value;
  } else if (config.guard) policy = DEFAULT_POLICY;

  const plannerOptions = {
    ...Object.fromEntries(Object.entries(config.plannerOptions ?? {}).map(([k, v]) => [k, String(v)])),
    ...llmPlannerOptions(config.llm, cwd),
  };
  const outDir = resolve(cwd, config.out ?? 'reports/latest');
  ensureDir(outDir);
  const lock = lockOutDir(outDir, { command: 'oneway evaluate()' });
  try {
    const ran = await runEvaluation({
      scenarios: resolved.loaded.map((l) => ({
        scenario: l.scenario,
        file: relative(cwd, l.file) || l.file,
        toolLines: l.toolLines,
      })),
      planners,
      trials: config.trials ?? 1,
      seed: config.seed ?? 1,
      outDir,
      transport: config.transport ?? 'msw',
      maxTurns: config.maxTurns ?? 50,
      decisionTimeoutMs: config.decisionTimeoutMs ?? 30_000,
      plannerOptions,
      problems,
      concurrency: config.concurrency ?? 1,
      workers: config.workers ?? 1,
      ...(policy ? { gate: createGuard(policy), guardPolicy: policy } : {}),
      ...(config.onRunDone ? { onRunDone: config.onRunDone } : {}),
    });
    const baselineFile = config.baseline ? resolve(cwd, config.baseline) : undefined;
    const results = analyseResults(ran, {
      ...(config.baselinePlanner !== undefined ? { baselinePlanner: config.baselinePlanner } : {}),
      gates,
      ...(baselineFile
        ? { baseline: { label: relative(cwd, baselineFile) || baselineFile, results: readBaseline(baselineFile) } }
        : {}),
    });
    writeResults(outDir, results);
    if (reporters.length)
      writeReports(results, reporters, { outDir, stdout: process.stdout, chalk: makeChalk(false), env: process.env });
    return results;
  } finally {
    lock.release();
  }
}
