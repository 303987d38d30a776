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
import type { CallEvent } from '../../core/record.ts';
import type { BatchGate, Screened, Verdict } from '../runner/gate.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import { AppliedCalls } from '../../domain/rules/applied.ts';
import { repeatedFailure, walkAmbiguities, type OpenFailure, type RetryTool } from '../../domain/rules/retries.ts';
import { sortBy } from '../../util/sort.ts';
import { decide, type Situation } from './decide.ts';
import { DEFAULT_POLICY, type Policy } from './policy.ts';

export function createGuard(policy: Policy = DEFAULT_POLICY): BatchGate {
  return {
    // A declared idempotency key the planner left out is filled as the proxy fills it (applied.ts),
    // before the arguments are checked against the schema, as in the proxy.
    complete(decision, sandbox, past) {
      const d = decision as { type?: unknown; call?: unknown; calls?: unknown } | null;
      if (d === null || typeof d !== 'object') return decision;
      const applied = appliedIn(past, toolsOf(sandbox.scenario.tools), sandbox);
      if (d.type === 'call' && isCall(d.call)) return { ...d, call: applied.withKey(d.call) };
      if (d.type === 'batch' && Array.isArray(d.calls))
        return { ...d, calls: d.calls.map((c: unknown) => (isCall(c) ? applied.withKey(c) : c)) };
      return decision;
    },
    screen(calls, sandbox, past) {
      const tools = toolsOf(sandbox.scenario.tools);
      const open = walkAmbiguities(past, tools);
      const applied = appliedIn(past, tools, sandbox);
      return calls.map((call): Screened => ({
        call,
        verdict: judge(call, calls.length, sandbox, open, applied, tools, policy),
      }));
    },
  };
}

/** A call as a planner wrote it, enough to fill a key into: anything else is left to the decision's check. */
const isCall = (c: unknown): c is Call =>
  c !== null &&
  typeof c === 'object' &&
  typeof (c as Call).tool === 'string' &&
  (c as Call).args !== null &&
  typeof (c as Call).args === 'object' &&
  !Array.isArray((c as Call).args);

/** A scenario's tools by name, once per (frozen) list. */
const byList = new WeakMap<object, ReadonlyMap<string, RetryTool>>();
function toolsOf(list: readonly (RetryTool & { name: string })[]): ReadonlyMap<string, RetryTool> {
  let m = byList.get(list);
  if (!m) byList.set(list, (m = new Map(list.map((t) => [t.name, t]))));
  return m;
}

/** What the run observed applied, outcome by outcome in step order (as a journal holds them). */
function appliedIn(past: readonly CallEvent[], tools: ReadonlyMap<string, RetryTool>, sandbox: Sandbox): AppliedCalls {
  const applied = new AppliedCalls(tools, `eval\u0000${sandbox.scenario.id}\u0000${sandbox.seed}`);
  for (const e of sortBy([...past], (a, b) => a.step - b.step)) applied.take(e);
  return applied;
}

/** The call's situation from the run's record and the sandbox's world, decided by the one rule (decide.ts); the scripted human answers approvals. */
function judge(
  call: Call,
  batchSize: number,
  sandbox: Sandbox,
  open: readonly OpenFailure[],
  applied: AppliedCalls,
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
    retried: () => repeatedFailure({ ...call, class: a.class }, open, tools.get(call.tool)),
    duplicated: () => applied.duplicated({ ...call, class: a.class }),
  };
  const d = decide(situation, policy);
  if (!('ask' in d)) return d;
  // Asked last, so the human is only bothered about calls that are otherwise ready.
  const again = decide({ ...situation, approval: { approved: sandbox.askHuman(call.tool) } }, policy);
  return 'ask' in again ? { pass: false, reason: `approval for ${call.tool} was not answered`, missing: [] } : again;
}
