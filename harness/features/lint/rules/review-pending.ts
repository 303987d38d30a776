/**
 * Imported tools carry `review: true` until a human has checked their class,
 * compensation and preconditions: hints from another protocol are not a
 * reversibility declaration. A warning in a scenario (an evaluation of an
 * imported skeleton still tells something); an error in a tools file, which
 * `oneway guard` enforces and refuses unreviewed.
 */
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const reviewPending: Rule = {
  id: 'review-pending',
  description: 'a tool marked review: true (imported, not yet reviewed): an error in a tools file',
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    ctx.scenario.tools.forEach((t, i) => {
      if (t.review !== true) return;
      out.push(
        finding(
          ctx,
          this.id,
          ctx.kind === 'tools' ? 'error' : 'warning',
          ['tools', i, 'review'],
          `tool "${t.name}" is not reviewed yet (class ${typeof t.reversibility === 'string' ? t.reversibility : 'by deployment'} as imported)`,
          'check its class as deployed, its compensation and its preconditions, then remove review: true',
        ),
      );
    });
    return out;
  },
};
