/**
 * Who is at fault when a fuzz property fails, and what to do next. A property checks one party:
 * oneway itself (its scores against the independent oracle, its guard, its transports), the
 * scenario (its declarations: a tool declared reversible that its compensation does not undo),
 * or the planner (a behaviour property: what a run must never do). Determinism and the seal
 * check whatever made the calls: a planner under test, or oneway for generated plans (a plan
 * reads no clock and makes no request). A scenario that lint finds errors in, or whose goal no
 * plan reaches, comes first for anything but oneway's own invariants: it can make any
 * property fail, whoever plans.
 */
import type { LintFinding } from '../lint/types.ts';

/** Who a failure points at. */
type Party = 'oneway' | 'scenario' | 'planner';

/** What a property checks: a party, or `caller`, whatever made the calls (a planner, or oneway's generated plans). */
export type Owner = Party | 'caller';

export const OWNERS: readonly Owner[] = ['oneway', 'scenario', 'planner', 'caller'];

export interface Fault {
  party: Party;
  /** Why it is that party's fault, in one sentence. */
  why: string;
  /** What to do next. */
  next: string;
}

/**
 * The fault of a failed property, from what it checks and whether a planner was fuzzed.
 *
 * @example
 * faultOf({ name: 'scoring-oracle', owner: 'oneway' }, undefined).party // 'oneway'
 */
export function faultOf(property: { name: string; owner?: Owner }, planner: string | undefined): Fault {
  const owner = property.owner ?? 'planner';
  const party: Party = owner === 'caller' ? (planner === undefined ? 'oneway' : 'planner') : owner;
  const name = `"${property.name}"`;
  if (party === 'oneway')
    return {
      party,
      why:
        owner === 'caller'
          ? `${name} failed on a generated plan, which reads no clock and makes no request: this is a bug in oneway, not in the scenario`
          : `${name} checks oneway itself, not the scenario or a planner: this is a bug in oneway`,
      next: 'please report it to the oneway maintainers with the plan file and the replay command below',
    };
  if (party === 'scenario')
    return {
      party,
      why: `${name} checks the scenario's declarations, and this run shows one that does not hold`,
      next: 'fix the declaration the message names (or the class of its tool), then fuzz again',
    };
  return planner === undefined
    ? {
        party,
        why: `${name} is a behaviour property: a planner that makes the calls of this generated plan breaks it`,
        next: 'make sure your planner never makes these calls, or that the guard stops them (fuzz again with --guard)',
      }
    : {
        party,
        why: `the planner ${planner} broke ${name}`,
        next: 'replay the planner run below and fix the planner (or run it under the guard, --guard)',
      };
}

/** What lint says that makes the scenario suspect whatever the property: errors, and a goal no plan reaches. */
function scenarioSuspects(findings: readonly LintFinding[]): LintFinding[] {
  return findings.filter((f) => f.severity === 'error' || f.rule === 'unreachable-goal');
}

/**
 * The fault once the scenario's lint findings are known: a scenario with errors, or a goal no
 * plan reaches, is at fault for anything but oneway's own invariants (an oracle disagreement is
 * a bug in oneway on anything that loads).
 *
 * @example
 * withScenarioFindings(fault, lintTexts([{ file, text }]), 'npx oneway lint scenarios/x.yaml')
 */
export function withScenarioFindings(fault: Fault, findings: readonly LintFinding[], lintCommand: string): Fault {
  const suspects = scenarioSuspects(findings);
  if (fault.party === 'oneway' || suspects.length === 0) return fault;
  const first = suspects[0] as LintFinding;
  const more = suspects.length > 1 ? ` and ${suspects.length - 1} more` : '';
  return {
    party: 'scenario',
    why: `lint finds ${suspects.length === 1 ? 'a problem' : 'problems'} in the scenario that can make any property fail, whoever plans: [${first.rule}] ${first.path}: ${first.message}${more}`,
    next: `fix ${suspects.length === 1 ? 'it' : 'them'} first (${lintCommand}), then fuzz again`,
  };
}
