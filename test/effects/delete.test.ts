import { describe, expect, it } from 'vitest';
import { deleteEffect } from '../../harness/core/effects/delete.ts';
import { World } from '../../harness/core/world.ts';

describe('delete effect', () => {
  it('removes the matching rows and records them', () => {
    const world = World.from({ facts: [], tables: { files: [{ id: 'a' }, { id: 'b' }] } });
    const e = deleteEffect.apply({ table: 'files', where: { id: '{{args.id}}' } }, world, { args: { id: 'b' } });
    expect(e).toEqual({ kind: 'delete', table: 'files', rows: [{ id: 'b' }] });
    expect(world.snapshot().tables.files).toEqual([{ id: 'a' }]);
  });

  it('changed the world only when a row matched', () => {
    const e = { kind: 'delete' as const, table: 'files', rows: [{ id: 'a' }, { id: 'b' }] };
    expect(deleteEffect.changed(e)).toBe(true);
    expect(deleteEffect.changed({ ...e, rows: [] })).toBe(false);
    expect(deleteEffect.footprint(e)).toMatchObject({ table: 'files', rowsAdded: [], rowsRemoved: e.rows });
    expect(deleteEffect.describe(e)).toBe('files: deleted 2 rows (id=a, id=b)');
    expect(deleteEffect.describe({ ...e, rows: [] })).toBeUndefined();
  });
});
