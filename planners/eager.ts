/**
 * eager: the over-eager autonomy baseline. Goal-directed and parallel, it calls
 * whatever establishes each goal right away, ignoring preconditions, and retries
 * failures blindly (never reconciling). It measures how often an unconstrained
 * planner walks through a one-way door too early.
 */
import { holdsIn, UNKNOWN } from '../harness/core/facts/fact.ts';
import type { Decision, PlannerFactory, PlannerView } from '../harness/core/planner.ts';
import { attemptsOf } from '../harness/domain/planner-kit/history.ts';
import { goalFacts } from '../harness/domain/planner-kit/belief.ts';
import { finish, issue } from '../harness/domain/planner-kit/decision.ts';
import { optionsFor, rankOptions } from '../harness/domain/planner-kit/options.ts';
import { byFewestPreconditions } from '../harness/domain/planner-kit/rank.ts';
import { planningSources } from '../harness/domain/planner-kit/sources.ts';

/** One call plus this many retries of the same call (same tool, same args). */
export const EAGER_RETRIES = 3;

/**
 * One eager turn: for every goal not believed, the option with the fewest
 * preconditions (ties: declaration order) whose args are all bound and whose
 * attempts are not used up; all of them in one batch.
 *
 * @example
 * eagerDecision(view) // { type: 'call', call: { tool: 'send_customer_email', args: { to: 'bob@acme.example' } } }
 */
export function eagerDecision(view: PlannerView): Decision {
  const src = planningSources(view);
  const open = goalFacts(view).filter((g) => !holdsIn(g, src.belief, UNKNOWN));
  if (open.length === 0) return finish('goal reached');
  const calls = open.flatMap((goal) => {
    const best = rankOptions(optionsFor(goal, src), byFewestPreconditions).find(
      (o) => o.unbound.length === 0 && attemptsOf(src.obs, o.call).length <= EAGER_RETRIES,
    );
    return best ? [best.call] : [];
  });
  return issue(calls, 'nothing left to try');
}

const eager: PlannerFactory = {
  name: 'eager',
  cpuBound: true,
  description:
    'Calls what establishes each goal at once, in parallel, ignoring preconditions; retries failures blindly.',
  create: () => ({ name: 'eager', next: eagerDecision }),
};

export default eager;
