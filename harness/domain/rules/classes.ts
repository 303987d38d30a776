/**
 * Deployment-dependent tool classes. A tool's `reversibility` is one class, or a
 * list of rules `{when: "deployment.<path> <op> <literal>", class}` where the
 * first rule whose condition holds wins and the last rule has no `when`.
 *
 * @example
 * effectiveClass(
 *   { reversibility: [{ when: 'deployment.pitr_hours >= 24', class: 'reversible' }, { class: 'irreversible' }] },
 *   { pitr_hours: 72 },
 * ) // 'reversible'
 */
import type { Result } from '../../core/errors.ts';
import { CLASSES, type Tool, type ToolClass } from '../../core/scenario.ts';

const CONDITION_OPS = ['==', '!=', '<=', '>=', '<', '>'] as const;
type ConditionOp = (typeof CONDITION_OPS)[number];
type Literal = string | number | boolean;

export interface Condition {
  /** The path below `deployment`, e.g. `['pitr_hours']` for `deployment.pitr_hours`. */
  path: string[];
  op: ConditionOp;
  value: Literal;
}

export type ConditionParse = Result<Condition, { message: string; hint: string }>;

const FORM_HINT =
  'write "deployment.<path> <op> <literal>", op one of == != < <= > >=, e.g. "deployment.pitr_hours >= 24"';
/**
 * The path and operator; the literal is the rest, read in code. (`\s*(.+)$` after the operator
 * backtracked quadratically over a long run of spaces followed by a line break.)
 */
const CONDITION_HEAD = /^deployment((?:\.[A-Za-z0-9_-]+)+)\s*(==|!=|<=|>=|<|>)/;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * Parses a class-rule condition. Literals: numbers, `true`/`false`, a "double" or 'single'
 * quoted string, or a bare string.
 *
 * @example
 * parseCondition('deployment.pitr_hours >= 24') // { ok: true, value: { path: ['pitr_hours'], op: '>=', value: 24 } }
 */
export function parseCondition(when: string): ConditionParse {
  const src = when.trim();
  if (!src.startsWith('deployment.')) {
    return { ok: false, message: `a condition starts with "deployment.": "${when}"`, hint: FORM_HINT };
  }
  const m = CONDITION_HEAD.exec(src);
  // The literal: the rest after the operator, on one line, not empty.
  const rest = m ? src.slice(m[0].length).trimStart() : '';
  if (!m || rest === '' || LINE_BREAK.test(rest)) {
    const single = /[^=!<>]=[^=]/.test(src);
    return {
      ok: false,
      message: `cannot read the condition "${when}"`,
      hint: single ? 'compare with "==", not "="' : FORM_HINT,
    };
  }
  const path = (m[1] ?? '').slice(1).split('.');
  const op = m[2] as ConditionOp;
  const lit = parseLiteral(rest.trim());
  if (!lit.ok) return { ok: false, message: `${lit.message} in "${when}"`, hint: FORM_HINT };
  if (op !== '==' && op !== '!=' && typeof lit.value === 'boolean') {
    return {
      ok: false,
      message: `"${op}" cannot compare with ${String(lit.value)}`,
      hint: 'use == or != with true/false',
    };
  }
  return { ok: true, value: { path, op, value: lit.value } };
}

function parseLiteral(text: string): Result<Literal, { message: string }> {
  if (text === 'true') return { ok: true, value: true };
  if (text === 'false') return { ok: true, value: false };
  if (/^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) return { ok: true, value: Number(text) };
  const q = text[0];
  if (q === '"' || q === "'") {
    if (text.length < 2 || text[text.length - 1] !== q) return { ok: false, message: 'unterminated quoted string' };
    const inner = text.slice(1, -1);
    if (q === '"') {
      try {
        return { ok: true, value: JSON.parse(text) as string };
      } catch {
        return { ok: false, message: 'invalid escape in the quoted string' };
      }
    }
    return { ok: true, value: inner };
  }
  if (/\s/.test(text)) return { ok: false, message: `the literal "${text}" has spaces: quote it` };
  if (/^[=<>!]/.test(text)) return { ok: false, message: `no literal after the operator (found "${text}")` };
  return { ok: true, value: text };
}

/** The value at a condition's path in `deployment`, or undefined. */
export function deploymentValue(deployment: Record<string, unknown>, path: readonly string[]): unknown {
  let cur: unknown = deployment;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, p)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/**
 * Evaluates a condition. Equality compares like types (a string literal also matches the text
 * of a number or boolean, so `deployment.tier == 2` and `== "2"` both hold for `tier: 2`);
 * ordering holds only between two numbers or two strings. A missing path is never equal,
 * always unequal, and never ordered.
 *
 * @example
 * evaluateCondition({ path: ['pitr_hours'], op: '>=', value: 24 }, { pitr_hours: 12 }) // false
 */
export function evaluateCondition(cond: Condition, deployment: Record<string, unknown>): boolean {
  const v = deploymentValue(deployment, cond.path);
  const lit = cond.value;
  const equal = () => {
    if (v === undefined || v === null || typeof v === 'object') return false;
    if (typeof v === typeof lit) return v === lit;
    return typeof lit === 'string' && String(v) === lit;
  };
  switch (cond.op) {
    case '==':
      return equal();
    case '!=':
      return !equal();
    default: {
      const comparable =
        (typeof v === 'number' && typeof lit === 'number') || (typeof v === 'string' && typeof lit === 'string');
      if (!comparable) return false;
      const a = v as number | string;
      const b = lit as number | string;
      if (cond.op === '<') return a < b;
      if (cond.op === '<=') return a <= b;
      if (cond.op === '>') return a > b;
      return a >= b;
    }
  }
}

/**
 * The class of a tool for a deployment: its class, or the first rule whose condition holds.
 * Scenarios are validated at load time, so a rule that does not parse is skipped and a list
 * with no matching rule yields 'irreversible', the cautious answer, rather than throwing.
 */
export function effectiveClass(tool: Pick<Tool, 'reversibility'>, deployment: Record<string, unknown>): ToolClass {
  const r = tool.reversibility;
  if (typeof r === 'string') return r;
  for (const rule of r) {
    if (rule.when === undefined) return rule.class;
    const parsed = parseCondition(rule.when);
    if (parsed.ok && evaluateCondition(parsed.value, deployment)) return rule.class;
  }
  return 'irreversible';
}

/** Every class a tool can have under some deployment (in CLASSES order). */
export function possibleClasses(tool: Pick<Tool, 'reversibility'>): ToolClass[] {
  const r = tool.reversibility;
  const found = new Set<ToolClass>(typeof r === 'string' ? [r] : r.map((rule) => rule.class));
  return CLASSES.filter((c) => found.has(c));
}
