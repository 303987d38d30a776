/**
 * In a YAML flow mapping (`{ description: A, b }`), an unquoted ", " ends the
 * value: the rest becomes a key with no value. The file still loads, but a
 * planner (or a model) reads a truncated description and a stray parameter
 * schema key. A key with spaces and no value is almost always that.
 */
import type { FieldPath } from '../../../engine/loader/yaml-source.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

/** Frozen objects with no split value anywhere in them. */
const CLEAN = new WeakSet<object>();

export const splitValue: Rule = {
  id: 'split-value',
  description: 'a value cut at an unquoted comma in a flow mapping (its rest became a key with no value)',
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    const walk = (v: unknown, path: FieldPath): void => {
      if (v === null || typeof v !== 'object') return;
      // A frozen part found clean once is clean for good: the tables of a shared world are one frozen
      // copy that every scenario extending it holds (thousands of rows, walked once, not per scenario).
      if (CLEAN.has(v)) return;
      const found = out.length;
      if (Array.isArray(v)) {
        v.forEach((x, i) => walk(x, [...path, i]));
        if (out.length === found && Object.isFrozen(v)) CLEAN.add(v);
        return;
      }
      const entries = Object.entries(v);
      entries.forEach(([k, x], i) => {
        if (x === null && /\s/.test(k.trim())) {
          const before = entries[i - 1];
          const whole = before && typeof before[1] === 'string' ? `${before[0]}: "${before[1]}, ${k}"` : undefined;
          out.push(
            finding(
              ctx,
              this.id,
              'warning',
              [...path, k],
              `"${k}" is a key with no value: the value before it was cut at an unquoted ", "`,
              whole ? `quote the value: ${whole}` : 'quote the value that contains ", "',
              'key',
            ),
          );
        }
        walk(x, [...path, k]);
      });
      if (out.length === found && Object.isFrozen(v)) CLEAN.add(v);
    };
    walk(ctx.scenario, []);
    return out;
  },
};
