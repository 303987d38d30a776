/**
 * A read_only tool is effect-free: it may establish what it verified, but a
 * table effect makes the declaration a lie that planners and guards trust.
 */
import { finding, type Finding, type Rule, type RuleContext } from '../types.ts';

export const readOnlyEffects: Rule = {
  id: 'read-only-effects',
  description: 'a read_only tool with insert, update or delete effects',
  check(ctx: RuleContext): Finding[] {
    const out: Finding[] = [];
    ctx.scenario.tools.forEach((t, i) => {
      if (!t.read_only) return;
      t.effects.forEach((e, k) => {
        for (const kind of ['insert', 'update', 'delete'] as const) {
          if (e[kind] === undefined) continue;
          out.push(
            finding(
              ctx,
              this.id,
              'error',
              ['tools', i, 'effects', k, kind],
              `read_only tool "${t.name}" has ${kind === 'insert' ? 'an' : 'a'} ${kind} effect on table ${e[kind].table}`,
              'a read_only tool changes no table (it may establish facts it verified): drop read_only and give the tool its class and compensation, or drop the effect',
            ),
          );
        }
      });
    });
    return out;
  },
};
