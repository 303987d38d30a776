/**
 * Fuzzing one scenario: generate plans (or run a planner across seeds), check
 * the chosen properties on every run, and shrink each failure to a minimal
 * plan that `npm run eval -- --planner=scripted --plan=FILE` replays.
 *
 * After a property fails, fuzzing goes on with the others, so one run of the
 * command reports at most one counterexample per property. Each search starts
 * from the same fast-check seed, so a failure's seed and path replay it with
 * that property alone selected.
 */
import fc from 'fast-check';
import { OnewayError } from '../../core/errors.ts';
import type { PlanItem, Scenario } from '../../core/scenario.ts';
import type { PlannerHandle } from '../../engine/runner/run.ts';
import { seal } from '../../engine/sandbox/seal.ts';
import type { TransportName } from '../../engine/sandbox/transport.ts';
import { planArbitrary, planCallCount, type PlanArbitraryOptions } from './arbitraries.ts';
import { planFromRun } from './plan-file.ts';
import type { FuzzProperty, PropertyContext, PropertyRun } from './properties.ts';
import { runPlan, runPlanner, type PlanRun, type PlanRunOptions } from './run-plan.ts';
import { shrinkPlan } from './shrink.ts';
import { faultOf, type Fault } from './fault.ts';
import { isThenable } from '../../util/thenable.ts';

export interface FuzzOptions {
  scenario: Scenario;
  /** The scenario file as records name it (as `npm run eval` would: relative to the working directory). */
  scenarioFile?: string;
  properties: readonly FuzzProperty[];
  /** Plans to generate (or planner runs), at most. */
  runs: number;
  /** fast-check's seed for plans; the first `--seed` for planner runs (then seed + 1, ...). */
  seed: number;
  /** Stop after this long (ms); what ran still counts. */
  timeLimitMs?: number;
  /** fast-check path of a failure to replay (plans only). */
  path?: string;
  guard?: boolean;
  transport?: TransportName;
  /** Fuzz this planner across seeds instead of generated plans. */
  planner?: PlannerHandle;
  plannerOptions?: Record<string, string>;
  arbitrary?: PlanArbitraryOptions;
  maxTurns?: number;
  decisionTimeoutMs?: number;
  /**
   * Shrink each failure to a minimal plan (the default). False reports the first failing plan as
   * found: for properties whose every check is slow (a module whose check ends its process).
   */
  shrink?: boolean;
}

export interface FuzzFailure {
  scenario: string;
  property: string;
  message: string;
  /** The minimal failing plan; null when no plan reproduces the failure (a planner that is not deterministic, an escape it made). */
  plan: PlanItem[] | null;
  /** The `--seed` of `npm run eval` that replays it. */
  seed: number;
  /** For generated plans: how fast-check found it. */
  fastCheck?: { seed: number; path: string; numRuns: number; numShrinks: number };
  /** For planner runs: the planner whose run failed. */
  planner?: string;
  /** Who is at fault: oneway, the scenario or the planner, why, and what to do next. */
  fault: Fault;
}

export interface FuzzReport {
  scenario: string;
  /** Plans (or planner runs) checked, shrinking included. */
  plans: number;
  failures: FuzzFailure[];
  wallMs: number;
  /** Stopped by the time limit before `runs`. */
  interrupted: boolean;
}

/** Thrown inside fast-check's predicate so the failure's property and message come back with the counterexample. */
class PropertyFailed extends OnewayError {
  constructor(
    readonly property: string,
    readonly detail: string,
  ) {
    super('property_failed', `${property}: ${detail}`);
  }
}

/** A property that failed on a run, and why. */
export type Failure = { property: string; message: string };

/** Checks properties on one run, in order; the first that fails is the answer. */
async function checkRun(
  opts: FuzzOptions,
  props: readonly FuzzProperty[],
  first: PlanRun,
  again: (o: PlanRunOptions) => Promise<PlanRun>,
  plan?: PlanItem[],
): Promise<Failure | null> {
  // Made when a property first asks for a rerun (most properties never do).
  let cache: Map<string, Promise<PropertyRun>> | undefined;
  const ctx: PropertyContext = {
    scenario: opts.scenario,
    run: { events: first.events, received: first.received },
    guarded: opts.guard === true,
    transport: opts.transport ?? 'inprocess',
    rerun(change = {}) {
      // Properties asking for the same rerun share it.
      const key = JSON.stringify(change);
      cache ??= new Map();
      let r = cache.get(key);
      if (!r) {
        r = again({ ...runOptions(opts), ...change }).then((x) => ({ events: x.events, received: x.received }));
        cache.set(key, r);
      }
      return r;
    },
  };
  if (plan) ctx.plan = plan;
  for (const p of props) {
    let v: Awaited<ReturnType<FuzzProperty['check']>>;
    try {
      // A property that answers at once is not awaited: a promise per property per plan was not free.
      const r = p.check(ctx);
      v = isThenable(r) ? await r : r;
    } catch (e) {
      v = `check threw: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (v !== true) return { property: p.name, message: v };
  }
  return null;
}

function runOptions(opts: FuzzOptions): PlanRunOptions {
  return {
    ...(opts.scenarioFile ? { scenarioFile: opts.scenarioFile } : {}),
    guard: opts.guard === true,
    transport: opts.transport ?? 'inprocess',
    ...(opts.maxTurns ? { maxTurns: opts.maxTurns } : {}),
    ...(opts.decisionTimeoutMs ? { decisionTimeoutMs: opts.decisionTimeoutMs } : {}),
    ...(opts.plannerOptions ? { options: opts.plannerOptions } : {}),
  };
}

/** Runs a plan with `seed` and checks the properties on it, in order. */
async function checkPlanWith(
  opts: FuzzOptions,
  plan: PlanItem[],
  seed: number,
  props: readonly FuzzProperty[],
): Promise<Failure | null> {
  const again = (o: PlanRunOptions) => runPlan(opts.scenario, plan, Object.assign({}, o, { seed }));
  return checkRun(opts, props, await again(runOptions(opts)), again, plan);
}

/**
 * Runs a plan and checks properties on the run: null when they all hold, else
 * the first that failed and why.
 *
 * @example
 * await checkPlan(scenario, plan, [rollbackCompleteness], { seed: 12 }) // null, or { property: 'rollback-completeness', message: '...' }
 */
export function checkPlan(
  scenario: Scenario,
  plan: PlanItem[],
  properties: readonly FuzzProperty[],
  opts: PlanRunOptions = {},
): Promise<Failure | null> {
  const { seed = 1, guard, transport, scenarioFile, maxTurns, decisionTimeoutMs, options } = opts;
  return checkPlanWith(
    {
      scenario,
      properties,
      runs: 1,
      seed,
      guard: guard === true,
      transport: transport ?? 'inprocess',
      ...(scenarioFile ? { scenarioFile } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      ...(decisionTimeoutMs ? { decisionTimeoutMs } : {}),
      ...(options ? { plannerOptions: options } : {}),
    },
    plan,
    seed,
    properties,
  );
}

/** Shrinks a failing plan further for one property, and says how the minimal plan fails. */
async function minimise(
  opts: FuzzOptions,
  plan: PlanItem[],
  seed: number,
  prop: FuzzProperty,
  count: () => void,
): Promise<{ plan: PlanItem[]; message: string } | null> {
  const minimal = await shrinkPlan(plan, opts.scenario, async (p) => {
    count();
    return (await checkPlanWith(opts, p, seed, [prop])) !== null;
  });
  const f = await checkPlanWith(opts, minimal, seed, [prop]);
  return f ? { plan: minimal, message: f.message } : null;
}

async function fuzzPlans(opts: FuzzOptions, deadline: number | undefined): Promise<Omit<FuzzReport, 'wallMs'>> {
  let plans = 0;
  let interrupted = false;
  const failures: FuzzFailure[] = [];
  let remaining = [...opts.properties];
  const arb = fc.tuple(planArbitrary(opts.scenario, opts.arbitrary), fc.nat({ max: 999_999 }));
  while (remaining.length > 0) {
    const left = deadline === undefined ? undefined : deadline - Date.now();
    if (left !== undefined && left <= 0) {
      interrupted = true;
      break;
    }
    // Once a property failed, shrinking keeps to that property: a smaller plan failing another one is not smaller for this one.
    let target: string | undefined;
    const active = remaining;
    const property = fc.asyncProperty(arb, async ([plan, seed]: [PlanItem[], number]) => {
      // Back to the event loop now and then: plans that resolve at once chain promises without end, and
      // until the loop turns, timers wait and V8 keeps what fetch made WeakRefs for (see evaluate's pool).
      if (++plans % 32 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const f = await checkPlanWith(opts, plan, seed, target ? active.filter((p) => p.name === target) : active);
      if (f) {
        target ??= f.property;
        throw new PropertyFailed(f.property, f.message);
      }
    });
    const details = await fc.check<[[PlanItem[], number]]>(property, {
      seed: opts.seed,
      numRuns: opts.runs,
      ...(opts.shrink === false ? { endOnFailure: true } : {}),
      ...(opts.path ? { path: opts.path } : {}),
      ...(left !== undefined ? { plugins: [fc.interruptAfterTimeLimit(left)] } : {}),
    });
    if (details.interrupted && !details.failed) interrupted = true;
    if (!details.failed || details.counterexample === null || !(details.errorInstance instanceof PropertyFailed)) {
      if (details.failed && details.counterexample !== null) throw details.errorInstance;
      break;
    }
    const failed = details.errorInstance;
    const prop = remaining.find((p) => p.name === failed.property) as FuzzProperty;
    const [plan, seed] = details.counterexample[0];
    const minimal = opts.shrink === false ? null : await minimise(opts, plan, seed, prop, () => plans++);
    failures.push({
      scenario: opts.scenario.id,
      property: failed.property,
      message: minimal?.message ?? failed.detail,
      plan: minimal?.plan ?? plan,
      seed,
      fault: faultOf(prop, undefined),
      fastCheck: {
        seed: details.seed,
        path: details.counterexamplePath,
        numRuns: details.numRuns,
        numShrinks: details.numShrinks,
      },
    });
    remaining = remaining.filter((p) => p !== prop);
    // A replayed path names one counterexample; the other properties were not searched.
    if (opts.path) break;
  }
  return { scenario: opts.scenario.id, plans, failures, interrupted };
}

/** The failure a fuzzed planner's own crash or hang is reported as (once a scenario): its runs were not all checked. */
const PLANNER_RAN = 'planner-ran';

async function fuzzPlanner(
  opts: FuzzOptions,
  planner: PlannerHandle,
  deadline: number | undefined,
): Promise<Omit<FuzzReport, 'wallMs'>> {
  let plans = 0;
  let interrupted = false;
  const failures: FuzzFailure[] = [];
  let remaining = [...opts.properties];
  let crashed = false;
  for (let i = 0; i < opts.runs && remaining.length > 0; i++) {
    if (deadline !== undefined && Date.now() >= deadline) {
      interrupted = true;
      break;
    }
    const seed = opts.seed + i;
    if (++plans % 32 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const again = (o: PlanRunOptions) => runPlanner(opts.scenario, planner, Object.assign({}, o, { seed }));
    const first = await again(runOptions(opts));
    if (!crashed && (first.end_reason === 'planner_error' || first.end_reason === 'decision_timeout')) {
      // A planner that crashed or hung was not checked past that point: a failure, never a silent pass.
      crashed = true;
      failures.push({
        scenario: opts.scenario.id,
        property: PLANNER_RAN,
        message: `the run ended in ${first.end_reason}${first.error ? `: ${first.error}` : ''}; nothing the planner would have done after that was checked`,
        plan: null,
        seed,
        planner: planner.name,
        fault: faultOf({ name: PLANNER_RAN, owner: 'planner' }, planner.name),
      });
    }
    for (const prop of [...remaining]) {
      const f = await checkRun(opts, [prop], first, again);
      if (!f) continue;
      // The planner's decisions as a plan: when the plan fails the same way, it shrinks and replays without the planner.
      const plan = planFromRun(first.events, opts.scenario);
      const reproduced = (await checkPlanWith(opts, plan, seed, [prop])) !== null;
      const minimal = !reproduced
        ? null
        : opts.shrink === false
          ? { plan, message: f.message }
          : await minimise(opts, plan, seed, prop, () => plans++);
      failures.push({
        scenario: opts.scenario.id,
        property: prop.name,
        message: minimal?.message ?? f.message,
        plan: minimal?.plan ?? null,
        seed,
        planner: planner.name,
        fault: faultOf(prop, planner.name),
      });
      remaining = remaining.filter((p) => p !== prop);
    }
  }
  return { scenario: opts.scenario.id, plans, failures, interrupted };
}

/**
 * Fuzzes one scenario.
 *
 * @example
 * const report = await fuzzScenario({ scenario, properties: [scoringOracle], runs: 200, seed: 1 });
 * report.failures // [] when every property held
 */
export async function fuzzScenario(opts: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const deadline = opts.timeLimitMs === undefined ? undefined : Date.now() + opts.timeLimitMs;
  // Held for the whole search, so planner code that makes requests is caught (and MSW set up once).
  seal.acquire();
  try {
    const r = opts.planner ? await fuzzPlanner(opts, opts.planner, deadline) : await fuzzPlans(opts, deadline);
    return { ...r, wallMs: performance.now() - started };
  } finally {
    seal.release();
  }
}

/** The calls in a failure's plan, for messages. */
export const failureCalls = (f: FuzzFailure): number => (f.plan ? planCallCount(f.plan) : 0);
