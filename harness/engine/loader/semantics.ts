/**
 * Checks that need the whole scenario, run after the schema passes: names that
 * refer to tools, the compensation contract, class rules, fact syntax, template
 * roots, and the reference plan. Each finding is a positioned Problem with a hint.
 */
import { EXPECTABLE, expectationError } from '../scoring/expect.ts';
import { formatPath, type Problem } from '../../core/errors.ts';
import { parseFact } from '../../core/facts/fact.ts';
import {
  declaredKinds,
  EFFECT_KINDS,
  EFFECTS,
  effectNoun,
  orList,
  type DeclaredEffect,
} from '../../core/effects/index.ts';
import { reconcileTarget, type PlanItem, type Scenario, type Tool } from '../../core/scenario.ts';
import { deploymentValue, parseCondition, possibleClasses } from '../../domain/rules/classes.ts';
import { didYouMean, joinHints } from '../../util/did-you-mean.ts';
import {
  checkTemplateString,
  checkTemplateValue,
  missingPath,
  type Locator,
  type TemplateScope,
} from './templates-check.ts';
import { checkArguments, pathText, schemaFaults, type Violation } from '../../domain/rules/arguments.ts';
import { tablesWritten } from '../../domain/rules/reconcile.ts';
import { renderValue } from '../../core/templates/render.ts';
import type { FieldPath } from './yaml-source.ts';
import { quotedFactLine, rejoined, splitFacts } from './fact-lists.ts';
import { linearRegExp } from '../../util/linear-regexp.ts';
import { parseReplyCondition } from '../../domain/rules/reply-condition.ts';
import {
  checkScenarioLanguage,
  checkToolLanguage,
  listLookupNames,
  lookupNames,
  loopNames,
  selfCompensationAllowed,
} from './language-check.ts';

export type { Locator };

type Segment = string | number;

class Findings {
  readonly list: Problem[] = [];
  constructor(readonly loc: Locator) {}

  add(code: Problem['code'], path: FieldPath, message: string, hint?: string, at: 'key' | 'value' = 'value'): void {
    const pos = this.loc.locate(path, { at });
    this.list.push({ code, file: this.loc.file, ...pos, path: formatPath(path), message, ...(hint ? { hint } : {}) });
  }

  addAt(code: Problem['code'], path: FieldPath, offset: number, message: string, hint?: string): void {
    const pos = this.loc.locateInString ? this.loc.locateInString(path, offset) : this.loc.locate(path);
    this.list.push({ code, file: this.loc.file, ...pos, path: formatPath(path), message, ...(hint ? { hint } : {}) });
  }

  push(...ps: Problem[]): void {
    this.list.push(...ps);
  }
}

/**
 * Every whole-scenario problem of a scenario that passed the schema.
 *
 * @example
 * const problems = checkScenario(parsed.data, { file: 'tiny.yaml', locate: src.locate, locateInString: src.locateInString });
 */
export function checkScenario(s: Scenario, loc: Locator): Problem[] {
  const f = new Findings(loc);
  const names = [...new Set(s.tools.map((t) => t.name))];
  const base = { inputs: s.inputs, deployment: s.deployment };

  // Duplicate tool names: report each repeat, pointing back at the first.
  const firstAt = new Map<string, number>();
  s.tools.forEach((t, i) => {
    const first = firstAt.get(t.name);
    if (first === undefined) firstAt.set(t.name, i);
    else {
      const line = loc.locate(['tools', first, 'name']).line;
      f.add(
        'duplicate',
        ['tools', i, 'name'],
        `tool "${t.name}" is declared twice (first at line ${line})`,
        'tool names are unique; rename or remove one',
      );
    }
  });

  s.tools.forEach((t, i) => checkTool(t, i, s, names, f));
  f.push(...checkScenarioLanguage(s, loc));

  checkFacts(s.world.facts, ['world', 'facts'], { place: 'world', ...base }, f);
  for (const [table, rows] of Object.entries(s.world.tables)) {
    f.push(...checkTemplateValue(rows, ['world', 'tables', table], { place: 'world', ...base }, loc));
  }
  checkFacts(s.goal, ['goal'], { place: 'goal', ...base }, f);
  checkFacts(s.forbidden, ['forbidden'], { place: 'forbidden', ...base }, f);
  s.restarts.forEach((n, k) => {
    if (n > s.max_steps)
      f.add(
        'schema',
        ['restarts', k],
        `restart after step ${n} can never happen: max_steps is ${s.max_steps}`,
        `use a step from 1 to ${s.max_steps}, or raise max_steps`,
      );
  });
  for (const key of Object.keys(s.approvals)) {
    // The sandbox looks the rendered action up among the keys, so keys may use inputs and deployment.
    for (const p of checkTemplateString(key, ['approvals', key], { place: 'approvals', ...base }, loc)) {
      f.push({ ...p, ...loc.locate(['approvals', key], { at: 'key' }) });
    }
  }

  if (s.reference_plan) f.push(...checkPlan(s.reference_plan, s, loc, ['reference_plan']));
  for (const [planner, figures] of Object.entries(s.expect ?? {})) {
    for (const [figure, value] of Object.entries(figures)) {
      const path = ['expect', planner, figure];
      if (!Object.hasOwn(EXPECTABLE, figure)) {
        const known = Object.keys(EXPECTABLE);
        f.add(
          'schema',
          path,
          `unknown figure "${figure}"`,
          joinHints(didYouMean(figure, known), `figures: ${known.join(', ')}`),
          'key',
        );
        continue;
      }
      const err = expectationError(figure, value);
      if (err)
        f.add(
          'schema',
          path,
          err,
          'e.g. expect: { gated: { completed: true, premature_irreversible: 0 }, eager: { premature_irreversible: ">=1" } }',
        );
    }
  }
  return f.list;
}

function checkTool(t: Tool, i: number, s: Scenario, names: string[], f: Findings): void {
  const at = (...rest: Segment[]): Segment[] => ['tools', i, ...rest];
  const params = Object.keys(t.parameters.properties);
  const scope = (place: TemplateScope['place']): TemplateScope => ({
    place,
    params,
    toolName: t.name,
    inputs: s.inputs,
    deployment: s.deployment,
    lookups: lookupNames(t),
    listLookups: listLookupNames(t),
  });

  checkParametersSchema(t, i, f);

  t.parameters.required.forEach((r, k) => {
    if (!params.includes(r)) {
      f.add(
        'schema',
        at('parameters', 'required', k),
        `required parameter "${r}" is not among the properties`,
        joinHints(didYouMean(r, params), 'declare it under parameters.properties'),
      );
    }
  });

  if (t.kind === 'approval' && !params.includes('action')) {
    f.add(
      'schema',
      at('parameters'),
      `approval tool "${t.name}" has no parameter "action"`,
      'the sandbox looks args.action up in approvals: add properties: { action: { type: string } } and required: [action]',
    );
  }

  checkClassRules(t, i, s, f);
  checkCompensation(t, i, s, names, f);
  checkDefiniteFailures(t, i, f);

  t.reconciles.forEach((entry, k) => {
    const r = reconcileTarget(entry);
    if (!names.includes(r))
      f.add(
        'unknown_tool',
        typeof entry === 'string' ? at('reconciles', k) : at('reconciles', k, 'tool'),
        `reconciles names no declared tool "${r}"`,
        joinHints(didYouMean(r, names), `tools: ${names.join(', ')}`),
      );
    if (typeof entry === 'string') return;
    const condition = parseReplyCondition(entry.applied);
    if (!condition.ok) f.add('schema', at('reconciles', k, 'applied'), condition.message, condition.hint);
  });

  if (t.reads.length > 0 && !t.read_only) {
    f.add(
      'schema',
      at('reads'),
      `tool "${t.name}" reads tables but is not read_only`,
      'a tool that shows the state changes none of it: add read_only: true',
    );
  }
  const tables = knownTables(s);
  t.reads.forEach((table, k) => {
    if (!tables.includes(table)) {
      f.add(
        'schema',
        at('reads', k),
        `reads names no table "${table}"`,
        joinHints(didYouMean(table, tables), `tables (world.tables and tool effects): ${tables.join(', ') || 'none'}`),
      );
    }
  });

  if (t.idempotency_key !== undefined && !params.includes(t.idempotency_key)) {
    f.add(
      'schema',
      at('idempotency_key'),
      `idempotency_key names no parameter "${t.idempotency_key}" of ${t.name}`,
      joinHints(
        didYouMean(t.idempotency_key, params),
        `declare it under parameters.properties (parameters: ${params.join(', ') || 'none'})`,
      ),
    );
  }
  if (t.key_survives_failure === true && t.idempotency_key === undefined) {
    f.add(
      'schema',
      at('key_survives_failure'),
      `key_survives_failure: ${t.name} declares no idempotency_key, so there is no key for its server to keep`,
      `name the parameter that carries the key (idempotency_key: PARAM${params.length > 0 ? `, one of ${params.join(', ')}` : ''}), or remove key_survives_failure`,
    );
  }
  (t.dedupe_on ?? []).forEach((p, k) => {
    if (!params.includes(p))
      f.add(
        'schema',
        at('dedupe_on', k),
        `dedupe_on names no parameter "${p}" of ${t.name}`,
        joinHints(didYouMean(p, params), `parameters: ${params.join(', ') || 'none'}`),
      );
  });

  // Comparisons ({ when: ... }) are checked with the rest of the language (language-check.ts).
  const conditionAt = new Set(t.preconditions.flatMap((p, k) => (typeof p === 'string' ? [] : [k])));
  checkFacts(
    t.preconditions.map((p) => (typeof p === 'string' ? p : 'oneway.when')),
    at('preconditions'),
    scope('preconditions'),
    f,
    false,
    conditionAt,
  );
  f.push(...checkToolLanguage(t, i, s, f.loc));

  let inLoop: TemplateScope | undefined;
  const checkEffect = (e: DeclaredEffect, where: Segment[], effectScope: TemplateScope): void => {
    const kinds = declaredKinds(e);
    if (kinds.length === 0) {
      f.add(
        'schema',
        where,
        `an effect needs one of ${EFFECT_KINDS.join(', ')}${effectScope === inLoop ? '' : ' or for_each'}`,
        `e.g. ${orList(EFFECT_KINDS.map((kind) => EFFECTS[kind].example))}`,
      );
      return;
    }
    if (kinds.length > 1) {
      f.add(
        'schema',
        where,
        `an effect has exactly one key; this one has ${kinds.join(' and ')}`,
        'split it into one effect per key, in the order they apply',
      );
    }
    for (const kind of kinds) {
      const path = [...where, kind];
      const target = EFFECTS[kind].target;
      if (t.read_only && target === 'table') {
        f.add(
          'schema',
          path,
          `read_only tool "${t.name}" has ${effectNoun(kind)}`,
          'a read_only tool changes no table (it may establish facts): drop read_only or the effect',
        );
      }
      if (target === 'fact') {
        checkFacts([e[kind] as string], path, effectScope, f, true);
      } else {
        f.push(...checkTemplateValue(e[kind], path, effectScope, f.loc));
      }
    }
  };
  t.effects.forEach((e, k) => {
    const loop = e.for_each;
    if (loop === undefined) return checkEffect(e, at('effects', k), scope('effects'));
    const kinds = declaredKinds(e);
    if (kinds.length > 0)
      f.add(
        'schema',
        at('effects', k),
        `an effect has exactly one key; this one has for_each and ${kinds.join(' and ')}`,
        'put the effects to apply per element in for_each.do, and the others in entries of their own',
      );
    f.push(...checkTemplateValue(loop.in, at('effects', k, 'for_each', 'in'), scope('effects'), f.loc));
    for (const [name, list] of Object.entries(loop.zip ?? {}))
      f.push(...checkTemplateValue(list, at('effects', k, 'for_each', 'zip', name), scope('effects'), f.loc));
    const inner: TemplateScope = { ...scope('effects'), lookups: [...lookupNames(t), ...loopNames(loop)] };
    inLoop = inner;
    loop.do.forEach((d, j) => checkEffect(d, at('effects', k, 'for_each', 'do', j), inner));
  });

  if (t.returns) f.push(...checkTemplateValue(t.returns, at('returns'), scope('returns'), f.loc));

  t.faults.forEach((fault, k) => {
    const hasCall = fault.on_call !== undefined;
    const hasP = fault.probability !== undefined;
    if (hasCall === hasP) {
      f.add(
        'schema',
        at('faults', k),
        hasCall ? 'a fault has on_call or probability, not both' : 'a fault needs on_call or probability',
        'on_call: N fails the Nth call of the tool; probability: p fails each call with the seeded rng',
      );
    }
  });
}

/** The tables a scenario names: its world's, and those its tools' effects write. */
function knownTables(s: Scenario): string[] {
  const out = new Set(Object.keys(s.world.tables));
  for (const t of s.tools) for (const table of tablesWritten(t)) out.add(table);
  return [...out];
}

/** The value at a path inside a JSON value, or undefined. */
function valueAt(v: unknown, path: readonly (string | number)[]): unknown {
  let cur = v;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

/**
 * A tool's parameters must be a JSON Schema the argument check (harness/domain/rules/arguments.ts) can
 * compile: a schema it cannot compile is a problem of the scenario, not a crash of a run.
 */
function checkParametersSchema(t: Tool, i: number, f: Findings): void {
  for (const fault of schemaFaults(t.parameters)) {
    const bad = valueAt(t.parameters, fault.path);
    const near = fault.allowed && typeof bad === 'string' ? didYouMean(bad, fault.allowed) : undefined;
    f.add(
      'schema',
      ['tools', i, 'parameters', ...fault.path],
      `the parameters of "${t.name}" are not a valid JSON Schema: ${fault.path.length ? `${fault.path.join('.')} ` : ''}${fault.message}`,
      joinHints(
        near,
        fault.hint ??
          'parameters is a JSON Schema (draft-07) that every call is checked against, e.g. { type: object, properties: { to: { type: string } }, required: [to] }',
      ),
    );
  }
}

/** `definite_failures.errors`: each a pattern the linear-time engine runs (a server's error text is hostile). */
function checkDefiniteFailures(t: Tool, i: number, f: Findings): void {
  (t.definite_failures?.errors ?? []).forEach((p, k) => {
    try {
      linearRegExp(p);
    } catch (e) {
      f.add(
        'schema',
        ['tools', i, 'definite_failures', 'errors', k],
        `cannot run the pattern ${JSON.stringify(p)}: ${(e as Error).message}`,
        'patterns run on RE2 (linear time, so no error text can stall the guard), which has no backreferences or lookaround: rewrite the pattern without them',
      );
    }
  });
}

function checkClassRules(t: Tool, i: number, s: Scenario, f: Findings): void {
  const rules = t.reversibility;
  if (typeof rules === 'string') return;
  rules.forEach((rule, j) => {
    const path: Segment[] = ['tools', i, 'reversibility', j];
    const last = j === rules.length - 1;
    if (!last && rule.when === undefined) {
      f.add(
        'class_rules',
        path,
        'only the last rule may omit "when": the rules after this one never apply',
        'add a when, or move this rule to the end',
      );
    }
    if (last && rule.when !== undefined) {
      f.add(
        'class_rules',
        [...path, 'when'],
        'the last rule must have no "when": it is the fallback when no condition holds',
        'add a final rule such as { class: irreversible }',
      );
    }
    if (rule.when === undefined) return;
    const parsed = parseCondition(rule.when);
    if (!parsed.ok) {
      f.add('class_rules', [...path, 'when'], parsed.message, parsed.hint);
      return;
    }
    const cond = parsed.value;
    const missing = missingPath(s.deployment, cond.path);
    const shown = `deployment.${cond.path.join('.')}`;
    if (missing) {
      f.add(
        'class_rules',
        [...path, 'when'],
        `the condition reads ${shown}, which the scenario's deployment does not set`,
        joinHints(
          didYouMean(missing.segment, missing.siblings),
          `add ${missing.path} under deployment:, or fix the path`,
        ),
      );
      return;
    }
    const v = deploymentValue(s.deployment, cond.path);
    const lit = cond.value;
    const ordering = cond.op !== '==' && cond.op !== '!=';
    const vType = v === null ? 'null' : Array.isArray(v) ? 'list' : typeof v === 'object' ? 'mapping' : typeof v;
    const mismatch =
      vType === 'mapping' ||
      vType === 'list' ||
      vType === 'null' ||
      (ordering ? vType !== typeof lit : typeof lit !== 'string' && vType !== typeof lit);
    if (mismatch) {
      f.add(
        'class_rules',
        [...path, 'when'],
        `${shown} is ${vType === 'string' ? `the string ${JSON.stringify(v)}` : vType === 'number' || vType === 'boolean' ? `${vType} ${String(v)}` : `a ${vType}`}, which "${cond.op} ${JSON.stringify(lit)}" cannot ${ordering ? 'order' : 'equal'}`,
        'compare a number with a number (deployment.pitr_hours >= 24), or equality with true/false or a string',
      );
    }
  });
}

function checkCompensation(t: Tool, i: number, s: Scenario, names: string[], f: Findings): void {
  const at = (...rest: Segment[]): Segment[] => ['tools', i, ...rest];
  const classes = possibleClasses(t);
  const staticIrreversible = classes.length === 1 && classes[0] === 'irreversible';
  const comp = t.compensating_operation;
  if (comp !== undefined && comp !== null) {
    if (staticIrreversible) {
      f.add(
        'compensation',
        at('compensating_operation'),
        `irreversible tool "${t.name}" names a compensating operation ("${comp}")`,
        'an irreversible tool has no compensation: set compensating_operation: null, or give it the class it really has (compensable)',
      );
    }
    if (comp === t.name && !selfCompensationAllowed(t)) {
      f.add(
        'compensation',
        at('compensating_operation'),
        `"${t.name}" names itself as its compensating operation`,
        'name the tool that undoes it (e.g. delete for insert); a setter may undo itself when its compensation_args give back the value it replaced with {{before.NAME.field}}',
      );
    } else if (!names.includes(comp)) {
      f.add(
        'unknown_tool',
        at('compensating_operation'),
        `compensating_operation names no declared tool "${comp}"`,
        joinHints(didYouMean(comp, names), `tools: ${names.join(', ')}`),
      );
    } else {
      checkCompensationArgs(
        t,
        i,
        s.tools.find((x) => x.name === comp),
        f,
      );
    }
  } else {
    const undoable = classes.filter((c) => c !== 'irreversible');
    if (!t.read_only && undoable.length > 0) {
      f.add(
        'compensation',
        at(t.compensating_operation === null ? 'compensating_operation' : 'reversibility'),
        `${undoable.join('/')} tool "${t.name}" changes state but names no compensating_operation`,
        'name the tool that undoes it; or mark it read_only: true if it changes no table; or make it irreversible',
      );
    }
    if (t.compensation_args) {
      f.add(
        'compensation',
        at('compensation_args'),
        'compensation_args without a compensating_operation',
        'name the compensating tool, or remove compensation_args',
      );
    }
    if (t.compensation_requires_approval !== undefined) {
      f.add(
        'compensation',
        at('compensation_requires_approval'),
        'compensation_requires_approval without a compensating_operation',
        'name the compensating tool, or remove compensation_requires_approval',
      );
    }
  }
  if (t.compensation_args) {
    f.push(
      ...checkTemplateValue(
        t.compensation_args,
        at('compensation_args'),
        {
          place: 'compensation_args',
          params: Object.keys(t.parameters.properties),
          toolName: t.name,
          inputs: s.inputs,
          deployment: s.deployment,
          lookups: lookupNames(t),
          listLookups: listLookupNames(t),
        },
        f.loc,
      ),
    );
  }
}

/** compensation_args are the compensating tool's arguments: its parameter names, all required ones given. */
function checkCompensationArgs(t: Tool, i: number, comp: Tool | undefined, f: Findings): void {
  if (!comp || !t.compensation_args) return;
  const params = Object.keys(comp.parameters.properties);
  for (const key of Object.keys(t.compensation_args)) {
    if (!params.includes(key)) {
      f.add(
        'compensation',
        ['tools', i, 'compensation_args', key],
        `"${key}" is not a parameter of the compensating tool ${comp.name}`,
        joinHints(
          didYouMean(key, params),
          params.length ? `${comp.name} takes: ${params.join(', ')}` : `${comp.name} declares no parameters`,
        ),
        'key',
      );
    }
  }
  const missing = comp.parameters.required.filter((r) => !Object.hasOwn(t.compensation_args ?? {}, r));
  if (missing.length > 0) {
    f.add(
      'compensation',
      ['tools', i, 'compensation_args'],
      `compensation_args lacks ${missing.join(', ')}, required by ${comp.name}`,
      `give ${missing.map((m) => `${m}: ...`).join(', ')} (templates over args, result, inputs)`,
    );
  }
}

function checkFacts(
  facts: readonly string[],
  path: FieldPath,
  scope: TemplateScope,
  f: Findings,
  single = false,
  /** Items that are not facts (a precondition's comparison): checked elsewhere. */
  skip?: ReadonlySet<number>,
): void {
  // `[paid(vendor=acme, amount=10)]` is two items to YAML: report the fact once, with the line that quotes it.
  const line = (k: number) => f.loc.locate([...path, k]).line;
  const splits = single ? [] : splitFacts(facts, (a, b) => line(a) === line(b));
  const pieces = new Set(splits.flatMap((x) => Array.from({ length: x.count - 1 }, (_, n) => x.first + n + 1)));
  for (const split of splits) {
    f.add(
      'fact_syntax',
      [...path, split.first],
      `the fact ${split.fact} was split into ${split.count} list items at its ","`,
      `in [...] YAML ends an item at ","; quote the whole fact: ${quotedFactLine(String(path.at(-1)), rejoined(facts, splits))}`,
    );
  }
  facts.forEach((text, k) => {
    if (pieces.has(k) || splits.some((x) => x.first === k) || skip?.has(k)) return;
    const p = single ? path : [...path, k];
    const r = parseFact(text);
    if (!r.ok) {
      f.addAt(
        'fact_syntax',
        p,
        r.offset,
        `the fact "${text}" does not parse: ${r.message}`,
        'a fact is name(key=value, ...), e.g. email_sent(to={{args.to}}); quote values with "," or ")"',
      );
      return;
    }
    f.push(...checkTemplateString(text, p, scope, f.loc));
  });
}

/** Whether a value holds a template anywhere in it (a string with `{{`). */
function holdsTemplate(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('{{');
  if (Array.isArray(v)) return v.some(holdsTemplate);
  if (v !== null && typeof v === 'object') return Object.values(v).some(holdsTemplate);
  return false;
}

/** Whether a violation may only be an artefact of a template not rendered yet (on the way to its place, or in the value there). */
function dependsOnTemplate(args: unknown, v: Violation): boolean {
  if (v.keyword === 'required' || v.keyword === 'additionalProperties') return false;
  let cur = args;
  for (const p of v.path) {
    if (typeof cur === 'string' && cur.includes('{{')) return true;
    if (cur === null || typeof cur !== 'object') return false;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return holdsTemplate(cur);
}

/**
 * A plan call's arguments against the tool's JSON Schema, by the rule every call is checked
 * with when it runs (harness/domain/rules/arguments.ts): a call that would be rejected refuses the plan.
 * Inputs and deployment are rendered first; a value that still holds a template
 * (`{{results.TOOL.path}}`, known only as the plan runs) is checked when the call is made.
 * Undeclared keys are reported by the caller (with a did-you-mean), and a required parameter
 * that is not declared is reported on the tool, not on every call.
 */
function checkPlanArguments(
  tool: Tool,
  argObj: Record<string, unknown>,
  at: Segment[],
  scenario: Scenario,
  f: Findings,
): void {
  if (schemaFaults(tool.parameters).length > 0) return; // reported on the tool
  const args = renderValue(argObj, { inputs: scenario.inputs, deployment: scenario.deployment }, 'keep');
  const verdict = checkArguments(tool.parameters, args);
  if (verdict.ok) return;
  const params = Object.keys(tool.parameters.properties);
  const missing: string[] = [];
  for (const v of verdict.violations) {
    const top = v.path.length === 1 ? String(v.path[0]) : undefined;
    if (v.keyword === 'required' && top !== undefined) {
      if (params.includes(top)) missing.push(top);
      continue;
    }
    if (v.keyword === 'additionalProperties' && top !== undefined) continue;
    if (dependsOnTemplate(args, v)) continue;
    const declared = typeof v.path[0] === 'string' ? tool.parameters.properties[v.path[0]] : undefined;
    const shown = declared ? JSON.stringify(declared) : '';
    const hint = declared
      ? `${tool.name} declares ${v.path[0]} as ${shown.length > 160 ? `${shown.slice(0, 157)}...` : shown}; a call that violates it is rejected, never run`
      : `${tool.name}'s parameters are a JSON Schema; a call that violates it is rejected, never run`;
    const where = v.keyword === 'required' ? v.path.slice(0, -1) : v.path;
    f.add(
      'plan',
      [...at, ...where],
      `the call of ${tool.name} has an invalid argument: ${pathText(v.path)}: ${v.message}`,
      hint,
      v.keyword === 'additionalProperties' ? 'key' : 'value',
    );
  }
  if (missing.length > 0)
    f.add(
      'plan',
      at,
      `the call of ${tool.name} lacks ${missing.join(', ')}`,
      `${tool.name} requires: ${tool.parameters.required.join(', ')}`,
    );
}

/**
 * Checks a plan against a scenario: each call names a declared tool with its declared
 * parameters and arguments that fit the tool's JSON Schema, items are 'finish',
 * {parallel: [...]} or a single-key call, nothing follows 'finish', and templates use only
 * {{inputs.x}} and {{results.TOOL.path}} for a TOOL called in an earlier item. `prefix` is
 * where the plan sits in its file.
 *
 * @example
 * checkPlan([{ send_email: { to: '{{inputs.email}}' } }, 'finish'], scenario, src, ['reference_plan'])
 */
export function checkPlan(
  plan: readonly PlanItem[],
  scenario: Scenario,
  loc: Locator,
  prefix: FieldPath = [],
): Problem[] {
  const f = new Findings(loc);
  // With duplicate names (reported elsewhere) the first declaration counts, as in the checks above.
  const tools = new Map<string, Tool>();
  for (const t of scenario.tools) if (!tools.has(t.name)) tools.set(t.name, t);
  const names = [...tools.keys()];
  const called = new Set<string>();
  let finishedAt = -1;

  plan.forEach((item, i) => {
    const itemPath = [...prefix, i];
    if (finishedAt >= 0 && i === finishedAt + 1) {
      f.add(
        'plan',
        itemPath,
        'nothing runs after "finish"',
        'remove the items after finish, or move finish to the end',
      );
    }
    if (item === 'finish') {
      if (finishedAt < 0) finishedAt = i;
      return;
    }
    const isBatch = Object.keys(item).length === 1 && Array.isArray((item as { parallel?: unknown }).parallel);
    const calls: { call: Record<string, unknown>; path: Segment[] }[] = isBatch
      ? (item as { parallel: Record<string, unknown>[] }).parallel.map((call, j) => ({
          call,
          path: [...itemPath, 'parallel', j],
        }))
      : [{ call: item as Record<string, unknown>, path: itemPath }];
    const batch: string[] = [];
    for (const { call, path } of calls) {
      const keys = Object.keys(call);
      if (keys.length === 0) {
        f.add('plan', path, 'an empty call', 'write {tool_name: {args}}');
        continue;
      }
      if (keys.length > 1) {
        f.add(
          'plan',
          path,
          `a call names one tool; this one names ${keys.join(', ')}`,
          'run calls together with {parallel: [...]}, or one after the other as separate items',
        );
        continue;
      }
      const name = keys[0] as string;
      if (name === 'parallel' && !tools.has(name)) {
        f.add(
          'plan',
          [...path, name],
          'parallel batches cannot nest',
          'list the calls of one batch under a single parallel:',
          'key',
        );
        continue;
      }
      const tool = tools.get(name);
      if (!tool) {
        const hint =
          name === 'finish'
            ? 'write "- finish" (no colon) to end the plan'
            : joinHints(didYouMean(name, names), `tools: ${names.join(', ')}`);
        f.add(
          'unknown_tool',
          [...path, name],
          `the plan calls "${name}", which the scenario does not declare`,
          hint,
          'key',
        );
        continue;
      }
      batch.push(name);
      const args = call[name];
      const argObj =
        args !== null && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
      const params = Object.keys(tool.parameters.properties);
      for (const key of Object.keys(argObj)) {
        if (!params.includes(key)) {
          f.add(
            'plan',
            [...path, name, key],
            `"${key}" is not a parameter of ${name}`,
            joinHints(
              didYouMean(key, params),
              params.length ? `${name} takes: ${params.join(', ')}` : `${name} declares no parameters`,
            ),
            'key',
          );
        }
      }
      checkPlanArguments(tool, argObj, [...path, name], scenario, f);
      f.push(
        ...checkTemplateValue(
          argObj,
          [...path, name],
          {
            place: 'plan',
            inputs: scenario.inputs,
            deployment: scenario.deployment,
            tools: names,
            calledBefore: called,
          },
          loc,
          true,
        ),
      );
    }
    // Results of a batch are available only to later items.
    for (const b of batch) called.add(b);
  });
  return f.list;
}
