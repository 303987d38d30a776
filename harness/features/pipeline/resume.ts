/**
 * Runs an evaluation keeps from an earlier one: `resumable` (resume: the finished runs of an
 * interrupted evaluation in --out) and `keptRuns` (`eval --watch`: the runs of the last evaluation
 * a change left as they were). Both hold the earlier results' config against the one this
 * evaluation would record: a run is kept only where it is the run this evaluation would make.
 */
import { UsageError } from '../../core/errors.ts';
import type { Results, RunResult } from '../../engine/results/types.ts';
import type { EvalOptions } from '../../engine/runner/eval-types.ts';
import { stableJson } from '../../util/json.ts';

/** The engine's `buildResults`, as the pipeline loads it with the engine (what results.json's config would record). */
type BuildResults = typeof import('../../engine/runner/evaluate.ts').buildResults;

/**
 * The finished runs of an interrupted evaluation, after checking it is the same evaluation: the
 * same planners, trials and seed, guard and guard policy, scenarios (ids and content), and every
 * option that changes a result. Fields an older results.json lacks are not compared. `label`
 * names the resume setting as its source does (`--resume`, `evaluate()'s "resume"`).
 */
export function resumable(
  outDir: string,
  previous: Results,
  now: EvalOptions,
  buildResults: BuildResults,
  label = '--resume',
): RunResult[] {
  const was = previous.config;
  const is = buildResults(now, [], { started: Date.now(), interrupted: true, unattributed: 0 }).config;
  const diffs: string[] = [];
  const same = (a: unknown, b: unknown) => stableJson(a) === stableJson(b);
  const show = (v: unknown) => (v === null || v === undefined ? 'none' : Array.isArray(v) ? v.join(',') : String(v));
  const option = (label: string, a: unknown, b: unknown) => {
    if (!same(a, b)) diffs.push(`${label} ${show(a)}, now ${show(b)}`);
  };
  option('planners', was.planners, is.planners);
  option('trials', was.trials, is.trials);
  option('seed', was.seed, is.seed);
  if (was.guard !== is.guard) diffs.push(`the guard was ${was.guard ? 'on' : 'off'}, now ${is.guard ? 'on' : 'off'}`);
  else if (!same(was.guard_policy, is.guard_policy)) {
    const classes = [
      ...new Set([...Object.keys(was.guard_policy ?? {}), ...Object.keys(is.guard_policy ?? {})]),
    ].sort();
    const changed = classes
      .filter((k) => was.guard_policy?.[k] !== is.guard_policy?.[k])
      .map((k) => `${k}: ${was.guard_policy?.[k] ?? 'unset'} → ${is.guard_policy?.[k] ?? 'unset'}`);
    diffs.push(`the guard policy differs (${changed.join(', ')})`);
  }
  const before = new Set(was.scenarios);
  const after = new Set(is.scenarios);
  const added = is.scenarios.filter((id) => !before.has(id));
  const removed = was.scenarios.filter((id) => !after.has(id));
  if (added.length) diffs.push(`scenarios added: ${added.join(', ')}`);
  if (removed.length) diffs.push(`scenarios missing: ${removed.join(', ')}`);
  if (was.scenario_hashes) {
    const changed = is.scenarios.filter(
      (id) => before.has(id) && was.scenario_hashes?.[id] !== is.scenario_hashes?.[id],
    );
    if (changed.length) diffs.push(`scenario content changed: ${changed.join(', ')}`);
  }
  option('--transport', was.transport, is.transport);
  option('--max-turns', was.max_turns, is.max_turns);
  option('--restart-at', (was.restart_at ?? []).join(','), (is.restart_at ?? []).join(','));
  option('--agent-timeout', was.agent_timeout_ms, is.agent_timeout_ms);
  option('--batch-window', was.batch_window_ms, is.batch_window_ms);
  option('--decision-timeout', was.decision_timeout_ms, is.decision_timeout_ms);
  option('--shard', was.shard, is.shard);
  if (was.planner_option_hashes !== undefined && !same(was.planner_option_hashes, is.planner_option_hashes)) {
    const keys = [
      ...new Set([...Object.keys(was.planner_option_hashes), ...Object.keys(is.planner_option_hashes ?? {})]),
    ].sort();
    diffs.push(
      `planner options differ (${keys.filter((k) => was.planner_option_hashes?.[k] !== is.planner_option_hashes?.[k]).join(', ')})`,
    );
  }
  if (was.plan_hash !== undefined && was.plan_hash !== is.plan_hash)
    diffs.push(
      was.plan_hash === null || is.plan_hash === null
        ? `--plan was ${was.plan_hash === null ? 'not given' : 'given'}, now ${is.plan_hash === null ? 'not' : 'given'}`
        : 'the --plan file differs',
    );
  if (diffs.length) {
    throw new UsageError(
      `${label}: ${outDir} holds a different evaluation: ${diffs.join('; ')}`,
      'resume with the options and scenarios of the interrupted evaluation (its results.json "config" lists them), or choose another --out',
    );
  }
  return previous.runs;
}

/**
 * --watch: the runs of the last evaluation this one keeps: those `keep` leaves (not of a scenario
 * or planner the change touched), and only while they are the runs this evaluation would make:
 * the same options (each that changes a result, as results.json's config records them) and the
 * same scenario content (its hash). Anything else is run again.
 */
export function keptRuns(
  previous: Results,
  now: EvalOptions,
  buildResults: BuildResults,
  keep: (run: RunResult) => boolean,
): RunResult[] {
  const was = previous.config;
  const is = buildResults(now, [], { started: Date.now(), interrupted: false, unattributed: 0 }).config;
  const options = (c: Results['config']) =>
    stableJson({ ...c, planners: null, scenarios: null, scenario_hashes: null });
  if (options(was) !== options(is)) return [];
  return previous.runs.filter(
    (r) =>
      keep(r) &&
      was.scenario_hashes?.[r.scenario] !== undefined &&
      was.scenario_hashes[r.scenario] === is.scenario_hashes?.[r.scenario],
  );
}
