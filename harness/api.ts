/**
 * The programmatic API: `evaluate(config)` runs an evaluation as `oneway eval` does and returns
 * its results object (the content of results.json). The config is the one oneway.config.* holds
 * (harness/features/request/config.ts), plus what only code can give: planner objects instead of
 * names. It goes the road every entry point takes (harness/features/request/eval.ts), so an
 * option means what the config file's setting and the flag mean; one evaluate() cannot honour is
 * an error, never dropped.
 *
 * @example
 * import { evaluate } from 'oneway';
 * const results = await evaluate({ scenarios: ['scenarios/'], planners: ['eager', 'gated'], trials: 2 });
 * const gated = results.summary.find((s) => s.planner === 'gated');
 * if (gated && gated.premature_irreversible_rate > 0) process.exitCode = 1;
 */
import { resolve } from 'node:path';
import { formatProblem, UsageError } from './core/errors.ts';
import type { Planner, PlannerFactory } from './core/planner.ts';
import type { Results } from './engine/results/types.ts';
import type { EvalOptions } from './engine/runner/evaluate.ts';
import { evaluation } from './features/pipeline/evaluation.ts';
import { makeChalk } from './features/report/color.ts';
import { CONFIG_SHAPE, shapeProblems, type OnewayConfig } from './features/request/config.ts';
import { EVAL_DEFAULTS, evalRequest, settingsOf } from './features/request/eval.ts';

export { defineConfig, type OnewayConfig, type LlmConfig, type FuzzConfig } from './features/request/config.ts';

/** What `evaluate` takes: the config file's settings, with planners also as objects (the agent's and fuzzing's settings are the command line's). */
export interface EvaluateConfig extends Omit<OnewayConfig, 'planners' | 'fuzz' | 'agentTimeoutMs' | 'batchWindowMs'> {
  /** Built-in planner names, planner module paths, or Planner / PlannerFactory objects (default: gated). */
  planners?: (string | Planner | PlannerFactory)[];
  /** Relative paths start here (default: process.cwd()). */
  cwd?: string;
  /** Called as each run finishes. */
  onRunDone?: EvalOptions['onRunDone'];
  /**
   * Finish an interrupted evaluation in `out`: keep its finished runs and run the rest (the same
   * options as the interrupted one, else a UsageError says what differs); the results equal an
   * uninterrupted evaluation's. As `oneway eval --resume`.
   */
  resume?: boolean;
  /**
   * Aborted: stop after the runs in flight. What finished is scored and written, and the results
   * say `interrupted: true` (resume them with `resume: true`), as Ctrl-C does to `oneway eval`.
   */
  signal?: AbortSignal;
}

/** The settings of a config file evaluate() cannot honour, and what to do instead. */
const NOT_HERE: Partial<Record<keyof OnewayConfig, string>> = {
  fuzz: 'fuzzing settings are oneway fuzz\'s: run it, or fuzzScenario() from "oneway/fuzz"',
  agentTimeoutMs: 'evaluate() runs planners, not agent processes: run an agent with oneway eval --agent-cmd=COMMAND',
  batchWindowMs: 'evaluate() runs planners, not agent processes: run an agent with oneway eval --agent-cmd=COMMAND',
};

/** evaluate()'s options, checked as a config file's settings are: an unknown, misspelt or mistyped one is an error. */
function checkOptions(config: unknown): EvaluateConfig {
  const shape = {
    ...CONFIG_SHAPE,
    planners: 'planners',
    cwd: 'string',
    onRunDone: 'function',
    resume: 'boolean',
    signal: 'signal',
  } as const;
  const problems = shapeProblems(config, shape, 'option');
  if (problems.length)
    throw new UsageError(`evaluate(): ${problems.join('; ')}`, `options: ${Object.keys(shape).join(', ')}`);
  for (const [key, hint] of Object.entries(NOT_HERE))
    if ((config as Record<string, unknown>)[key] !== undefined)
      throw new UsageError(`evaluate() does not take "${key}"`, hint);
  return config as EvaluateConfig;
}

/**
 * Runs an evaluation and returns its results: scenarios × planners × trials, scored, with the
 * gates (`failOn`, `baseline`) applied (`results.gates.failures`). results.json, the run records
 * and the reports asked for (`reporters`, none by default; `table` prints to stdout) are written
 * under `out` (default reports/latest). Scenario files with problems, and scenarios `oneway lint`
 * finds errors in (unless `allowLintErrors`), are skipped and listed in `results.problems`, as
 * `oneway eval` does (it exits 2 for them); a usage error (an unknown planner or option, no
 * scenario at all, ...) throws a UsageError with a hint.
 */
export async function evaluate(config: EvaluateConfig = {}): Promise<Results> {
  const { cwd: given, onRunDone, resume, signal, ...settings } = checkOptions(config);
  const cwd = resolve(given ?? process.cwd());
  const env = process.env;
  const request = await evalRequest(
    [{ from: { kind: 'api' }, settings: { ...settingsOf(settings, cwd), ...(resume ? { resume } : {}) } }],
    { cwd, env, defaults: { ...EVAL_DEFAULTS, reporters: [], githubInActions: false } },
  );
  const outcome = await evaluation(
    request,
    { command: 'oneway evaluate()', ...(signal ? { signal } : {}) },
    {
      console: { stdout: process.stdout, chalk: makeChalk(false) },
      ...(onRunDone ? { events: { runDone: onRunDone } } : {}),
    },
  );
  if (outcome.ran) return outcome.results;
  const listed = (what: string) => `${what}:\n${outcome.problems.map(formatProblem).join('\n')}`;
  throw new UsageError(
    outcome.why === 'policy'
      ? listed('the guard policy has problems')
      : outcome.why === 'plan'
        ? listed('the plan file has problems')
        : `no scenario could be loaded${outcome.problems.length ? listed('') : ''}`,
  );
}
