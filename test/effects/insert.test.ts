import { describe, expect, it } from 'vitest';
import { AppliedEffect } from '../../harness/core/effects/index.ts';
import { insert } from '../../harness/core/effects/insert.ts';
import { World } from '../../harness/core/world.ts';

describe('insert effect', () => {
  it('adds the rendered row and records it', () => {
    const world = World.from({ facts: [], tables: { outbox: [] } });
    const e = insert.apply({ table: 'outbox', row: { id: '{{id}}', to: '{{args.to}}', n: '{{args.n}}' } }, world, {
      id: 'msg-1',
      args: { to: 'a@x', n: 3 },
    });
    expect(e).toEqual({ kind: 'insert', table: 'outbox', row: { id: 'msg-1', to: 'a@x', n: 3 } });
    expect(world.snapshot().tables.outbox).toEqual([{ id: 'msg-1', to: 'a@x', n: 3 }]);
    expect(AppliedEffect.parse(e)).toEqual(e);
  });

  it('always changes the world, adds its row and says so', () => {
    const e = { kind: 'insert' as const, table: 'outbox', row: { id: 'm1', to: 'a@x' } };
    expect(insert.changed(e)).toBe(true);
    expect(insert.footprint(e)).toMatchObject({
      table: 'outbox',
      rowsAdded: [e.row],
      rowsRemoved: [],
      factsAdded: [],
      factsRemoved: [],
    });
    expect(insert.describe(e)).toBe('outbox: inserted {id: m1, to: a@x}');
  });

  it('declares a table and a row, nothing else', () => {
    expect(insert.declared.safeParse({ table: 'outbox', row: {} }).success).toBe(true);
    expect(insert.declared.safeParse({ table: 'outbox' }).success).toBe(false);
    expect(insert.declared.safeParse({ table: 'outbox', row: {}, where: {} }).success).toBe(false);
    expect(insert.table({ table: 'outbox', row: {} })).toBe('outbox');
  });
});
