/**
 * In a YAML flow mapping (`{ description: A, b }`), an unquoted ", " ends the
 * value: the rest becomes a key with no value. The file still loads, but a
 * planner (or a model) reads a truncated description and a stray parameter
 * schema key. A key with spaces and no value is almost always that.
 */
import type { FieldPath } from '../../../engine/loader/yaml-source.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const splitValue: Rule = {
  id: 'split-value',
  description: 'a value cut at an unquoted comma in a flow mapping (its rest became a key with no value)',
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    const walk = (v: unknown, path: FieldPath): void => {
      if (Array.isArray(v)) {
        v.forEach((x, i) => walk(x, [...path, i]));
        return;
      }
      if (v === null || typeof v !== 'object') return;
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
    };
    walk(ctx.scenario, []);
    return out;
  },
};
