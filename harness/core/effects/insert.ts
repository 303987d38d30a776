/** `insert: { table, row }`: adds one row (its values rendered; `"= EXPR"` is arithmetic) to a table. */
import { z } from 'zod';
import { Row, TableName } from '../scenario-parts.ts';
import type { Row as RowValue } from '../world.ts';
import { renderEffectValue } from '../templates/condition.ts';
import { defineEffect, NO_FOOTPRINT } from './module.ts';
import { exactPairs, showRow } from './row-text.ts';

export const insert = defineEffect({
  kind: 'insert',
  declared: z.strictObject({ table: TableName, row: Row }),
  target: 'table',
  example: 'insert: { table: t, row: {...} }',
  table: (d) => d.table,
  applied: z.object({ kind: z.literal('insert'), table: z.string(), row: Row }),
  apply(d, world, ctx) {
    const row = renderEffectValue(d.row, ctx) as RowValue;
    world.insert(d.table, row);
    return { kind: 'insert', table: d.table, row };
  },
  // A row was added, whatever it holds.
  changed: () => true,
  footprint: (e) => ({ ...NO_FOOTPRINT, table: e.table, rowsAdded: [e.row] }),
  describe: (e) => `${e.table}: inserted ${showRow(e.row)}`,
  reportText: (e) => `insert into ${e.table}: ${exactPairs(e.row)}`,
});
