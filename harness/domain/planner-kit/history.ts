import type { Call, Observation, PlannerView, ToolView } from '../../core/planner.ts';
import { callKey } from '../rules/same-call.ts';
import { isAmbiguousFailure as ambiguousFailure } from '../rules/failures.ts';

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
 * Whether a failure leaves the caller unable to tell if the effect happened, by the one rule the
 * sandbox and the guard use (domain/rules/failures.ts): ambiguous unless known definite (a 4xx other
 * than 408, 409, 425 and 429, or an error text the tool declares definite). A failure without a
 * status, and a reply a restart lost, are ambiguous: nothing says the effect did not happen.
 */
export function isAmbiguousFailure(o: Observation, tool?: Pick<ToolView, 'definite_failures'>): boolean {
  if (o.status !== 'error') return false;
  if (o.reply_lost) return true;
  const text = o.error ?? '';
  return ambiguousFailure(
    o.http_status === undefined ? { kind: 'no_reply', text } : { kind: 'reply', http_status: o.http_status, text },
    tool?.definite_failures,
  );
}

/** The approval verdict of an approval tool's observation: true, false, or undefined when it did not reply. */
export function approvalVerdict(o: Observation): boolean | undefined {
  if (o.status !== 'ok') return undefined;
  return asRecord(o.result)?.approved === true;
}
