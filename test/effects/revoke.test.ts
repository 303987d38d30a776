import { describe, expect, it } from 'vitest';
import { revoke } from '../../harness/core/effects/revoke.ts';
import { World } from '../../harness/core/world.ts';

describe('revoke effect', () => {
  it('removes what the pattern matches: a written * every value, a * from the arguments only itself', () => {
    const world = World.from({ facts: ['grant(user=a)', 'grant(user=b)', 'grant(user="*")'], tables: {} });
    expect(revoke.apply('grant(user={{args.user}})', world, { args: { user: '*' } })).toEqual({
      kind: 'revoke',
      facts: ['grant(user="*")'],
    });
    expect(revoke.apply('grant(user=*)', world, {})).toEqual({
      kind: 'revoke',
      facts: ['grant(user=a)', 'grant(user=b)'],
    });
    expect(world.snapshot().facts).toEqual([]);
  });

  it('changed the world only when a fact went', () => {
    const e = { kind: 'revoke' as const, facts: ['grant(user=a)'] };
    expect(revoke.changed(e)).toBe(true);
    expect(revoke.changed({ kind: 'revoke', facts: [] })).toBe(false);
    expect(revoke.footprint(e)).toMatchObject({ factsAdded: [], factsRemoved: e.facts });
    expect(revoke.describe(e)).toBe('fact revoked: grant(user=a)');
    expect(revoke.describe({ kind: 'revoke', facts: [] })).toBeUndefined();
  });
});
