/**
 * Schema parts the scenario contract shares with the effect modules
 * (harness/core/effects/*), which declare their own `effects:` entries. They live
 * apart from scenario.ts so an effect module can use them without importing
 * the contract that imports it.
 */
import { z } from 'zod';

/** A fact `name(key=value, ...)`, possibly with `{{...}}` templates in values. */
export const Fact = z
  .string()
  .min(1)
  .describe('A fact: name(key=value, ...). Values may use {{args.x}}, {{inputs.x}}, ...');

/** A table row, or a row pattern (`where`) or change (`set`): column to value. */
export const Row = z.record(z.string(), z.unknown());

/**
 * A table name, written as is. Tables are named statically (reconciliation by `reads:`, lint,
 * recovery and the fuzz oracle all read the names off the declarations), so a `{{...}}` here would
 * be matched as text, never rendered: it is refused instead.
 */
export const TableName = z
  .string()
  .min(1)
  .regex(/^(?![\s\S]*\{\{)/, 'templates are not rendered in a table name')
  .describe(
    'A table name, written as is: table names are fixed, so put the varying part in a value (a row, where or set value, e.g. where: { id: "{{args.id}}" }).',
  );
