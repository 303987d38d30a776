/**
 * A precondition that no tool establishes and no initial fact satisfies can
 * never hold: every call of its tool is premature. With a close known fact
 * name it is a typo (error); otherwise it may be a door the scenario keeps
 * shut on purpose (warning).
 */
import { didYouMean, joinHints } from '../../../util/did-you-mean.ts';
import { declaredFact, showFact } from '../facts.ts';
import { canHold, reachOf } from '../reach.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const unreachablePrecondition: Rule = {
  id: 'unreachable-precondition',
  description: 'a precondition that no tool and no initial fact can establish (a typo: error; else warning)',
  check(ctx: RuleContext): LintFinding[] {
    const s = ctx.scenario;
    const { declared } = reachOf(s);
    const out: LintFinding[] = [];
    s.tools.forEach((t, i) => {
      t.preconditions.forEach((text, k) => {
        if (typeof text !== 'string') return; // a comparison: not a fact a tool establishes
        const p = declaredFact(text, s);
        if (!p || canHold(p, declared)) return;
        const sameName = declared.filter((d) => d.fact.name === p.name);
        const names = [...new Set(declared.map((d) => d.fact.name))];
        const why = sameName.length
          ? `${p.name} is established only as ${[...new Set(sameName.map((d) => `${showFact(d.fact)}${d.tool ? ` (by ${d.tool.name})` : ' (initially)'}`))].join(', ')}, which cannot match`
          : `no tool establishes ${p.name} and no initial fact is one`;
        // A close known name is almost always a typo (error); a fact nothing establishes on purpose is a door kept shut (warning).
        const typo = sameName.length === 0 ? didYouMean(p.name, names) : undefined;
        out.push(
          finding(
            ctx,
            this.id,
            typo ? 'error' : 'warning',
            ['tools', i, 'preconditions', k],
            `precondition ${showFact(p)} of "${t.name}" can never hold: ${why}`,
            joinHints(
              typo,
              typo
                ? 'fix the fact name'
                : 'establish it with a tool or an initial fact; if the tool must never be called safely here, this is by design',
            ),
          ),
        );
      });
    });
    return out;
  },
};
