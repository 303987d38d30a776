/**
 * The guard: enforces the class constraints at the sandbox boundary. A blocked
 * call never reaches the sandbox; the planner observes `blocked` with the
 * reason and the missing preconditions, and can go on. The attempt is still
 * recorded, so it counts as "reached for".
 *
 * @example
 * npm run eval -- --planner=eager --guard
 */
import type { Call } from '../../core/planner.ts';
import type { BatchGate, Screened, Verdict } from '../runner/gate.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import { retriedFailure, walkAmbiguities, type OpenFailure, type RetryTool } from '../../domain/rules/retries.ts';
import { decide, type Situation } from './decide.ts';
import { DEFAULT_POLICY, type Policy } from './policy.ts';

export function createGuard(policy: Policy = DEFAULT_POLICY): BatchGate {
  return {
    screen(calls, sandbox, past) {
      const tools = toolsOf(sandbox.scenario.tools);
      const open = walkAmbiguities(past, tools);
      return calls.map((call): Screened => ({
        call,
        verdict: judge(call, calls.length, sandbox, open, tools, policy),
      }));
    },
  };
}

/** A scenario's tools by name, once per (frozen) list. */
const byList = new WeakMap<object, ReadonlyMap<string, RetryTool>>();
function toolsOf(list: readonly (RetryTool & { name: string })[]): ReadonlyMap<string, RetryTool> {
  let m = byList.get(list);
  if (!m) byList.set(list, (m = new Map(list.map((t) => [t.name, t]))));
  return m;
}

/** The call's situation from the sandbox's ground truth, decided by the one rule (decide.ts); the scripted human answers approvals. */
function judge(
  call: Call,
  batchSize: number,
  sandbox: Sandbox,
  open: readonly OpenFailure[],
  tools: ReadonlyMap<string, RetryTool>,
  policy: Policy,
): Verdict {
  const a = sandbox.assess(call);
  const situation: Situation = {
    tool: call.tool,
    class: a.class,
    missing: a.missing,
    alongside: batchSize - 1,
    scope: 'batch',
    retried: () => retriedFailure({ ...call, class: a.class }, open, tools.get(call.tool)),
  };
  const d = decide(situation, policy);
  if (!('ask' in d)) return d;
  // Asked last, so the human is only bothered about calls that are otherwise ready.
  const again = decide({ ...situation, approval: { approved: sandbox.askHuman(call.tool) } }, policy);
  return 'ask' in again ? { pass: false, reason: `approval for ${call.tool} was not answered`, missing: [] } : again;
}
