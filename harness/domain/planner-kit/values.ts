import type { PlannerView } from '../../core/planner.ts';
import { scopedFact } from './belief.ts';
import { observations } from './history.ts';
import { toolFact } from './tool-facts.ts';

export type Scalar = string | number | boolean;

/** A value the planner has seen, with the key it was seen under and where. */
export interface SeenValue {
  key: string;
  value: Scalar;
  from: 'inputs' | 'facts' | 'preconditions' | 'results';
}

/** Scalar leaves of a JSON-like value; an array's items keep the array's key. */
function leaves(value: unknown, key: string, out: [string, Scalar][]): void {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out.push([key, value]);
  else if (Array.isArray(value)) for (const v of value) leaves(v, key, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) leaves(v, k, out);
}

/**
 * Every scalar value the view shows, once per (source, key, value), in a fixed
 * order: the inputs, the initial facts' arguments, the literal arguments of the
 * tools' preconditions (`action=send_invoice_email` of a gate), then the
 * results of successful calls (oldest first). Fuzzing planners draw arguments
 * from it; wildcards (`*`) and templates are left out, they are not values.
 *
 * @example
 * seenValues(view).filter((v) => v.from === 'results' && v.key === 'id') // [{ key: 'id', value: 'inv_1', from: 'results' }]
 */
export function seenValues(view: PlannerView): SeenValue[] {
  const out: SeenValue[] = [];
  const seen = new Set<string>();
  const add = (from: SeenValue['from'], pairs: [string, Scalar][]) => {
    for (const [key, value] of pairs) {
      const id = JSON.stringify([from, key, value]);
      if (value === '*' || seen.has(id)) continue;
      seen.add(id);
      out.push({ key, value, from });
    }
  };
  const inputs: [string, Scalar][] = [];
  for (const [k, v] of Object.entries(view.inputs)) leaves(v, k, inputs);
  add('inputs', inputs);
  add(
    'facts',
    view.initial_facts.flatMap((f) => Object.entries(scopedFact(view, f).args)),
  );
  const literals = view.tools.flatMap((t) => t.preconditions.flatMap((p) => Object.entries(toolFact(view, p).args)));
  add(
    'preconditions',
    literals.filter(([, v]) => !v.includes('{{')),
  );
  for (const o of observations(view)) {
    if (o.status !== 'ok') continue;
    const pairs: [string, Scalar][] = [];
    leaves(o.result, 'result', pairs);
    add('results', pairs);
  }
  return out;
}
