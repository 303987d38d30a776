/**
 * The session planner: MCP tool calls in, planner decisions out.
 *
 * `runOne` drives a run by asking its planner for the next decision; here the
 * answer comes from the client. `next(view)` first hands the observation of
 * the previous call back to the client that made it (it is the last history
 * entry), then waits for the client's next tool call (a one-call batch) or
 * `finish`. Calls that arrive together queue up and run one by one, in
 * arrival order. Nothing a client sends can end the run loop by surprise:
 * the session layer refuses what the loop could not take (oversized
 * arguments); a call of an unknown tool or with arguments that violate the
 * schema comes here too, the run loop rejects and records it, and its
 * `rejected` observation answers the client.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { EndReason } from '../record/events.ts';
import type { Call, Decision, Planner, PlannerView } from '../planner/types.ts';
import type { PlannerHandle } from '../runner/run.ts';
import { errorResult, toToolResult } from './result.ts';

/** How a session ends from the client's side: cleanly (the run finishes) or not (the run ends with an error). */
export type SessionEnd = { ok: true; reason: string } | { ok: false; message: string };

/** What the run loop made of the run, once it is recorded. */
export interface RunEnd {
  end_reason: EndReason;
  error: string | null;
  record: string;
}

type Item =
  | { kind: 'call'; call: Call; answer(r: CallToolResult): void }
  | { kind: 'finish'; reason?: string; answer(r: CallToolResult): void };

export class RunChannel {
  readonly handle: PlannerHandle;
  private readonly queue: Item[] = [];
  private waiting: ((item: Item | undefined) => void) | undefined;
  /** The call runOne is executing; its observation arrives with the next view. */
  private current: Extract<Item, { kind: 'call' }> | undefined;
  private finishing: Extract<Item, { kind: 'finish' }> | undefined;
  private closing: SessionEnd | undefined;
  private over: RunEnd | undefined;
  private created = false;
  /** Set when a restart fault cut this session: why. */
  private cutWith: string | undefined;
  /** Told on the first call or finish a client sends (`npm run serve` starts the session's run then, at the latest). */
  onFirstUse: (() => void) | undefined;

  constructor(readonly name: string) {
    this.handle = { name, create: () => this.planner() };
  }

  /** True once the run is recorded. */
  get ended(): boolean {
    return this.over !== undefined;
  }

  /** Calls received and not yet answered. */
  get unanswered(): number {
    return this.queue.filter((i) => i.kind === 'call').length + (this.current ? 1 : 0);
  }

  /**
   * A client's tool call (well-formed; the run checks its tool and arguments): resolves with
   * what the tool replied, the rejection, or an error result when the run ended first.
   */
  call(call: Call): Promise<CallToolResult> {
    this.used();
    const refused = this.refusal();
    if (refused) return Promise.resolve(refused);
    return new Promise((answer) => this.push({ kind: 'call', call, answer }));
  }

  /** The client's `finish`: resolves once the run is recorded. */
  finish(reason?: string): Promise<CallToolResult> {
    this.used();
    const refused = this.refusal();
    if (refused) return Promise.resolve(refused);
    return new Promise((answer) => {
      const item: Item = { kind: 'finish', ...(reason ? { reason } : {}), answer };
      this.finishing = item;
      this.push(item);
    });
  }

  /**
   * The client went away (or the agent process exited): calls already
   * received still run, then the run ends, as a finish or with an error.
   */
  close(end: SessionEnd): void {
    if (this.over || this.closing) return;
    this.closing = end;
    if (this.waiting && this.queue.length === 0) this.wake(undefined);
  }

  /**
   * A restart fault cut this session: the call in flight (its effect happened) and anything queued
   * are answered with an error saying so, and later calls are refused; the run goes on in a new session.
   */
  cut(message: string): void {
    if (this.over || this.cutWith) return;
    this.cutWith = message;
    const r = errorResult(message, { 'oneway/restart': true });
    this.current?.answer(r);
    this.current = undefined;
    for (const item of this.queue.splice(0)) item.answer(r);
    this.finishing = undefined;
  }

  /** The run is recorded: everything still waiting is answered, and later calls are refused. */
  end(run: RunEnd): void {
    if (this.over) return;
    this.over = run;
    const done = this.endResult(run);
    const over = errorResult(`this run has ended (${describeEnd(run)}); open a new session for a new run`, { 'oneway/end_reason': run.end_reason });
    this.current?.answer(over);
    this.current = undefined;
    for (const item of this.queue.splice(0)) item.answer(item.kind === 'finish' ? done : over);
    this.finishing?.answer(done);
    this.finishing = undefined;
    // A next() still waiting belongs to a run loop that stopped asking (a decision timeout): let it go.
    this.wake(undefined);
  }

  private used(): void {
    const first = this.onFirstUse;
    this.onFirstUse = undefined;
    first?.();
  }

  private refusal(): CallToolResult | undefined {
    if (this.cutWith && !this.over) return errorResult(this.cutWith, { 'oneway/restart': true });
    if (this.over) return errorResult(`this run has ended (${describeEnd(this.over)}); open a new session for a new run`, { 'oneway/end_reason': this.over.end_reason });
    if (this.finishing) return errorResult('finish was called: this run takes no more calls');
    if (this.closing) return errorResult('this session is closing: the run takes no more calls');
    return undefined;
  }

  private endResult(run: RunEnd): CallToolResult {
    const text = `run ended (${describeEnd(run)}); recorded in ${run.record}`;
    const meta = { 'oneway/end_reason': run.end_reason, 'oneway/record': run.record };
    return run.error && run.end_reason !== 'finish' ? errorResult(text, meta) : { content: [{ type: 'text', text }], _meta: meta };
  }

  private push(item: Item): void {
    if (this.waiting && this.queue.length === 0) this.wake(item);
    else this.queue.push(item);
  }

  private wake(item: Item | undefined): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.(item);
  }

  private planner(): Planner {
    // One channel is one run: a second run on it would answer the wrong client.
    if (this.created) throw new Error('internal: a session channel serves exactly one run');
    this.created = true;
    return { name: this.name, next: (view) => this.next(view) };
  }

  private async next(view: PlannerView): Promise<Decision> {
    if (this.current) {
      const observation = view.history.at(-1)?.observations[0];
      this.current.answer(observation ? toToolResult(observation) : errorResult('internal: the call left no observation'));
      this.current = undefined;
    }
    const item = this.queue.shift() ?? (this.closing || this.over ? undefined : await new Promise<Item | undefined>((r) => (this.waiting = r)));
    if (item?.kind === 'call') {
      this.current = item;
      return { type: 'call', call: item.call };
    }
    if (item?.kind === 'finish') return { type: 'finish', ...(item.reason ? { reason: item.reason } : {}) };
    const end = this.closing ?? { ok: false, message: 'the session ended' };
    if (end.ok) return { type: 'finish', reason: end.reason };
    throw new Error(end.message);
  }
}

function describeEnd(run: RunEnd): string {
  return run.error ? `${run.end_reason}: ${run.error}` : run.end_reason;
}
