/**
 * What a guard's journal says, checked against the tools file: a journal is a
 * file on a disk, and anyone who can write it can write a line that claims a
 * tool is reversible and that its compensation is `refund(everyone, 1000000)`.
 * `recover` takes a tool's class, its compensation and whether that needs
 * approval from the tools file (the declarations the guard enforced), never
 * from the journal: a journaled call the tools file disagrees with is disputed,
 * listed as such, and never applied.
 *
 * The compensation is rendered again from the tools file over the journaled
 * arguments and reply, as the guard rendered it (domain/rules/declared.ts
 * `compensationOf`); a reply the journal did not keep whole cannot be checked,
 * so a compensation that reads it is disputed too.
 */
import type { CallEvent } from '../../core/record.ts';
import type { Scenario } from '../../core/scenario.ts';
import { effectiveClass } from '../../domain/rules/classes.ts';
import { compensationOf } from '../../domain/rules/declared.ts';
import { stableJson } from '../../util/json.ts';

/** Why each journaled call (by step) is disputed: what the tools file says instead. Calls not listed agree. */
export function journalDisputes(
  calls: readonly Pick<
    CallEvent,
    'step' | 'tool' | 'args' | 'class' | 'status' | 'applied' | 'result' | 'compensation'
  >[],
  scenario: Scenario,
): Map<number, string[]> {
  const tools = new Map(scenario.tools.map((t) => [t.name, t]));
  const out = new Map<number, string[]>();
  for (const c of calls) {
    if (c.status === 'blocked') continue;
    const tool = tools.get(c.tool);
    const why: string[] = [];
    if (!tool) why.push(`the tools file does not declare ${c.tool}`);
    else {
      const cls = effectiveClass(tool, scenario.deployment);
      if (c.class !== cls) why.push(`the journal says ${c.class}; the tools file declares ${cls}`);
      // What the guard would have journaled for this call: nothing before it applied.
      const expected =
        c.status === 'ok' && c.applied
          ? compensationOf(tool, cls, {
              inputs: scenario.inputs,
              deployment: scenario.deployment,
              args: c.args,
              result: c.result,
            })
          : null;
      const given = c.compensation ?? null;
      if (stableJson(expected) !== stableJson(given))
        why.push(
          `the journal's compensation is ${compText(given)}; the tools file gives ${compText(expected)}${omitted(c.result) ? ' (the journal did not keep the reply whole, so it cannot be checked)' : ''}`,
        );
    }
    if (why.length > 0) out.set(c.step, why);
  }
  return out;
}

function compText(c: CallEvent['compensation']): string {
  if (!c) return 'none';
  return `${c.operation}(${JSON.stringify(c.args)})${c.requires_approval ? ' with approval' : ' without approval'}`;
}

const omitted = (result: unknown): boolean =>
  result !== null && typeof result === 'object' && Object.hasOwn(result, 'oneway/omitted');
