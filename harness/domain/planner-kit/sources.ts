import type { PlannerView } from '../../core/planner.ts';
import type { ArgSources } from './args.ts';
import { believedFacts } from './belief.ts';
import { observations } from './history.ts';

/**
 * What a rule-based planner works from on one turn, derived from the view alone.
 *
 * @example
 * const src = planningSources(view); src.belief.length // initial facts + what succeeded
 */
export function planningSources(view: PlannerView, keys: ArgSources['keys'] = 'fresh'): ArgSources {
  return { view, belief: believedFacts(view), obs: observations(view), keys };
}
