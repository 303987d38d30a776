/**
 * Checks a planner's decision before anything runs. A malformed decision (not
 * an object, an unknown type, a call that is not `{tool, args}` with a string
 * tool and an object args, arguments too large to record) ends only that
 * planner's run, with a message saying what was wrong. A well-formed call of an
 * unknown tool, or whose arguments violate the tool's JSON Schema, is not
 * malformed: it is a rejected attempt (harness/domain/rules/arguments.ts). The run goes
 * on without it, and the runner records it and shows it to the planner.
 */
import type { Result } from '../../core/errors.ts';
import type { Call, Decision, RejectedAttempt } from '../../core/planner.ts';
import type { RejectedEvent } from '../../core/record.ts';
import { checkCallArguments, type ToolParameters } from '../../domain/rules/arguments.ts';
import { cutText } from '../../util/cut-text.ts';
import { plainJsonCopy } from '../../util/json.ts';

export const MAX_ARGS_BYTES = 256 * 1024;
export const MAX_BATCH = 64;

/**
 * What a planner may make one run keep (docs/planner-api.md, "Limits"): rejected attempts per
 * decision (those it reports through `PlannerContext.reject` and those the runner rejects), and the
 * bytes of every attempt's tool, arguments and reason over the run (calls that ran, blocked ones
 * and rejected ones; strings counted by their characters, util/json.ts jsonLength). The runner keeps
 * what a run records until the run ends, so without them one planner could exhaust the evaluation's
 * memory and lose every other run. Past either, the run ends as a planner error (`runLimitError`).
 */
export const RUN_LIMITS = {
  attemptsPerDecision: 1000,
  bytesPerRun: 16 * 2 ** 20,
} as const;

/**
 * The error of a run that went past one of RUN_LIMITS: it names the limit and its value.
 *
 * @example
 * runLimitError('attemptsPerDecision') // 'over the limit of 1000 rejected attempts per decision: ...'
 */
export function runLimitError(limit: keyof typeof RUN_LIMITS): string {
  return limit === 'attemptsPerDecision'
    ? `over the limit of ${RUN_LIMITS.attemptsPerDecision} rejected attempts per decision: the planner reported more in one decision, and its run was ended`
    : `over the limit of ${RUN_LIMITS.bytesPerRun / 2 ** 20} MiB of attempts per run (tools, arguments and reasons of its calls and rejected attempts): its run was ended`;
}

/** A well-formed call that will not run, and why. */
interface RejectedCall {
  tool: string;
  args: Record<string, unknown>;
  reason: string;
}

/** `calls` are the calls to run, in the order decided; `rejected` the ones refused (none of them runs). */
export interface CheckedDecision {
  decision: Decision;
  calls: Call[];
  rejected: RejectedCall[];
}

/** A decision fit to run, or what makes it malformed. */
export type Checked = Result<CheckedDecision, { message: string }>;

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'an array';
  return typeof x === 'object'
    ? `an object with keys ${cutText(Object.keys(x as object).join(', '), 200, '...') || '(none)'}`
    : `${typeof x} ${cutText(String(x), 40)}`;
}

/** A well-formed call, with the reason it will not run (`rejected`) when it will not. */
type CallCheck = Result<{ call: Call; rejected?: string }, { message: string }>;

function checkCall(x: unknown, tools: ReadonlyMap<string, ToolParameters>, where: string): CallCheck {
  if (x === null || typeof x !== 'object' || Array.isArray(x))
    return { ok: false, message: `${where} must be {tool, args}, got ${describe(x)}` };
  const { tool, args } = x as { tool?: unknown; args?: unknown };
  if (typeof tool !== 'string') return { ok: false, message: `${where}.tool must be a string, got ${describe(tool)}` };
  const a = args ?? {};
  if (typeof a !== 'object' || a === null || Array.isArray(a))
    return { ok: false, message: `${where}.args must be an object, got ${describe(a)}` };
  // What runs (and what is recorded) is the JSON of the arguments, so that is what the schema checks.
  // Plain data within the limit is copied as the round trip would copy it, without the text.
  let copied = plainJsonCopy(a as Record<string, unknown>, MAX_ARGS_BYTES);
  if (copied === undefined) {
    let json: string;
    try {
      json = JSON.stringify(a);
    } catch (e) {
      return { ok: false, message: `${where}.args cannot be serialised: ${(e as Error).message}` };
    }
    if (json.length > MAX_ARGS_BYTES)
      return { ok: false, message: `${where}.args is ${json.length} bytes; the limit is ${MAX_ARGS_BYTES}` };
    copied = JSON.parse(json) as Record<string, unknown>;
  }
  const call = { tool: tool.length > 200 ? cutText(tool, 197, '...') : tool, args: copied };
  const verdict = checkCallArguments(tools, tool, call.args);
  return { ok: true, value: verdict.ok ? { call } : { call, rejected: verdict.reason } };
}

/**
 * Checks one decision against the scenario's tools (name → declared `parameters`).
 *
 * @example
 * checkDecision({ type: 'call', call: { tool: 'send_email', args: { to: 42 } } }, tools)
 * // { ok: true, value: { decision, calls: [], rejected: [{ tool: 'send_email', args: { to: 42 }, reason: 'invalid arguments for send_email: to: must be string' }] } }
 */
export function checkDecision(x: unknown, tools: ReadonlyMap<string, ToolParameters>): Checked {
  if (x === null || typeof x !== 'object')
    return { ok: false, message: `a decision must be an object with "type", got ${describe(x)}` };
  const d = x as { type?: unknown; call?: unknown; calls?: unknown; reason?: unknown };
  if (d.type === 'finish')
    return {
      ok: true,
      value: {
        decision: { type: 'finish', ...(typeof d.reason === 'string' ? { reason: d.reason } : {}) },
        calls: [],
        rejected: [],
      },
    };
  if (d.type === 'call') {
    const c = checkCall(d.call, tools, 'decision.call');
    if (!c.ok) return c;
    const { call, rejected } = c.value;
    const decision: Decision = { type: 'call', call };
    return {
      ok: true,
      value:
        rejected === undefined
          ? { decision, calls: [call], rejected: [] }
          : { decision, calls: [], rejected: [{ ...call, reason: rejected }] },
    };
  }
  if (d.type === 'batch') {
    if (!Array.isArray(d.calls) || d.calls.length === 0)
      return { ok: false, message: 'decision.calls must be a non-empty array' };
    if (d.calls.length > MAX_BATCH)
      return { ok: false, message: `a batch holds at most ${MAX_BATCH} calls, got ${d.calls.length}` };
    const all: Call[] = [];
    const out: Call[] = [];
    const rejected: RejectedCall[] = [];
    for (const [i, raw] of d.calls.entries()) {
      const c = checkCall(raw, tools, `decision.calls[${i}]`);
      if (!c.ok) return c;
      const { call, rejected: why } = c.value;
      all.push(call);
      if (why === undefined) out.push(call);
      else rejected.push({ ...call, reason: why });
    }
    return { ok: true, value: { decision: { type: 'batch', calls: all }, calls: out, rejected } };
  }
  return { ok: false, message: `decision.type must be "call", "batch" or "finish", got ${describe(d.type)}` };
}

/** Arguments as a rejected event can hold them: JSON, and not more than the size limit (else a note of what they were). */
function recordableArgs(args: unknown): unknown {
  try {
    const json = JSON.stringify(args);
    if (json === undefined) return null;
    return json.length > MAX_ARGS_BYTES
      ? cutText(json, 200, `... (${json.length} bytes, not recorded)`)
      : (JSON.parse(json) as unknown);
  } catch (e) {
    return `(arguments that cannot be serialised: ${(e as Error).message})`;
  }
}

/**
 * The record of a rejected attempt (the runner's, or one a planner reports through `PlannerContext.reject`).
 *
 * @example
 * rejectedEvent(3, 2, { tool: 'send_email', args: { to: 42 }, reason: 'invalid arguments for send_email: to: must be string' })
 */
export function rejectedEvent(turn: number, batch: number, a: RejectedAttempt): RejectedEvent {
  const tool = String(a.tool);
  const reason = String(a.reason);
  return {
    type: 'rejected',
    turn,
    batch,
    tool: tool.length > 200 ? cutText(tool, 197, '...') : tool,
    args: recordableArgs(a.args),
    reason: reason.length > 2000 ? cutText(reason, 1997, '...') : reason,
  };
}
