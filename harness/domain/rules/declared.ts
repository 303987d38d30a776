/**
 * What a tool's declaration says of one call, in some world: which of its
 * preconditions hold, what it declares it establishes, the effects it has once
 * it applied, and its compensation. One home for the sandbox, which judges a
 * call against its ground truth, and for `oneway guard`, which judges it
 * against the facts it observed (harness/features/guard-proxy/).
 *
 * @example
 * const { held, missing } = preconditionsIn(sendEmail, { args: { to: 'bob@acme.example' } }, world);
 */
import { formatPattern } from '../../core/facts/fact.ts';
import { renderFactText, renderPattern } from '../../core/facts/template.ts';
import { applyEffect } from '../../core/effects/index.ts';
import type { AppliedEffect, Compensation } from '../../core/record.ts';
import type { Tool, ToolClass } from '../../core/scenario.ts';
import { renderValue, type TemplateContext } from '../../core/templates/render.ts';
import type { World } from '../../core/world.ts';

/**
 * The call's preconditions rendered, split by whether they hold in `world`. Only a `*` the
 * declaration wrote is a wildcard; one that arrived in an argument is literal text. A precondition
 * over an argument the call did not give cannot be checked, so it does not hold.
 */
export function preconditionsIn(
  tool: Pick<Tool, 'preconditions'>,
  ctx: TemplateContext,
  world: Pick<World, 'holds'>,
): { held: string[]; missing: string[] } {
  const held: string[] = [];
  const missing: string[] = [];
  for (const p of tool.preconditions) {
    const { fact, written, missing: unbound } = renderPattern(p, ctx);
    (unbound.size === 0 && world.holds(fact, { wildcardKeys: written }) ? held : missing).push(
      formatPattern(fact, written),
    );
  }
  return { held, missing };
}

/** What a call declares it establishes before its reply is known (a result or id is unknown: a bare `*`). */
export function declaredEstablishes(tool: Pick<Tool, 'effects'>, ctx: TemplateContext): string[] {
  const out: string[] = [];
  for (const e of tool.effects) if (e.establish !== undefined) out.push(renderFactText(e.establish, ctx, 'wildcard'));
  return out;
}

/** Applies a call's declared effects to `world`, in order: the concrete changes they made. */
export function applyDeclaredEffects(tool: Pick<Tool, 'effects'>, world: World, ctx: TemplateContext): AppliedEffect[] {
  const out: AppliedEffect[] = [];
  for (const e of tool.effects) {
    const applied = applyEffect(e, world, ctx);
    if (applied) out.push(applied);
  }
  return out;
}

/**
 * The compensation of a call that took effect, its arguments rendered from the call and its reply;
 * none for an irreversible or read-only tool, or one that declares no compensating operation. It
 * needs approval when the declaration says so, and always for a compensable tool by default.
 */
export function compensationOf(
  tool: Pick<Tool, 'read_only' | 'compensating_operation' | 'compensation_args' | 'compensation_requires_approval'>,
  cls: ToolClass,
  ctx: TemplateContext,
): Compensation | null {
  if (cls === 'irreversible' || tool.read_only || !tool.compensating_operation) return null;
  return {
    operation: tool.compensating_operation,
    args: renderValue(tool.compensation_args ?? {}, ctx) as Record<string, unknown>,
    requires_approval: tool.compensation_requires_approval ?? cls === 'compensable',
  };
}
