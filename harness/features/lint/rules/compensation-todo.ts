/**
 * `oneway import` leaves a compensation it cannot fill as a `TODO: ...` text.
 * Left there, the guard would journal that text as the compensation's
 * arguments, and `recover --apply` would send it to the server. A warning in a
 * scenario, an error in a tools file (see review-pending.ts).
 */
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

/** The paths under `value` of strings holding a TODO. */
function todos(value: unknown, path: (string | number)[]): (string | number)[][] {
  if (typeof value === 'string') return /\bTODO\b/.test(value) ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => todos(v, [...path, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => todos(v, [...path, k]));
  return [];
}

export const compensationTodo: Rule = {
  id: 'compensation-todo',
  description: 'a compensation still holding a TODO (left by oneway import): an error in a tools file',
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    ctx.scenario.tools.forEach((t, i) => {
      const at = [
        ...todos(t.compensating_operation, ['tools', i, 'compensating_operation']),
        ...todos(t.compensation_args, ['tools', i, 'compensation_args']),
      ];
      for (const path of at)
        out.push(
          finding(
            ctx,
            this.id,
            ctx.kind === 'tools' ? 'error' : 'warning',
            path,
            `the compensation of "${t.name}" still holds a TODO: recover would issue it as written`,
            'give the argument from the call or its reply (e.g. {{args.id}}, {{result.items[*].id}}), or make the tool irreversible with no compensation',
          ),
        );
    });
    return out;
  },
};
