/**
 * A read_only tool is effect-free: it may establish what it verified, but a
 * table effect makes the declaration a lie that planners and guards trust.
 */
import {
  declaredKinds,
  EFFECT_KINDS,
  effectPlaces,
  EFFECTS,
  effectModule,
  effectNoun,
  orList,
} from '../../../core/effects/index.ts';
import { finding, type LintFinding, type Rule, type RuleContext } from '../types.ts';

export const readOnlyEffects: Rule = {
  id: 'read-only-effects',
  description: `a read_only tool with ${orList(EFFECT_KINDS.filter((k) => EFFECTS[k].target === 'table'))} effects`,
  check(ctx: RuleContext): LintFinding[] {
    const out: LintFinding[] = [];
    ctx.scenario.tools.forEach((t, i) => {
      if (!t.read_only) return;
      effectPlaces(t.effects).forEach(([e, place]) => {
        for (const kind of declaredKinds(e)) {
          if (EFFECTS[kind].target !== 'table') continue;
          out.push(
            finding(
              ctx,
              this.id,
              'error',
              ['tools', i, ...place, kind],
              `read_only tool "${t.name}" has ${effectNoun(kind)} on table ${effectModule(kind).table(e[kind])}`,
              'a read_only tool changes no table (it may establish facts it verified): drop read_only and give the tool its class and compensation, or drop the effect',
            ),
          );
        }
      });
    });
    return out;
  },
};
