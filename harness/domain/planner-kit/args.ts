import type { Fact } from '../../core/facts/fact.ts';
import type { Observation, PlannerView, ToolView } from '../../core/planner.ts';
import { asRecord } from './history.ts';
import { toolFact } from './tool-facts.ts';
import { argsMentioned, unifyPattern, type Bindings } from './unify.ts';
import { declaredTypes, isStructured, minimalValue, textAs } from '../../util/param-types.ts';
import { fitsParameter } from '../rules/arguments.ts';
import { stableJson } from '../../util/json.ts';
import { hash32 } from '../../util/rng.ts';

/** What argument completion may draw on. */
export interface ArgSources {
  view: PlannerView;
  /** Believed facts, oldest first. */
  belief: readonly Fact[];
  /** The run's observations, oldest first. */
  obs: readonly Observation[];
  /**
   * How to fill a tool's idempotency key: `fresh` (default) a new key for every decision, as a
   * client that generates one per request does (a repeat after a restart is a new effect);
   * `stable` a key derived from the call itself, so the same call carries the same key across
   * retries and restarts and the tools apply it once.
   */
  keys?: 'fresh' | 'stable';
}

export interface Completion {
  args: Record<string, unknown>;
  /** Required parameters no source could bind, in declaration order. */
  unbound: string[];
}

/** How a value reads inside a fact (as template rendering writes it). */
function factText(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/**
 * Turns a fact value (always text) into an argument of the parameter's declared
 * type: `"1200"` for a number parameter becomes 1200. Without a declared type, an
 * input with the same text keeps its own type.
 *
 * @example
 * coerceArg(tool, 'amount', '1200', view) // 1200 when amount is {type: number}
 */
export function coerceArg(tool: ToolView, param: string, text: string, view: PlannerView): unknown {
  const types = declaredTypes(tool.parameters, param);
  if (types.length === 0) {
    const same = Object.values(view.inputs).find((v) => v !== null && typeof v !== 'object' && factText(v) === text);
    return same ?? text;
  }
  if (types.includes('array') || types.includes('object')) {
    // A structured value reads inside a fact as its JSON (see factText).
    try {
      const v: unknown = JSON.parse(text);
      if (
        (Array.isArray(v) && types.includes('array')) ||
        (v !== null && typeof v === 'object' && !Array.isArray(v) && types.includes('object'))
      )
        return v;
    } catch {
      // not JSON: fall through to the scalar types
    }
  }
  return textAs(types, text) ?? text;
}

/** Bindings found by unification, as arguments of the parameters' declared types. */
export function coerceBindings(tool: ToolView, bindings: Bindings, view: PlannerView): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(bindings)) out[k] = coerceArg(tool, k, v, view);
  return out;
}

type Source = (tool: ToolView, param: string, args: Record<string, unknown>, src: ArgSources) => unknown;

/**
 * (a) A precondition that mentions the parameter, whose other args are all bound,
 * unified against the believed facts (most recent first). `tied` asks for at least
 * one other bound arg in that precondition, so a lookup by key (invoice of this
 * customer) wins over "any believed fact of that name".
 */
function fromBelief(tied: boolean): Source {
  return (tool, param, args, { view, belief }) => {
    const bound: Bindings = {};
    for (const [k, v] of Object.entries(args)) bound[k] = factText(v);
    for (const text of tool.preconditions) {
      const tpl = toolFact(view, text);
      const mentioned = argsMentioned(tpl);
      if (!mentioned.includes(param)) continue;
      const others = mentioned.filter((p) => p !== param);
      if (others.some((p) => args[p] === undefined) || (tied && others.length === 0)) continue;
      for (let i = belief.length - 1; i >= 0; i--) {
        const fact = belief[i];
        const b = fact && unifyPattern(tpl, fact, bound);
        const v = b?.[param];
        if (v !== undefined && v !== '*') return coerceArg(tool, param, v, view);
      }
    }
    return undefined;
  };
}

/** (b) The input of the same name. */
const fromInputs: Source = (_tool, param, _args, { view }) => view.inputs[param];

/** (c) The schema's `default`, or its only `enum` value. */
const fromSchema: Source = (tool, param) => {
  const schema = tool.parameters.properties[param];
  if (!schema) return undefined;
  if (schema.default !== undefined) return schema.default;
  return Array.isArray(schema.enum) && schema.enum.length === 1 ? schema.enum[0] : undefined;
};

/**
 * (d) The same key in the most recent ok result that has it; for `x_id`, the `id`
 * of a result from a tool whose name contains `x` (create_invoice → invoice_id).
 */
const fromResults: Source = (_tool, param, _args, { obs }) => {
  const prefix = param.endsWith('_id') ? param.slice(0, -3) : undefined;
  for (let i = obs.length - 1; i >= 0; i--) {
    const o = obs[i];
    const result = o?.status === 'ok' ? asRecord(o.result) : undefined;
    if (!o || !result) continue;
    if (result[param] !== undefined) return result[param];
    if (prefix && o.tool.includes(prefix) && result.id !== undefined) return result.id;
  }
  return undefined;
};

/** The same key in the most recent ok result that has it (no `x_id` guess: a nested property is named for itself). */
function resultField(obs: readonly Observation[], name: string): unknown {
  for (let i = obs.length - 1; i >= 0; i--) {
    const o = obs[i];
    const result = o?.status === 'ok' ? asRecord(o.result) : undefined;
    if (result && result[name] !== undefined) return result[name];
  }
  return undefined;
}

/**
 * (e) For an array or object parameter nothing else filled: the smallest value the schema
 * allows (`[]` when minItems allows it; an object with its required properties taken from
 * an input or an earlier result of the same name, their default, or made up, recursively).
 */
const fromShape: Source = (tool, param, _args, { view, obs }) => {
  const schema = tool.parameters.properties[param];
  if (!isStructured(schema)) return undefined;
  return minimalValue(schema, (name) => view.inputs[name] ?? resultField(obs, name));
};

/** A structured value must fit its schema before it is used: a value that does not is no value (a built call is never rejected). */
function fitting(source: Source): Source {
  return (tool, param, args, src) => {
    const v = source(tool, param, args, src);
    if (v === undefined || !isStructured(tool.parameters.properties[param])) return v;
    return fitsParameter(tool.parameters, param, v) ? v : undefined;
  };
}

// The order matters: each source is tried for every unbound parameter before the next.
const SOURCES: Source[] = [fromBelief(true), fromInputs, fromSchema, fromBelief(false), fromResults, fromShape].map(
  fitting,
);

/**
 * Completes a tool's arguments: keeps `bound`, then fills each unbound required
 * parameter from, in order, believed facts via its preconditions, an input of the
 * same name, the schema default or single enum value, earlier results, and, for an
 * array or object parameter, the smallest value its schema allows (each structured value
 * checked with the argument validator, `fitsParameter`, before it is used). After
 * any binding the search restarts from the first source (a new binding can tie a
 * precondition). Optional parameters are filled only from an input of the same name.
 *
 * @example
 * completeArgs(sendInvoice, { customer: 'acme' }, src) // { args: { customer: 'acme', invoice_id: 'inv_1' }, unbound: [] }
 */
export function completeArgs(tool: ToolView, bound: Record<string, unknown>, src: ArgSources): Completion {
  const args: Record<string, unknown> = { ...bound };
  const keyParam = tool.idempotency_key;
  // The idempotency key is not looked up anywhere: it is made once the other arguments are known.
  const required = tool.parameters.required.filter((p) => p !== keyParam);
  const open = () => required.filter((p) => args[p] === undefined);
  let progress = true;
  while (progress) {
    progress = false;
    for (const source of SOURCES) {
      for (const p of open()) {
        const v = source(tool, p, args, src);
        if (v !== undefined) {
          args[p] = v;
          progress = true;
        }
      }
      if (progress) break;
    }
  }
  for (const p of Object.keys(tool.parameters.properties)) {
    if (p === keyParam || args[p] !== undefined || required.includes(p) || src.view.inputs[p] === undefined) continue;
    if (isStructured(tool.parameters.properties[p]) && !fitsParameter(tool.parameters, p, src.view.inputs[p])) continue;
    args[p] = src.view.inputs[p];
  }
  if (keyParam !== undefined && args[keyParam] === undefined) args[keyParam] = idempotencyKey(tool, args, src);
  return { args, unbound: open() };
}

/**
 * An idempotency key for a call: `stable` derives it from the scenario, the tool and the other
 * arguments (the same call, the same key, across retries and restarts); `fresh` also from the
 * decision (turn and steps so far), so every decision sends a new one.
 *
 * @example
 * idempotencyKey(payout, { vendor: 'v1', amount: 10 }, { ...src, keys: 'stable' }) // 'ow-3f9a1c2b'
 */
function idempotencyKey(tool: ToolView, args: Record<string, unknown>, src: ArgSources): string {
  const rest = { ...args };
  if (tool.idempotency_key !== undefined) delete rest[tool.idempotency_key];
  const decision = src.keys === 'stable' ? '' : `|${src.view.turn}|${src.view.steps_used}`;
  return `ow-${hash32(`${src.view.scenario.id}|${tool.name}|${stableJson(rest)}${decision}`)
    .toString(16)
    .padStart(8, '0')}`;
}
