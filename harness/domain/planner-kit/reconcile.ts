import type { Observation, PlannerView, ToolView } from '../../core/planner.ts';
import { reconciledIndices, sharedParameters as sharedRule } from '../rules/reconcile.ts';
import { asRecord, toolNamed } from './history.ts';

/** A tool as the reconciliation rule (harness/domain/rules/reconcile.ts) needs it. */
const ruleTool = (t: ToolView) => ({
  name: t.name,
  reconciles: t.reconciles,
  parameters: Object.keys(t.parameters.properties),
});

/** The parameter names two tools both declare, in the first tool's order. */
export function sharedParameters(a: ToolView, b: ToolView): string[] {
  return sharedRule(ruleTool(a), ruleTool(b));
}

/** The reconciling tools for `tool`, in declaration order. */
export function reconcilersOf(view: PlannerView, tool: string): ToolView[] {
  return view.tools.filter((t) => t.reconciles.includes(tool));
}

export interface Reconciliation {
  /** Indices (in `obs`) of every call reported on, oldest first. */
  indices: number[];
  /** Whether any of them applied (the reply's `applied`). */
  applied: boolean;
  /** Whether the call at an index applied, as the reply says (its `reported` list; else the overall `applied`). */
  appliedAt(index: number): boolean;
}

const batchesOf = new WeakMap<PlannerView, number[]>();

/** The batch of each observation of `observations(view)`, in the same order (cached per view). */
function observationBatches(view: PlannerView): number[] {
  let out = batchesOf.get(view);
  if (!out) {
    out = view.history.flatMap((h) => h.observations.map(() => h.batch));
    batchesOf.set(view, out);
  }
  return out;
}

/** The reply's `reported` list: each call's step and whether it applied. */
function reportedSteps(result: unknown): Map<number, boolean> | undefined {
  const list = asRecord(result)?.reported;
  if (!Array.isArray(list)) return undefined;
  const out = new Map<number, boolean>();
  for (const r of list) {
    const e = asRecord(r);
    if (typeof e?.step === 'number' && typeof e.applied === 'boolean') out.set(e.step, e.applied);
  }
  return out;
}

/**
 * What an ok observation of a reconciling tool says, by the sandbox's own rule
 * (harness/domain/rules/reconcile.ts): every call, in an earlier batch, of a
 * reconciled tool whose arguments agree on the shared parameters, and which of
 * them applied.
 *
 * @example
 * // obs: [send_customer_email(to=a) → 504, get_email_status(to=a) → {applied: true}]
 * reconciliationAt(view, obs, 1) // { indices: [0], applied: true, appliedAt: (0) => true }
 */
export function reconciliationAt(
  view: PlannerView,
  obs: readonly Observation[],
  at: number,
): Reconciliation | undefined {
  const o = obs[at];
  if (!o || o.status !== 'ok') return undefined;
  const reconciler = toolNamed(view, o.tool);
  const applied = asRecord(o.result)?.applied;
  if (!reconciler || reconciler.reconciles.length === 0 || typeof applied !== 'boolean') return undefined;
  // `obs` is the view's observations (history flattened); their batches say which calls came before.
  const all = observationBatches(view);
  const batches = all.length === obs.length ? all : undefined;
  const own = batches?.[at];
  // Calls that reached the sandbox (ok or failed), in batches before the reconciler's own.
  const earlier: { i: number; tool: string; args: Record<string, unknown> }[] = [];
  for (let i = 0; i < at; i++) {
    const c = obs[i];
    if (!c || (c.status !== 'ok' && c.status !== 'error')) continue;
    if (own !== undefined && (batches?.[i] ?? own) >= own) continue;
    earlier.push({ i, tool: c.tool, args: c.args });
  }
  const hits = reconciledIndices(ruleTool(reconciler), o.args, earlier, (n) => {
    const t = toolNamed(view, n);
    return t ? ruleTool(t) : undefined;
  });
  if (hits.length === 0) return undefined;
  const indices = hits.map((k) => (earlier[k] as { i: number }).i);
  const perStep = reportedSteps(o.result);
  return {
    indices,
    applied,
    appliedAt: (index) => {
      const step = obs[index]?.step;
      return (step !== undefined ? perStep?.get(step) : undefined) ?? applied;
    },
  };
}
