/**
 * fast-check arbitraries for plans, derived from a scenario's declarations.
 *
 * A plan is a list of items as plan files hold them (`{tool: {args}}`,
 * `{parallel: [...]}`), so a counterexample is written out as it is. Items are
 * single calls and parallel batches of declared tools; compensating calls
 * (an earlier call's `compensating_operation` with its `compensation_args`
 * mapped to plan templates); retries (an earlier call again, unchanged); and
 * reconciling calls (a tool that `reconciles` an earlier call, with the
 * arguments they share). Arguments come from the inputs, the world, the ids
 * earlier calls return (`{{results.TOOL.path}}`) and near misses of those
 * (another recipient, an id with one character off).
 *
 * fast-check generates and shrinks an abstract description (which tool, which
 * source, which earlier call); a pure function turns it into the plan, so a
 * shrunk description is always a valid plan whose references point backwards.
 *
 * @example
 * import { test, fc } from '@fast-check/vitest';
 * import { planArbitrary, runPlan } from 'oneway/fuzz';
 * test.prop([planArbitrary(scenario), fc.nat()])('...', async (plan, seed) => { const run = await runPlan(scenario, plan, { seed }); ... });
 */
import fc from 'fast-check';
import { effectiveClass } from '../../domain/rules/classes.ts';
import { nearMiss } from '../../domain/planner-kit/near-miss.ts';
import type { PlanItem, Scenario, Tool } from '../../core/scenario.ts';
import { fitsParameter } from '../../domain/rules/arguments.ts';
import { lookupTemplate, renderValue } from '../../core/templates/render.ts';
import { reportedTools } from '../../domain/rules/reconcile.ts';
import { createRng } from '../../util/rng.ts';
import {
  aliases,
  asParam,
  declaredTypes,
  fallbackValue,
  mergeRanked,
  rankedFitting,
  resultCandidates,
  schemaCandidates,
  worldCandidates,
  type Candidate,
  type Ranked,
  type Scalar,
} from './values.ts';

export interface PlanArbitraryOptions {
  /** Items per plan, at most (default 6). */
  maxItems?: number;
  /** Calls per parallel batch, at most (default 3; batches have at least 2). */
  maxBatch?: number;
  /** Only these tools for plain calls and batches (compensations and reconciliations may name others). */
  tools?: readonly string[];
  /** Chance that an argument is a near miss instead (default 0.15). */
  nearMissRate?: number;
  /**
   * Chance that a string argument is `*` (default 0): what a fact wildcard does when a plan passes it
   * as a value (`verify_recipient(email="*")`), which must count as a literal, never a wildcard (default 0.03).
   */
  wildcardRate?: number;
  /** Relative weights of the item kinds (defaults: call 5, parallel 2, compensate 1, retry 1, reconcile 1). */
  weights?: Partial<Record<ItemKind, number>>;
}

export type ItemKind = 'call' | 'parallel' | 'compensate' | 'retry' | 'reconcile';

/** How one argument is drawn. Every field shrinks towards the plainest choice. */
interface ArgSpec {
  /** Draw from every fitting value of the right type rather than from those named for the parameter. */
  any: boolean;
  pick: number;
  near: boolean;
  nearSeed: number;
  /** Pass an optional parameter at all. */
  include: boolean;
  wild: boolean;
}

interface CallSpec {
  tool: number;
  args: ArgSpec[];
}

type ItemSpec =
  | { kind: 'call'; call: CallSpec }
  | { kind: 'parallel'; calls: CallSpec[] }
  | { kind: 'compensate'; ref: number }
  | { kind: 'retry'; ref: number }
  | { kind: 'reconcile'; ref: number; call: CallSpec };

/** A call as the plan holds it (templates unrendered). */
export interface PlanCall {
  tool: string;
  args: Record<string, unknown>;
}

/** What a scenario offers a plan: its tools, their effective classes, and the static value pool. */
interface Model {
  scenario: Scenario;
  tools: Map<string, Tool>;
  callable: Tool[];
  classes: Map<string, string>;
  world: Candidate[];
  /** Per tool, per parameter. */
  params: Map<Tool, Map<string, ParamInfo>>;
  /** The candidates of earlier replies, one entry per distinct sequence of earlier tools (most recent first), numbered. */
  results: Map<string, Results>;
  /** The tools that report on others (reconcile them, or read a table they write), and on which: derived when first asked for. */
  reconcilers?: { t: Tool; on: string[] }[];
}

function modelOf(scenario: Scenario, opts: PlanArbitraryOptions): Model {
  const tools = new Map(scenario.tools.map((t) => [t.name, t]));
  const callable = opts.tools ? scenario.tools.filter((t) => opts.tools?.includes(t.name)) : scenario.tools;
  if (callable.length === 0)
    throw new Error(`planArbitrary: none of the tools ${opts.tools?.join(', ')} is declared in ${scenario.id}`);
  return {
    scenario,
    tools,
    callable,
    classes: new Map(scenario.tools.map((t) => [t.name, effectiveClass(t, scenario.deployment)])),
    world: worldCandidates(scenario),
    params: new Map(),
    results: new Map(),
  };
}

/** A tool whose effects can be undone by a declared compensating call. */
function compensable(m: Model, tool: string): boolean {
  const t = m.tools.get(tool);
  return (
    !!t &&
    !t.read_only &&
    !!t.compensating_operation &&
    m.classes.get(tool) !== 'irreversible' &&
    m.tools.has(t.compensating_operation)
  );
}

/** What drawing a parameter needs that does not depend on the plan so far, computed once per tool and parameter. */
interface ParamInfo {
  types: string[];
  names: string[];
  pool: Candidate[];
  /** Each static candidate as this parameter's argument, or null when the schema refuses it (checked once, not per plan). */
  usable: Map<Candidate, Usable | null>;
  /** The parameter's enum values and default (schemaCandidates). */
  schema: Candidate[];
  /** Whether `*` fits the parameter (asked once). */
  wildFits?: boolean;
  /** The ranked choices after each set of earlier replies, by its number (see `earlierResults`). */
  choices: Map<number, Choices>;
  /** The static pool's part of every entry of `choices`: ranked as `rankedFitting` ranks it, and the usable ones. */
  fixed?: { named: Ranked[]; all: Usable[] };
}

/** The candidates earlier replies offer, and the number that keys what is derived from them. */
interface Results {
  id: number;
  candidates: readonly Candidate[];
}

function paramInfo(m: Model, tool: Tool, param: string): ParamInfo {
  let byParam = m.params.get(tool);
  if (!byParam) m.params.set(tool, (byParam = new Map()));
  let info = byParam.get(param);
  if (!info) {
    const schema = schemaCandidates(tool, param);
    byParam.set(
      param,
      (info = {
        types: declaredTypes(tool, param),
        names: aliases(tool, param),
        pool: [...m.world, ...schema],
        schema,
        usable: new Map(),
        choices: new Map(),
      }),
    );
  }
  return info;
}

type Usable = { c: Candidate; v: unknown };

/**
 * The values a parameter can take: those named for it, and all of them: the static pool's (`all`, one
 * array for every set of earlier replies) then the earlier replies' (`more`). Joined in one array, the
 * pool, which can be large, was copied for every new set of earlier replies.
 */
interface Choices {
  named: Usable[];
  all: readonly Usable[];
  more: readonly Usable[];
}

const NO_USABLE: readonly Usable[] = [];

/** The values a parameter can take after the earlier calls whose replies `results` offers. */
function choices(m: Model, tool: Tool, param: string, earlier: Results): Choices {
  // The same few tool orders recur across plans, so the ranking is memoised per (tool, parameter, earlier replies).
  const info = paramInfo(m, tool, param);
  let hit = info.choices.get(earlier.id);
  if (!hit) {
    const results = earlier.candidates;
    const { types, names, usable: known } = info;
    // Only values the tool's schema accepts (enum, pattern, bounds): a call that violates it would be
    // rejected, never run, and a counterexample plan holding one would be refused at load.
    const usableOne = (c: Candidate): Usable | null => {
      let u = known.get(c);
      if (u !== undefined) return u;
      const v = asParam(c, types);
      u = v !== undefined && fits(tool, param, c, v) ? { c, v } : null;
      // A static candidate (a concrete value) is checked once; an earlier result's template is always kept.
      if (c.raw !== undefined) known.set(c, u);
      return u;
    };
    const usable = (cs: readonly Candidate[]) => cs.map(usableOne).filter((x): x is Usable => x !== null);
    // As `rankedFitting` and `usable` of the pool [...static, ...results]: the static part ranked once, the results merged in.
    const fixed = (info.fixed ??= { named: rankedFitting(param, info.pool, names), all: usable(info.pool) });
    const named = results.length > 0 ? mergeRanked(fixed.named, rankedFitting(param, results, names)) : fixed.named;
    info.choices.set(
      earlier.id,
      (hit = {
        named: usable(named.map((x) => x.c)),
        all: fixed.all,
        more: results.length > 0 ? usable(results) : NO_USABLE,
      }),
    );
  }
  return hit;
}

/**
 * resultCandidates of the earlier tools, numbered once per distinct sequence of them (the key of `choices`).
 * `recent` is what the candidates depend on: each earlier tool once, most recent first.
 */
function earlierResults(m: Model, recent: readonly string[]): Results {
  let key = '';
  for (const name of recent) key += `${name}\u0000`;
  let r = m.results.get(key);
  if (!r) {
    if (m.results.size > 20_000) {
      // A bound: the numbers start again, and so does what was derived from them.
      m.results.clear();
      for (const byParam of m.params.values()) for (const info of byParam.values()) info.choices.clear();
    }
    m.results.set(key, (r = { id: m.results.size, candidates: resultCandidates(recent.toReversed(), m.tools) }));
  }
  return r;
}

function drawArg(m: Model, tool: Tool, param: string, spec: ArgSpec, results: Results): unknown {
  const info = paramInfo(m, tool, param);
  const { types } = info;
  const { named, all, more } = choices(m, tool, param, results);
  if (
    spec.wild &&
    (types.length === 0 || types.includes('string')) &&
    (info.wildFits ??= fitsParameter(tool.parameters, param, '*'))
  )
    return '*';
  // From all the values ([...all, ...more]) or those named for the parameter.
  const fromAll = spec.any || named.length === 0;
  const n = fromAll ? all.length + more.length : named.length;
  if (n === 0) return fallbackValue(types, param);
  const i = spec.pick % n;
  const chosen = (fromAll ? (i < all.length ? all[i] : more[i - all.length]) : named[i]) as Usable;
  if (!spec.near || chosen.c.raw === undefined) return chosen.v;
  // A near miss is a literal: for an enum, another allowed value (the wrong warehouse, not a typo).
  const others = info.schema.filter((c) => c.from === 'schema' && c.raw !== chosen.c.raw);
  const missed: Scalar =
    others.length > 0
      ? (others[spec.nearSeed % others.length]?.raw as Scalar)
      : nearMiss(chosen.c.raw, createRng(spec.nearSeed));
  const near = asParam({ ...chosen.c, arg: missed, raw: missed }, types);
  return near !== undefined && fitsParameter(tool.parameters, param, near) ? near : chosen.v;
}

/** Whether a candidate, as the argument it becomes, fits the parameter's schema (an earlier result, not known yet, is kept). */
function fits(tool: Tool, param: string, c: Candidate, v: unknown): boolean {
  if (c.raw === undefined) return true;
  const value = typeof v === 'string' && v.startsWith('{{') ? c.raw : v;
  return fitsParameter(tool.parameters, param, value);
}

function buildCall(m: Model, spec: CallSpec, results: Results): PlanCall {
  const tool = m.callable[spec.tool % m.callable.length] as Tool;
  const confirmed = confirmedCall(m, tool, spec.args[0] ?? PLAIN);
  return { tool: tool.name, args: confirmed ?? drawArgs(m, tool, spec.args, results, {}) };
}

/**
 * The arguments of a call the scenario's human confirms (`confirmations:`), for a confirmation tool
 * (asking about it) and for a tool that requires one (making it); undefined to draw them as for any
 * tool (`any` or a near miss: a call the human did not confirm).
 */
function confirmedCall(m: Model, tool: Tool, spec: ArgSpec): Record<string, unknown> | undefined {
  if (spec.any || spec.near) return undefined;
  const ctx = { inputs: m.scenario.inputs, deployment: m.scenario.deployment };
  const table = m.scenario.confirmations.filter((c) => tool.kind === 'confirmation' || c.tool === tool.name);
  const c = table[spec.pick % Math.max(1, table.length)];
  if (!c || (tool.kind !== 'confirmation' && !tool.requires_confirmation)) return undefined;
  const args = renderValue(c.args, ctx) as Record<string, unknown>;
  return tool.kind === 'confirmation' ? { tool: c.tool, args } : args;
}

const PLAIN: ArgSpec = { any: false, pick: 0, near: false, nearSeed: 0, include: false, wild: false };

function drawArgs(
  m: Model,
  tool: Tool,
  specs: readonly ArgSpec[],
  results: Results,
  given: Record<string, unknown>,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  Object.keys(tool.parameters.properties).forEach((param, i) => {
    if (param in given) {
      args[param] = given[param];
      return;
    }
    const spec = specs[i] ?? PLAIN;
    if (!tool.parameters.required.includes(param) && !spec.include) return;
    args[param] = drawArg(m, tool, param, spec, results);
  });
  return args;
}

/** Rewrites a declared compensation template for a plan: `{{args.x}}` to the earlier call's argument, `{{result.p}}` to `{{results.TOOL.p}}`. */
function toPlanTemplate(value: unknown, call: PlanCall, deployment: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => toPlanTemplate(v, call, deployment));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toPlanTemplate(v, call, deployment)]),
    );
  }
  if (typeof value !== 'string') return value;
  const lookup = (path: string): unknown => {
    const [root, ...rest] = path.split('.');
    if (root === 'result') return `{{results.${call.tool}.${rest.join('.')}}}`;
    if (root === 'inputs') return `{{${path}}}`;
    // Projections (`{{args.entities[*].name}}`) read as they render.
    return lookupTemplate({ args: call.args, deployment }, path) ?? '';
  };
  // Linear patterns only (see harness/core/templates/render.ts): the path is trimmed in code.
  const whole = /^\{\{([^{}]*)\}\}$/.exec(value);
  if (whole) return lookup((whole[1] ?? '').trim());
  return value.replace(/\{\{([^{}]*)\}\}/g, (_m, path: string) => {
    const v = lookup(path.trim());
    return typeof v === 'string' ? v : JSON.stringify(v);
  });
}

/** The call that compensates an earlier plan call, as its tool declares it. */
export function compensationCall(scenario: Scenario, call: PlanCall): PlanCall | undefined {
  const tool = scenario.tools.find((t) => t.name === call.tool);
  if (!tool?.compensating_operation) return undefined;
  return {
    tool: tool.compensating_operation,
    args: toPlanTemplate(tool.compensation_args ?? {}, call, scenario.deployment) as Record<string, unknown>,
  };
}

const item = (c: PlanCall): PlanItem => ({ [c.tool]: c.args });

/** Turns generated item descriptions into a plan; items that refer to nothing earlier are left out. */
function buildPlan(m: Model, specs: readonly ItemSpec[]): PlanItem[] {
  const plan: PlanItem[] = [];
  const history: PlanCall[] = [];
  // The tools called so far, each once, most recent first; and the replies they offer (made when asked for).
  const recentTools: string[] = [];
  let results: Results | undefined;
  const add = (c: PlanCall) => {
    history.push(c);
    const i = recentTools.indexOf(c.tool);
    if (i !== 0) {
      if (i > 0) recentTools.splice(i, 1);
      recentTools.unshift(c.tool);
      results = undefined;
    }
  };
  const earlier = () => (results ??= earlierResults(m, recentTools));
  // `ref` 0 is the most recent match, so shrinking moves towards the nearest earlier call.
  const recent = <T>(xs: readonly T[], ref: number): T | undefined =>
    xs.length === 0 ? undefined : xs[xs.length - 1 - (ref % xs.length)];
  for (const s of specs) {
    if (s.kind === 'call') {
      const c = buildCall(m, s.call, earlier());
      plan.push(item(c));
      add(c);
    } else if (s.kind === 'parallel') {
      // Results of a batch are available only to later items.
      const before = earlier();
      const calls = s.calls.map((cs) => buildCall(m, cs, before));
      plan.push({ parallel: calls.map(item) } as PlanItem);
      for (const c of calls) add(c);
    } else if (s.kind === 'compensate') {
      const target = recent(
        history.filter((c) => compensable(m, c.tool)),
        s.ref,
      );
      const c = target && compensationCall(m.scenario, target);
      if (c) {
        plan.push(item(c));
        add(c);
      }
    } else if (s.kind === 'retry') {
      const target = recent(history, s.ref);
      if (target) {
        plan.push(item(target));
        add(target);
      }
    } else {
      // A read of a table a call wrote reports on it as a reconciler does (rules/reconcile.ts).
      const reconcilers = (m.reconcilers ??= m.scenario.tools
        .map((t) => ({ t, on: reportedTools(t, m.scenario.tools) }))
        .filter((r) => r.on.length > 0));
      const target = recent(
        history.filter((c) => reconcilers.some((r) => r.on.includes(c.tool))),
        s.ref,
      );
      const by = target && reconcilers.find((r) => r.on.includes(target.tool))?.t;
      if (target && by) {
        // The reconciler reports on the latest call whose arguments agree on the parameters both tools share.
        const shared = Object.fromEntries(
          Object.keys(by.parameters.properties)
            .filter((p) => p in target.args)
            .map((p) => [p, target.args[p]]),
        );
        const c = { tool: by.name, args: drawArgs(m, by, s.call.args, earlier(), shared) };
        plan.push(item(c));
        add(c);
      }
    }
  }
  return plan;
}

/** The arbitrary of an argument description: plain choices are the likeliest and the shrink targets. */
function argSpecArb(nearMissRate: number, wildcardRate: number): fc.Arbitrary<ArgSpec> {
  const percent = Math.round(nearMissRate * 100);
  const wild = Math.round(wildcardRate * 1000);
  // Draws and shrinks exactly as `fc.record({ any: nat(7).map(..), pick, near: .., nearSeed, include: .., wild: .. })`
  // did (fast-check 4 makes a record a tuple of its fields and a boolean, its null prototype, mapped to an
  // object), mapped once: the six maps and the record of each argument were a tenth of generating a plan
  // (npm run bench). The trailing boolean is the record's own draw: without it a seed would give other plans.
  return fc
    .tuple(
      fc.nat({ max: 7 }),
      fc.nat({ max: 255 }),
      fc.nat({ max: 99 }),
      fc.nat({ max: 0xffff }),
      fc.nat({ max: 2 }),
      wild > 0 ? fc.nat({ max: 999 }) : fc.constant(-1),
      fc.boolean(),
    )
    .map(([any, pick, near, nearSeed, include, w]): ArgSpec => ({
      any: any === 7,
      pick,
      near: near >= 100 - percent,
      nearSeed,
      include: include > 0,
      wild: wild > 0 && w >= 1000 - wild,
    }));
}

/**
 * Plans for a scenario: up to `maxItems` items of calls, parallel batches,
 * compensations, retries and reconciliations, as plan-file items.
 *
 * @example
 * fc.sample(planArbitrary(scenario), 1)[0]
 * // [{ create_invoice: { customer: '{{inputs.customer}}', amount: '{{inputs.amount}}', currency: EUR } },
 * //  { send_invoice_email: { to: 'billing@northwind-traders.example', customer: ..., invoice_id: '{{results.create_invoice.id}}' } }]
 */
export function planArbitrary(scenario: Scenario, opts: PlanArbitraryOptions = {}): fc.Arbitrary<PlanItem[]> {
  const m = modelOf(scenario, opts);
  const maxParams = Math.max(0, ...scenario.tools.map((t) => Object.keys(t.parameters.properties).length));
  const args = fc.array(argSpecArb(opts.nearMissRate ?? 0.15, opts.wildcardRate ?? 0.03), {
    minLength: maxParams,
    maxLength: maxParams,
  });
  // As fc.record({ tool, args }) draws and shrinks it (see argSpecArb).
  const callParts = fc.tuple(fc.nat({ max: 255 }), args, fc.boolean());
  const call: fc.Arbitrary<CallSpec> = callParts.map(([tool, a]): CallSpec => ({ tool, args: a }));
  const w = { call: 5, parallel: 2, compensate: 1, retry: 1, reconcile: 1, ...opts.weights };
  const hasCompensation = scenario.tools.some((t) => compensable(m, t.name));
  const hasReconciler = scenario.tools.some((t) => reportedTools(t, scenario.tools).length > 0);
  const maxBatch = Math.max(2, opts.maxBatch ?? 3);
  const kinds: fc.WeightedArbitrary<ItemSpec>[] = [
    { weight: w.call, arbitrary: callParts.map(([tool, a]): ItemSpec => ({ kind: 'call', call: { tool, args: a } })) },
    {
      weight: w.parallel,
      arbitrary: fc
        .array(call, { minLength: 2, maxLength: maxBatch })
        .map((calls): ItemSpec => ({ kind: 'parallel', calls })),
    },
    { weight: w.retry, arbitrary: fc.nat({ max: 15 }).map((ref): ItemSpec => ({ kind: 'retry', ref })) },
    ...(hasCompensation
      ? [{ weight: w.compensate, arbitrary: fc.nat({ max: 15 }).map((ref): ItemSpec => ({ kind: 'compensate', ref })) }]
      : []),
    ...(hasReconciler
      ? [
          {
            weight: w.reconcile,
            // As fc.record({ ref, call }) draws and shrinks it.
            arbitrary: fc
              .tuple(fc.nat({ max: 15 }), call, fc.boolean())
              .map(([ref, c]): ItemSpec => ({ kind: 'reconcile', ref, call: c })),
          },
        ]
      : []),
  ].filter((k) => k.weight > 0);
  return fc
    .array(fc.oneof(...kinds), { minLength: 1, maxLength: opts.maxItems ?? 6 })
    .map((specs) => buildPlan(m, specs));
}

/** The calls of a plan item (one, or a batch's). */
export function itemCalls(item: PlanItem): PlanCall[] {
  if (item === 'finish') return [];
  const calls = Array.isArray((item as { parallel?: unknown }).parallel)
    ? (item as { parallel: Record<string, unknown>[] }).parallel
    : [item as Record<string, unknown>];
  return calls.flatMap((c) =>
    Object.entries(c).map(([tool, args]) => ({ tool, args: (args ?? {}) as Record<string, unknown> })),
  );
}

/** Calls in a plan, batches counted call by call. */
export function planCallCount(plan: readonly PlanItem[]): number {
  return plan.reduce((n, i) => n + itemCalls(i).length, 0);
}
