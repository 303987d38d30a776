/** `establish: FACT`: makes a fact hold (a value the context lacks renders empty). */
import { z } from 'zod';
import { formatFact } from '../facts/fact.ts';
import { renderFact } from '../facts/template.ts';
import { Fact } from '../scenario-parts.ts';
import { defineEffect, NO_FOOTPRINT } from './module.ts';

export const establish = defineEffect({
  kind: 'establish',
  declared: Fact,
  target: 'fact',
  example: 'establish: FACT',
  table: () => undefined,
  /** `was_new`: the fact did not hold before. */
  applied: z.object({ kind: z.literal('establish'), fact: z.string(), was_new: z.boolean() }),
  apply(d, world, ctx) {
    const fact = renderFact(d, ctx, 'empty');
    const text = formatFact(fact);
    return { kind: 'establish', fact: text, was_new: world.establish(fact, text) };
  },
  changed: (e) => e.was_new,
  // The fact holds after it, new or not: what a difference in facts is traced back to.
  footprint: (e) => ({ ...NO_FOOTPRINT, factsAdded: [e.fact] }),
  describe: (e) => (e.was_new ? `fact established: ${e.fact}` : undefined),
  reportText: (e) => `establish ${e.fact}${e.was_new ? '' : ' (already held)'}`,
});
