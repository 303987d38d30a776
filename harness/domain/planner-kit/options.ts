import { holdsIn, type Fact, UNKNOWN } from '../../core/facts/fact.ts';
import type { Call, ToolView } from '../../core/planner.ts';
import { coerceBindings, completeArgs, type ArgSources } from './args.ts';
import { establishedBy } from './belief.ts';
import { renderForCall, toolFact } from './tool-facts.ts';
import { inInputOrder, unifyEstablish } from './unify.ts';

/** One way to establish a fact: a tool, its bound call, and what it needs. */
export interface Option {
  tool: ToolView;
  /** Declaration order of the tool (ties are broken by it). */
  index: number;
  call: Call;
  /** Required parameters still unbound. */
  unbound: string[];
  /** Preconditions rendered with the call's args (unknown values as `*`). */
  preconditions: Fact[];
  /** The preconditions not believed now. */
  missing: Fact[];
  /** What the call establishes, rendered with its args (result values as `*`). */
  establishes: Fact[];
}

/** Orders options: negative when `a` is preferred. */
export type OptionRank = (a: Option, b: Option) => number;

/**
 * Describes calling `tool` with `args` completed from the sources.
 *
 * @example
 * optionFor(verifyRecipient, 0, { email: 'bob@acme.example' }, src).missing // []
 */
function optionFor(tool: ToolView, index: number, args: Record<string, unknown>, src: ArgSources): Option {
  const done = completeArgs(tool, args, src);
  const preconditions = tool.preconditions.map((p) => renderForCall(src.view, p, done.args));
  return {
    tool,
    index,
    call: { tool: tool.name, args: done.args },
    unbound: done.unbound,
    preconditions,
    missing: preconditions.filter((p) => !holdsIn(p, src.belief, UNKNOWN)),
    establishes: establishedBy(src.view, tool, done.args),
  };
}

/**
 * Every tool that can establish `target`, in declaration order, with its args
 * bound by unifying its first matching `establishes` template with the target,
 * then completed (see `completeArgs`).
 *
 * @example
 * optionsFor(parse('email_sent(to=bob@acme.example)'), src).map((o) => o.call)
 * // [{ tool: 'send_customer_email', args: { to: 'bob@acme.example' } }]
 */
export function optionsFor(target: Fact, src: ArgSources): Option[] {
  const out: Option[] = [];
  src.view.tools.forEach((tool, index) => {
    for (const text of tool.establishes) {
      const template = toolFact(src.view, text);
      const b = unifyEstablish(template, target);
      if (!b) continue;
      out.push(optionFor(tool, index, coerceBindings(tool, inInputOrder(template, b, src.view.inputs), src.view), src));
      return;
    }
  });
  return out;
}

/** Sorts options by a rank, ties by declaration order (stable and deterministic). */
export function rankOptions(options: readonly Option[], rank: OptionRank): Option[] {
  return [...options].sort((a, b) => rank(a, b) || a.index - b.index);
}
