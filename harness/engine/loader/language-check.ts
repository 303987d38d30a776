/**
 * Whole-scenario checks of the scenario language for real domains (issue 41): lookups, comparisons
 * (preconditions' `when:`, `validate:`, effects' `if:`), derived values (`"= EXPR"`), update's
 * `append`, confirmations (`kind: confirmation`, `requires_confirmation`, `confirmations:`), and
 * the reserved `oneway.` fact names. Run by semantics.ts after the schema passes.
 */
import { formatPath, type Problem } from '../../core/errors.ts';
import { parseFact } from '../../core/facts/fact.ts';
import { RESERVED_FACT_PREFIX } from '../../domain/rules/declared.ts';
import type { Scenario, Tool } from '../../core/scenario.ts';
import type { DeclaredEffect, ForEach } from '../../core/effects/index.ts';
import { boundNames, DERIVED, parseCondition, parseExpression } from '../../core/templates/condition.ts';
import { TEMPLATE_ROOTS } from '../../core/templates/render.ts';
import { tablesWritten } from '../../domain/rules/reconcile.ts';
import { didYouMean, joinHints } from '../../util/did-you-mean.ts';
import { checkTemplateString, checkTemplateValue, type Locator, type TemplateScope } from './templates-check.ts';
import type { FieldPath } from './yaml-source.ts';

/** The lookup names a tool declares, in order. */
export function lookupNames(t: Pick<Tool, 'lookups'>): string[] {
  return Object.keys(t.lookups);
}

/** The lookup names with `each: true` (a list of rows), in order. */
export function listLookupNames(t: Pick<Tool, 'lookups'>): string[] {
  return Object.keys(t.lookups).filter((n) => t.lookups[n]?.each === true);
}

/** The names a `for_each` gives its elements: `as`, then each `zip` name. */
export function loopNames(loop: ForEach): string[] {
  return [loop.as, ...Object.keys(loop.zip ?? {})];
}

/** A tool may name itself as its compensation when its compensation gives back a before-image (`{{before.NAME.x}}`). */
export function selfCompensationAllowed(t: Pick<Tool, 'compensation_args'>): boolean {
  return JSON.stringify(t.compensation_args ?? {}).includes('{{before.');
}

/** The most names the all( of one condition may give their elements, together. */
const MAX_BOUND_NAMES = 64;

/** Roots a lookup name may not take (it would hide them), and names that read as something else. */
const RESERVED_NAMES = new Set<string>([...TEMPLATE_ROOTS, 'results', 'lookups']);

const CONDITION_HINT =
  'write LEFT OP RIGHT with OP one of == != < <= > >= (e.g. "{{order.status}} == pending"), or X in [a, b], joined by and / or; quote text with spaces or signs';

function problem(loc: Locator, path: FieldPath, message: string, hint?: string, offset?: number): Problem {
  const pos = offset !== undefined && loc.locateInString ? loc.locateInString(path, offset) : loc.locate(path);
  return { code: 'schema', file: loc.file, ...pos, path: formatPath(path), message, ...(hint ? { hint } : {}) };
}

/**
 * A condition's syntax and templates. The names its `all(...)` give elements are template roots
 * inside it: never a root, a lookup or a loop name they would hide, never given twice.
 */
function checkCondition(text: string, path: FieldPath, scope: TemplateScope, loc: Locator): Problem[] {
  const bound = boundNames(text);
  const outer = scope.lookups ?? [];
  // Every template is checked against every name: a bound keeps that linear in the condition.
  if (bound.length > MAX_BOUND_NAMES)
    return [
      problem(
        loc,
        path,
        `the condition names ${bound.length} all( elements; at most ${MAX_BOUND_NAMES}`,
        'split the condition: a tool may have several when: and validate entries',
      ),
    ];
  const c = parseCondition(text);
  // An all(...) that does not parse names no elements: its templates would read as unknown roots.
  if (!c.ok && /\ball\s*\(/.test(text))
    return [
      problem(loc, path, `the condition "${text}" does not parse: ${c.message}`, c.hint || CONDITION_HINT, c.offset),
    ];
  const templates = checkTemplateString(
    text,
    path,
    bound.length > 0 ? { ...scope, lookups: [...outer, ...bound] } : scope,
    loc,
  );
  if (templates.length > 0) return templates;
  if (!c.ok)
    return [
      problem(loc, path, `the condition "${text}" does not parse: ${c.message}`, c.hint || CONDITION_HINT, c.offset),
    ];
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const name of bound) {
    if (RESERVED_NAMES.has(name) || outer.includes(name) || seen.has(name))
      out.push(
        problem(
          loc,
          path,
          `the all( name "${name}" is ${seen.has(name) ? 'given twice' : outer.includes(name) ? 'a lookup or loop name already' : 'a template root of its own'}`,
          `rename it (e.g. ${name}_item): inside all(...), {{${name}}} is the element`,
        ),
      );
    seen.add(name);
  }
  return out;
}

/** Every derived value (`"= EXPR"`) in an effect's values parses as arithmetic. */
function checkDerived(v: unknown, path: FieldPath, loc: Locator): Problem[] {
  if (typeof v === 'string') {
    if (!DERIVED.test(v)) return [];
    const e = parseExpression(v.replace(DERIVED, ''));
    return e.ok
      ? []
      : [
          problem(
            loc,
            path,
            `the derived value "${v}" does not parse: ${e.message}`,
            'a value "= EXPR" is arithmetic on numbers: + - * / and parentheses over templates and numbers, e.g. "= {{user.balance}} - {{args.amount}}"',
          ),
        ];
  }
  if (Array.isArray(v)) return v.flatMap((x, k) => checkDerived(x, [...path, k], loc));
  if (v !== null && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => checkDerived(x, [...path, k], loc));
  return [];
}

/** The tables a scenario names: its world's, and those its tools' effects write. */
function knownTables(s: Scenario): string[] {
  const out = new Set(Object.keys(s.world.tables));
  for (const t of s.tools) for (const table of tablesWritten(t)) out.add(table);
  return [...out];
}

function reservedFact(text: string): boolean {
  return text.trim().startsWith(RESERVED_FACT_PREFIX);
}

const RESERVED_HINT = `fact names starting "${RESERVED_FACT_PREFIX}" are oneway's own (comparisons and confirmations in records): rename the fact`;

/**
 * The language's problems in one tool.
 *
 * @example
 * checkToolLanguage(tool, 0, scenario, loc) // [] for a valid tool
 */
export function checkToolLanguage(t: Tool, i: number, s: Scenario, loc: Locator): Problem[] {
  const out: Problem[] = [];
  const at = (...rest: (string | number)[]): FieldPath => ['tools', i, ...rest];
  const params = Object.keys(t.parameters.properties);
  const names = lookupNames(t);
  const scope = (place: TemplateScope['place'], lookups: readonly string[] = names): TemplateScope => ({
    place,
    params,
    toolName: t.name,
    inputs: s.inputs,
    deployment: s.deployment,
    lookups,
    listLookups: listLookupNames(t),
  });

  const tables = knownTables(s);
  names.forEach((name, k) => {
    const l = t.lookups[name] as Tool['lookups'][string];
    if (RESERVED_NAMES.has(name))
      out.push(
        problem(
          loc,
          at('lookups', name),
          `the lookup name "${name}" is a template root of its own`,
          `rename it (e.g. ${name}_row): {{${name}.x}} already means something`,
        ),
      );
    if (!tables.includes(l.table))
      out.push(
        problem(
          loc,
          at('lookups', name, 'table'),
          `lookup "${name}" reads no table "${l.table}"`,
          joinHints(
            didYouMean(l.table, tables),
            `tables (world.tables and tool effects): ${tables.join(', ') || 'none'}`,
          ),
        ),
      );
    out.push(...checkTemplateValue(l.where, at('lookups', name, 'where'), scope('lookups', names.slice(0, k)), loc));
    (l.ignore_case ?? []).forEach((key, j) => {
      if (!Object.hasOwn(l.where, key))
        out.push(
          problem(
            loc,
            at('lookups', name, 'ignore_case', j),
            `lookup "${name}" ignores the case of "${key}", which is not one of its where keys`,
            joinHints(didYouMean(key, Object.keys(l.where)), `where keys: ${Object.keys(l.where).join(', ')}`),
          ),
        );
    });
    if (
      l.each === true &&
      !Object.values(l.where).some((v) => typeof v === 'string' && /^\{\{[^{}]*\}\}$/.test(v.trim()))
    )
      out.push(
        problem(
          loc,
          at('lookups', name, 'where'),
          `lookup "${name}" says each: true, but no where value is a lone template that could be a list`,
          `write the list as one where value, e.g. where: { item_id: "{{args.item_ids}}" }, each: true`,
        ),
      );
  });

  t.preconditions.forEach((p, k) => {
    if (typeof p === 'string') {
      if (reservedFact(p))
        out.push(problem(loc, at('preconditions', k), `the fact "${p}" uses a reserved name`, RESERVED_HINT));
      return;
    }
    out.push(...checkCondition(p.when, at('preconditions', k, 'when'), scope('preconditions'), loc));
  });
  t.validate.forEach((v, k) => out.push(...checkCondition(v.when, at('validate', k, 'when'), scope('validate'), loc)));

  const checkEffect = (e: DeclaredEffect, p: FieldPath, effectScope: TemplateScope): void => {
    if (e.if !== undefined) out.push(...checkCondition(e.if, [...p, 'if'], effectScope, loc));
    if (
      e.update &&
      e.update.set === undefined &&
      e.update.append === undefined &&
      e.update.set_element === undefined &&
      e.update.remove === undefined
    )
      out.push(
        problem(
          loc,
          [...p, 'update'],
          'an update needs set, append, set_element or remove',
          'e.g. update: { table: users, where: { id: "{{args.id}}" }, set: { name: "{{args.name}}" } }',
        ),
      );
    if (e.insert) out.push(...checkDerived(e.insert.row, [...p, 'insert', 'row'], loc));
    if (e.update?.set) out.push(...checkDerived(e.update.set, [...p, 'update', 'set'], loc));
    if (e.update?.append) out.push(...checkDerived(e.update.append, [...p, 'update', 'append'], loc));
    if (e.update?.remove) out.push(...checkDerived(e.update.remove, [...p, 'update', 'remove'], loc));
    for (const [field, el] of Object.entries(e.update?.set_element ?? {}))
      out.push(...checkDerived(el.set, [...p, 'update', 'set_element', field, 'set'], loc));
    for (const fact of [e.establish, e.revoke])
      if (fact !== undefined && reservedFact(fact))
        out.push(problem(loc, p, `the fact "${fact}" uses a reserved name`, RESERVED_HINT));
    for (const [kind, fact] of [
      ['establish', e.establish],
      ['revoke', e.revoke],
    ] as const) {
      const parsed = fact === undefined ? undefined : parseFact(fact);
      if (parsed?.ok) out.push(...checkDerived(parsed.value.fact.args, [...p, kind], loc));
    }
  };
  t.effects.forEach((e, k) => {
    checkEffect(e, at('effects', k), scope('effects'));
    const loop = e.for_each;
    if (loop === undefined) return;
    // The loop's names are template roots inside its do: never a root or lookup they would hide, never twice.
    const seen = new Set<string>();
    for (const [name, p] of loopNames(loop).map((n, j): [string, FieldPath] => [
      n,
      j === 0 ? at('effects', k, 'for_each', 'as') : at('effects', k, 'for_each', 'zip', n),
    ])) {
      if (RESERVED_NAMES.has(name) || names.includes(name) || seen.has(name))
        out.push(
          problem(
            loc,
            p,
            `the for_each name "${name}" is ${seen.has(name) ? 'given twice' : names.includes(name) ? 'a lookup of the tool' : 'a template root of its own'}`,
            `rename it (e.g. ${name}_item): each for_each name is a template root inside do`,
          ),
        );
      seen.add(name);
    }
    const inner = scope('effects', [...names, ...loopNames(loop)]);
    loop.do.forEach((d, j) => checkEffect(d, at('effects', k, 'for_each', 'do', j), inner));
  });

  if (t.kind === 'confirmation') {
    const lacking = ['tool', 'args'].filter((p) => !params.includes(p));
    if (lacking.length > 0)
      out.push(
        problem(
          loc,
          at('parameters'),
          `confirmation tool "${t.name}" has no parameter ${lacking.map((p) => `"${p}"`).join(' or ')}`,
          'the human is asked about the call { tool, args }: add properties: { tool: { type: string }, args: { type: object } } and required: [tool, args]',
        ),
      );
  }
  if (t.requires_confirmation) {
    if (t.kind !== 'action')
      out.push(
        problem(
          loc,
          at('requires_confirmation'),
          `${t.kind} tool "${t.name}" cannot require a confirmation`,
          'requires_confirmation is for the actions the human confirms',
        ),
      );
    else if (!s.tools.some((x) => x.kind === 'confirmation'))
      out.push(
        problem(
          loc,
          at('requires_confirmation'),
          `"${t.name}" requires a confirmation, but no tool asks for one: every call of it would be premature`,
          'declare a tool with kind: confirmation (parameters { tool, args }) that the planner calls first',
        ),
      );
  }
  return out;
}

/** The language's problems outside tools: the confirmations table and reserved fact names in the world, goal and forbidden. */
export function checkScenarioLanguage(s: Scenario, loc: Locator): Problem[] {
  const out: Problem[] = [];
  const tools = s.tools.map((t) => t.name);
  s.confirmations.forEach((c, k) => {
    const tool = s.tools.find((t) => t.name === c.tool);
    if (!tool)
      out.push({
        ...problem(
          loc,
          ['confirmations', k, 'tool'],
          `confirmations names no declared tool "${c.tool}"`,
          joinHints(didYouMean(c.tool, tools), `tools: ${tools.join(', ')}`),
        ),
        code: 'unknown_tool',
      });
    else if (!tool.requires_confirmation)
      out.push(
        problem(
          loc,
          ['confirmations', k, 'tool'],
          `confirmations names "${c.tool}", which does not require a confirmation: the yes would license nothing`,
          `add requires_confirmation: true to ${c.tool}, or remove this entry`,
        ),
      );
    out.push(
      ...checkTemplateValue(
        c.args,
        ['confirmations', k, 'args'],
        { place: 'confirmations', inputs: s.inputs, deployment: s.deployment },
        loc,
      ),
    );
  });
  const facts: [FieldPath, string][] = [
    ...s.world.facts.map((f, k): [FieldPath, string] => [['world', 'facts', k], f]),
    ...s.goal.map((f, k): [FieldPath, string] => [['goal', k], f]),
    ...s.forbidden.map((f, k): [FieldPath, string] => [['forbidden', k], f]),
  ];
  for (const [path, f] of facts)
    if (reservedFact(f)) out.push(problem(loc, path, `the fact "${f}" uses a reserved name`, RESERVED_HINT));
  return out;
}
