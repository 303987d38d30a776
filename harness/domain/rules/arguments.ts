/**
 * The one rule for a call's arguments: they must fit the tool's declared JSON
 * Schema (`parameters`): types, enum, const, pattern, required, nested objects
 * and arrays, and additionalProperties where the scenario declares it. A call
 * that does not fit is a rejected attempt: it never reaches the sandbox, it is
 * recorded with the reason this module gives, and it is not a step.
 *
 * Every path uses this module: plan files and reference plans at load
 * (harness/engine/loader/semantics.ts), the runner for every planner's decision
 * (harness/engine/runner/decision.ts), the LLM planner's answers (harness/features/llm/answer.ts)
 * and MCP serve / `--agent-cmd` (their calls go through the runner).
 *
 * Validation is ajv (draft-07) with strict mode off, so OpenAI-style function
 * schemas with keywords ajv does not know (`description`, `examples`, `title`)
 * compile; no coercion (`"42"` is not a number), no defaults filled in, and
 * `format` is not checked. Each schema is compiled once (cached per schema
 * object, and per schema text for structurally equal copies). `pattern` and
 * `patternProperties` run on a linear-time engine (harness/util/linear-regexp.ts):
 * an argument can never make a pattern backtrack for minutes on the evaluation's
 * thread; a pattern that engine cannot run (a backreference, lookaround) is a
 * fault of the schema, reported when the scenario loads.
 *
 * @example
 * checkArguments({ type: 'object', properties: { to: { type: 'string' } }, required: ['to'] }, { to: 42 })
 * // { ok: false, violations: [{ path: ['to'], keyword: 'type', message: 'must be string' }], text: 'to: must be string' }
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { formatPath, type Result } from '../../core/errors.ts';
import { suggest } from '../../util/did-you-mean.ts';
import { linearRegExp } from '../../util/linear-regexp.ts';

export type Segment = string | number;

/** One way the arguments miss the schema. */
export interface Violation {
  /** Where in the arguments ([] = the arguments as a whole); a missing or extra property's own name is the last segment. */
  path: Segment[];
  /** The JSON Schema keyword that failed (`type`, `enum`, `pattern`, `required`, `additionalProperties`, ...). */
  keyword: string;
  /** What is wrong, e.g. `must be string`. */
  message: string;
}

export type ArgumentsVerdict = Result<void, { violations: Violation[]; text: string }>;

/** A schema that does not compile: where in the schema (when known) and why. */
export interface SchemaFault {
  /** Path inside the `parameters` schema, e.g. ['properties', 'to', 'type']. */
  path: Segment[];
  message: string;
  /** The allowed values, when the fault is a value outside an enum of the meta-schema (a misspelt type). */
  allowed?: string[];
  /** What to do about it, when more can be said than the message. */
  hint?: string;
}

/** How many violations a reason lists before "and N more". */
const SHOWN = 8;

const ajv = new Ajv({
  strict: false,
  allErrors: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  validateFormats: false,
  // A schema's own $id must not be registered: two tools may carry the same one.
  addUsedSchema: false,
  logger: false,
  // compileFresh checks every schema against the meta-schema itself (to say what is wrong); compile
  // need not check it again (a scenario's schemas are compiled as it loads: `eval --list` start-up).
  validateSchema: false,
  // ajv's pass over the generated code (dropping unused names, folding constants) changes no
  // answer and was 40% of compiling the bundled scenarios' schemas (`eval --list` start-up); the
  // validators check arguments as fast without it (measured on those schemas).
  // Patterns on RE2 (linear time): ajv asks `regExp(pattern, 'u')` for each and calls its `test`.
  code: { optimize: false, regExp: Object.assign(linearRegExp, { code: 'oneway/linear-regexp' }) },
});

type Compiled = Result<ValidateFunction, { faults: SchemaFault[] }>;

const byObject = new WeakMap<object, Compiled>();
const byText = new Map<string, Compiled>();
const MAX_TEXT_CACHE = 2000;

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A `$schema` naming another draft would make ajv look the meta-schema up; the arguments do not depend on it. */
function withoutMetaSchema(schema: object): object {
  if (!Object.hasOwn(schema, '$schema')) return schema;
  const { $schema: _ignored, ...rest } = schema as Record<string, unknown>;
  return rest;
}

/**
 * Every `pattern` (and `patternProperties` key) in the schema that is not a valid regular expression
 * (ajv's are Unicode-mode), or that the linear-time engine cannot run.
 */
function badPatterns(v: unknown, path: Segment[] = [], out: SchemaFault[] = []): SchemaFault[] {
  const check = (x: string, at: Segment[]) => {
    const fault = patternFault(x);
    if (fault) out.push({ path: at, ...fault });
  };
  if (Array.isArray(v)) v.forEach((x, i) => badPatterns(x, [...path, i], out));
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === 'pattern' && typeof x === 'string') check(x, [...path, k]);
      else {
        if (k === 'patternProperties' && x !== null && typeof x === 'object' && !Array.isArray(x))
          for (const key of Object.keys(x)) check(key, [...path, k, key]);
        badPatterns(x, [...path, k], out);
      }
    }
  }
  return out;
}

/** Why a schema pattern cannot be used, or undefined. */
function patternFault(x: string): { message: string; hint?: string } | undefined {
  try {
    new RegExp(x, 'u');
  } catch (e) {
    return { message: `the pattern ${JSON.stringify(x)} is not a valid regular expression (${(e as Error).message})` };
  }
  try {
    linearRegExp(x);
  } catch (e) {
    return {
      message: `the pattern ${JSON.stringify(x)} cannot be used: ${(e as Error).message}`,
      hint: 'schema patterns run on RE2 (linear time, so no argument can stall an evaluation), which has no backreferences or lookaround: rewrite the pattern without them',
    };
  }
  return undefined;
}

/** The meta-schema's complaints, one per place in the schema (an enum complaint, such as a misspelt type, first). */
function metaFaults(errors: readonly ErrorObject[]): SchemaFault[] {
  const byPlace = new Map<string, ErrorObject[]>();
  for (const e of errors) byPlace.set(e.instancePath, [...(byPlace.get(e.instancePath) ?? []), e]);
  return [...byPlace].map(([pointer, es]) => {
    const e = es.find((x) => x.keyword === 'enum') ?? es[0];
    const allowed =
      e?.keyword === 'enum' ? ((e.params as { allowedValues?: unknown[] }).allowedValues ?? []).map(String) : undefined;
    const message = allowed ? `must be one of ${allowed.join(', ')}` : (e?.message ?? 'is not valid JSON Schema');
    return { path: pointerSegments(pointer), message, ...(allowed ? { allowed } : {}) };
  });
}

function compile(schema: object): Compiled {
  const cached = byObject.get(schema);
  if (cached) return cached;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    text = '';
  }
  let compiled = text ? byText.get(text) : undefined;
  if (!compiled) {
    compiled = compileFresh(withoutMetaSchema(schema));
    if (text) {
      if (byText.size >= MAX_TEXT_CACHE) byText.clear();
      byText.set(text, compiled);
    }
  }
  byObject.set(schema, compiled);
  return compiled;
}

function compileFresh(schema: object): Compiled {
  if (!ajv.validateSchema(schema)) return { ok: false, faults: metaFaults(ajv.errors ?? []) };
  const patterns = badPatterns(schema);
  if (patterns.length > 0) return { ok: false, faults: patterns };
  try {
    return { ok: true, value: ajv.compile(schema) };
  } catch (e) {
    return { ok: false, faults: [{ path: [], message: (e as Error).message }] };
  }
}

/**
 * Why a tool's `parameters` schema cannot be used, or an empty list when it compiles.
 * The loader reports these as scenario problems, so a run never meets such a schema.
 *
 * @example
 * schemaFaults({ type: 'object', properties: { to: { type: 'strng' } } })
 * // [{ path: ['properties', 'to', 'type'], message: 'must be one of array, boolean, integer, null, number, object, string', allowed: [...] }]
 */
export function schemaFaults(parameters: object): SchemaFault[] {
  const c = compile(parameters);
  return c.ok ? [] : c.faults;
}

/** The data's own path segments for an instance pointer: array positions as numbers. */
function dataPath(data: unknown, pointer: string): Segment[] {
  const out: Segment[] = [];
  let cur: unknown = data;
  for (const s of pointerSegments(pointer)) {
    if (Array.isArray(cur) && /^\d+$/.test(s)) {
      out.push(Number(s));
      cur = cur[Number(s)];
    } else {
      out.push(s);
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[s] : undefined;
    }
  }
  return out;
}

function violationOf(e: ErrorObject, data: unknown): Violation {
  const path = dataPath(data, e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { path: [...path, String(p.missingProperty)], keyword: e.keyword, message: 'is required' };
    case 'additionalProperties':
      return {
        path: [...path, String(p.additionalProperty)],
        keyword: e.keyword,
        message: 'is not a declared property (additionalProperties: false)',
      };
    case 'enum':
      return {
        path,
        keyword: e.keyword,
        message: `must be one of ${((p.allowedValues as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return { path, keyword: e.keyword, message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'pattern':
      return { path, keyword: e.keyword, message: `must match the pattern ${JSON.stringify(p.pattern)}` };
    default:
      return { path, keyword: e.keyword, message: e.message ?? `fails ${e.keyword}` };
  }
}

/** A path as a reader writes it: `to`, `address.zip`, `items[0]`; the arguments as a whole are `arguments`. */
export function pathText(path: readonly Segment[]): string {
  return path.length === 0 ? 'arguments' : formatPath(path);
}

/** `to: must be string; amount: must be >= 0`, at most a few, then how many more. */
function violationsText(violations: readonly Violation[]): string {
  const shown = violations.slice(0, SHOWN).map((v) => `${pathText(v.path)}: ${v.message}`);
  const more = violations.length - shown.length;
  return more > 0 ? `${shown.join('; ')}; and ${more} more` : shown.join('; ');
}

/**
 * Checks arguments against a tool's `parameters` schema. Never coerces or
 * changes `args`. Throws only when the schema itself does not compile, which
 * the loader refuses before any run.
 *
 * @example
 * checkArguments(sendEmail.parameters, { to: 'bob@acme.example' }) // { ok: true }
 */
export function checkArguments(parameters: object, args: unknown): ArgumentsVerdict {
  const c = compile(parameters);
  if (!c.ok)
    throw new Error(
      `the parameters schema does not compile: ${c.faults.map((f) => `${pathText(f.path)}: ${f.message}`).join('; ')}`,
    );
  if (c.value(args)) return { ok: true };
  const seen = new Set<string>();
  const violations: Violation[] = [];
  for (const e of c.value.errors ?? []) {
    const v = violationOf(e, args);
    const key = `${pathText(v.path)}\u0000${v.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(v);
  }
  return { ok: false, violations, text: violationsText(violations) };
}

/** A tool as far as argument checking goes. */
export interface ToolParameters {
  name: string;
  parameters: object;
}

export type CallVerdict = Result<void, { reason: string; violations: Violation[] }>;

/**
 * The runner's check of one call by name: an unknown tool, or arguments that
 * miss the schema, give the reason a rejected attempt is recorded with.
 *
 * @example
 * checkCallArguments(tools, 'send_email', { to: 42 }) // { ok: false, reason: 'invalid arguments for send_email: to: must be string', ... }
 */
export function checkCallArguments(
  tools: ReadonlyMap<string, ToolParameters>,
  tool: string,
  args: unknown,
): CallVerdict {
  const t = tools.get(tool);
  if (!t) {
    const s = suggest(tool.slice(0, 200), tools.keys());
    const shown = tool.length > 80 ? `${tool.slice(0, 77)}...` : tool;
    return {
      ok: false,
      violations: [],
      reason: `unknown tool "${shown}"${s ? ` (did you mean "${s}"?)` : ''}; the tools are: ${[...tools.keys()].join(', ')}`,
    };
  }
  const v = checkArguments(t.parameters, args);
  return v.ok ? v : { ok: false, violations: v.violations, reason: `invalid arguments for ${tool}: ${v.text}` };
}

/**
 * Whether one parameter's value fits what the tool declares for it (the rest of the
 * arguments aside): what a generator of arguments (the fuzzer) draws against.
 *
 * @example
 * fitsParameter(trigger.parameters, 'warehouse', 'ams-2') // false when warehouse is enum [ams-1, fra-1]
 */
export function fitsParameter(parameters: object, param: string, value: unknown): boolean {
  const c = compile(parameters);
  if (!c.ok) return checkArguments(parameters, {}).ok; // throws what checkArguments says of a schema that does not compile
  // The answer for a scalar is kept: a fuzzer asks the same few values of the same parameters again
  // and again, and a value that misses (another parameter is required) costs a full validation with errors.
  const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  const memo = scalar ? scalarFitsOf(parameters) : undefined;
  const k = memo ? `${typeof value}\u0000${param}\u0000${String(value)}` : '';
  const known = memo?.get(k);
  if (known !== undefined) return known;
  const args = { [param]: value };
  // Other parameters' complaints (a required one missing) are not this value's; no reason text is needed.
  const fits = c.value(args) || !(c.value.errors ?? []).some((e) => violationOf(e, args).path[0] === param);
  if (memo) {
    if (memo.size >= 10_000) memo.clear(); // a bound: near misses are made-up values
    memo.set(k, fits);
  }
  return fits;
}

/** fitsParameter's answers for scalar values, per parameters schema (a scenario's schemas never change). */
const scalarFits = new WeakMap<object, Map<string, boolean>>();
function scalarFitsOf(parameters: object): Map<string, boolean> {
  let memo = scalarFits.get(parameters);
  if (!memo) scalarFits.set(parameters, (memo = new Map()));
  return memo;
}
