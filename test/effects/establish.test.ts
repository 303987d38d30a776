import { describe, expect, it } from 'vitest';
import { establish } from '../../harness/core/effects/establish.ts';
import { World } from '../../harness/core/world.ts';

describe('establish effect', () => {
  it('makes the rendered fact hold and records whether it is new', () => {
    const world = World.from({ facts: ['verified(email=a@x)'], tables: {} });
    const again = establish.apply('verified(email={{args.to}})', world, { args: { to: 'a@x' } });
    const fresh = establish.apply('verified(email={{args.to}})', world, { args: { to: 'b@x' } });
    expect(again).toEqual({ kind: 'establish', fact: 'verified(email=a@x)', was_new: false });
    expect(fresh).toEqual({ kind: 'establish', fact: 'verified(email=b@x)', was_new: true });
    expect(world.snapshot().facts).toEqual(['verified(email=a@x)', 'verified(email=b@x)']);
  });

  it('changed the world only when the fact is new, yet the fact holds after it either way', () => {
    const e = { kind: 'establish' as const, fact: 'verified(email=a@x)', was_new: true };
    expect(establish.changed(e)).toBe(true);
    expect(establish.changed({ ...e, was_new: false })).toBe(false);
    expect(establish.footprint({ ...e, was_new: false })).toMatchObject({
      factsAdded: [e.fact],
      factsRemoved: [],
      rowsAdded: [],
    });
    expect(establish.describe(e)).toBe('fact established: verified(email=a@x)');
    expect(establish.describe({ ...e, was_new: false })).toBeUndefined();
  });
});
