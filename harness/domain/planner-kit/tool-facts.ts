import type { Fact } from '../../core/facts/fact.ts';
import { renderFact } from '../../core/facts/template.ts';
import type { PlannerView } from '../../core/planner.ts';

/**
 * Parses a tool's fact template with the run's inputs and deployment filled in
 * and every other template (`{{args.*}}`, `{{result.*}}`, `{{id}}`) kept, ready
 * for unification.
 *
 * @example
 * toolFact(view, 'invoice_exists(id={{result.id}}, customer={{args.customer}})').args.customer // '{{args.customer}}'
 */
export function toolFact(view: PlannerView, text: string): Fact {
  return renderFact(text, { inputs: view.inputs, deployment: view.deployment }, 'keep');
}

/**
 * Renders a tool's fact template for a call with these args; what is unknown
 * (an unbound arg, a result not seen yet) becomes `*`.
 */
export function renderForCall(view: PlannerView, text: string, args: Record<string, unknown>): Fact {
  return renderFact(text, { args, inputs: view.inputs, deployment: view.deployment }, 'wildcard');
}
