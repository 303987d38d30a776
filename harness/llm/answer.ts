/**
 * What a model's answer means for the run. Tool calls the harness can run
 * become a decision; calls it cannot run (an unknown tool, arguments that are
 * not JSON or do not fit the schema) are answered in the conversation with a
 * "rejected" tool message instead of ending the run; a plain-text answer
 * finishes; refusals and empty answers are unusable and get a nudge.
 */
import { suggest } from '../loader/did-you-mean.ts';
import type { Call, ToolView } from '../planner/types.ts';
import type { AssistantMessage, FunctionToolCall } from './chat.ts';
import { checkArgs } from './tools.ts';

/** One tool call of the answer: a call to issue, or the reply it already got. */
export interface Slot {
  id: string;
  call?: Call;
  reply?: string;
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
export const rejection = (error: string): string => JSON.stringify({ status: 'rejected', error });

function parseArgs(raw: string): { ok: true; value: unknown } | { ok: false; error: string } {
  // Some servers send "" for a call without arguments.
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (e) {
    const shown = raw.length > 200 ? `${raw.slice(0, 197)}...` : raw;
    return { ok: false, error: `arguments are not valid JSON (${(e as Error).message}): ${shown}` };
  }
}

function slotOf(tc: FunctionToolCall | { id: string; type: 'custom'; custom: { name: string } }, id: string, tools: ReadonlyMap<string, ToolView>): Slot {
  const name = tc.type === 'function' ? tc.function.name : tc.custom.name;
  const tool = tc.type === 'function' ? tools.get(name) : undefined;
  if (!tool) {
    const s = suggest(name, tools.keys());
    return { id, reply: rejection(`unknown tool "${name}"${s ? ` (did you mean "${s}"?)` : ''}; the tools are: ${[...tools.keys()].join(', ')}`) };
  }
  const parsed = parseArgs((tc as FunctionToolCall).function.arguments);
  if (!parsed.ok) return { id, reply: rejection(parsed.error) };
  const problems = checkArgs(tool, parsed.value);
  if (problems.length) return { id, reply: rejection(`invalid arguments for ${name}: ${problems.join('; ')}`) };
  return { id, call: { tool: name, args: parsed.value as Record<string, unknown> } };
}

/**
 * Interprets one answer. `freshId` names a tool call the server sent without an id.
 *
 * @example
 * interpret(choice.message, choice.finish_reason, view.tools, () => 'call_x').kind // 'calls'
 */
export function interpret(message: AssistantMessage | undefined, finishReason: string | undefined, tools: readonly ToolView[], freshId: () => string): Answer {
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
  return { kind: 'empty', why: finishReason === 'content_filter' ? 'the answer was withheld by a content filter' : 'the answer was empty' };
}
