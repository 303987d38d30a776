/**
 * `update: { table, where, set, append, set_element, remove }`: sets fields of every row that matches
 * `where` (values rendered; `"= EXPR"` is arithmetic), appends to list fields (`append`), sets
 * fields of one element of a list field (`set_element: { FIELD: { where, set } }`: the first
 * element whose fields equal `where`), and removes elements of list fields (`remove`: the first
 * element equal to each item).
 */
import { z } from 'zod';
import { Row, TableName } from '../scenario-parts.ts';
import type { Row as RowValue } from '../world.ts';
import { renderValue } from '../templates/render.ts';
import { renderEffectValue } from '../templates/condition.ts';
import { stableJson } from '../../util/json.ts';
import { defineEffect, NO_FOOTPRINT } from './module.ts';
import { exactChanges, fieldChanges, rowLabel } from './row-text.ts';

export const update = defineEffect({
  kind: 'update',
  declared: z.strictObject({
    table: TableName,
    where: Row,
    set: Row.optional().describe('Fields to set; a value "= EXPR" is arithmetic (+ - * / on numbers, parentheses).'),
    append: Row.optional().describe('Items to append to list fields (a list value appends each of its items).'),
    set_element: z
      .record(z.string().min(1), z.strictObject({ where: Row, set: Row }))
      .optional()
      .describe(
        'By list field: in the first element whose fields equal `where` (as text), the fields of `set` (values as in set); no element matches and the field is left as it was.',
      ),
    remove: Row.optional().describe(
      'Items to remove from list fields: the first element equal to each (as text; a list value removes one element per item); no element equal and nothing is removed.',
    ),
  }),
  target: 'table',
  example: 'update: { table, where, set }',
  table: (d) => d.table,
  /** `before[i]` became `after[i]`. */
  applied: z.object({ kind: z.literal('update'), table: z.string(), before: z.array(Row), after: z.array(Row) }),
  apply(d, world, ctx) {
    const r = world.update(
      d.table,
      renderValue(d.where, ctx) as RowValue,
      renderEffectValue(d.set ?? {}, ctx) as RowValue,
      d.append ? (renderEffectValue(d.append, ctx) as RowValue) : undefined,
      d.set_element
        ? Object.fromEntries(
            Object.entries(d.set_element).map(([field, el]) => [
              field,
              { where: renderValue(el.where, ctx) as RowValue, set: renderEffectValue(el.set, ctx) as RowValue },
            ]),
          )
        : undefined,
      d.remove ? (renderEffectValue(d.remove, ctx) as RowValue) : undefined,
    );
    return { kind: 'update', table: d.table, ...r };
  },
  // A matched row counts as changed even when `set` wrote the values it had: the call acted on it.
  changed: (e) => e.before.length > 0,
  changedState: (e) => e.before.some((row, i) => stableJson(row) !== stableJson(e.after[i])),
  footprint: (e) => ({ ...NO_FOOTPRINT, table: e.table, rowsAdded: e.after, rowsRemoved: e.before }),
  describe(e) {
    if (e.before.length === 0) return undefined;
    const changes = e.before.flatMap((b, i) => {
      const f = fieldChanges(b, e.after[i] ?? {});
      return f ? [`${rowLabel(b)} ${f}`] : [];
    });
    return changes.length ? `${e.table}: updated ${changes.join('; ')}` : undefined;
  },
  reportText: (e) =>
    `update ${e.table}: ${
      e.before.length === 0 ? 'no row matched' : e.before.map((b, i) => exactChanges(b, e.after[i] || {})).join('; ')
    }`,
});
