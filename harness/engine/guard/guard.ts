/**
 * The guard: enforces the class constraints at the sandbox boundary. A blocked
 * call never reaches the sandbox; the planner observes `blocked` with the
 * reason and the missing preconditions, and can go on. The attempt is still
 * recorded, so it counts as "reached for".
 *
 * @example
 * npm run eval -- --planner=eager --guard
 */
import type { CallEvent } from '../../core/record.ts';
import type { Call } from '../../core/planner.ts';
import type { BatchGate, Screened, Verdict } from '../runner/gate.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import { retriedFailure, walkAmbiguities, type OpenFailure, type RetryTool } from '../../domain/rules/retries.ts';
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
    blockedEvent(s, sandbox, at) {
      const a = sandbox.assess(s.call);
      const decl = sandbox.scenario.tools.find((t) => t.name === s.call.tool);
      const reason = s.verdict.pass ? 'blocked' : s.verdict.reason;
      return {
        type: 'call',
        step: at.step,
        turn: at.turn,
        batch: at.batch,
        pos: at.pos,
        batch_size: at.batchSize,
        t_ms: sandbox.nowMs,
        latency_ms: 0,
        tool: s.call.tool,
        args: s.call.args,
        class: a.class,
        read_only: decl?.read_only ?? false,
        kind: decl?.kind ?? 'action',
        preconditions: { held: a.held, missing: a.missing },
        establishes: a.establishes,
        status: 'blocked',
        http_status: null,
        applied: false,
        ambiguous: false,
        result: null,
        error: null,
        blocked_reason: reason,
        effect_id: null,
        effects: [],
        compensation: null,
      } satisfies CallEvent;
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

function judge(
  call: Call,
  batchSize: number,
  sandbox: Sandbox,
  open: readonly OpenFailure[],
  tools: ReadonlyMap<string, RetryTool>,
  policy: Policy,
): Verdict {
  const a = sandbox.assess(call);
  const rule = policy[a.class];
  if (rule === 'auto') return { pass: true };
  if (rule === 'block') return { pass: false, reason: `${a.class} calls are blocked by policy`, missing: a.missing };
  if (a.missing.length > 0)
    return { pass: false, reason: `missing preconditions: ${a.missing.join(', ')}`, missing: a.missing };
  if (batchSize > 1)
    return {
      pass: false,
      reason: `a ${a.class} call must be alone in its batch (this batch has ${batchSize} calls)`,
      missing: [],
    };
  const retried = retriedFailure({ ...call, class: a.class }, open, tools.get(call.tool));
  if (retried) {
    return {
      pass: false,
      reason: `unreconciled retry: the same call failed ambiguously at step ${retried.step} and nothing has reported on it since; call a reconciling tool first`,
      missing: [],
    };
  }
  // Asked last, so the human is only bothered about calls that are otherwise ready.
  if (rule === 'approval' && !sandbox.askHuman(call.tool))
    return { pass: false, reason: `approval for ${call.tool} was denied`, missing: [] };
  return { pass: true };
}
