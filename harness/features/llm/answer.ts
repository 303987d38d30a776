/**
 * What a model's answer means for the run. Tool calls the harness can run
 * become a decision; calls it cannot run (an unknown tool, arguments that are
 * not JSON or violate the tool's JSON Schema, by the rule every path uses:
 * harness/domain/rules/arguments.ts) are answered in the conversation with a
 * "rejected" tool message instead of ending the run, and carry what the
 * planner reports through `PlannerContext.reject` so the record has them; a
 * plain-text answer finishes; refusals and empty answers are unusable and get
 * a nudge.
 */
import type { Result } from '../../core/errors.ts';
import type { Call, RejectedAttempt, ToolView } from '../../core/planner.ts';
import { checkCallArguments } from '../../domain/rules/arguments.ts';
import type { AssistantMessage, FunctionToolCall } from './chat.ts';

/** One tool call of the answer: a call to issue, or the reply it already got (and, then, what to record as rejected). */
export interface Slot {
  id: string;
  call?: Call;
  reply?: string;
  rejected?: RejectedAttempt;
}

export type Answer =
  /** At least one call can be issued; `slots` also holds the rejected ones. */
  | { kind: 'calls'; slots: Slot[]; calls: Call[]; message: AssistantMessage }
  /** Tool calls, none of which can run. */
  | { kind: 'rejected'; slots: Slot[]; message: AssistantMessage; why: string }
  | { kind: 'text'; text: string; truncated: boolean }
  | { kind: 'refusal'; text: string }
  | { kind: 'empty'; why: string };

/** The tool message of a call that did not run. */
const rejection = (error: string): string => JSON.stringify({ status: 'rejected', error });

function parseArgs(raw: string): Result<unknown, { error: string }> {
  // Some servers send "" for a call without arguments.
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (e) {
    const shown = raw.length > 200 ? `${raw.slice(0, 197)}...` : raw;
    return { ok: false, error: `arguments are not valid JSON (${(e as Error).message}): ${shown}` };
  }
}

/** Arguments as the record keeps them: the JSON value, or the text when it was not JSON (cut to 2000 characters). */
function recordedArgs(raw: string, parsed: Result<unknown, object>): unknown {
  if (parsed.ok) return parsed.value;
  return raw.length > 2000 ? `${raw.slice(0, 1997)}...` : raw;
}

function rejectedSlot(id: string, tool: string, args: unknown, reason: string): Slot {
  return { id, reply: rejection(reason), rejected: { tool, args, reason } };
}

/** A tool call checked by the one rule every path uses (harness/domain/rules/arguments.ts). */
function slotOf(
  tc: FunctionToolCall | { id: string; type: 'custom'; custom: { name: string; input?: string } },
  id: string,
  tools: ReadonlyMap<string, ToolView>,
): Slot {
  if (tc.type !== 'function') {
    const reason = `unknown tool "${tc.custom.name.slice(0, 80)}": a custom tool call; the tools are functions: ${[...tools.keys()].join(', ')}`;
    return rejectedSlot(id, tc.custom.name, tc.custom.input ?? null, reason);
  }
  const name = tc.function.name;
  const raw = tc.function.arguments ?? '';
  const parsed = parseArgs(raw);
  if (tools.has(name) && !parsed.ok) return rejectedSlot(id, name, recordedArgs(raw, parsed), parsed.error);
  const args = recordedArgs(raw, parsed);
  const verdict = checkCallArguments(tools, name, args);
  if (!verdict.ok) return rejectedSlot(id, name, args, verdict.reason);
  return { id, call: { tool: name, args: args as Record<string, unknown> } };
}

/**
 * Interprets one answer. `freshId` names a tool call the server sent without an id.
 *
 * @example
 * interpret(choice.message, choice.finish_reason, view.tools, () => 'call_x').kind // 'calls'
 */
export function interpret(
  message: AssistantMessage | undefined,
  finishReason: string | undefined,
  tools: readonly ToolView[],
  freshId: () => string,
): Answer {
  if (!message) return { kind: 'empty', why: 'the answer held no message' };
  const toolCalls = message.tool_calls ?? [];
  if (toolCalls.length > 0) {
    const byName = new Map(tools.map((t) => [t.name, t]));
    const withIds = toolCalls.map((tc) => ({ ...tc, id: tc.id || freshId() }));
    const slots = withIds.map((tc) => slotOf(tc, tc.id, byName));
    const normalized: AssistantMessage = { ...message, tool_calls: withIds };
    const calls = slots.flatMap((s) => (s.call ? [s.call] : []));
    if (calls.length > 0) return { kind: 'calls', slots, calls, message: normalized };
    return { kind: 'rejected', slots, message: normalized, why: `no tool call could run (${slots.length} rejected)` };
  }
  if (message.refusal) return { kind: 'refusal', text: message.refusal };
  const text = (message.content ?? '').trim();
  if (text !== '') return { kind: 'text', text, truncated: finishReason === 'length' };
  return {
    kind: 'empty',
    why: finishReason === 'content_filter' ? 'the answer was withheld by a content filter' : 'the answer was empty',
  };
}
