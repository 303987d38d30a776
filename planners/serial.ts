/**
 * serial: gated's choices, one call per turn. Where gated would issue a batch
 * it issues the batch's first call; the rest come back on later turns as gated
 * re-plans from the new history. Nothing runs side by side, so depth equals
 * steps: the step and simulated-time upper bound of the constrained planner.
 */
import type { Decision, PlannerFactory, PlannerView } from '../harness/core/planner.ts';
import { finish } from '../harness/domain/planner-kit/decision.ts';
import { gatedDecision, gatedOptions, type GatedOptions } from './gated.ts';

/**
 * One serial turn: gated's decision, with a batch cut to its first call.
 *
 * @example
 * serialDecision(view, { ask_again: 0 }) // turn 1: verify_recipient; turn 2: request_approval; turn 3: send_customer_email
 */
export function serialDecision(view: PlannerView, opts: GatedOptions): Decision {
  const d = gatedDecision(view, opts);
  if (d.type !== 'batch') return d;
  const [first] = d.calls;
  return first ? { type: 'call', call: first } : finish('nothing left to do');
}

const serial: PlannerFactory = {
  name: 'serial',
  cpuBound: true,
  description:
    "Gated's choices, one call per turn (never a batch): the step and time upper bound. Takes gated's options (ask_again).",
  create(ctx) {
    const opts = gatedOptions(ctx.options);
    return { name: 'serial', next: (view) => serialDecision(view, opts) };
  },
  // Gated's memory too: only the batching differs.
  checkpoint: 'batch+intents',
};

export default serial;
