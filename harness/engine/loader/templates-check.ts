/**
 * Template checks: every `{{...}}` in a scenario or plan uses a root allowed in
 * its place, and names something that exists (a declared parameter, an input,
 * a deployment path, a tool called earlier in the plan).
 */
import { formatPath, type Problem } from '../../core/errors.ts';
import { LITERAL_KEY, TEMPLATE_ROOTS, templateMatches, templateSteps } from '../../core/templates/render.ts';
import { didYouMean, joinHints } from '../../util/did-you-mean.ts';
import type { FieldPath, Pos } from './yaml-source.ts';

/** Where a template sits decides which roots it may use. */
type Place =
  | 'preconditions'
  | 'lookups'
  | 'validate'
  | 'effects'
  | 'returns'
  | 'compensation_args'
  | 'world'
  | 'goal'
  | 'forbidden'
  | 'approvals'
  | 'confirmations'
  | 'plan';

const PLACE_ROOTS: Record<Place, readonly string[]> = {
  preconditions: ['args', 'inputs', 'deployment'],
  lookups: ['args', 'inputs', 'deployment'],
  validate: ['args', 'inputs', 'deployment', 'before'],
  effects: ['args', 'result', 'inputs', 'deployment', 'id', 'before', 'seq'],
  returns: ['args', 'inputs', 'deployment', 'id', 'before', 'seq'],
  compensation_args: ['args', 'result', 'inputs', 'deployment', 'before', 'seq'],
  world: ['inputs', 'deployment'],
  goal: ['inputs', 'deployment'],
  forbidden: ['inputs', 'deployment'],
  approvals: ['inputs', 'deployment'],
  confirmations: ['inputs', 'deployment'],
  plan: ['inputs', 'results'],
};

/** The places where a tool's lookup names are roots too (`{{order.status}}`). */
const LOOKUP_PLACES: ReadonlySet<Place> = new Set([
  'preconditions',
  'lookups',
  'validate',
  'effects',
  'returns',
  'compensation_args',
]);

/** Why a root is missing from a place, for the hint. */
const WHY: Partial<Record<Place, string>> = {
  preconditions: 'preconditions are checked when the call is issued, before there is a result',
  returns: 'the reply is the result, so it cannot refer to itself',
  compensation_args:
    'a compensation is issued later, so it has no id of its own; use {{result.x}} for ids the call returned',
  world: 'the world exists before any call',
  goal: 'the goal is checked at the end of the run, outside any call',
  forbidden: 'forbidden facts are checked at the end of the run, outside any call',
  approvals: 'approvals are scripted before any call',
  confirmations: 'confirmations are scripted before any call',
  lookups: 'a lookup is read when the call is issued, before there is a result',
  plan: 'a plan may use {{inputs.x}} and {{results.TOOL.path}} (the latest successful result of TOOL)',
};

export interface TemplateScope {
  place: Place;
  /** Declared parameter names of the tool whose args `{{args.x}}` refers to. */
  params?: readonly string[];
  toolName?: string;
  inputs: Record<string, unknown>;
  deployment: Record<string, unknown>;
  /** For plans: declared tools, and the tools called in earlier plan items. */
  tools?: readonly string[];
  calledBefore?: ReadonlySet<string>;
  /** The tool's lookup names that may be read here (for a lookup's `where`: the lookups declared before it). */
  lookups?: readonly string[];
  /** Those of them with `each: true`: a list of rows, so `{{NAME[*].field}}` projects over it. */
  listLookups?: readonly string[];
}

export interface Locator {
  file: string;
  locate(path: FieldPath, opts?: { at?: 'key' | 'value' }): Pos;
  locateInString?(path: FieldPath, offset: number): Pos;
}

/**
 * Checks the templates in one string value at `path`.
 *
 * @example
 * checkTemplateString('{{result.id}}', ['tools', 0, 'preconditions', 0], { place: 'preconditions', inputs: {}, deployment: {} }, loc)
 * // [{ code: 'template', message: '{{result.id}} cannot be used in preconditions', ... }]
 */
export function checkTemplateString(text: string, path: FieldPath, scope: TemplateScope, loc: Locator): Problem[] {
  if (!text.includes('{{') && !text.includes('}}')) return [];
  const out: Problem[] = [];
  const at = (offset: number): Pos => (loc.locateInString ? loc.locateInString(path, offset) : loc.locate(path));
  const problem = (offset: number, message: string, hint?: string): Problem => ({
    code: 'template',
    file: loc.file,
    ...at(offset),
    path: formatPath(path),
    message,
    ...(hint ? { hint } : {}),
  });

  const matches = templateMatches(text);
  const parts: string[] = [];
  let last = 0;
  for (const m of matches) {
    parts.push(text.slice(last, m.index), ' '.repeat(m.length));
    last = m.index + m.length;
  }
  const stripped = parts.join('') + text.slice(last);
  const stray = [stripped.indexOf('{{'), stripped.indexOf('}}')].filter((i) => i >= 0);
  if (stray.length > 0) {
    const first = Math.min(...stray);
    out.push(
      problem(
        first,
        `a template is not closed or not opened in "${text}"`,
        'write {{root.name}}, e.g. {{args.to}}; templates do not nest',
      ),
    );
  }

  const lookups = LOOKUP_PLACES.has(scope.place) ? (scope.lookups ?? []) : [];
  const allowed = [...PLACE_ROOTS[scope.place], ...lookups];
  for (const m of matches) {
    const expr = m.path;
    const offset = m.index;
    const shown = `{{${expr}}}`;
    // `name[*]` projects over the array at name: the names are checked without it.
    const steps = templateSteps(expr);
    const parts = steps.map((s) => s.field);
    const root = parts[0] ?? '';
    if (expr === '') {
      out.push(
        problem(offset, 'an empty template {{}}', `allowed here: ${allowed.map((r) => `{{${r}.x}}`).join(', ')}`),
      );
      continue;
    }
    if (!allowed.includes(root)) {
      const known = (TEMPLATE_ROOTS as readonly string[]).includes(root) || root === 'results';
      if (known) {
        out.push(
          problem(
            offset,
            `${shown} cannot be used in ${placeName(scope.place)}`,
            joinHints(WHY[scope.place], `allowed roots here: ${allowed.join(', ')}`),
          ),
        );
      } else {
        out.push(
          problem(
            offset,
            `unknown template root "${root}" in ${shown}`,
            joinHints(didYouMean(root, allowed), `allowed roots here: ${allowed.join(', ')}`),
          ),
        );
      }
      continue;
    }
    if (parts.some((p) => p === '')) {
      out.push(problem(offset, `${shown} has an empty path segment`, 'write {{root.name.sub}}'));
      continue;
    }
    if (parts.some((p) => p.includes('[') || p.includes(']'))) {
      out.push(
        problem(
          offset,
          `${shown}: brackets are written name[*] (every item) or name[root.path] (the key a path's value names)`,
          'e.g. {{args.items[*].id}} or {{leg.prices[args.cabin]}}; a key path holds no brackets of its own',
        ),
      );
      continue;
    }
    // A key path (`prices[args.cabin]`) is a template of its own, read in the same place.
    const keyProblems = steps.flatMap((s) =>
      s.key === undefined || LITERAL_KEY.test(s.key)
        ? []
        : checkTemplateString(`{{${s.key}}}`, path, scope, { ...loc, locateInString: () => at(offset) }).map((p) => ({
            ...p,
            message: `the key of ${shown}: ${p.message}`,
          })),
    );
    if (keyProblems.length > 0) {
      out.push(...keyProblems);
      continue;
    }
    if (steps[0]?.each && root !== 'result' && !(lookups.includes(root) && (scope.listLookups ?? []).includes(root))) {
      out.push(
        problem(
          offset,
          `${shown}: ${root} is not a list, so it cannot be projected with [*]`,
          `write {{${root}.name[*]...}}`,
        ),
      );
      continue;
    }
    const name = parts[1];
    // A lookup name alone is the whole row (`returns: { order: "{{order}}" }`).
    if (lookups.includes(root)) continue;
    if (root === 'before' && (name === undefined || !(scope.lookups ?? []).includes(name))) {
      const known = scope.lookups ?? [];
      out.push(
        problem(
          offset,
          `${shown}: {{before.NAME.field}} reads a row the tool looks up, and ${name === undefined ? 'names none' : `"${name}" is not one`}`,
          joinHints(
            name === undefined ? undefined : didYouMean(name, known),
            known.length
              ? `lookups of ${scope.toolName ?? 'the tool'}: ${known.join(', ')}`
              : 'declare it under lookups:',
          ),
        ),
      );
      continue;
    }
    if (root === 'id') {
      if (parts.length > 1)
        out.push(problem(offset, `${shown}: {{id}} is the call's generated id and has no fields`, 'write {{id}}'));
      continue;
    }
    if (name === undefined) {
      out.push(problem(offset, `${shown} names no field`, `write {{${root}.name}}`));
      continue;
    }
    if (root === 'args' && scope.params) {
      if (!scope.params.includes(name)) {
        const declared = scope.params.length
          ? `declared parameters of ${scope.toolName ?? 'the tool'}: ${scope.params.join(', ')}`
          : `${scope.toolName ?? 'the tool'} declares no parameters`;
        out.push(
          problem(
            offset,
            `${shown}: "${name}" is not a parameter of ${scope.toolName ?? 'this tool'}`,
            joinHints(didYouMean(name, scope.params), declared),
          ),
        );
      }
    } else if (root === 'inputs') {
      if (!Object.hasOwn(scope.inputs, name)) {
        const keys = Object.keys(scope.inputs);
        out.push(
          problem(
            offset,
            `${shown}: the scenario has no input "${name}"`,
            joinHints(didYouMean(name, keys), keys.length ? `inputs: ${keys.join(', ')}` : 'add it under inputs:'),
          ),
        );
      }
    } else if (root === 'deployment') {
      // Inside a projection the path is read in each item, below a key under a computed name: checked up to the first of them.
      const through = steps.findIndex((s, k) => k > 0 && (s.each || s.key !== undefined));
      const missing = missingPath(scope.deployment, parts.slice(1, through < 0 ? undefined : through + 1));
      if (missing) {
        out.push(
          problem(
            offset,
            `${shown}: deployment has no "${missing.path}"`,
            joinHints(didYouMean(missing.segment, missing.siblings), 'add it under deployment:'),
          ),
        );
      }
    } else if (root === 'results' && scope.tools) {
      if (!scope.tools.includes(name)) {
        out.push({
          ...problem(offset, `${shown}: no tool is named "${name}"`, didYouMean(name, scope.tools)),
          code: 'unknown_tool',
        });
      } else if (scope.calledBefore && !scope.calledBefore.has(name)) {
        out.push({
          ...problem(
            offset,
            `${shown}: ${name} is not called in an earlier plan item`,
            `{{results.${name}.x}} is the latest successful result of ${name}; call it in an item before this one`,
          ),
          code: 'plan',
        });
      }
    }
  }
  return out;
}

/**
 * Checks every string in a JSON-like value (strings, list items, mapping values). Keys are
 * not rendered, so a template in a key is reported unless `keysRendered`.
 */
export function checkTemplateValue(
  value: unknown,
  path: FieldPath,
  scope: TemplateScope,
  loc: Locator,
  keysRendered = false,
): Problem[] {
  if (typeof value === 'string') return checkTemplateString(value, path, scope, loc);
  if (Array.isArray(value))
    return value.flatMap((v, i) => checkTemplateValue(v, [...path, i], scope, loc, keysRendered));
  if (value !== null && typeof value === 'object') {
    const out: Problem[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (!keysRendered && k.includes('{{')) {
        const pos = loc.locate([...path, k], { at: 'key' });
        out.push({
          code: 'template',
          file: loc.file,
          ...pos,
          path: formatPath([...path, k]),
          message: `a template in the key "${k}" is not rendered`,
          hint: 'templates work in values only',
        });
      }
      out.push(...checkTemplateValue(v, [...path, k], scope, loc, keysRendered));
    }
    return out;
  }
  return [];
}

function placeName(place: Place): string {
  switch (place) {
    case 'world':
      return 'the world';
    case 'compensation_args':
      return 'compensation_args';
    case 'plan':
      return 'a plan';
    default:
      return place;
  }
}

/** The first segment of `path` that does not exist in `obj`, with its siblings for suggestions. */
export function missingPath(
  obj: Record<string, unknown>,
  path: readonly string[],
): { path: string; segment: string; siblings: string[] } | undefined {
  let cur: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i] ?? '';
    const isObj = cur !== null && typeof cur === 'object';
    if (!isObj || !Object.hasOwn(cur as object, seg)) {
      return { path: path.slice(0, i + 1).join('.'), segment: seg, siblings: isObj ? Object.keys(cur as object) : [] };
    }
    cur = (cur as Record<string, unknown>)[seg];
  }
  return undefined;
}
