import type { Call, Observation, PlannerView } from '../../core/planner.ts';
import { completeArgs, type ArgSources } from './args.ts';
import { callKey } from '../rules/same-call.ts';
import { isAmbiguousFailure } from './history.ts';
import { reconcilersOf, reconciliationAt, sharedParameters, type Reconciliation } from './reconcile.ts';

/**
 * Where an irreversible call stands after its earlier attempts:
 * - `fresh`: never reached the sandbox; `done`: succeeded, or reconciled as applied;
 * - `retry`: it may be issued again (a reconciler said applied:false, or a
 *   definite failure with nothing to reconcile, within the retry budget);
 * - `reconcile`: a reconciling call must come first; `stop`: give up, with why.
 */
export type IrreversibleState =
  | { kind: 'fresh' }
  | { kind: 'done' }
  | { kind: 'retry' }
  | { kind: 'reconcile'; call: Call }
  | { kind: 'stop'; reason: string };

export interface RecoveryLimits {
  /** Retries of the irreversible call itself (default 1). */
  retries?: number;
  /** Attempts of the reconciling call after one failure (default 3). */
  reconcileAttempts?: number;
}

/**
 * Decides what may follow an irreversible call's attempts, from the history
 * alone. After any failure, a tool that reconciles it is asked first (its
 * args bound by name from the failed call on the parameters both declare);
 * without one, an ambiguous failure (408, >= 500) ends the attempt instead of a
 * blind retry, and a definite failure may be retried. A call a guard held
 * (`blocked`) after a failure is not sent again unchanged: it is reconciled
 * first (whatever key it carries), and stops with the guard's reason when
 * nothing reconciles it or it is held again after the verdict.
 *
 * @example
 * // send_customer_email → 504, and get_email_status reconciles it:
 * irreversibleState(src, send) // { kind: 'reconcile', call: { tool: 'get_email_status', args: { to: 'bob@acme.example' } } }
 */
export function irreversibleState(src: ArgSources, call: Call, limits: RecoveryLimits = {}): IrreversibleState {
  const { view, obs } = src;
  const retries = limits.retries ?? 1;
  const key = callKey(call);
  // Attempts that reached the sandbox: a blocked or rejected call never ran.
  const attempts = obs.flatMap((o, i) =>
    (o.status === 'ok' || o.status === 'error') && o.tool === call.tool && callKey(o) === key ? [i] : [],
  );
  const lastIndex = attempts.at(-1);
  const last = lastIndex === undefined ? undefined : obs[lastIndex];
  if (lastIndex === undefined || !last) return { kind: 'fresh' };
  if (last.status === 'ok') return { kind: 'done' };
  // The latest time a guard held this very call since its last attempt (a `blocked` observation): sent
  // again unchanged, it is held again for the same reason, so it is not repeated turn after turn.
  let heldAt: number | undefined;
  for (let i = obs.length - 1; i > lastIndex && heldAt === undefined; i--) {
    const o = obs[i];
    if (o?.status === 'blocked' && o.tool === call.tool && callKey(o) === key) heldAt = i;
  }
  const held = heldAt === undefined ? undefined : obs[heldAt];
  const failures = attempts.filter((i) => obs[i]?.status === 'error').length;
  const later = obs.map((_, i) => i).filter((i) => i > lastIndex);
  // The latest reconciling call that reported on the last attempt (its index), and whether any attempt
  // it reported on applied; asked only past the same-key shortcut below, or for a held call.
  const verdictOf = (): { at: number; applied: boolean } | undefined => {
    let found: { at: number; rec: Reconciliation } | undefined;
    for (const i of later) {
      const r = reconciliationAt(view, obs, i);
      if (r?.indices.includes(lastIndex)) found = { at: i, rec: r };
    }
    return (
      found && { at: found.at, applied: found.rec.indices.some((k) => attempts.includes(k) && found.rec.appliedAt(k)) }
    );
  };
  const settled = (v: { applied: boolean }): IrreversibleState =>
    v.applied
      ? { kind: 'done' }
      : failures <= retries
        ? { kind: 'retry' }
        : { kind: 'stop', reason: `${call.tool} failed again after reconciliation said it was not applied` };
  if (held && heldAt !== undefined) {
    // Held since its last attempt (the guard holds a repeat of an ambiguous failure until a reconciler
    // has answered, whatever key it carries): a verdict given after the hold settles it; held again
    // after one, or with no tool to reconcile it, it stops with the guard's reason.
    const verdict = verdictOf();
    if (verdict) return verdict.at > heldAt ? settled(verdict) : { kind: 'stop', reason: heldReason(call, held) };
    const next = reconcileCall(src, call, later, limits);
    return next.kind === 'none' ? { kind: 'stop', reason: heldReason(call, held) } : next;
  }
  // The same key again (when this planner's keys are stable, so the repeat carries it), or an
  // idempotent tool, is safe to repeat: the tools apply it once.
  const decl = view.tools.find((t) => t.name === call.tool);
  const keyParam = decl?.idempotency_key;
  if (
    (keyParam !== undefined && call.args[keyParam] !== undefined && src.keys === 'stable') ||
    decl?.idempotent === true
  ) {
    return failures <= retries ? { kind: 'retry' } : { kind: 'stop', reason: `${call.tool} failed ${failures} times` };
  }
  const verdict = verdictOf();
  if (verdict) return settled(verdict);
  const next = reconcileCall(src, call, later, limits);
  if (next.kind !== 'none') return next;
  if (isAmbiguousFailure(last, decl))
    return {
      kind: 'stop',
      reason: `cannot reconcile ${call.tool}: ${last.reply_lost ? 'its reply was lost in a restart' : `ambiguous failure (HTTP ${last.http_status ?? '?'})`} and no tool reconciles it`,
    };
  return failures <= retries ? { kind: 'retry' } : { kind: 'stop', reason: `${call.tool} failed ${failures} times` };
}

/** Why a call the guard held is not sent again: the guard's own reason (what the planner observed). */
const heldReason = (call: Call, held: Observation): string =>
  `held by the guard: ${call.tool} (${held.reason ?? 'no reason given'})`;

/**
 * The reconciling call to make about `call`'s last attempt (`later`: the indices of the observations
 * after it): the first reconciler (in declaration order) whose arguments can be bound from what is
 * known and that has tries left; a reason to stop when tools reconcile it but none can be called;
 * `none` when no tool reconciles it.
 */
function reconcileCall(
  src: ArgSources,
  call: Call,
  later: readonly number[],
  limits: RecoveryLimits,
): Extract<IrreversibleState, { kind: 'reconcile' | 'stop' }> | { kind: 'none' } {
  const { view, obs } = src;
  const target = view.tools.find((t) => t.name === call.tool);
  const reconcilers = reconcilersOf(view, call.tool);
  if (reconcilers.length === 0 || !target) return { kind: 'none' };
  let why = '';
  for (const reconciler of reconcilers) {
    const shared: Record<string, unknown> = {};
    for (const p of sharedParameters(reconciler, target)) if (call.args[p] !== undefined) shared[p] = call.args[p];
    const done = completeArgs(reconciler, shared, src);
    if (done.unbound.length > 0) {
      why ||= `${reconciler.name} needs ${done.unbound.join(', ')}`;
      continue;
    }
    const tries = later.filter((i) => obs[i]?.tool === reconciler.name).length;
    if (tries >= (limits.reconcileAttempts ?? 3)) {
      why ||= `${reconciler.name} gave no verdict after ${tries} calls`;
      continue;
    }
    return { kind: 'reconcile', call: { tool: reconciler.name, args: done.args } };
  }
  return { kind: 'stop', reason: `cannot reconcile ${call.tool}: ${why}` };
}

/**
 * The calls to settle before going on, once each, in order of their first failure: irreversible
 * calls that failed, and compensable ones whose outcome is unknown (an ambiguous failure, or a reply
 * a restart lost) when a tool can reconcile them: repeating those blindly could apply them twice.
 * (A compensable call nothing reconciles may be repeated: its double can be compensated.)
 */
export function failedIrreversibleCalls(view: PlannerView, src: ArgSources): Call[] {
  const seen = new Set<string>();
  const out: Call[] = [];
  for (const o of src.obs) {
    const tool = view.tools.find((t) => t.name === o.tool);
    if (o.status !== 'error') continue;
    const settle =
      tool?.class === 'compensable' &&
      !tool.read_only &&
      isAmbiguousFailure(o, tool) &&
      reconcilersOf(view, o.tool).length > 0;
    if (tool?.class !== 'irreversible' && !settle) continue;
    const key = callKey(o);
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ tool: o.tool, args: o.args });
    }
  }
  return out;
}
