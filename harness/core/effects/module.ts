/**
 * What an effect kind is: everything about one kind of `effects:` entry lives
 * in its module (insert.ts, update.ts, ...), and every consumer (loader, lint,
 * sandbox, scoring, recover, fuzz, reports) reaches it through the registry in
 * index.ts. A new kind is a new module and a line in the registry.
 */
import type { z } from 'zod';
import type { Row, World } from '../world.ts';
import type { TemplateContext } from '../templates/render.ts';

/**
 * What an applied effect did to the world, in rows and facts: what recovery compares worlds
 * against, and what the rollback check and irreversible-response wording read. Rows of one
 * effect are all in `table`.
 */
export interface Footprint {
  table?: string;
  rowsAdded: readonly Row[];
  rowsRemoved: readonly Row[];
  factsAdded: readonly string[];
  factsRemoved: readonly string[];
}

/** No rows and no facts: spread it and fill in what a kind touches. */
export const NO_FOOTPRINT: Footprint = { rowsAdded: [], rowsRemoved: [], factsAdded: [], factsRemoved: [] };

/**
 * One effect kind. `D` is the schema of what a scenario writes under `K:` in a tool's
 * `effects:` list; `A` the schema of the effect as applied and recorded (`kind: K` plus what happened).
 */
export interface EffectModule<
  K extends string,
  D extends z.ZodType = z.ZodType,
  A extends z.ZodType<{ kind: K }> = z.ZodType<{ kind: K }>,
> {
  kind: K;
  /** The declared form (the JSON schema for editors is generated from it). */
  declared: D;
  /**
   * What the declaration names. `table`: it writes rows of a table (its values are checked as
   * templates; a read_only tool may not have it). `fact`: it changes a fact (checked as a fact).
   */
  target: 'table' | 'fact';
  /** How a scenario writes it, for the hint of an effect with no key: `insert: { table: t, row: {...} }`. */
  example: string;
  /** The table a declaration writes (table effects), for messages and reconciliation by `reads`. */
  table(d: z.infer<D>): string | undefined;
  /** The recorded form: one member of the `AppliedEffect` union. */
  applied: A;
  /** Renders the declaration with the call's context and applies it to the world; what it did. */
  apply(d: z.infer<D>, world: World, ctx: TemplateContext): z.infer<A>;
  /** Whether it changed anything (an update that matched no row did not): what the scores count as an effect. */
  changed(e: z.infer<A>): boolean;
  /**
   * Whether it changed the world's state, so that undoing it is due; defaults to `changed`.
   * An update that rewrote rows with the values they had changed nothing to undo.
   */
  changedState?(e: z.infer<A>): boolean;
  /** The rows and facts it added and removed. */
  footprint(e: z.infer<A>): Footprint;
  /** It in words for the incident checklist; undefined when it changed nothing worth a line. */
  describe(e: z.infer<A>): string | undefined;
  /** It exactly, on one line, for the HTML report's call cards (values as JSON), whether it changed anything or not. */
  reportText(e: z.infer<A>): string;
}

/**
 * Declares an effect kind, with its method parameters typed from its schemas.
 *
 * @example
 * export const insert = defineEffect({ kind: 'insert', declared: z.strictObject({...}), applied: z.object({ kind: z.literal('insert'), ... }), ... });
 */
export function defineEffect<K extends string, D extends z.ZodType, A extends z.ZodType<{ kind: K }>>(
  m: EffectModule<K, D, A>,
): EffectModule<K, D, A> {
  return m;
}
