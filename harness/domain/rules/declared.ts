/**
 * What a tool's declaration says of one call, in some world: which of its
 * preconditions hold, what it declares it establishes, the effects it has once
 * it applied, and its compensation. One home for the sandbox, which judges a
 * call against its ground truth, and for `oneway guard`, which judges it
 * against the facts it observed (harness/features/guard-proxy/).
 *
 * @example
 * const { held, missing } = preconditionsIn(sendEmail, { args: { to: 'bob@acme.example' } }, world);
 */
import { formatFact, formatPattern } from '../../core/facts/fact.ts';
import { renderFactText, renderPattern } from '../../core/facts/template.ts';
import { applyEffect, type DeclaredEffect, type ForEach } from '../../core/effects/index.ts';
import type { Result } from '../../core/errors.ts';
import type { AppliedEffect, Compensation } from '../../core/record.ts';
import type { Tool, ToolClass } from '../../core/scenario.ts';
import { conditionHolds, derivedFailure, renderedCondition } from '../../core/templates/condition.ts';
import {
  lookupTemplate,
  renderValue,
  templatePaths,
  templateSteps,
  type TemplateContext,
} from '../../core/templates/render.ts';
import type { Row, World } from '../../core/world.ts';
import { stableJson } from '../../util/json.ts';

/**
 * The call's preconditions rendered, split by whether they hold in `world`. Only a `*` the
 * declaration wrote is a wildcard; one that arrived in an argument is literal text. A precondition
 * over an argument the call did not give cannot be checked, so it does not hold.
 */
export function preconditionsIn(
  tool: Pick<Tool, 'preconditions'>,
  ctx: TemplateContext,
  world: Pick<World, 'holds'>,
): { held: string[]; missing: string[] } {
  const held: string[] = [];
  const missing: string[] = [];
  for (const p of tool.preconditions) {
    if (typeof p !== 'string') {
      // A comparison: it holds when true; its record text is the condition with its values filled in.
      (conditionHolds(p.when, ctx) ? held : missing).push(conditionFact(p.when, ctx));
      continue;
    }
    const { fact, written, missing: unbound } = renderPattern(p, ctx);
    (unbound.size === 0 && world.holds(fact, { wildcardKeys: written }) ? held : missing).push(
      formatPattern(fact, written),
    );
  }
  return { held, missing };
}

/**
 * How a comparison precondition reads in a record's held and missing lists: a fact of the reserved
 * name `oneway.when`, so every reader of those lists (they hold facts) reads it as one.
 *
 * @example
 * conditionFact('{{order.status}} == pending', ctx) // 'oneway.when(check="cancelled == pending")'
 */
function conditionFact(when: string, ctx: TemplateContext): string {
  return formatFact({ name: 'oneway.when', args: { check: renderedCondition(when, ctx) } });
}

/**
 * How a confirmation requirement reads in a record's held and missing lists: `oneway.confirmed`
 * with the tool and its arguments (key-order-free JSON).
 */
export function confirmationFact(tool: string, args: Record<string, unknown>): string {
  return formatFact({ name: 'oneway.confirmed', args: { tool, args: stableJson(args) } });
}

/** The reserved fact names above: a scenario may not use the `oneway.` prefix for facts of its own. */
export const RESERVED_FACT_PREFIX = 'oneway.';

/**
 * The rows a tool's `lookups:` find in `tables`, in declaration order (a lookup's `where` may read
 * the lookups before it): the first row matching each, or undefined when none does or a `where`
 * value reads something that has no value. A lookup with `each: true` gives a list of rows, in
 * order, one per index of its list-valued `where` values (several lists pair up by index, as
 * `{flight_number, date}` elements do); undefined when an index matches no row, or when no `where`
 * value is a list or the lists differ in length. The `where` keys listed
 * in `ignore_case` match regardless of case.
 *
 * @example
 * resolveLookups(cancelOrder, { args: { order_id: '#W1' } }, world) // { order: { order_id: '#W1', status: 'pending', ... } }
 */
export function resolveLookups(
  tool: Pick<Tool, 'lookups'>,
  ctx: TemplateContext,
  tables: Pick<World, 'firstRow'>,
): Record<string, Row | Row[] | undefined> {
  const out: Record<string, Row | Row[] | undefined> = {};
  const names = Object.keys(tool.lookups);
  if (names.length === 0) return out;
  const scope: TemplateContext = { ...ctx, lookups: out };
  for (const name of names) {
    const l = tool.lookups[name] as Tool['lookups'][string];
    const unbound = Object.values(l.where).some(
      (v) => typeof v === 'string' && templatePaths(v).some((p) => lookupTemplate(scope, p) === undefined),
    );
    if (unbound) out[name] = undefined;
    else if (l.each) out[name] = eachRow(l.table, renderValue(l.where, scope) as Row, tables, l.ignore_case);
    else out[name] = tables.firstRow(l.table, renderValue(l.where, scope) as Row, l.ignore_case);
  }
  return out;
}

/**
 * An `each: true` lookup's rows: one per index of its list-valued `where` values, the row matching
 * every one of them at that index (and the other values whole); undefined when there is no list, the
 * lists differ in length, or an index matches no row. The `where` keys in `ignoreCase` match
 * regardless of case.
 */
function eachRow(
  table: string,
  where: Row,
  tables: Pick<World, 'firstRow'>,
  ignoreCase: readonly string[] | undefined,
): Row[] | undefined {
  const lists = Object.keys(where).filter((k) => Array.isArray(where[k]));
  if (lists.length === 0) return undefined;
  const length = (where[lists[0] as string] as unknown[]).length;
  if (lists.some((k) => (where[k] as unknown[]).length !== length)) return undefined;
  const rows: Row[] = [];
  for (let i = 0; i < length; i++) {
    const match: Row = { ...where };
    for (const k of lists) match[k] = (where[k] as unknown[])[i] as Row[string];
    const row = tables.firstRow(table, match, ignoreCase);
    if (row === undefined) return undefined;
    rows.push(row);
  }
  return rows;
}

/** The reason of the first validation of a tool that does not hold in `ctx`, or undefined when all hold. */
export function validationFailure(tool: Pick<Tool, 'validate'>, ctx: TemplateContext): string | undefined {
  for (const v of tool.validate) if (!conditionHolds(v.when, ctx)) return v.error;
  return undefined;
}

/** The sequences (`{{seq.NAME}}`) a tool's reply, effects and compensation read, by name. */
export function sequencesOf(tool: Pick<Tool, 'returns' | 'effects' | 'compensation_args'>): string[] {
  const names = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const p of templatePaths(v)) {
        // `{{seq.T}}`, or a key read under it (`{{ids.names[seq.T]}}`).
        if (p.startsWith('seq.')) names.add(p.slice(4));
        for (const s of templateSteps(p))
          if (s.key?.startsWith('seq.')) names.add(s.key.slice(4).split('.')[0] as string);
      }
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk([tool.returns, tool.effects, tool.compensation_args]);
  return [...names];
}

/**
 * The contexts a `for_each` runs its effects in: one per element of `in`, with the element under
 * `as` and each `zip` list's element at the same index under its name (read like lookups); or why
 * there are none to run (not a list, lists of different lengths).
 *
 * @example
 * loopContexts({ in: '{{args.ids}}', as: 'item', do: [...] }, { args: { ids: ['a', 'b'] } }) // { ok: true, value: [ctx with item a, ctx with item b] }
 */
function loopContexts(loop: ForEach, ctx: TemplateContext): Result<TemplateContext[], { message: string }> {
  const lists: [string, unknown][] = [
    [loop.as, renderValue(loop.in, ctx)],
    ...Object.entries(loop.zip ?? {}).map(([name, t]): [string, unknown] => [name, renderValue(t, ctx)]),
  ];
  const sources = [loop.in, ...Object.values(loop.zip ?? {})];
  for (let k = 0; k < lists.length; k++)
    if (!Array.isArray(lists[k]?.[1])) return { ok: false, message: `for_each: ${sources[k]} is not a list` };
  const lengths = lists.map(([, l]) => (l as unknown[]).length);
  if (lengths.some((n) => n !== lengths[0]))
    return {
      ok: false,
      message: `for_each: the lists have different lengths (${lists.map(([name], k) => `${name} ${lengths[k]}`).join(', ')})`,
    };
  const out: TemplateContext[] = [];
  for (let i = 0; i < (lengths[0] ?? 0); i++) {
    const vars: Record<string, unknown> = { ...ctx.lookups };
    for (const [name, l] of lists) vars[name] = (l as unknown[])[i];
    out.push({ ...ctx, lookups: vars });
  }
  return { ok: true, value: out };
}

/** Each effect of a tool that may apply, with the context it applies in (a `for_each`'s once per element). */
function effectRuns(tool: Pick<Tool, 'effects'>, ctx: TemplateContext): [DeclaredEffect, TemplateContext][] {
  const out: [DeclaredEffect, TemplateContext][] = [];
  for (const e of tool.effects) {
    if (!e.for_each) {
      out.push([e, ctx]);
      continue;
    }
    if (e.if !== undefined && !conditionHolds(e.if, ctx)) continue;
    const runs = loopContexts(e.for_each, ctx);
    // Lists that do not pair up: the sandbox refuses the call first (forEachFailure); nothing runs.
    if (runs.ok) for (const c of runs.value) for (const inner of e.for_each.do) out.push([inner, c]);
  }
  return out;
}

/** Why a `for_each` of a tool that applies in `ctx` cannot run (a 422), or undefined. */
export function forEachFailure(tool: Pick<Tool, 'effects'>, ctx: TemplateContext): string | undefined {
  for (const e of tool.effects) {
    if (!e.for_each || (e.if !== undefined && !conditionHolds(e.if, ctx))) continue;
    const runs = loopContexts(e.for_each, ctx);
    if (!runs.ok) return runs.message;
  }
  return undefined;
}

/** What a call declares it establishes before its reply is known (a result or id is unknown: a bare `*`). */
export function declaredEstablishes(tool: Pick<Tool, 'effects'>, ctx: TemplateContext): string[] {
  const out: string[] = [];
  // A conditional one is declared when its condition holds over what is known before the reply.
  for (const [e, c] of effectRuns(tool, ctx))
    if (e.establish !== undefined && (e.if === undefined || conditionHolds(e.if, c)))
      out.push(renderFactText(e.establish, c, 'wildcard'));
  return out;
}

/** Applies a call's declared effects to `world`, in order: the concrete changes they made. */
export function applyDeclaredEffects(tool: Pick<Tool, 'effects'>, world: World, ctx: TemplateContext): AppliedEffect[] {
  const out: AppliedEffect[] = [];
  for (const e of tool.effects) {
    if (e.for_each) {
      // The loop's elements are read when it runs: an effect before it may have changed a lookup's row.
      for (const [inner, c] of effectRuns({ effects: [e] }, ctx)) {
        const applied = applyEffect(inner, world, c);
        if (applied) out.push(applied);
      }
      continue;
    }
    const applied = applyEffect(e, world, ctx);
    if (applied) out.push(applied);
  }
  return out;
}

/**
 * The compensation of a call that took effect, its arguments rendered from the call and its reply;
 * none for an irreversible or read-only tool, or one that declares no compensating operation. It
 * needs approval when the declaration says so, and always for a compensable tool by default.
 */
export function compensationOf(
  tool: Pick<Tool, 'read_only' | 'compensating_operation' | 'compensation_args' | 'compensation_requires_approval'>,
  cls: ToolClass,
  ctx: TemplateContext,
): Compensation | null {
  if (cls === 'irreversible' || tool.read_only || !tool.compensating_operation) return null;
  return {
    operation: tool.compensating_operation,
    args: renderValue(tool.compensation_args ?? {}, ctx) as Record<string, unknown>,
    requires_approval: tool.compensation_requires_approval ?? cls === 'compensable',
  };
}

/** Why a derived value (`"= EXPR"`) of an effect that applies in `ctx` gives no number, or undefined. */
export function derivedValueFailure(tool: Pick<Tool, 'effects'>, ctx: TemplateContext): string | undefined {
  for (const [e, c] of effectRuns(tool, ctx)) {
    if (e.if !== undefined && !conditionHolds(e.if, c)) continue;
    const f =
      (e.insert && derivedFailure(e.insert.row, c)) ??
      (e.update &&
        (derivedFailure(e.update.set, c) ??
          derivedFailure(e.update.append, c) ??
          derivedFailure(e.update.set_element, c) ??
          derivedFailure(e.update.remove, c)));
    if (f) return f;
  }
  return undefined;
}
