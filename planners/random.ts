/**
 * random: the fuzzing baseline. Each turn it calls one to three declared
 * tools, chosen at random, with plausible arguments: values from the inputs,
 * the initial facts, the literal arguments of preconditions (a gate's
 * `action`), earlier results (ids!), the parameter's enum or default, and now
 * and then a near miss (another mailbox, an id with one character off). It knows nothing of preconditions or goals; it finishes by
 * chance after a few turns, and always within the step and turn budgets.
 *
 * Every draw comes from a stream derived from the run's seed and the turn, so
 * the same seed and the same history give the same decision.
 */
import type { Call, Decision, PlannerFactory, PlannerView, ToolView } from '../harness/core/planner.ts';
import { coerceArg } from '../harness/domain/planner-kit/args.ts';
import { finish, issue } from '../harness/domain/planner-kit/decision.ts';
import { nearMiss } from '../harness/domain/planner-kit/near-miss.ts';
import { seenValues, type Scalar, type SeenValue } from '../harness/domain/planner-kit/values.ts';
import { createRng, deriveSeed, type Rng } from '../harness/util/rng.ts';

/** Chance of finishing on a turn, from turn RANDOM_MIN_TURNS on. */
export const RANDOM_FINISH_P = 0.15;
/** The first turn on which the planner may finish by chance. */
export const RANDOM_MIN_TURNS = 3;
/** Calls per turn: 1 to this many. */
export const RANDOM_MAX_BATCH = 3;
/** Chance that a drawn argument is replaced by a near miss. */
export const RANDOM_NEAR_MISS_P = 0.2;
/** Chance that an optional parameter is given at all. */
const OPTIONAL_P = 0.5;
/** Chance of drawing from the values that fit the parameter's name, when there are any. */
const FITTING_P = 0.7;

function declaredTypes(tool: ToolView, param: string): string[] {
  const t = tool.parameters.properties[param]?.type;
  return typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : [];
}

/** Whether a value can serve a parameter of these declared types (none declared: anything can). */
function fits(types: readonly string[], v: Scalar): boolean {
  if (types.length === 0 || types.includes('string')) return true;
  if (types.includes('number') || types.includes('integer'))
    return typeof v === 'number' || (v !== '' && Number.isFinite(Number(v)));
  return types.includes('boolean') && (typeof v === 'boolean' || v === 'true' || v === 'false');
}

/** Values named for the parameter: the input and any seen value under that key (an `x_id` also takes an `id`), its enum and default. */
function fitting(tool: ToolView, param: string, seen: readonly SeenValue[]): Scalar[] {
  const schema = tool.parameters.properties[param] ?? {};
  const idOf = param.endsWith('_id') || param === 'id';
  const out: Scalar[] = seen.filter((s) => s.key === param || (idOf && s.key === 'id')).map((s) => s.value);
  if (Array.isArray(schema.enum)) out.push(...schema.enum.filter(isScalar));
  if (isScalar(schema.default)) out.push(schema.default);
  return out;
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** What to send when nothing seen fits: a value of the declared type. */
function fallback(types: readonly string[], param: string, rng: Rng): unknown {
  if (types.includes('number') || types.includes('integer')) return rng.int(100);
  if (types.includes('boolean')) return rng.next() < 0.5;
  if (types.includes('array')) return [];
  if (types.includes('object')) return {};
  return `${param}_${rng.int(1000)}`;
}

/** A value for one parameter, drawn as described at the top of this file, in the declared type. */
function drawArg(tool: ToolView, param: string, seen: readonly SeenValue[], view: PlannerView, rng: Rng): unknown {
  const types = declaredTypes(tool, param);
  const named = fitting(tool, param, seen).filter((v) => fits(types, v));
  const any = seen.map((s) => s.value).filter((v) => fits(types, v));
  const pool = named.length > 0 && (rng.next() < FITTING_P || any.length === 0) ? named : any;
  if (pool.length === 0) return fallback(types, param, rng);
  let v = rng.pick(pool);
  if (rng.next() < RANDOM_NEAR_MISS_P) {
    const schema = tool.parameters.properties[param] ?? {};
    const others = Array.isArray(schema.enum) ? schema.enum.filter((e): e is Scalar => isScalar(e) && e !== v) : [];
    // For an enum, the near miss is another allowed value: the wrong warehouse, not a typo.
    v = others.length > 0 ? rng.pick(others) : nearMiss(v, rng);
  }
  return inDeclaredType(tool, param, v, view);
}

/** A drawn value as the parameter's declared type: fact text `"1200"` for a number becomes 1200, a number for a string becomes text. */
function inDeclaredType(tool: ToolView, param: string, v: Scalar, view: PlannerView): unknown {
  if (typeof v === 'string') return coerceArg(tool, param, v, view);
  const types = declaredTypes(tool, param);
  const own = typeof v === 'number' ? ['number', 'integer'] : ['boolean'];
  return types.length === 0 || types.some((t) => own.includes(t)) || !types.includes('string') ? v : String(v);
}

/** Arguments for a call of `tool`: every required parameter, and each optional one half the time. */
function drawArgs(tool: ToolView, seen: readonly SeenValue[], view: PlannerView, rng: Rng): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const p of Object.keys(tool.parameters.properties)) {
    if (!tool.parameters.required.includes(p) && rng.next() >= OPTIONAL_P) continue;
    args[p] = drawArg(tool, p, seen, view, rng);
  }
  for (const p of tool.parameters.required) if (!(p in args)) args[p] = drawArg(tool, p, seen, view, rng);
  return args;
}

/** `n` distinct items, in the order drawn. */
function pickDistinct<T>(items: readonly T[], n: number, rng: Rng): T[] {
  const left = [...items];
  const out: T[] = [];
  while (out.length < n && left.length > 0) out.push(...left.splice(rng.int(left.length), 1));
  return out;
}

/**
 * One random turn, a pure function of the seed and the view.
 *
 * @example
 * randomDecision(7, view) // e.g. { type: 'batch', calls: [{ tool: 'send_email', args: { to: 'billing@acme.example' } }, ...] }
 */
export function randomDecision(seed: number, view: PlannerView): Decision {
  const rng = createRng(deriveSeed(seed, 'planner/random', view.turn));
  const left = view.max_steps - view.steps_used;
  if (left <= 0) return finish('step budget used up');
  // The last turn the runner allows: finishing now ends the run cleanly rather than on the turn budget.
  if (view.turn >= view.max_turns) return finish('turn budget used up');
  if (view.turn >= RANDOM_MIN_TURNS && rng.next() < RANDOM_FINISH_P) return finish('finished at random');
  const n = Math.min(1 + rng.int(RANDOM_MAX_BATCH), left);
  const seen = seenValues(view);
  const calls: Call[] = pickDistinct(view.tools, n, rng).map((t) => ({
    tool: t.name,
    args: drawArgs(t, seen, view, rng),
  }));
  return issue(calls, 'no tools declared');
}

const random: PlannerFactory = {
  name: 'random',
  cpuBound: true,
  description:
    'Fuzzing baseline: 1-3 random tools a turn with plausible arguments (inputs, facts, earlier results, near misses); seeded, reproducible.',
  create(ctx) {
    return { name: 'random', next: (view) => randomDecision(ctx.seed, view) };
  },
};

export default random;
