import type { Call, PlannerView, ToolView } from '../../core/planner.ts';
import { confirmationKey } from '../rules/same-call.ts';
import { approvalVerdict, asRecord, toolNamed } from './history.ts';

/**
 * The human's yes to a concrete call, as the built-in planners see it. A tool with
 * `requires_confirmation` needs an unconsumed yes to *this* call (the scenario's `kind:
 * confirmation` tool asks for it with `{tool, args}`); one yes licenses one later call with
 * matching arguments ("the same call", `confirmationKey`), which consumes it whatever it comes to.
 * A yes in the same batch licenses none of it. The planner replays this from its own history, as
 * the sandbox and the guard keep it from the replies they saw.
 */

/** The tool that asks the human to confirm a call: the first `kind: confirmation` tool the view declares. */
export function confirmationTool(view: PlannerView): ToolView | undefined {
  return view.tools.find((t) => t.kind === 'confirmation');
}

/** The confirmation key of the call a confirmation call asks about (its `tool` and `args` arguments). */
export function askedAbout(view: PlannerView, args: Record<string, unknown>): string {
  const target = typeof args.tool === 'string' ? args.tool : '';
  return confirmationKey({ tool: target, args: asRecord(args.args) ?? {} }, toolNamed(view, target));
}

/**
 * The yeses the run's history has not consumed yet, by confirmation key: each approved reply of a
 * confirmation tool adds one after its batch; each call of a tool that requires confirmation that
 * reached the tools (a reply or a failure; not a block or a rejection) takes one if there is one.
 * A confirmation whose reply was lost counts as no yes (asking again costs one call; acting on a
 * yes nobody saw would be premature).
 *
 * @example
 * // history: [confirm {tool: cancel, args: {id: 1}} → approved], then [cancel {id: 1}]
 * unconsumedConfirmations(view).size // 0
 */
export function unconsumedConfirmations(view: PlannerView): Map<string, number> {
  const left = new Map<string, number>();
  for (const h of view.history) {
    // Every call of a batch is checked before any of it runs: a yes given in it licenses none of it.
    for (const o of h.observations) {
      if (o.status === 'blocked' || o.status === 'rejected') continue;
      const tool = toolNamed(view, o.tool);
      if (!tool?.requires_confirmation) continue;
      const key = confirmationKey(o, tool);
      const n = left.get(key) ?? 0;
      if (n > 1) left.set(key, n - 1);
      else left.delete(key);
    }
    for (const o of h.observations) {
      if (toolNamed(view, o.tool)?.kind !== 'confirmation' || approvalVerdict(o) !== true) continue;
      const key = askedAbout(view, o.args);
      left.set(key, (left.get(key) ?? 0) + 1);
    }
  }
  return left;
}

/**
 * The call that asks the human to confirm `call`, when `call` needs a yes that no unconsumed one
 * gives (`licenses` is what `unconsumedConfirmations` returned; a yes this returns as used is taken
 * from it, so one yes serves one planned call). Undefined when the call needs none or has one.
 *
 * @example
 * confirmationFor(view, { tool: 'cancel', args: { id: 1 } }, licenses) // { tool: 'confirm', args: { tool: 'cancel', args: { id: 1 } } }
 */
export function confirmationFor(view: PlannerView, call: Call, licenses: Map<string, number>): Call | undefined {
  const tool = toolNamed(view, call.tool);
  if (!tool?.requires_confirmation) return undefined;
  const key = confirmationKey(call, tool);
  const n = licenses.get(key) ?? 0;
  if (n > 0) {
    licenses.set(key, n - 1);
    return undefined;
  }
  const asker = confirmationTool(view);
  // The loader refuses a tool that requires confirmation when no tool asks for one; a view without one
  // (a hand-built one) leaves the call as it is: the runner scores it premature.
  return asker ? { tool: asker.name, args: { tool: call.tool, args: call.args } } : undefined;
}
