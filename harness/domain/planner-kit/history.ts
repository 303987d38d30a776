import type { Call, Observation, PlannerView, ToolView } from '../../core/planner.ts';
import { callKey } from '../rules/same-call.ts';

/**
 * Every observation of the run so far, oldest first (batches in order, calls in
 * their batch order).
 *
 * @example
 * observations(view).filter((o) => o.status === 'error')
 */
export function observations(view: PlannerView): Observation[] {
  return view.history.flatMap((h) => h.observations);
}

/** The tool declaration with this name, if the view declares it. */
export function toolNamed(view: PlannerView, name: string): ToolView | undefined {
  return view.tools.find((t) => t.name === name);
}

/** The observations of exactly this call (same tool, deep-equal args), oldest first. */
export function attemptsOf(obs: readonly Observation[], call: Call): Observation[] {
  const key = callKey(call);
  return obs.filter((o) => o.tool === call.tool && callKey(o) === key);
}

/** A result as a plain object, or undefined when it is not one. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Whether a failure leaves the caller unable to tell if the effect happened:
 * HTTP 408 or >= 500. A failure without a status is treated as ambiguous, since
 * nothing says the effect did not happen.
 */
export function isAmbiguousFailure(o: Observation): boolean {
  if (o.status !== 'error') return false;
  if (o.reply_lost) return true;
  const s = o.http_status;
  return s === undefined || s === 408 || s >= 500;
}

/** The approval verdict of an approval tool's observation: true, false, or undefined when it did not reply. */
export function approvalVerdict(o: Observation): boolean | undefined {
  if (o.status !== 'ok') return undefined;
  return asRecord(o.result)?.approved === true;
}
