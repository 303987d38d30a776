/**
 * Reconciliation: which earlier call a reconciling tool reports on. One rule for
 * the sandbox (which answers the reconciler), the planners (which read the
 * answer) and, through the record, scoring and the guard.
 *
 * A tool with `reconciles: [T]` reports on the most recent call of a tool in T,
 * issued in a batch before its own, whose arguments agree with the reconciler's
 * on every parameter both tools declare and the reconciler was given (values
 * compared as text, as facts compare them: 1200 and "1200" agree). With no
 * such parameter, it reports on the most recent call of T.
 */
import { stableJson } from '../util/json.ts';

/** What the rule needs of a tool declaration. */
export interface ReconcileTool {
  name: string;
  reconciles: readonly string[];
  /** The declared parameter names. */
  parameters: readonly string[];
}

/** An earlier call that may be reported on. */
export interface EarlierCall {
  tool: string;
  args: Record<string, unknown>;
}

/** A value as text, the way fact values compare: strings as they are, anything else as key-order-free JSON. */
export function valueText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : stableJson(v);
}

/** The parameter names two tools both declare, in the first tool's order. */
export function sharedParameters(a: Pick<ReconcileTool, 'parameters'>, b: Pick<ReconcileTool, 'parameters'>): string[] {
  const theirs = new Set(b.parameters);
  return a.parameters.filter((p) => theirs.has(p));
}

/** Whether a reconciler called with `reconcilerArgs` reports on a call of `target` with `targetArgs` (arguments only; recency aside). */
export function reportsOn(
  reconciler: ReconcileTool,
  reconcilerArgs: Record<string, unknown>,
  target: Pick<ReconcileTool, 'name' | 'parameters'>,
  targetArgs: Record<string, unknown>,
): boolean {
  if (!reconciler.reconciles.includes(target.name)) return false;
  return sharedParameters(reconciler, target).every((p) => {
    const given = valueText(reconcilerArgs[p]);
    return given === undefined || given === valueText(targetArgs[p]);
  });
}

/**
 * The index in `earlier` (oldest first; calls that reached the tools, in batches before the
 * reconciler's own) of the call the reconciler reports on, or -1.
 *
 * @example
 * reconciledIndex(getStatus, { to: 'a' }, [{ tool: 'send', args: { to: 'a' } }, { tool: 'send', args: { to: 'b' } }], tools) // 0
 */
export function reconciledIndex(
  reconciler: ReconcileTool,
  reconcilerArgs: Record<string, unknown>,
  earlier: readonly EarlierCall[],
  toolNamed: (name: string) => Pick<ReconcileTool, 'name' | 'parameters'> | undefined,
): number {
  if (reconciler.reconciles.length === 0) return -1;
  for (let i = earlier.length - 1; i >= 0; i--) {
    const c = earlier[i] as EarlierCall;
    const target = toolNamed(c.tool);
    if (target && reportsOn(reconciler, reconcilerArgs, target, c.args)) return i;
  }
  return -1;
}

/** For each tool, the tools that reconcile it (declaration order). */
export function reconcilersByTarget(tools: readonly Pick<ReconcileTool, 'name' | 'reconciles'>[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of tools) for (const target of t.reconciles) out.set(target, [...(out.get(target) ?? []), t.name]);
  return out;
}
