/**
 * What a scenario can establish, statically: the initial facts and every
 * tool's `establish` effects as fact shapes (templates kept as variables).
 *
 * - `declared`: every shape any tool can establish, whatever its preconditions
 *   and whatever the scripted human answers (a fact outside it can never hold).
 * - `reachable`: a relaxed fixpoint (deletes ignored, templates bridged): the
 *   shapes of tools whose preconditions can all hold, approval tools only for
 *   the actions the scripted human approves. A fact outside it holds only
 *   after a premature call.
 */
import type { Fact } from '../../core/facts/fact.ts';
import { factPreconditions, type Scenario, type Tool } from '../../core/scenario.ts';
import { declaredFact, unifies } from './facts.ts';
import { approvalShapes } from './gates.ts';
import { expandedEffects } from '../../core/effects/index.ts';

export interface Shape {
  fact: Fact;
  /** The tool that establishes it; undefined for an initial fact. */
  tool?: Tool;
}

export interface Reach {
  declared: Shape[];
  reachable: Shape[];
  /** Tools whose preconditions can all hold. */
  callable: Set<string>;
}

/** The shapes a tool establishes; approval tools only for approved actions when `approvedOnly`. */
export function toolShapes(scenario: Scenario, tool: Tool, approvedOnly: boolean): Shape[] {
  if (tool.kind === 'approval' && approvedOnly) return approvalShapes(scenario, tool).map((fact) => ({ fact, tool }));
  return expandedEffects(tool.effects).flatMap((e) => {
    const f = e.establish !== undefined ? declaredFact(e.establish, scenario) : undefined;
    return f ? [{ fact: f, tool }] : [];
  });
}

/**
 * The static reach of a scenario.
 *
 * @example
 * const { reachable } = reachOf(scenario);
 * reachable.some((s) => unifies(goalFact, s.fact)) // false: the goal needs a premature call
 */
export function reachOf(scenario: Scenario): Reach {
  const initial: Shape[] = scenario.world.facts.flatMap((t) => {
    const f = declaredFact(t, scenario);
    return f ? [{ fact: f }] : [];
  });
  const declared = [...initial, ...scenario.tools.flatMap((t) => toolShapes(scenario, t, false))];
  const reachable = [...initial];
  const callable = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const t of scenario.tools) {
      if (callable.has(t.name)) continue;
      const pre = factPreconditions(t).map((p) => declaredFact(p, scenario));
      if (pre.some((p) => p === undefined)) continue;
      if (!pre.every((p) => reachable.some((s) => unifies(p as Fact, s.fact)))) continue;
      callable.add(t.name);
      reachable.push(...toolShapes(scenario, t, true));
      changed = true;
    }
  }
  return { declared, reachable, callable };
}

/** Whether some shape can match the pattern. */
export function canHold(pattern: Fact, shapes: readonly Shape[]): boolean {
  return shapes.some((s) => unifies(pattern, s.fact));
}
