/**
 * The conversation of one run. The harness hands the planner its history as
 * observations; the conversation turns the new ones into `{role: 'tool',
 * tool_call_id, content}` messages for the tool calls the model made, in the
 * order the model made them (a guard may report blocked calls after the ones
 * that ran, so observations are matched by tool and arguments, not position).
 */
import type { HistoryEntry, Observation } from '../../core/planner.ts';
import { sameValue } from '../../util/json.ts';
import type { Slot } from './answer.ts';
import type { AssistantMessage, MessageParam } from './chat.ts';

/**
 * The tool message content of an observation: what the model learns of the call.
 *
 * @example
 * observationContent({ step: 1, tool: 'send_email', args: {}, status: 'error', http_status: 504, error: 'timeout' })
 * // '{"status":"error","http_status":504,"error":"timeout"}'
 */
function observationContent(o: Observation): string {
  if (o.status === 'ok')
    return JSON.stringify({ status: 'ok', http_status: o.http_status ?? 200, result: o.result ?? null });
  if (o.status === 'error')
    return JSON.stringify({ status: 'error', http_status: o.http_status ?? null, error: o.error ?? 'error' });
  // The runner rejected it (as answer.ts rejects what it sees first): the same message as `rejection()`.
  if (o.status === 'rejected') return JSON.stringify({ status: 'rejected', error: o.reason ?? 'rejected' });
  return JSON.stringify({ status: 'blocked', reason: o.reason ?? 'blocked', missing: o.missing ?? [] });
}

const NO_OBSERVATION = JSON.stringify({ status: 'error', error: 'no observation was recorded for this call' });

/**
 * Messages so far, and the tool calls still waiting for their observations.
 *
 * @example
 * const conv = new Conversation(system, task);
 * conv.assistant(message); conv.expect(slots);   // the model asked for calls
 * conv.absorb(view.history);                     // next turn: their results become tool messages
 */
export class Conversation {
  readonly messages: MessageParam[];
  private open: Slot[] = [];
  private absorbed = 0;

  constructor(system: string, task: string) {
    this.messages = [
      { role: 'system', content: system },
      { role: 'user', content: task },
    ];
  }

  /** Adds the model's message as it will be sent back (tool calls with their ids). */
  assistant(m: AssistantMessage): void {
    this.messages.push({
      role: 'assistant',
      content: m.content ?? null,
      ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}),
    });
  }

  /** A refusal goes back as what the assistant said, so the model sees its own answer. */
  refusal(text: string): void {
    this.messages.push({ role: 'assistant', content: text });
  }

  nudge(text: string): void {
    this.messages.push({ role: 'user', content: text });
  }

  /** Slots whose calls the harness is about to run; the rejected ones already hold their reply. */
  expect(slots: readonly Slot[]): void {
    this.open = slots.map((s) => ({ ...s }));
  }

  /** Answers every slot now (none of them ran). */
  replyAll(slots: readonly Slot[]): void {
    this.expect(slots);
    this.flush();
  }

  /** Turns the history entries not seen yet into tool messages for the open slots. */
  absorb(history: readonly HistoryEntry[]): void {
    for (const entry of history.slice(this.absorbed)) {
      for (const o of entry.observations) {
        const slot = this.open.find(
          (s) => s.call && s.reply === undefined && s.call.tool === o.tool && sameValue(s.call.args, o.args),
        );
        if (slot) slot.reply = observationContent(o);
      }
    }
    this.absorbed = history.length;
    if (this.open.length) this.flush();
  }

  private flush(): void {
    for (const s of this.open)
      this.messages.push({ role: 'tool', tool_call_id: s.id, content: s.reply ?? NO_OBSERVATION });
    this.open = [];
  }
}
