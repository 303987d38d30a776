/** `revoke: FACT`: makes every fact the pattern matches stop holding. */
import { z } from 'zod';
import { renderPattern } from '../facts/template.ts';
import { Fact } from '../scenario-parts.ts';
import { defineEffect, NO_FOOTPRINT } from './module.ts';

export const revoke = defineEffect({
  kind: 'revoke',
  declared: Fact,
  target: 'fact',
  example: 'revoke: FACT',
  table: () => undefined,
  /** The facts it removed. */
  applied: z.object({ kind: z.literal('revoke'), facts: z.array(z.string()) }),
  apply(d, world, ctx) {
    // Only a `*` written in the template revokes every value; one from the arguments is literal.
    const { fact, written } = renderPattern(d, ctx, 'wildcard');
    return { kind: 'revoke', facts: world.revoke(fact, { wildcardKeys: written }) };
  },
  changed: (e) => e.facts.length > 0,
  footprint: (e) => ({ ...NO_FOOTPRINT, factsRemoved: e.facts }),
  describe: (e) => (e.facts.length === 0 ? undefined : `fact revoked: ${e.facts.join(', ')}`),
  reportText: (e) => `revoke ${e.facts.length ? e.facts.join(', ') : '(nothing held)'}`,
});
