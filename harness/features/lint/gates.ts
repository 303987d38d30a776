/**
 * Approval gates of a scenario: which preconditions only an approval tool (a
 * human) can establish, and for which action. Lint uses it to find
 * compensations that need a sign-off; recovery uses it to name the approver.
 */
import type { Fact } from '../../core/facts/fact.ts';
import { factPreconditions, type Scenario, type Tool } from '../../core/scenario.ts';
import { renderText } from '../../core/templates/render.ts';
import { declaredFact, unifies } from './facts.ts';
import { expandedEffects } from '../../core/effects/index.ts';

export interface ApprovalGate {
  /** The approval tool that asks the human. */
  tool: Tool;
  /** The action asked about: the precondition's literal `action`, else undefined. */
  action: string | undefined;
  /** The precondition of the gated tool that the approval establishes. */
  precondition: string;
}

/**
 * The approval gates in front of a tool: each precondition that some `kind: approval` tool
 * establishes.
 *
 * @example
 * gatesOf(scenario, voidInvoice) // [{ tool: request_approval, action: 'void_invoice', precondition: 'human_gate_passed(action=void_invoice)' }]
 */
export function gatesOf(scenario: Scenario, tool: Tool): ApprovalGate[] {
  const out: ApprovalGate[] = [];
  const approvals = scenario.tools.filter((t) => t.kind === 'approval');
  for (const text of factPreconditions(tool)) {
    const pre = declaredFact(text, scenario);
    if (!pre) continue;
    for (const a of approvals) {
      const hit = expandedEffects(a.effects).some((e) => {
        if (e.establish === undefined) return false;
        const shape = declaredFact(e.establish, scenario);
        return shape !== undefined && unifies(pre, shape);
      });
      if (!hit) continue;
      const action = pre.args.action;
      out.push({
        tool: a,
        action: action !== undefined && !action.includes('{{') && action !== '*' ? action : undefined,
        precondition: text,
      });
      break;
    }
  }
  return out;
}

/**
 * The scripted answer for an action in `approvals` (keys may use inputs and deployment), or undefined
 * when the action is not listed (the sandbox then denies it).
 */
export function scriptedAnswer(scenario: Scenario, action: string): Scenario['approvals'][string] | undefined {
  const ctx = { inputs: scenario.inputs, deployment: scenario.deployment };
  for (const [k, v] of Object.entries(scenario.approvals)) if (renderText(k, ctx) === action) return v;
  return undefined;
}

/** Whether the scripted human ever approves the action. */
export function everApproved(scenario: Scenario, action: string): boolean {
  const a = scriptedAnswer(scenario, action);
  return a !== undefined && a !== 'deny';
}

/**
 * The facts an approval tool can establish in this scenario: `{{args.action}}` instantiated with
 * each action the scripted human approves (an approval the human always denies establishes nothing).
 */
export function approvalShapes(scenario: Scenario, tool: Tool): Fact[] {
  const ctx = { inputs: scenario.inputs, deployment: scenario.deployment };
  const approved = Object.entries(scenario.approvals)
    .filter(([, v]) => v !== 'deny')
    .map(([k]) => renderText(k, ctx));
  const out: Fact[] = [];
  for (const e of expandedEffects(tool.effects)) {
    if (e.establish === undefined) continue;
    const usesAction = /\{\{\s*args\.action\s*\}\}/.test(e.establish);
    if (!usesAction) {
      const f = approved.length > 0 ? declaredFact(e.establish, scenario) : undefined;
      if (f) out.push(f);
      continue;
    }
    // The action goes into the parsed fact's values, never into its source text: an action holding a
    // "," or ")" would split the fact there (issue 41: false unreachable-goal warnings).
    const template = declaredFact(e.establish, scenario);
    if (!template) continue;
    for (const action of approved) {
      const args: Record<string, string> = {};
      for (const [k, v] of Object.entries(template.args)) args[k] = renderText(v, { ...ctx, args: { action } }, 'keep');
      out.push({ name: template.name, args });
    }
  }
  return out;
}
