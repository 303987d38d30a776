import { describe, expect, it } from 'vitest';
import { effectChangedState } from '../../harness/core/effects/index.ts';
import { update } from '../../harness/core/effects/update.ts';
import { World } from '../../harness/core/world.ts';

describe('update effect', () => {
  it('sets the fields of matching rows and records them before and after', () => {
    const world = World.from({
      facts: [],
      tables: {
        orders: [
          { id: 1, status: 'open' },
          { id: 2, status: 'open' },
        ],
      },
    });
    const e = update.apply({ table: 'orders', where: { id: '{{args.id}}' }, set: { status: 'void' } }, world, {
      args: { id: 2 },
    });
    expect(e).toEqual({
      kind: 'update',
      table: 'orders',
      before: [{ id: 2, status: 'open' }],
      after: [{ id: 2, status: 'void' }],
    });
    expect(world.snapshot().tables.orders).toEqual([
      { id: 1, status: 'open' },
      { id: 2, status: 'void' },
    ]);
  });

  it('changed the world when a row matched; its state only when a value differs', () => {
    const none = { kind: 'update' as const, table: 'orders', before: [], after: [] };
    const same = {
      kind: 'update' as const,
      table: 'orders',
      before: [{ id: 1, status: 'void' }],
      after: [{ id: 1, status: 'void' }],
    };
    const real = {
      kind: 'update' as const,
      table: 'orders',
      before: [{ id: 1, status: 'open' }],
      after: [{ id: 1, status: 'void' }],
    };
    expect([none, same, real].map((e) => update.changed(e))).toEqual([false, true, true]);
    expect([none, same, real].map((e) => effectChangedState(e))).toEqual([false, false, true]);
  });

  it('removes the old rows and adds the new ones, and names only the fields that changed', () => {
    const e = {
      kind: 'update' as const,
      table: 'orders',
      before: [{ id: 1, status: 'open', n: 1 }],
      after: [{ id: 1, status: 'void', n: 1 }],
    };
    expect(update.footprint(e)).toMatchObject({ table: 'orders', rowsAdded: e.after, rowsRemoved: e.before });
    expect(update.describe(e)).toBe('orders: updated id=1 status: open → void');
    expect(update.describe({ ...e, after: e.before })).toBeUndefined();
    expect(update.describe({ ...e, before: [], after: [] })).toBeUndefined();
  });
});
