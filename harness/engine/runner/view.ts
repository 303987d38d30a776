/**
 * Builds what a planner sees. It never holds the facts the run established:
 * only the declarations, the initial facts and the history of observations.
 */
import { renderFactText } from '../../core/facts/template.ts';
import type { CallEvent } from '../../core/record.ts';
import type { HistoryEntry, Observation, PlannerView, ToolView } from '../../core/planner.ts';
import { conditionPreconditions, factPreconditions, type Scenario, type ToolClass } from '../../core/scenario.ts';
import { reportedTools } from '../../domain/rules/reconcile.ts';
import { renderValue } from '../../core/templates/render.ts';
import { expandedEffects } from '../../core/effects/index.ts';

type StaticView = Omit<PlannerView, 'history' | 'turn' | 'steps_used'>;

export function staticView(scenario: Scenario, classes: ReadonlyMap<string, ToolClass>, maxTurns: number): StaticView {
  const ctx = { inputs: scenario.inputs, deployment: scenario.deployment };
  const facts = (xs: string[], keep: boolean) => xs.map((f) => renderFactText(f, ctx, keep ? 'keep' : 'empty'));
  const tools: ToolView[] = scenario.tools.map((t) => ({
    name: t.name,
    description: t.description,
    kind: t.kind,
    class: classes.get(t.name) as ToolClass,
    read_only: t.read_only,
    // The whole declared schema (additionalProperties and the like included): what calls are checked against.
    parameters: {
      ...t.parameters,
      type: 'object',
      properties: t.parameters.properties,
      required: t.parameters.required,
    },
    preconditions: facts(factPreconditions(t), true),
    establishes: facts(
      expandedEffects(t.effects).flatMap((e) => (e.establish !== undefined ? [e.establish] : [])),
      true,
    ),
    revokes: facts(
      expandedEffects(t.effects).flatMap((e) => (e.revoke !== undefined ? [e.revoke] : [])),
      true,
    ),
    compensating_operation: t.compensating_operation ?? null,
    compensation_requires_approval: t.compensation_requires_approval ?? false,
    compensation_args: t.compensation_args
      ? (renderValue(t.compensation_args, ctx, 'keep') as Record<string, unknown>)
      : null,
    reconciles: reportedTools(t, scenario.tools),
    ...(t.reads.length > 0 ? { reads: t.reads } : {}),
    ...(t.idempotency_key !== undefined ? { idempotency_key: t.idempotency_key } : {}),
    ...(t.idempotent === true ? { idempotent: true } : {}),
    ...(t.definite_failures ? { definite_failures: t.definite_failures } : {}),
    ...(conditionPreconditions(t).length > 0 ? { conditions: conditionPreconditions(t) } : {}),
    ...(t.requires_confirmation ? { requires_confirmation: true as const } : {}),
    latency_ms: t.latency_ms,
  }));
  return {
    scenario: { id: scenario.id, title: scenario.title, task: scenario.task },
    inputs: scenario.inputs,
    deployment: scenario.deployment,
    initial_facts: facts(scenario.world.facts, false),
    goal: facts(scenario.goal, false),
    forbidden: facts(scenario.forbidden, false),
    tools,
    max_steps: scenario.max_steps,
    max_turns: maxTurns,
  };
}

/** What the planner observes of a recorded call: the reply, not the ground truth. */
function observe(c: CallEvent): Observation {
  // Whole literals (no `...base`): see the view in runner/run.ts.
  if (c.status === 'blocked') {
    return {
      step: c.step,
      tool: c.tool,
      args: c.args,
      status: 'blocked',
      reason: c.blocked_reason ?? 'blocked',
      missing: c.preconditions.missing,
    };
  }
  if (c.status === 'fault')
    return {
      step: c.step,
      tool: c.tool,
      args: c.args,
      status: 'error',
      http_status: c.http_status ?? 500,
      error: c.error ?? 'error',
    };
  return {
    step: c.step,
    tool: c.tool,
    args: c.args,
    status: 'ok',
    http_status: c.http_status ?? 200,
    result: c.result,
  };
}

/** What the planner observes of a rejected call: that it did not run, and why. It is not a step (step 0). */
function observeRejected(r: { tool: string; args: Record<string, unknown>; reason: string }): Observation {
  return { step: 0, tool: r.tool, args: r.args, status: 'rejected', reason: r.reason };
}

/** One turn's history entry: the calls that ran or were blocked, then the rejected ones. */
export function historyEntry(
  turn: number,
  batch: number,
  events: readonly CallEvent[],
  rejected: readonly { tool: string; args: Record<string, unknown>; reason: string }[] = [],
): HistoryEntry {
  // A loop, not spread maps: the arrays come in several element kinds (an empty literal, events), and each
  // new kind met mid-run made V8 throw away the optimised run loop this is inlined into (npm run bench).
  const observations: Observation[] = [];
  for (let i = 0; i < events.length; i++) observations.push(observe(events[i] as CallEvent));
  for (let i = 0; i < rejected.length; i++)
    observations.push(observeRejected(rejected[i] as (typeof rejected)[number]));
  return { turn, batch, observations };
}
