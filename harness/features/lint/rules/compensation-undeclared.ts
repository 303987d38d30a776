/**
 * A compensable (or reversible) tool that changes state must name its
 * compensation as a declared tool: the record stores the compensating call,
 * and recovery issues it. A name that is not a tool is a compensation nobody
 * can run.
 */
import { didYouMean, joinHints } from '../../../util/did-you-mean.ts';
import { possibleClasses } from '../../../domain/rules/classes.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const compensationUndeclared: Rule = {
  id: 'compensation-undeclared',
  description: 'a compensable or reversible tool whose compensation is not declared as a tool',
  check(ctx: RuleContext): LintFinding[] {
    const s = ctx.scenario;
    const names = s.tools.map((t) => t.name);
    const out: LintFinding[] = [];
    s.tools.forEach((t, i) => {
      const undoable = possibleClasses(t).filter((c) => c !== 'irreversible');
      if (t.read_only || undoable.length === 0) return;
      const comp = t.compensating_operation;
      const cls = undoable.join('/');
      if (comp === undefined || comp === null) {
        out.push(
          finding(
            ctx,
            this.id,
            'error',
            ['tools', i, comp === null ? 'compensating_operation' : 'reversibility'],
            `${cls} tool "${t.name}" names no compensating_operation`,
            'name the tool that undoes it and declare that tool; if nothing undoes it, it is irreversible',
          ),
        );
      } else if (!names.includes(comp)) {
        out.push(
          finding(
            ctx,
            this.id,
            'error',
            ['tools', i, 'compensating_operation'],
            `the compensation of ${cls} tool "${t.name}", "${comp}", is not declared as a tool`,
            joinHints(
              didYouMean(comp, names),
              `declare ${comp} under tools (its parameters are what compensation_args give), or name a declared tool`,
            ),
          ),
        );
      }
    });
    return out;
  },
};
