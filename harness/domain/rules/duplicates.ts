/**
 * Duplicate effects: an irreversible or compensable effect applied twice for what
 * the task needed once. Two effects are "the same effect" when they come from the
 * same call (same-call.ts `callIdentity`, the identity unreconciled retries use
 * too): the same tool with the same arguments, or the same values of the tool's
 * declared `dedupe_on` parameters; an idempotency key is not part of it (a
 * repeat with a NEW key is a new, duplicate effect; one with the same key is
 * served from the key and applies nothing). Effects a later call in the run
 * compensated no longer stand and are not counted. Scoring and recover's
 * checklist both use this.
 */
import type { CallEvent } from '../../core/record.ts';
import { DANGLING_CLASSES, danglingSteps, type EffectLedger } from './effects.ts';
import { callIdentity, type IdentityTool } from './same-call.ts';

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
  tools: ReadonlyMap<string, IdentityTool>,
): Map<number, number> {
  const byStep = new Map(calls.map((c) => [c.step, c]));
  const firstOf = new Map<string, number>();
  const out = new Map<number, number>();
  for (const step of ledger.effects) {
    const c = byStep.get(step);
    if (!c || !ledger.open.has(step) || !DANGLING_CLASSES.has(c.class)) continue;
    const id = callIdentity(c, tools.get(c.tool));
    const first = firstOf.get(id);
    if (first === undefined) firstOf.set(id, step);
    else out.set(step, first);
  }
  return out;
}

/**
 * The effects left open for recovery (recover's open items): the dangling effects of a run that did
 * not complete (its duplicates among them), and the duplicate effects of a run that did (the task
 * needed each once: the first is what it asked for, the repeat is what to reverse). Null
 * `completed` (no run_end: an interrupted run) counts as not completed. So the number of open items
 * is `dangling_effects` for an incomplete run and `duplicate_effects` for a completed one.
 *
 * @example
 * openEffects(calls, true, ledger, tools) // Set { 7 }: a completed run that paid twice; step 7 is the second payout
 */
export function openEffects(
  calls: readonly Parameters<typeof danglingSteps>[0][number][],
  completed: boolean | null,
  ledger: EffectLedger,
  tools: ReadonlyMap<string, IdentityTool>,
): Set<number> {
  if (completed !== true) return danglingSteps(calls, false, ledger);
  return new Set(duplicateEffects(calls, ledger, tools).keys());
}
