/**
 * Duplicate effects: an irreversible or compensable effect applied twice for what
 * the task needed once. Two effects are "the same effect" when they come from the
 * same tool with the same arguments, or the same values of the tool's declared
 * `dedupe_on` parameters; an idempotency key is not part of the identity (a
 * repeat with a NEW key is a new, duplicate effect; one with the same key is
 * served from the key and applies nothing). Effects a later call in the run
 * compensated no longer stand and are not counted. Scoring and recover's
 * checklist both use this.
 */
import type { CallEvent } from '../../core/record.ts';
import { DANGLING_CLASSES, type EffectLedger } from './effects.ts';
import { callKey } from './same-call.ts';

/** What the rule needs of a tool declaration. */
export interface DedupeTool {
  idempotency_key?: string;
  dedupe_on?: readonly string[];
}

/** The identity of a call's effect, for "the same effect": "the same call" on the arguments that identify it. */
function effectIdentity(c: Pick<CallEvent, 'tool' | 'args'>, tool: DedupeTool | undefined): string {
  let args: Record<string, unknown>;
  if (tool?.dedupe_on) args = Object.fromEntries(tool.dedupe_on.map((p) => [p, c.args[p]]));
  else {
    args = { ...c.args };
    if (tool?.idempotency_key !== undefined) delete args[tool.idempotency_key];
  }
  return callKey({ tool: c.tool, args });
}

/**
 * The duplicate effects of a run: each standing irreversible or compensable effect after the
 * first of its identity, mapped to the step of that first one. `ledger.effects` is in batch order.
 *
 * @example
 * duplicateEffects(calls, ledger, tools) // Map { 7 => 3 }: step 7 repeated the payout of step 3
 */
export function duplicateEffects(
  calls: readonly Pick<CallEvent, 'step' | 'tool' | 'args' | 'class'>[],
  ledger: EffectLedger,
  tools: ReadonlyMap<string, DedupeTool>,
): Map<number, number> {
  const byStep = new Map(calls.map((c) => [c.step, c]));
  const firstOf = new Map<string, number>();
  const out = new Map<number, number>();
  for (const step of ledger.effects) {
    const c = byStep.get(step);
    if (!c || !ledger.open.has(step) || !DANGLING_CLASSES.has(c.class)) continue;
    const id = effectIdentity(c, tools.get(c.tool));
    const first = firstOf.get(id);
    if (first === undefined) firstOf.set(id, step);
    else out.set(step, first);
  }
  return out;
}
