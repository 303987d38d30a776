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
 *
 * Reading the state that shows an effect reconciles it too: a read-only tool
 * with `reads: [table]` reports, by the same rule, on calls of every tool whose
 * effects write one of those tables (its reply carries the table's rows that
 * agree with its arguments, see `shownRows`). `reportedTools` is the whole list
 * a tool reports on; every user asks it rather than reading `reconciles`.
 */
import { declaredTable, type DeclaredEffect } from '../../core/effects/index.ts';
import { stableJson } from '../../util/json.ts';

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

/** What `reportedTools` needs of a declaration: what it reconciles and reads, and the tables its effects write. */
export interface ReportingDeclaration {
  name: string;
  reconciles: readonly string[];
  reads?: readonly string[];
  effects: readonly DeclaredEffect[];
}

/** The tables a tool's effects write (each effect kind says whether it writes one), in declaration order, once each. */
export function tablesWritten(tool: Pick<ReportingDeclaration, 'effects'>): string[] {
  const out: string[] = [];
  for (const e of tool.effects) {
    const table = declaredTable(e);
    if (table !== undefined && !out.includes(table)) out.push(table);
  }
  return out;
}

/**
 * The tools a tool reports on: those it declares it `reconciles`, then every other tool whose
 * effects write a table it `reads` (declaration order), once each.
 *
 * @example
 * // list_payouts reads [payouts]; send_payout inserts into payouts
 * reportedTools(listPayouts, tools) // ['send_payout']
 */
export function reportedTools(tool: ReportingDeclaration, tools: readonly ReportingDeclaration[]): string[] {
  const out = [...tool.reconciles];
  const reads = tool.reads ?? [];
  if (reads.length === 0) return out;
  for (const t of tools) {
    if (t.name === tool.name || out.includes(t.name)) continue;
    if (tablesWritten(t).some((table) => reads.includes(table))) out.push(t.name);
  }
  return out;
}

/**
 * The rows of a table a reading call shows: those that agree, as text, with every argument the row
 * has a column for (an argument that names no column of a row filters nothing).
 */
export function shownRows<R extends Record<string, unknown>>(rows: readonly R[], args: Record<string, unknown>): R[] {
  const given = Object.entries(args).filter(([, v]) => v !== undefined);
  return rows.filter((row) => given.every(([k, v]) => !Object.hasOwn(row, k) || valueText(row[k]) === valueText(v)));
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
export function reconcilersByTarget(
  tools: readonly Pick<ReconcileTool, 'name' | 'reconciles'>[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of tools) for (const target of t.reconciles) out.set(target, [...(out.get(target) ?? []), t.name]);
  return out;
}
