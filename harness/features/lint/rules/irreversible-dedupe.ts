/**
 * An irreversible tool with optional parameters and no `dedupe_on`: "the same call" is then the
 * tool with all its arguments, so a repeat that adds or changes an optional one (a memo, a note)
 * counts as another call. After an ambiguous failure it is not an unreconciled retry, and the guard
 * lets it through: the server may apply the effect twice. `dedupe_on` names the parameters that
 * identify one effect; `oneway import` proposes the required ones.
 */
import { possibleClasses } from '../../../domain/rules/classes.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const irreversibleDedupe: Rule = {
  id: 'irreversible-dedupe',
  description: 'an irreversible tool with optional parameters and no dedupe_on',
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    ctx.scenario.tools.forEach((t, i) => {
      if (t.dedupe_on || t.idempotent === true || t.read_only || !possibleClasses(t).includes('irreversible')) return;
      const { properties, required } = t.parameters;
      const optional = Object.keys(properties).filter((p) => !required.includes(p) && p !== t.idempotency_key);
      if (optional.length === 0) return;
      const identifying = required.filter((p) => p !== t.idempotency_key);
      out.push(
        finding(
          ctx,
          this.id,
          'warning',
          ['tools', i, 'name'],
          `irreversible tool "${t.name}" has optional parameters (${optional.join(', ')}) and no dedupe_on: a repeat that adds or changes one of them counts as another call, so after an ambiguous failure it is not held as a retry`,
          identifying.length > 0
            ? `declare dedupe_on: [${identifying.join(', ')}] (the parameters that identify one effect), or idempotent: true if a repeat applies nothing new`
            : 'declare dedupe_on: the parameters that identify one effect, or idempotent: true if a repeat applies nothing new',
        ),
      );
    });
    return out;
  },
};
