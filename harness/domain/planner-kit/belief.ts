import { formatFact, matchesFact, type Fact, UNKNOWN } from '../../core/facts/fact.ts';
import { renderFact } from '../../core/facts/template.ts';
import type { PlannerView, ToolView } from '../../core/planner.ts';
import { approvalVerdict, observations, toolNamed } from './history.ts';
import { reconciliationAt } from './reconcile.ts';

/**
 * Renders a scenario-level fact (initial fact, goal, forbidden) in the run's
 * inputs and deployment. The view normally carries them rendered already; this
 * makes the planners independent of that.
 *
 * @example
 * scopedFact(view, 'email_sent(to={{inputs.email}})') // { name: 'email_sent', args: { to: 'billing@acme.example' } }
 */
export function scopedFact(view: PlannerView, text: string): Fact {
  return renderFact(text, { inputs: view.inputs, deployment: view.deployment }, 'wildcard');
}

/** The goal facts of the view, rendered. */
export function goalFacts(view: PlannerView): Fact[] {
  return view.goal.map((g) => scopedFact(view, g));
}

/**
 * The facts a call declares it establishes, rendered with its args and result;
 * unknown values (a result not seen, an unbound arg) become `*`.
 */
export function establishedBy(
  view: PlannerView,
  tool: ToolView,
  args: Record<string, unknown>,
  result?: unknown,
): Fact[] {
  const ctx = { args, result, inputs: view.inputs, deployment: view.deployment };
  return tool.establishes.map((t) => renderFact(t, ctx, 'wildcard'));
}

function revokedBy(view: PlannerView, tool: ToolView, args: Record<string, unknown>, result?: unknown): Fact[] {
  const ctx = { args, result, inputs: view.inputs, deployment: view.deployment };
  return tool.revokes.map((t) => renderFact(t, ctx, 'wildcard'));
}

/**
 * Applies one successful call to a fact set: its revokes first, then its
 * establishes (so "revoke status(x=*), establish status(x=new)" leaves the new one).
 */
function applyCall(facts: Fact[], added: Fact[], removed: Fact[]): Fact[] {
  const kept = facts.filter((f) => !removed.some((r) => matchesFact(r, f, UNKNOWN)));
  const seen = new Set(kept.map(formatFact));
  for (const f of added) {
    const text = formatFact(f);
    if (!seen.has(text)) {
      seen.add(text);
      kept.push(f);
    }
  }
  return kept;
}

/**
 * What the planner believes holds now: the initial facts, plus what every
 * successful call established (an approval only when approved), minus what it
 * revoked. A failed call that a reconciling call reports as applied counts as
 * having succeeded (its result unknown, so `{{result.*}}` is `*`).
 * Oldest facts first.
 *
 * @example
 * believedFacts(view).map(formatFact) // ['customer_exists(customer=acme)', 'recipient_verified(email=bob@acme.example)']
 */
export function believedFacts(view: PlannerView): Fact[] {
  let facts = applyCall(
    [],
    view.initial_facts.map((f) => scopedFact(view, f)),
    [],
  );
  const obs = observations(view);
  obs.forEach((o, i) => {
    const tool = toolNamed(view, o.tool);
    if (!tool || o.status !== 'ok') return;
    if (tool.kind !== 'action' && approvalVerdict(o) !== true) return;
    facts = applyCall(facts, establishedBy(view, tool, o.args, o.result), revokedBy(view, tool, o.args, o.result));
    const rec = reconciliationAt(view, obs, i);
    if (!rec?.applied) return;
    // Each failed call the reconciler reports as applied counts as having succeeded.
    for (const k of rec.indices) {
      const call = obs[k];
      if (!call || call.status === 'ok' || !rec.appliedAt(k)) continue;
      const target = toolNamed(view, call.tool);
      if (target) facts = applyCall(facts, establishedBy(view, target, call.args), revokedBy(view, target, call.args));
    }
  });
  return facts;
}
