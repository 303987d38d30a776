/**
 * The values a fuzzed plan may pass as arguments, derived from a scenario's
 * declarations: its inputs (as `{{inputs.x}}` templates), the world (initial
 * facts' arguments, table cells), the literal arguments of preconditions (a
 * gate's `action`), the approvals' actions, each parameter's enum and default,
 * and the ids that earlier calls of the plan return (as `{{results.TOOL.path}}`).
 */
import { mustParseFact, parseFact } from '../../core/facts/fact.ts';
import { renderFact } from '../../core/facts/template.ts';
import { factPreconditions, type Scenario, type Tool } from '../../core/scenario.ts';
import { renderText, renderValue } from '../../core/templates/render.ts';
import { declaredTypes as typesOf, textAs } from '../../util/param-types.ts';

export type { Scalar } from '../../domain/planner-kit/values.ts';
import type { Scalar } from '../../domain/planner-kit/values.ts';
import { expandedEffects } from '../../core/effects/index.ts';

/** One value a plan could pass: `arg` goes into the plan; `raw` is its concrete value (unknown for earlier results). */
export interface Candidate {
  arg: unknown;
  raw: Scalar | undefined;
  /** The name it is known under: an input's key, a fact argument, a table column, a result path's last segment. */
  key: string;
  from: 'inputs' | 'results' | 'schema' | 'facts' | 'preconditions' | 'approvals' | 'tables';
  /** For a table cell, the table's name. */
  table?: string;
}

const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** The static part of the pool: everything but earlier results, in a fixed order. */
export function worldCandidates(scenario: Scenario): Candidate[] {
  const ctx = { inputs: scenario.inputs, deployment: scenario.deployment };
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const add = (c: Candidate) => {
    const id = JSON.stringify([c.from === 'inputs' ? 'i' : 'v', c.key, c.arg]);
    if (seen.has(id) || c.raw === '*' || (typeof c.raw === 'string' && c.raw.includes('{{'))) return;
    seen.add(id);
    out.push(c);
  };
  for (const [key, v] of Object.entries(scenario.inputs))
    if (isScalar(v)) add({ arg: `{{inputs.${key}}}`, raw: v, key, from: 'inputs' });
  for (const f of scenario.world.facts) {
    for (const [key, v] of Object.entries(renderFact(f, ctx, 'empty').args))
      if (v !== '') add({ arg: v, raw: v, key, from: 'facts' });
  }
  for (const t of scenario.tools) {
    for (const p of factPreconditions(t)) {
      for (const [key, v] of Object.entries(renderFact(p, ctx, 'keep').args))
        add({ arg: v, raw: v, key, from: 'preconditions' });
    }
  }
  for (const action of Object.keys(scenario.approvals)) {
    const v = renderText(action, ctx);
    add({ arg: v, raw: v, key: 'action', from: 'approvals' });
  }
  for (const [table, rows] of Object.entries(scenario.world.tables)) {
    for (const row of rows) {
      for (const [key, v] of Object.entries(renderValue(row, ctx) as Record<string, unknown>))
        if (isScalar(v)) add({ arg: v, raw: v, key, from: 'tables', table });
    }
  }
  return out;
}

/** Scalar leaf paths of a tool's declared reply (`returns`), e.g. `id`, `charge.id`. */
function resultPaths(tool: Tool): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string[]) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) walk(x, [...path, k]);
    } else if (!Array.isArray(v) && path.length > 0) out.push(path.join('.'));
  };
  walk(tool.returns ?? {}, []);
  if (tool.kind === 'approval') out.push('approved');
  return out;
}

/** A tool's result candidates, made once per tool (a scenario's tools never change; nothing changes a candidate). */
const toolResults = new WeakMap<Tool, readonly Candidate[]>();

/** `{{results.TOOL.path}}` for each tool called earlier (most recent first), each path of its reply. */
export function resultCandidates(earlier: readonly string[], tools: ReadonlyMap<string, Tool>): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (let i = earlier.length - 1; i >= 0; i--) {
    const name = earlier[i] as string;
    if (seen.has(name)) continue;
    seen.add(name);
    const tool = tools.get(name);
    if (!tool) continue;
    let mine = name === tool.name ? toolResults.get(tool) : undefined;
    if (!mine) {
      mine = resultPaths(tool).map((path): Candidate => ({
        arg: `{{results.${name}.${path}}}`,
        raw: undefined,
        key: path.split('.').pop() ?? path,
        from: 'results',
      }));
      if (name === tool.name) toolResults.set(tool, mine);
    }
    out.push(...mine);
  }
  return out;
}

/** The declared types of a tool's parameter. */
export const declaredTypes = (tool: Tool, param: string): string[] => typesOf(tool.parameters, param);

/**
 * The candidate as an argument of the parameter's declared type, or undefined
 * when it cannot be one (text that is not a number for a number parameter).
 * Templates are kept: they render to their value's own type.
 */
export function asParam(c: Candidate, types: readonly string[]): unknown {
  if (types.length === 0) return c.arg;
  if (c.raw === undefined)
    return types.some((t) => ['string', 'number', 'integer', 'boolean'].includes(t)) ? c.arg : undefined;
  const v = c.raw;
  const templated = typeof c.arg === 'string' && c.arg.startsWith('{{');
  if (types.includes('string')) return templated || typeof v === 'string' ? c.arg : String(v);
  if (types.includes('number') || types.includes('integer')) {
    if (typeof v === 'number') return c.arg;
    return typeof v === 'string' ? textAs(['number'], v) : undefined;
  }
  if (types.includes('boolean')) {
    if (typeof v === 'boolean') return c.arg;
    return typeof v === 'string' ? textAs(['boolean'], v) : undefined;
  }
  return undefined;
}

/**
 * The names a parameter goes by in its tool's facts: `to` of a tool with the
 * precondition `recipient_verified(email={{args.to}})` is also an `email`.
 */
export function aliases(tool: Tool, param: string): string[] {
  const out = new Set([param]);
  const whole = `{{args.${param}}}`;
  const facts = [
    ...factPreconditions(tool),
    ...expandedEffects(tool.effects).flatMap((e) =>
      [e.establish, e.revoke].filter((f): f is string => f !== undefined),
    ),
  ];
  for (const f of facts)
    for (const [k, v] of Object.entries(parseFact(f).ok ? mustParseFact(f).args : {}))
      if (v.replace(/\s+/g, '') === whole) out.add(k);
  return [...out];
}

const FROM_ORDER: Candidate['from'][] = [
  'inputs',
  'results',
  'schema',
  'facts',
  'preconditions',
  'approvals',
  'tables',
];

/** A candidate named for a parameter, with its place in the order: by `rank`, then by where it came from, then as pooled. */
export interface Ranked {
  c: Candidate;
  rank: number;
  from: number;
}

/** The candidates named for the parameter (or an alias: the same key, and for `x_id` also an `id` of a tool whose name mentions `x` first), ranked: two ranked lists merge (mergeRanked) as the ranking of their pools joined would sort. */
export function rankedFitting(param: string, pool: readonly Candidate[], names: readonly string[] = [param]): Ranked[] {
  const prefix = param.endsWith('_id') ? param.slice(0, -3) : undefined;
  const idOf = prefix !== undefined || param === 'id';
  const rank = (c: Candidate) => {
    if (c.key === param) return 0;
    if (names.includes(c.key)) return 1;
    // An `invoice_id` is first the id create_invoice returned, then a row id of the invoices table.
    if (idOf && c.key === 'id')
      return prefix && (c.from === 'results' ? String(c.arg).includes(prefix) : c.table?.startsWith(prefix)) ? 0 : 2;
    return -1;
  };
  return pool
    .map((c) => ({ c, rank: rank(c), from: FROM_ORDER.indexOf(c.from) }))
    .filter((x) => x.rank >= 0)
    .sort((a, b) => a.rank - b.rank || a.from - b.from);
}

/**
 * Two ranked lists as one, in `rankedFitting`'s order for the pool `[...a's pool, ...b's pool]` (its sort is
 * stable: on a tie, `a` first). The static candidates are ranked once and each set of earlier results
 * merged in, rather than the whole pool ranked again for every set.
 */
export function mergeRanked(a: readonly Ranked[], b: readonly Ranked[]): Ranked[] {
  if (b.length === 0) return a.slice();
  const out: Ranked[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Ranked;
    const y = b[j] as Ranked;
    if (y.rank - x.rank < 0 || (y.rank === x.rank && y.from < x.from)) {
      out.push(y);
      j++;
    } else {
      out.push(x);
      i++;
    }
  }
  while (i < a.length) out.push(a[i++] as Ranked);
  while (j < b.length) out.push(b[j++] as Ranked);
  return out;
}

/** The parameter's enum values and default, as candidates. */
export function schemaCandidates(tool: Tool, param: string): Candidate[] {
  const schema = tool.parameters.properties[param] ?? {};
  const out: Candidate[] = [];
  if (Array.isArray(schema.enum))
    for (const v of schema.enum) if (isScalar(v)) out.push({ arg: v, raw: v, key: param, from: 'schema' });
  if (isScalar(schema.default)) out.push({ arg: schema.default, raw: schema.default, key: param, from: 'schema' });
  return out;
}

/** What to pass when nothing fits: a value of the declared type. */
export function fallbackValue(types: readonly string[], param: string): unknown {
  if (types.includes('number') || types.includes('integer')) return 1;
  if (types.includes('boolean')) return true;
  if (types.includes('array')) return [];
  if (types.includes('object')) return {};
  return `${param}-1`;
}
