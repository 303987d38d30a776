/** `delete: { table, where }`: removes every row that matches `where` (values rendered). */
import { z } from 'zod';
import { Row, TableName } from '../scenario-parts.ts';
import type { Row as RowValue } from '../world.ts';
import { renderValue } from '../templates/render.ts';
import { defineEffect, NO_FOOTPRINT } from './module.ts';
import { exactPairs, rowLabel } from './row-text.ts';

export const deleteEffect = defineEffect({
  kind: 'delete',
  declared: z.strictObject({ table: TableName, where: Row }),
  target: 'table',
  example: 'delete: { table, where }',
  table: (d) => d.table,
  applied: z.object({ kind: z.literal('delete'), table: z.string(), rows: z.array(Row) }),
  apply(d, world, ctx) {
    const rows = world.delete(d.table, renderValue(d.where, ctx) as RowValue);
    return { kind: 'delete', table: d.table, rows };
  },
  changed: (e) => e.rows.length > 0,
  footprint: (e) => ({ ...NO_FOOTPRINT, table: e.table, rowsRemoved: e.rows }),
  describe: (e) =>
    e.rows.length === 0
      ? undefined
      : `${e.table}: deleted ${e.rows.length} row${e.rows.length === 1 ? '' : 's'} (${e.rows.map(rowLabel).join(', ')})`,
  reportText: (e) =>
    `delete from ${e.table}: ${e.rows.length === 0 ? 'no row matched' : e.rows.map(exactPairs).join('; ')}`,
});
