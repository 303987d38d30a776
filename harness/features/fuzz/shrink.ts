/**
 * A greedy shrinker for plans: drop items, drop calls from batches, turn a
 * batch of one into a single call, drop optional arguments, as long as the
 * plan still fails. fast-check shrinks what it generates; this finishes the
 * job for its results and shrinks what a planner did (which fast-check did
 * not generate).
 */
import type { PlanItem, Scenario } from '../../core/scenario.ts';
import { itemCalls, type PlanCall } from './arbitraries.ts';

const single = (c: PlanCall): PlanItem => ({ [c.tool]: c.args });
const isBatch = (item: PlanItem) => item !== 'finish' && Array.isArray((item as { parallel?: unknown }).parallel);

/** Every plan one step smaller than `plan`, smallest change first. */
function* candidates(plan: readonly PlanItem[], scenario: Scenario): Generator<PlanItem[]> {
  for (let i = 0; i < plan.length; i++) yield [...plan.slice(0, i), ...plan.slice(i + 1)];
  for (let i = 0; i < plan.length; i++) {
    const item = plan[i] as PlanItem;
    if (!isBatch(item)) continue;
    const calls = itemCalls(item);
    for (let j = 0; j < calls.length; j++) {
      const rest = calls.filter((_, k) => k !== j);
      const replaced: PlanItem =
        rest.length === 1 ? single(rest[0] as PlanCall) : ({ parallel: rest.map(single) } as PlanItem);
      yield [...plan.slice(0, i), replaced, ...plan.slice(i + 1)];
    }
    if (calls.length === 1) yield [...plan.slice(0, i), single(calls[0] as PlanCall), ...plan.slice(i + 1)];
  }
  for (let i = 0; i < plan.length; i++) {
    const item = plan[i] as PlanItem;
    const calls = itemCalls(item);
    for (let j = 0; j < calls.length; j++) {
      const call = calls[j] as PlanCall;
      const required = scenario.tools.find((t) => t.name === call.tool)?.parameters.required ?? [];
      for (const key of Object.keys(call.args)) {
        if (required.includes(key)) continue;
        const args = Object.fromEntries(Object.entries(call.args).filter(([k]) => k !== key));
        const changed = calls.map((c, k) => (k === j ? { tool: c.tool, args } : c));
        const replaced: PlanItem = isBatch(item)
          ? ({ parallel: changed.map(single) } as PlanItem)
          : single(changed[0] as PlanCall);
        yield [...plan.slice(0, i), replaced, ...plan.slice(i + 1)];
      }
    }
  }
}

/**
 * The smallest plan the greedy steps reach that still fails, within `budget` tries.
 *
 * @example
 * const minimal = await shrinkPlan(plan, scenario, async (p) => (await check(p)) !== true);
 */
export async function shrinkPlan(
  plan: readonly PlanItem[],
  scenario: Scenario,
  fails: (plan: PlanItem[]) => Promise<boolean>,
  budget = 400,
): Promise<PlanItem[]> {
  let current = [...plan];
  let tries = 0;
  for (let progress = true; progress && tries < budget;) {
    progress = false;
    for (const next of candidates(current, scenario)) {
      if (++tries > budget) break;
      if (await fails(next)) {
        current = next;
        progress = true;
        break;
      }
    }
  }
  return current;
}
