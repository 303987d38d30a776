import type { Observation, PlannerView, ToolView } from '../planner/types.ts';
import { sameValue } from './call-key.ts';
import { asRecord, toolNamed } from './history.ts';

/** The parameter names two tools both declare, in the first tool's order. */
export function sharedParameters(a: ToolView, b: ToolView): string[] {
  return Object.keys(a.parameters.properties).filter((p) => p in b.parameters.properties);
}

/** The reconciling tools for `tool`, in declaration order. */
export function reconcilersOf(view: PlannerView, tool: string): ToolView[] {
  return view.tools.filter((t) => t.reconciles.includes(tool));
}

/** Whether a reconciling call with `reconcilerArgs` reports on a call of `target` with `targetArgs`. */
export function reportsOn(
  reconciler: ToolView,
  reconcilerArgs: Record<string, unknown>,
  target: ToolView,
  targetArgs: Record<string, unknown>,
): boolean {
  // The sandbox matches on the parameters both tools share; with none shared it reports on the last call.
  return sharedParameters(reconciler, target).every((p) => sameValue(reconcilerArgs[p], targetArgs[p]));
}

export interface Reconciliation {
  /** Index (in `obs`) of the call reported on. */
  index: number;
  call: Observation;
  applied: boolean;
}

/**
 * What an ok observation of a reconciling tool says, mirroring the sandbox: the
 * most recent earlier call of a reconciled tool whose arguments match on the
 * shared parameters, and whether its effect was applied.
 *
 * @example
 * // obs: [send_customer_email(to=a) → 504, get_email_status(to=a) → {applied: true}]
 * reconciliationAt(view, obs, 1) // { index: 0, call: obs[0], applied: true }
 */
export function reconciliationAt(view: PlannerView, obs: readonly Observation[], at: number): Reconciliation | undefined {
  const o = obs[at];
  if (!o || o.status !== 'ok') return undefined;
  const reconciler = toolNamed(view, o.tool);
  const applied = asRecord(o.result)?.applied;
  if (!reconciler || reconciler.reconciles.length === 0 || typeof applied !== 'boolean') return undefined;
  for (let i = at - 1; i >= 0; i--) {
    const c = obs[i];
    // A blocked call never reached the sandbox, so the reconciler cannot be reporting on it.
    if (!c || c.status === 'blocked' || !reconciler.reconciles.includes(c.tool)) continue;
    const target = toolNamed(view, c.tool);
    if (target && reportsOn(reconciler, o.args, target, c.args)) return { index: i, call: c, applied };
  }
  return undefined;
}
