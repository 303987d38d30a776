/**
 * speculative: plans the whole chain like gated (same ranking: cheapest class
 * to reverse, then fewest missing preconditions) but does not wait for a
 * precondition before acting on it: every planned call whose arguments are
 * bound goes out in one batch, the calls that establish a tool's preconditions
 * side by side with the tool itself. Fewest round trips, premature by
 * construction. It asks approvals, and the human's confirmation of a call, in
 * that same batch, so a denial comes too late to stop anything (and a yes too
 * late to license the call); it retries a failed call once and never reconciles.
 */
import { holdsIn, UNKNOWN } from '../harness/core/facts/fact.ts';
import type { Call, Decision, PlannerFactory, PlannerView } from '../harness/core/planner.ts';
import type { ArgSources } from '../harness/domain/planner-kit/args.ts';
import { goalFacts } from '../harness/domain/planner-kit/belief.ts';
import { backwardChain } from '../harness/domain/planner-kit/chain.ts';
import { finish, issue } from '../harness/domain/planner-kit/decision.ts';
import { avoidsForbidden } from '../harness/domain/planner-kit/forbidden.ts';
import { attemptsOf } from '../harness/domain/planner-kit/history.ts';
import { byClassThenMissing } from '../harness/domain/planner-kit/rank.ts';
import { planningSources } from '../harness/domain/planner-kit/sources.ts';

/** Retries of a failed call (same tool, same args) after its first attempt. */
export const SPECULATIVE_RETRIES = 1;

/**
 * Whether a call is used up: it was answered (a success, or an approval that
 * said no: asking the same question again would get the same answer), or it
 * failed (an error, or a guard's block) more than the retries allow.
 */
function spent(src: ArgSources, call: Call): boolean {
  const attempts = attemptsOf(src.obs, call);
  return attempts.some((o) => o.status === 'ok') || attempts.length > SPECULATIVE_RETRIES;
}

/**
 * One speculative turn, a pure function of the view: goal reached → finish;
 * else plan from the goal and issue, in one batch and in dependency order,
 * every planned call whose args are bound and that is not used up. A call
 * whose required arg only a later result supplies (an invoice id) waits for
 * the turn after that result.
 *
 * @example
 * speculativeDecision(view) // turn 1: batch [verify_recipient, request_approval, send_customer_email]
 */
export function speculativeDecision(view: PlannerView): Decision {
  const src = planningSources(view);
  const goals = goalFacts(view);
  if (goals.every((g) => holdsIn(g, src.belief, UNKNOWN))) return finish('goal reached');
  const plan = backwardChain(goals, src, { rank: byClassThenMissing, accept: avoidsForbidden(view) });
  const calls = plan.nodes.filter((n) => n.unbound.length === 0 && !spent(src, n.call)).map((n) => n.call);
  const why =
    plan.unreachable.length > 0
      ? `unreachable: ${plan.unreachable.join(', ')} (nothing establishes ${plan.dead_ends.join(', ')})`
      : `nothing left to issue (planned: ${plan.nodes.map((n) => n.call.tool).join(', ') || 'none'})`;
  return issue(calls, why);
}

const speculative: PlannerFactory = {
  name: 'speculative',
  cpuBound: true,
  description:
    'Plans the chain like gated but issues every bound call at once, preconditions in the same batch as the action; asks approvals without waiting, retries once, never reconciles.',
  create: () => ({ name: 'speculative', next: speculativeDecision }),
};

export default speculative;
