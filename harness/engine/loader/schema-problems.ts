/**
 * zod issues turned into problems a person can act on: positioned at the
 * offending key or value, with the field path and a hint (did-you-mean for
 * misspelt keys and values, what a union accepts, the field's description).
 */
import type { z } from 'zod';
import { formatPath, type Problem } from '../../core/errors.ts';
import { Scenario, Tool } from '../../core/scenario.ts';
import { didYouMean, joinHints } from '../../util/did-you-mean.ts';
import { acceptsText, allowedKeys, descriptionAt, keyDescriptionAt, schemasAt, typeNoun } from './schema-walk.ts';
import type { FieldPath, YamlSource } from './yaml-source.ts';
import { trimRuns } from '../../util/trim.ts';

type Issue = z.core.$ZodIssue;
type Schema = z.core.$ZodType;
type Segment = string | number;

export interface SchemaProblemOptions {
  /** The schema the issues came from (default: Scenario). */
  schema?: Schema;
  /** Where the validated value sits in the file, e.g. `['plan']` for a wrapped plan. */
  prefix?: FieldPath;
}

const SCENARIO_KEYS = Object.keys(Scenario.shape);
const TOOL_KEYS = Object.keys(Tool.shape);

/**
 * Converts zod issues (from `safeParse(x, { reportInput: true })`) into problems.
 *
 * @example
 * const r = Scenario.safeParse(src.value, { reportInput: true });
 * if (!r.success) problems.push(...schemaProblems(r.error.issues, src));
 */
export function schemaProblems(
  issues: readonly Issue[],
  source: Pick<YamlSource, 'file' | 'locate'>,
  opts: SchemaProblemOptions = {},
): Problem[] {
  const ctx: Ctx = { source, schema: opts.schema ?? Scenario, prefix: opts.prefix ?? [] };
  return issues.flatMap((i) => convert(i, [], ctx, undefined));
}

interface Ctx {
  source: Pick<YamlSource, 'file' | 'locate'>;
  schema: Schema;
  prefix: FieldPath;
}

function convert(issue: Issue, base: Segment[], ctx: Ctx, outerUnion: string | undefined): Problem[] {
  // What the enclosing union accepts describes this value only at the union's own path.
  const unionText = issue.path.length === 0 ? outerUnion : undefined;
  const path: Segment[] = [...base, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  const input = 'input' in issue ? issue.input : undefined;
  const hasInput = 'input' in issue;
  const mk = (code: Problem['code'], message: string, hint?: string, at: Segment[] = path, key = false): Problem => {
    const full = [...ctx.prefix, ...at];
    const pos = ctx.source.locate(full, { at: key ? 'key' : 'value' });
    return {
      code,
      file: pos.file ?? ctx.source.file,
      line: pos.line,
      col: pos.col,
      path: formatPath(full),
      message,
      ...(hint ? { hint } : {}),
    };
  };
  const described = () => descriptionAt(ctx.schema, path);

  const isFileRoot = path.length === 0 && ctx.prefix.length === 0 && ctx.schema === Scenario;
  if (
    (issue.code === 'invalid_type' || issue.code === 'invalid_union') &&
    (!hasInput || input === undefined || (isFileRoot && input === null))
  ) {
    if (isFileRoot)
      return [
        mk('schema', 'the file is empty', 'a scenario is a mapping with at least id, title, task, tools and goal'),
      ];
    const key = String(path[path.length - 1]);
    const parent = [...ctx.prefix, ...path.slice(0, -1)];
    const where = parent.length === 0 ? 'at the top level' : `under ${formatPath(parent)}`;
    return [mk('schema', `missing required field "${key}"`, joinHints(described(), `add ${key}: ${where}`))];
  }

  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = allowedKeys(ctx.schema, path);
      return issue.keys.map((key) => {
        const where = misplacedHint(key, path, ctx);
        const dym = didYouMean(key, allowed);
        const list = allowed.length && allowed.length <= 24 ? `allowed here: ${allowed.join(', ')}` : undefined;
        return mk(
          'unknown_key',
          `unknown key "${key}"`,
          joinHints(dym, where, dym || where ? undefined : list),
          [...path, key],
          true,
        );
      });
    }
    case 'invalid_key': {
      // A mapping key its record refuses (a world table named with a template): said at the key.
      const key = String(path[path.length - 1]);
      const why = issue.issues.map((i) => i.message).join('; ');
      return [
        mk(
          'schema',
          `the key "${key}" is not valid: ${why}`,
          keyDescriptionAt(ctx.schema, path.slice(0, -1)) ?? 'see the format in the message',
          path,
          true,
        ),
      ];
    }
    case 'invalid_value': {
      const values = issue.values;
      const accepts = unionText ?? values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' | ');
      if (typeof input === 'string') {
        const dym = didYouMean(
          input,
          values.filter((v): v is string => typeof v === 'string'),
        );
        return [mk('invalid_enum', `"${input}" is not a valid value`, joinHints(dym, `expected ${accepts}`))];
      }
      return [mk('invalid_enum', `expected ${accepts}, got ${valueText(input, hasInput)}`, `write ${accepts}`)];
    }
    case 'invalid_union': {
      const branch = pickBranch(issue, input);
      const text = acceptsTextAt(ctx.schema, path);
      if (branch) return branch.flatMap((i) => convert(i, path, ctx, text));
      return [mk('schema', `expected ${text}, got ${valueText(input, hasInput)}`, described() ?? `write ${text} here`)];
    }
    case 'invalid_type': {
      const expected = unionText ?? typeNoun(issue.expected);
      const nullHint = input === null ? 'a key with nothing after the colon is null in YAML' : undefined;
      // In a plan, `parallel:` where a call's arguments belong is a batch inside a batch.
      const nested =
        path.length >= 3 && path[path.length - 1] === 'parallel' && Array.isArray(input)
          ? 'parallel batches cannot nest'
          : undefined;
      const kind = nullHint || nested ? undefined : kindHint(issue.expected, input, path, ctx);
      return [
        mk(
          'schema',
          `expected ${expected}, got ${valueText(input, true)}`,
          joinHints(nullHint, nested, kind, described()) ?? `write ${expected} here`,
        ),
      ];
    }
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'array') {
        const msg = min <= 1 ? 'must not be empty' : `needs at least ${min} items`;
        return [mk('schema', msg, joinHints(described(), `list at least ${min <= 1 ? 'one item' : `${min} items`}`))];
      }
      if (issue.origin === 'string')
        return [
          mk(
            'schema',
            min <= 1 ? 'must not be empty' : `needs at least ${min} characters`,
            described() ?? 'write some text here',
          ),
        ];
      return [
        mk(
          'schema',
          `must be ${issue.inclusive === false ? '>' : '>='} ${min}, got ${valueText(input, hasInput)}`,
          described() ?? `use a number ${issue.inclusive === false ? 'above' : 'of at least'} ${min}`,
        ),
      ];
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'array')
        return [mk('schema', `has more than ${max} items`, described() ?? `list at most ${max} items`)];
      if (issue.origin === 'string')
        return [mk('schema', `is longer than ${max} characters`, described() ?? `shorten it to ${max} characters`)];
      return [
        mk(
          'schema',
          `must be ${issue.inclusive === false ? '<' : '<='} ${max}, got ${valueText(input, hasInput)}`,
          described() ?? `use a number ${issue.inclusive === false ? 'below' : 'of at most'} ${max}`,
        ),
      ];
    }
    case 'invalid_format': {
      const value = typeof input === 'string' ? `"${input}"` : 'the value';
      const kebab = path.length === 1 && path[0] === 'id' && typeof input === 'string' ? toKebab(input) : undefined;
      const toolName =
        path.length === 3 && path[0] === 'tools' && path[2] === 'name' && typeof input === 'string'
          ? toSnake(input)
          : undefined;
      const fix = kebab ?? toolName;
      return [
        mk(
          'schema',
          `${value} is not valid: ${issue.message}`,
          fix ? `try "${fix}"` : (described() ?? 'see the format in the message'),
        ),
      ];
    }
    default:
      return [
        mk(
          'schema',
          issue.message,
          described() ?? 'see harness/schema/scenario.schema.json for what this field accepts',
        ),
      ];
  }
}

/**
 * The branch of a failed union worth reporting: the one whose errors are not a plain
 * "wrong kind of value" at the union itself (the input had that branch's shape). Among
 * those, a branch the input fits (no missing required keys, few unknown keys) wins, then
 * the one that got furthest into the value, then the earlier one. None when every branch
 * rejects the kind of value.
 */
function pickBranch(issue: Extract<Issue, { code: 'invalid_union' }>, input: unknown): Issue[] | undefined {
  const shaped = issue.errors.filter((errs) => errs.length > 0 && !errs.every((e) => isKindMismatch(e, input)));
  const misfit = (errs: Issue[]) =>
    errs.reduce(
      (n, e) =>
        n +
        (e.code === 'unrecognized_keys'
          ? 10 * e.keys.length
          : e.code === 'invalid_type' && !('input' in e && e.input !== undefined)
            ? 100
            : 0),
      0,
    );
  const depth = (errs: Issue[]) => Math.max(...errs.map((e) => e.path.length));
  let best: Issue[] | undefined;
  for (const b of shaped) {
    if (!best || misfit(b) < misfit(best) || (misfit(b) === misfit(best) && depth(b) > depth(best))) best = b;
  }
  return best;
}

function isKindMismatch(e: Issue, input: unknown): boolean {
  if (e.path.length > 0) return false;
  if (e.code === 'invalid_type') return true;
  if (e.code === 'invalid_value') return !e.values.some((v) => typeof v === typeof input);
  return false;
}

function acceptsTextAt(root: Schema, path: Segment[]): string {
  const s = schemasAt(root, path);
  return s.length ? s.map((x) => acceptsText(x)).join(', or ') : 'a different value';
}

/** When a key is valid elsewhere: a top-level key inside a tool, or a tool key at the top. */
function misplacedHint(key: string, path: Segment[], ctx: Ctx): string | undefined {
  if (ctx.schema !== Scenario) return undefined;
  if (path.length > 0 && SCENARIO_KEYS.includes(key)) return `"${key}" is a top-level scenario key`;
  if (path.length === 0 && TOOL_KEYS.includes(key)) return `"${key}" belongs inside a tool, under tools:`;
  return undefined;
}

/** What to write instead, when a value has the wrong kind (a quoted number, yes for true, a mapping for a list). */
function kindHint(expected: string, input: unknown, path: Segment[], ctx: Ctx): string | undefined {
  const want = typeNoun(expected);
  if (path.length === 0 && ctx.prefix.length === 0 && ctx.schema === Scenario) {
    return Array.isArray(input)
      ? 'a scenario file holds one scenario, a mapping (id, title, task, tools, goal, ...); put each scenario in its own file'
      : 'a scenario file holds one mapping: id, title, task, tools, goal, ...';
  }
  if ((expected === 'number' || expected === 'int') && typeof input === 'string') {
    return /^\s*-?\d+(\.\d+)?\s*$/.test(input)
      ? `remove the quotes: "${input.trim()}" is a string`
      : 'write a number, without quotes';
  }
  if (expected === 'boolean' && typeof input === 'string')
    return `write true or false; YAML reads ${input} as a string`;
  if (expected === 'string' && (typeof input === 'number' || typeof input === 'boolean'))
    return `quote it: "${String(input)}"`;
  if (expected === 'array' && input !== null && typeof input === 'object')
    return 'write a list: one "- item" per line, or [a, b]';
  if ((expected === 'object' || expected === 'record') && Array.isArray(input))
    return 'write key: value pairs here, not a list';
  const inPlan = ctx.schema !== Scenario || path[0] === 'reference_plan';
  if ((expected === 'object' || expected === 'record') && inPlan && typeof path[path.length - 1] === 'string') {
    return `a call takes its arguments as a mapping: ${String(path[path.length - 1])}: { name: value }`;
  }
  return `write ${want} here`;
}

function valueText(v: unknown, present: boolean): string {
  if (!present || v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `the string "${v.length > 40 ? `${v.slice(0, 40)}...` : v}"`;
  if (typeof v === 'number') return `the number ${v}`;
  if (typeof v === 'boolean') return String(v);
  return typeof v;
}

function toSnake(s: string): string {
  return trimRuns(s.trim().replace(/[^A-Za-z0-9_-]+/g, '_'), '_').slice(0, 64);
}

function toKebab(s: string): string {
  const kebab = s
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
  return trimRuns(kebab, '-');
}
