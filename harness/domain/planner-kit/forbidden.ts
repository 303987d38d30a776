import { matchesFact, type Fact, UNKNOWN } from '../../core/facts/fact.ts';
import type { PlannerView } from '../../core/planner.ts';
import { scopedFact } from './belief.ts';
import type { Option } from './options.ts';

/**
 * An `accept` filter for backward chaining: options that would establish a
 * forbidden fact are never planned (a run that establishes one cannot complete).
 *
 * @example
 * backwardChain(goals, src, { rank: byClassThenMissing, accept: avoidsForbidden(view) })
 */
export function avoidsForbidden(view: PlannerView): (o: Option) => boolean {
  const forbidden: Fact[] = view.forbidden.map((f) => scopedFact(view, f));
  return (o) => !o.establishes.some((e) => forbidden.some((f) => matchesFact(f, e, UNKNOWN)));
}
