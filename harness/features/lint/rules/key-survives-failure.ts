/**
 * `key_survives_failure` where it changes nothing: on a tool declared `idempotent` (the guard lets
 * every repeat of it through already), or on one that is never irreversible, whatever its class
 * rules say (the guard holds repeats after an ambiguous failure only of irreversible calls). The
 * declaration then reads as a promise the guard does not need, and hides a class or idempotency
 * mistake; the loader refuses it on a tool with no `idempotency_key`.
 */
import { possibleClasses } from '../../../domain/rules/classes.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const keySurvivesFailure: Rule = {
  id: 'key-survives-failure',
  description: 'key_survives_failure on a tool whose repeats the guard never holds',
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    ctx.scenario.tools.forEach((t, i) => {
      if (t.key_survives_failure !== true) return;
      const why =
        t.idempotent === true
          ? 'it is declared idempotent, and the guard lets every repeat of it through already'
          : !possibleClasses(t).includes('irreversible')
            ? 'it is never irreversible, and the guard holds repeats after an ambiguous failure only of irreversible calls'
            : undefined;
      if (why === undefined) return;
      out.push(
        finding(
          ctx,
          this.id,
          'warning',
          ['tools', i, 'key_survives_failure'],
          `key_survives_failure on "${t.name}" changes nothing: ${why}`,
          t.idempotent === true
            ? 'remove key_survives_failure, or idempotent: true if a repeat with a new key applies again'
            : 'remove key_survives_failure, or check the tool’s reversibility (and class rules)',
        ),
      );
    });
    return out;
  },
};
