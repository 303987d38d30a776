/**
 * The programmatic API: `evaluate(config)` runs an evaluation as `oneway eval` does and returns
 * its results object (the content of results.json). The config is the one oneway.config.* holds
 * (harness/features/request/config.ts), plus what only code can give: planner objects instead of
 * names. It goes the road every entry point takes (harness/features/request/eval.ts), so an
 * option means what the config file's setting and the flag mean; one evaluate() cannot honour is
 * an error, never dropped. `merge(config)` merges evaluations' outputs as `oneway merge` does.
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
import { merged } from './features/pipeline/merge.ts';
import { makeChalk } from './features/report/color.ts';
import { CONFIG_SHAPE, shapeProblems, type OnewayConfig } from './features/request/config.ts';
import { EVAL_DEFAULTS, evalRequest, settingsOf } from './features/request/eval.ts';
import { mergeRequest } from './features/request/merge.ts';

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

/** The API's defaults: no reporter unless asked for (a library prints nothing unasked), none added under GitHub Actions. */
const API_DEFAULTS = { ...EVAL_DEFAULTS, reporters: [], githubInActions: false };

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
    { cwd, env, defaults: API_DEFAULTS },
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

/** What `merge` takes: the evaluations to merge, and the config file's settings for what is done with their results. */
export interface MergeConfig extends Pick<
  OnewayConfig,
  'reporters' | 'failOn' | 'baseline' | 'baselinePlanner' | 'out'
> {
  /** The evaluations' output directories: the `out` of each evaluate(), `oneway eval` (a `--shard` of one too) or `oneway serve`. */
  parts: string[];
  /** Relative paths start here (default: process.cwd()). */
  cwd?: string;
}

/**
 * Merges evaluations as `oneway merge` does and returns the merged results: the shards of one
 * evaluation into its results, or evaluations of other planners on the same scenarios and seed
 * (one evaluate() per planner, say) into one comparison. results.json, the parts' run records and
 * the reports asked for (none by default) are written under `out` (default reports/latest), which
 * is locked as an evaluation locks it; `baselinePlanner`, `failOn` and `baseline` mean what they
 * mean to evaluate(). Parts that do not merge (different seeds, planners given twice, ...), a
 * baseline planner or a gate's planner the parts lack, a part an evaluation is still writing, or
 * an `out` an evaluation holds throw a UsageError before anything is written.
 *
 * @example
 * await evaluate({ planners: ['eager'], out: 'reports/eager' });
 * await evaluate({ planners: ['gated'], out: 'reports/gated' });
 * const results = await merge({ parts: ['reports/eager', 'reports/gated'], baselinePlanner: 'eager' });
 */
export async function merge(config: MergeConfig): Promise<Results> {
  const shape = {
    reporters: CONFIG_SHAPE.reporters,
    failOn: CONFIG_SHAPE.failOn,
    baseline: CONFIG_SHAPE.baseline,
    baselinePlanner: CONFIG_SHAPE.baselinePlanner,
    out: CONFIG_SHAPE.out,
    parts: 'strings',
    cwd: 'string',
  } as const;
  const problems = shapeProblems(config, shape, 'option');
  if (problems.length)
    throw new UsageError(`merge(): ${problems.join('; ')}`, `options: ${Object.keys(shape).join(', ')}`);
  const { cwd: given, parts, ...settings } = config;
  if (!parts?.length)
    throw new UsageError(
      'merge(): no parts given',
      "parts: the output directories of the evaluations to merge, e.g. ['reports/eager', 'reports/gated']",
    );
  const cwd = resolve(given ?? process.cwd());
  const request = await mergeRequest(
    [{ from: { kind: 'api', call: 'merge()' }, settings: settingsOf(settings, cwd) }],
    parts,
    {
      cwd,
      env: process.env,
      defaults: API_DEFAULTS,
    },
  );
  const { results } = await merged(
    request,
    { command: 'oneway merge()' },
    { console: { stdout: process.stdout, chalk: makeChalk(false) } },
  );
  return results;
}
