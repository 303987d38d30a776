/**
 * An example planner to copy: "verify first, then act, one call at a time".
 *
 * Run it:   npm run eval -- --planner=./examples/planners/verify-first.ts
 * With an option:  --planner-opt=max_retries=2
 *
 * A planner sees a *view* (the task, the tools with their class and
 * preconditions, the facts the task states, and the history of what its calls
 * returned) and returns a *decision*: one call, a parallel batch, or finish.
 * It never sees the world's ground truth: after a timeout it does not know
 * whether the email went out. That is the point.
 */
import type { Decision, Planner, PlannerContext, PlannerFactory, PlannerView, ToolView } from 'oneway';

/** Tools whose calls only look or ask (read-only or approval): safe to call first. */
const isSafe = (t: ToolView) => t.read_only || t.kind === 'approval' || t.class === 'reversible';

/** Fills a tool's required parameters from the scenario inputs of the same name. */
function argsFor(tool: ToolView, view: PlannerView): Record<string, unknown> | null {
  const args: Record<string, unknown> = {};
  for (const p of tool.parameters.required) {
    if (p === 'action')
      args[p] = tool.name; // approval tools take the action they approve
    else if (p in view.inputs) args[p] = view.inputs[p];
    else return null; // cannot bind: skip this tool
  }
  return args;
}

function called(view: PlannerView, tool: string): number {
  return view.history.flatMap((h) => h.observations).filter((o) => o.tool === tool && o.status === 'ok').length;
}

function create(ctx: PlannerContext): Planner {
  const maxRetries = Number(ctx.options.max_retries ?? 1);
  return {
    name: 'verify-first',
    next(view: PlannerView): Decision {
      // Reversible and read-only tools first, each once; then the rest, each once; then finish.
      const ordered = [...view.tools.filter(isSafe), ...view.tools.filter((t) => !isSafe(t))];
      for (const tool of ordered) {
        if (called(view, tool.name) > 0) continue;
        const failures = view.history
          .flatMap((h) => h.observations)
          .filter((o) => o.tool === tool.name && o.status !== 'ok').length;
        if (failures > maxRetries) continue;
        const args = argsFor(tool, view);
        if (args) return { type: 'call', call: { tool: tool.name, args } };
      }
      return { type: 'finish', reason: 'every tool I can bind was called' };
    },
  };
}

const factory: PlannerFactory = { name: 'verify-first', description: 'Safe tools first, one call at a time.', create };
export default factory;
