/**
 * Runs one plan (or one planner) the way `npm run eval` runs it, in memory:
 * the same run id, seed derivation and budgets, so a plan that fails here
 * fails the same way when replayed with
 * `npm run eval -- --planner=scripted --plan=FILE --scenario=ID --seed=S`.
 */
import { createGuard } from '../../engine/guard/guard.ts';
import type { PlannerContext } from '../../core/planner.ts';
import { memorySink } from '../../engine/record/writer.ts';
import { offeredPlan, runSeed } from '../../engine/runner/evaluate.ts';
import { runOne, type PlannerHandle, type RunOutcome } from '../../engine/runner/run.ts';
import type { Sandbox } from '../../engine/sandbox/sandbox.ts';
import { seal } from '../../engine/sandbox/seal.ts';
import type { TransportName } from '../../engine/sandbox/transport.ts';
import type { PlanItem, Scenario } from '../../core/scenario.ts';
import { loadPlanner } from '../../engine/runner/planners.ts';

export interface PlanRunOptions {
  /** The base seed, as `--seed` of `npm run eval` (default 1); the run's own seed is derived from it and the scenario id. */
  seed?: number;
  /** Through the guard (`--guard`, default policy). */
  guard?: boolean;
  /** Default `inprocess` (the same dispatch as `msw`, without HTTP). */
  transport?: TransportName;
  /** The scenario file as records name it (default `<id>.yaml`). */
  scenarioFile?: string;
  maxTurns?: number;
  decisionTimeoutMs?: number;
  /** `--planner-opt` values. */
  options?: Record<string, string>;
}

/** A run's outcome and record, with every call that reached its sandbox (as the sandbox saw it). */
export interface PlanRun extends RunOutcome {
  received: Sandbox['received'];
}

const guard = createGuard();

/**
 * Runs a planner once on a scenario, as one trial of `npm run eval` would.
 *
 * @example
 * const run = await runPlanner(scenario, await loadPlanner('random', cwd), { seed: 7 });
 */
export async function runPlanner(
  scenario: Scenario,
  planner: PlannerHandle,
  opts: PlanRunOptions & { plan?: PlanItem[] } = {},
): Promise<PlanRun> {
  let sandbox: Sandbox | undefined;
  const transport = opts.transport ?? 'inprocess';
  // As eval: the plan given, else the scenario's reference plan for `scripted` only.
  const plan = offeredPlan(planner, scenario, opts.plan);
  const plannerContext: Omit<PlannerContext, 'seed' | 'trial' | 'scenario'> = {
    options: opts.options ?? {},
    ...(plan ? { plan } : {}),
  };
  // MSW intercepts only while the seal is held; it is reference-counted, so a caller holding it already pays nothing.
  if (transport === 'msw') seal.acquire();
  try {
    const outcome = await runOne({
      scenario,
      scenarioFile: opts.scenarioFile ?? `${scenario.id}.yaml`,
      planner,
      plannerContext,
      trial: 1,
      seed: runSeed(opts.seed ?? 1, scenario.id, 1),
      runId: `${scenario.id}/${planner.name}/1`,
      sink: memorySink(),
      transport,
      maxTurns: opts.maxTurns ?? 50,
      decisionTimeoutMs: opts.decisionTimeoutMs ?? 30_000,
      ...(opts.guard ? { gate: guard } : {}),
      onSandbox: (s) => (sandbox = s),
    });
    // The outcome is this run's own object: the sandbox's view is added to it, not copied with it.
    const run = outcome as PlanRun;
    run.received = sandbox?.received ?? [];
    return run;
  } finally {
    if (transport === 'msw') seal.release();
  }
}

/** The bundled scripted planner, loaded by name as eval loads it (its checkpoint included), once. */
let scripted: Promise<PlannerHandle> | undefined;
/** The same, once loaded: each plan of a fuzzing run then starts without awaiting the load again. */
let scriptedLoaded: PlannerHandle | undefined;

/**
 * Runs a plan (plan-file items) with the scripted planner.
 *
 * @example
 * const run = await runPlan(scenario, [{ verify_recipient: { email: '{{inputs.email}}' } }], { seed: 3 });
 * run.premature.irreversible // 0
 */
export function runPlan(scenario: Scenario, plan: PlanItem[], opts: PlanRunOptions = {}): Promise<PlanRun> {
  const o = Object.assign({}, opts, { plan });
  if (scriptedLoaded) return runPlanner(scenario, scriptedLoaded, o);
  scripted ??= loadPlanner('scripted', process.cwd());
  return scripted.then((p) => runPlanner(scenario, (scriptedLoaded = p), o));
}
