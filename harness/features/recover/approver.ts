/**
 * Who must approve a compensation: the approval gate the scenario puts in
 * front of the compensating tool, when it declares one, else a human with
 * authority over that tool.
 */
import { gatesOf, scriptedAnswer } from '../lint/gates.ts';
import type { Scenario } from '../../core/scenario.ts';

export interface Approver {
  /** One line for the checklist. */
  text: string;
  /** The approval tool that asks, when the scenario declares one. */
  via?: string;
  /** The action it asks about. */
  action?: string;
  /** What the scenario's scripted human answers ("approve", "deny", "approve after 2 asks"). */
  scripted?: string;
}

/**
 * The approver of a compensating tool.
 *
 * @example
 * approverFor(scenario, 'void_invoice').text
 * // 'request_approval(action=void_invoice): Ask the billing lead to sign off an action before it is taken.'
 * approverFor(undefined, 'void_invoice').text // 'a human with authority over void_invoice'
 */
export function approverFor(scenario: Scenario | undefined, compensatingTool: string): Approver {
  const fallback: Approver = { text: `a human with authority over ${compensatingTool}` };
  if (!scenario) return fallback;
  const tool = scenario.tools.find((t) => t.name === compensatingTool);
  if (!tool) return fallback;
  const gate = gatesOf(scenario, tool)[0];
  let via = gate?.tool.name;
  let action = gate ? (gate.action ?? compensatingTool) : undefined;
  // No gate among its preconditions, but the scripted human has an answer for it: that is the approval action.
  if (!gate && scriptedAnswer(scenario, compensatingTool) !== undefined) {
    action = compensatingTool;
    via = scenario.tools.find((t) => t.kind === 'approval')?.name;
  }
  if (action === undefined) return fallback;
  const who = via ? `${via}(action=${action})` : `the approver of action "${action}"`;
  const description = via ? firstSentence(scenario.tools.find((t) => t.name === via)?.description ?? '') : '';
  const answer = scriptedAnswer(scenario, action);
  const scripted =
    answer === undefined
      ? 'not listed in approvals: denied'
      : typeof answer === 'string'
        ? answer
        : `approve after ${answer.approve_after} asks`;
  return {
    text: description ? `${who}: ${description}` : who,
    ...(via ? { via } : {}),
    action,
    scripted,
  };
}

function firstSentence(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  const m = /^(.+?[.!?])(\s|$)/.exec(t);
  return m?.[1] ?? t;
}
