/**
 * Reconciliation: which earlier call a reconciling tool reports on. One rule for
 * the sandbox (which answers the reconciler), the planners (which read the
 * answer) and, through the record, scoring and the guard.
 *
 * A tool with `reconciles: [T]` reports on every call of a tool in T, issued in
 * a batch before its own, whose arguments agree with the reconciler's on every
 * parameter both tools declare and the reconciler was given (values compared as
 * text, as facts compare them: 1200 and "1200" agree); with no such parameter,
 * on every call of T. Its reply says which of them applied (`applied`: whether
 * any did; `reported`: each call's step and whether it applied), and it closes
 * all of them. A reconciler reports only when its own reply reached the caller
 * (`reportedBy`): one that failed, or whose reply a restart lost, reported nothing.
 *
 * Reading the state that shows an effect reconciles it too: a read-only tool
 * with `reads: [table]` reports, by the same rule, on calls of every tool whose
 * effects write one of those tables (its reply carries the table's rows that
 * agree with its arguments, see `shownRows`). `reportedTools` is the whole list
 * a tool reports on; every user asks it rather than reading `reconciles`.
 */
import { declaredTable, expandedEffects, type DeclaredEffect } from '../../core/effects/index.ts';
import type { Reconciled } from '../../core/record.ts';
import { reconcileTarget, type ReconcileEntry } from '../../core/scenario.ts';
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
  /** Tool names, or `{ tool, applied }` entries (core/scenario.ts `ReconcileEntry`). */
  reconciles: readonly ReconcileEntry[];
  reads?: readonly string[];
  effects: readonly DeclaredEffect[];
}

/** The tables a tool's effects write (each effect kind says whether it writes one), in declaration order, once each. */
export function tablesWritten(tool: Pick<ReportingDeclaration, 'effects'>): string[] {
  const out: string[] = [];
  for (const e of expandedEffects(tool.effects)) {
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
  const out = tool.reconciles.map(reconcileTarget);
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
 * The indices in `earlier` (oldest first; calls that reached the tools, in batches before the
 * reconciler's own) of every call the reconciler reports on: all of them, whatever their batch,
 * oldest first. There is no tie rule and no "most recent": a status tool asked after two ambiguous
 * tries reports on both, and says "applied" when either did.
 *
 * @example
 * reconciledIndices(getStatus, { to: 'a' }, [{ tool: 'send', args: { to: 'a' } }, { tool: 'send', args: { to: 'b' } }, { tool: 'send', args: { to: 'a' } }], tools) // [0, 2]
 */
export function reconciledIndices(
  reconciler: ReconcileTool,
  reconcilerArgs: Record<string, unknown>,
  earlier: readonly EarlierCall[],
  toolNamed: (name: string) => Pick<ReconcileTool, 'name' | 'parameters'> | undefined,
): number[] {
  const out: number[] = [];
  if (reconciler.reconciles.length === 0) return out;
  earlier.forEach((c, i) => {
    const target = toolNamed(c.tool);
    if (target && reportsOn(reconciler, reconcilerArgs, target, c.args)) out.push(i);
  });
  return out;
}

/**
 * The calls a reconciling call reported on, as the caller learnt them: none unless its reply
 * reached the caller (an ok reply, not lost in a restart); else every call its record names.
 * Scoring, the guard and recover's checklist all ask this.
 *
 * @example
 * reportedBy({ status: 'ok', reconciled: { tool: 'pay', step: 4, applied: true, calls: [...] } }) // [{ tool: 'pay', step: 2, applied: false }, { tool: 'pay', step: 4, applied: true }]
 * reportedBy({ status: 'ok', reply_lost: true, reconciled: ... }) // []
 */
export function reportedBy(c: {
  status: string;
  reply_lost?: boolean | undefined;
  reconciled?: Reconciled | null | undefined;
}): { tool: string; step: number; applied: boolean }[] {
  if (c.status !== 'ok' || c.reply_lost === true || !c.reconciled) return [];
  return c.reconciled.calls ?? [{ tool: c.reconciled.tool, step: c.reconciled.step, applied: c.reconciled.applied }];
}

/** For each tool, the tools that reconcile it (declaration order). */
export function reconcilersByTarget(
  tools: readonly Pick<ReconcileTool, 'name' | 'reconciles'>[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of tools) for (const target of t.reconciles) out.set(target, [...(out.get(target) ?? []), t.name]);
  return out;
}
