/**
 * An irreversible tool has no compensation. Naming one claims a way back that
 * does not exist, and recovery would offer it.
 */
import { possibleClasses } from '../../../domain/rules/classes.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const irreversibleCompensation: Rule = {
  id: 'irreversible-compensation',
  description: 'an irreversible tool that names a compensation',
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    ctx.scenario.tools.forEach((t, i) => {
      const classes = possibleClasses(t);
      if (classes.length !== 1 || classes[0] !== 'irreversible') return;
      const hint =
        'an irreversible tool has no way back: remove it, or declare the class the tool really has (compensable, if the compensation is a new action with its own approvals)';
      if (t.compensating_operation) {
        out.push(
          finding(
            ctx,
            this.id,
            'error',
            ['tools', i, 'compensating_operation'],
            `irreversible tool "${t.name}" names a compensating operation ("${t.compensating_operation}")`,
            hint,
          ),
        );
      }
      for (const key of ['compensation_args', 'compensation_requires_approval'] as const) {
        if (t[key] !== undefined)
          out.push(
            finding(
              ctx,
              this.id,
              'error',
              ['tools', i, key],
              `irreversible tool "${t.name}" declares ${key}`,
              hint,
              'key',
            ),
          );
      }
    });
    return out;
  },
};
