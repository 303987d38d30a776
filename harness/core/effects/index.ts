/**
 * The effect kinds: the registry every consumer dispatches through, and the two
 * schemas built from it, the declared `effects:` entry of the scenario contract
 * and the applied effect of the run record.
 *
 * To add a kind: write its module (see module.ts and insert.ts), add its name to
 * EFFECT_KINDS and its module to EFFECTS. A name without a module, or a module
 * under the wrong name, does not compile.
 */
import { z } from 'zod';
import type { World } from '../world.ts';
import type { TemplateContext } from '../templates/render.ts';
import { conditionHolds } from '../templates/condition.ts';
import { deleteEffect } from './delete.ts';
import { establish } from './establish.ts';
import { insert } from './insert.ts';
import type { EffectModule, Footprint } from './module.ts';
import { revoke } from './revoke.ts';
import { update } from './update.ts';

/** In the order the contract lists them (its JSON schema and messages). */
export const EFFECT_KINDS = ['insert', 'update', 'delete', 'establish', 'revoke'] as const;
export type EffectKind = (typeof EFFECT_KINDS)[number];

/** Each kind's module, under its name; each keeps its own schema types (`satisfies` checks the names). */
export const EFFECTS = { insert, update, delete: deleteEffect, establish, revoke } satisfies {
  readonly [K in EffectKind]: EffectModule<K>;
};

type DeclaredShape = { [K in EffectKind]: z.ZodOptional<(typeof EFFECTS)[K]['declared']> } & {
  if: z.ZodOptional<z.ZodString>;
};

/** `if:` on an effect: it applies only when the condition holds (harness/core/templates/condition.ts). */
const EffectIf = z
  .string()
  .min(1)
  .optional()
  .describe("A condition (like a precondition's when:): the effect applies only when it holds when the call applies.");

const kindShape = {
  ...(Object.fromEntries(EFFECT_KINDS.map((k) => [k, EFFECTS[k].declared.optional()])) as Omit<DeclaredShape, 'if'>),
  if: EffectIf,
} as DeclaredShape;

/** An effect inside a `for_each`'s `do:` (a loop does not nest). */
const LoopedEffect = z
  .strictObject(kindShape)
  .describe(`Exactly one of ${EFFECT_KINDS.join(', ')}, and optionally if: CONDITION.`);

/** The name a loop gives its element (`{{item}}`, `{{item.x}}`): a template root of its own. */
const LoopName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'letters, digits and _ only, starting with a letter or _')
  .describe('The name templates read the element by: {{NAME}}, {{NAME.field}}.');

/** `for_each:` applies its effects once per element of a list. */
export const ForEach = z
  .strictObject({
    in: z.string().min(1).describe('A template whose value is a list, e.g. "{{args.item_ids}}".'),
    as: LoopName,
    zip: z
      .record(LoopName, z.string().min(1))
      .optional()
      .describe('More lists, by name: each name is the element at the same index (lists of other lengths: a 422).'),
    do: z.array(LoopedEffect).min(1).describe('The effects applied per element, in order.'),
  })
  .describe('Applies `do` once per element of `in`, the element named `as` (and each `zip` list its own name).');
export type ForEach = z.infer<typeof ForEach>;

/** One `effects:` entry of a tool: exactly one key, the kind or `for_each` (the loader reports none or several), and an optional `if:`. */
export const DeclaredEffect = z
  .strictObject({ ...kindShape, for_each: ForEach.optional() })
  .describe(`Exactly one of ${EFFECT_KINDS.join(', ')} or for_each, and optionally if: CONDITION.`);
export type DeclaredEffect = z.infer<typeof DeclaredEffect>;

/**
 * A tool's effects with each `for_each` replaced by the effects of its `do:`: what a tool may
 * write and establish, for analyses that read the declarations (which tables, which facts).
 */
export function expandedEffects(effects: readonly DeclaredEffect[]): DeclaredEffect[] {
  return effects.flatMap((e) => (e.for_each ? e.for_each.do : [e]));
}

/** expandedEffects with each effect's place under the tool: `['effects', k]` or `['effects', k, 'for_each', 'do', j]`. */
export function effectPlaces(effects: readonly DeclaredEffect[]): [DeclaredEffect, (string | number)[]][] {
  return effects.flatMap((e, k): [DeclaredEffect, (string | number)[]][] =>
    e.for_each ? e.for_each.do.map((d, j) => [d, ['effects', k, 'for_each', 'do', j]]) : [[e, ['effects', k]]],
  );
}

type AppliedSchema = (typeof EFFECTS)[EffectKind]['applied'];

/** A concrete change a call made to the world, as recorded: `kind` and what happened. */
export const AppliedEffect = z.discriminatedUnion(
  'kind',
  EFFECT_KINDS.map((k) => EFFECTS[k].applied) as [AppliedSchema, ...AppliedSchema[]],
);
export type AppliedEffect = z.infer<typeof AppliedEffect>;

/**
 * The module of a kind, its methods taking any declared or applied effect. TypeScript cannot tie
 * `EFFECTS[e.kind]` to `e`'s own member of the union; dispatching on `e.kind` does, at run time.
 */
export function effectModule(kind: EffectKind): EffectModule<EffectKind, z.ZodType<unknown>, z.ZodType<AppliedEffect>> {
  return EFFECTS[kind] as unknown as EffectModule<EffectKind, z.ZodType<unknown>, z.ZodType<AppliedEffect>>;
}

/** The kinds an entry declares: one in a valid scenario. */
export function declaredKinds(e: Partial<Record<EffectKind, unknown>>): EffectKind[] {
  return EFFECT_KINDS.filter((k) => e[k] !== undefined);
}

/** The first kind an entry declares (the only one in a valid scenario); a loop, as the sandbox asks it on every call. */
function kindOf(e: DeclaredEffect): EffectKind | undefined {
  for (const k of EFFECT_KINDS) if (e[k] !== undefined) return k;
  return undefined;
}

/** Applies a declared effect to the world; what it did (nothing when its `if:` does not hold). */
export function applyEffect(e: DeclaredEffect, world: World, ctx: TemplateContext): AppliedEffect | undefined {
  const kind = kindOf(e);
  if (kind === undefined || (e.if !== undefined && !conditionHolds(e.if, ctx))) return undefined;
  return effectModule(kind).apply(e[kind], world, ctx);
}

/** The table a declared effect writes, if it writes one (insert, update, delete). */
export function declaredTable(e: DeclaredEffect): string | undefined {
  const kind = kindOf(e);
  return kind === undefined ? undefined : effectModule(kind).table(e[kind]);
}

/** `a, b or c`, for messages that list kinds. */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** "an insert effect", "a delete effect": a kind in a message. */
export function effectNoun(kind: EffectKind): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} effect`;
}

/** Whether an applied effect changed anything (what the scores count). */
export function effectChanged(e: AppliedEffect): boolean {
  return effectModule(e.kind).changed(e);
}

/** Whether an applied effect changed the world's state, so that undoing it is due. */
export function effectChangedState(e: AppliedEffect): boolean {
  const m = effectModule(e.kind);
  return m.changedState ? m.changedState(e) : m.changed(e);
}

/** The rows and facts an applied effect added and removed. */
export function effectFootprint(e: AppliedEffect): Footprint {
  return effectModule(e.kind).footprint(e);
}

/** An applied effect in words; undefined for one that changed nothing worth a line (an update that matched no row). */
export function describeEffect(e: AppliedEffect): string | undefined {
  return effectModule(e.kind).describe(e);
}

/** An applied effect exactly, on one line, as the HTML report's call cards show it. */
export function effectReportText(e: AppliedEffect): string {
  return effectModule(e.kind).reportText(e);
}

export type { EffectModule, Footprint } from './module.ts';
