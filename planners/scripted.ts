/**
 * scripted: replays a plan (`--plan=FILE`, else the scenario's
 * `reference_plan`), one item per turn, whatever the observations say. Used for
 * reference runs, regression tests and replaying shrunk fuzzing failures.
 */
import { UsageError } from '../harness/core/errors.ts';
import type { Call, Decision, PlannerFactory, PlannerView } from '../harness/core/planner.ts';
import { finish, issue } from '../harness/domain/planner-kit/decision.ts';
import { asRecord } from '../harness/domain/planner-kit/history.ts';
import type { PlanItem } from '../harness/core/scenario.ts';
import { renderValue, type TemplateContext } from '../harness/core/templates/render.ts';

/** The most recent successful result of each tool so far, for `{{results.TOOL.path}}`. */
export function latestResults(view: PlannerView): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const h of view.history) for (const o of h.observations) if (o.status === 'ok') out[o.tool] = o.result;
  return out;
}

/**
 * The calls of one plan item with `{{inputs.x}}` and `{{results.TOOL.path}}`
 * rendered; a template that names nothing known is kept as written, so the
 * record shows what the plan expected.
 *
 * @example
 * planCalls({ void_invoice: { invoice_id: '{{results.create_invoice.id}}' } }, view)
 * // [{ tool: 'void_invoice', args: { invoice_id: 'inv_1' } }]
 */
export function planCalls(item: Record<string, Record<string, unknown> | null>, view: PlannerView): Call[] {
  const ctx: TemplateContext & { results: Record<string, unknown> } = {
    inputs: view.inputs,
    deployment: view.deployment,
    results: latestResults(view),
  };
  return Object.entries(item).map(([tool, args]) => ({
    tool,
    args: asRecord(renderValue(args ?? {}, ctx, 'keep')) ?? {},
  }));
}

/**
 * The decision for this turn: plan item number `view.turn` (1-based); past the
 * end, finish. A `{parallel: [...]}` item is a batch (even of one call).
 *
 * @example
 * scriptedDecision([{ verify_recipient: { email: '{{inputs.email}}' } }, 'finish'], view) // turn 1: a call, turn 2: finish
 */
export function scriptedDecision(plan: readonly PlanItem[], view: PlannerView): Decision {
  const item = plan[view.turn - 1];
  if (item === undefined) return finish('end of plan');
  if (item === 'finish') return finish('plan says finish');
  if (Array.isArray(item.parallel)) {
    const calls = (item.parallel as Record<string, Record<string, unknown> | null>[]).flatMap((c) =>
      planCalls(c, view),
    );
    return { type: 'batch', calls };
  }
  return issue(planCalls(item as Record<string, Record<string, unknown> | null>, view), 'empty plan item');
}

const scripted: PlannerFactory = {
  name: 'scripted',
  cpuBound: true,
  description: "Replays a plan (--plan=FILE, else the scenario's reference_plan), one item per turn.",
  create(ctx) {
    const plan = ctx.plan;
    if (!plan)
      throw new UsageError(
        `scripted: no plan for scenario "${ctx.scenario}"`,
        'pass --plan=FILE, or add a reference_plan to the scenario',
      );
    return { name: 'scripted', next: (view) => scriptedDecision(plan, view) };
  },
  // A plan is a durable workflow: after a restart it goes on with the next item, with the results it had seen.
  checkpoint: 'batch+intents',
};

export default scripted;
