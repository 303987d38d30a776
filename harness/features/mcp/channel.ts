/**
 * The session planner: MCP tool calls in, planner decisions out.
 *
 * `runOne` drives a run by asking its planner for the next decision; here the
 * answer comes from the client. `next(view)` first hands the observation of
 * the previous call back to the client that made it (it is the last history
 * entry), then waits for the client's next tool calls or `finish`.
 *
 * Parallel calls are one batch, by oneway's rule (docs/agents.md): calls issued before any
 * sibling's result was delivered are one batch. When a call arrives (or is
 * waiting) and the run loop asks for a decision, the channel waits a short
 * collection window of real time (`batchWindowMs`, default
 * DEFAULT_BATCH_WINDOW_MS; `--batch-window=MS`) for more calls: every call
 * that arrived by then, while no result of them was delivered, is one batch
 * decision (up to MAX_BATCH calls; a `finish` closes the batch). The runner
 * runs a batch in its canonical order, so the record is the same for the same
 * set of calls whatever order they arrived in. Each client request is answered
 * with its own observation. A client that awaits each result before its next
 * call makes one-call batches. `batchWindowMs: 0` turns batching off: every
 * call is a one-call batch, in arrival order. Nothing a client sends can end the run loop by surprise:
 * the session layer refuses what the loop could not take (oversized
 * arguments); a call of an unknown tool or with arguments that violate the
 * schema comes here too, the run loop rejects and records it, and its
 * `rejected` observation answers the client.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Result } from '../../core/errors.ts';
import type { EndReason } from '../../core/record.ts';
import type { Call, Decision, Observation, Planner, PlannerView } from '../../core/planner.ts';
import type { PlannerHandle } from '../../engine/runner/run.ts';
import { MAX_BATCH } from '../../engine/runner/decision.ts';
import { callKey } from '../../domain/rules/same-call.ts';
import { errorResult, toToolResult } from './result.ts';

/** Real time the channel waits, after a call arrives, for sibling calls of the same batch. */
export const DEFAULT_BATCH_WINDOW_MS = 20;

export interface ChannelOptions {
  /** The collection window for parallel calls, in ms of real time; 0 makes every call a one-call batch. */
  batchWindowMs?: number;
}

/**
 * How a session ends from the client's side: cleanly (the run finishes, `value` its reason) or not
 * (the run ends with the error `message`).
 */
export type SessionEnd = Result<string, { message: string }>;

/** What the run loop made of the run, once it is recorded. */
export interface RunEnd {
  end_reason: EndReason;
  error: string | null;
  record: string;
}

type Item =
  | { kind: 'call'; call: Call; answer(r: CallToolResult): void }
  | { kind: 'finish'; reason?: string; answer(r: CallToolResult): void };
type CallItem = Extract<Item, { kind: 'call' }>;

/** The `blocked_reason` of a call the framework's human denied. */
export const DENIED_BY_HUMAN = 'denied by the human (framework approval)';

/** A framework's approval step for `call`, asked through the scenario's approval tool (`ask`). */
interface ApprovalItem {
  call: Call;
  ask: Call;
  answer(r: CallToolResult): void;
}

function approvalResult(item: ApprovalItem, approved: boolean, observation: Observation | undefined): CallToolResult {
  const body = {
    approved,
    tool: item.call.tool,
    asked: item.ask.tool,
    ...(observation?.step ? { step: observation.step } : {}),
  };
  const text = approved
    ? `approved: the human signed off ${item.call.tool}; call it now`
    : `denied: the human did not sign off ${item.call.tool}; the attempt is recorded as blocked (${DENIED_BY_HUMAN})`;
  return {
    content: [{ type: 'text', text }],
    structuredContent: body,
    _meta: { 'oneway/status': 'ok', 'oneway/approved': approved },
  };
}

export class RunChannel {
  readonly handle: PlannerHandle;
  private readonly queue: Item[] = [];
  private waiting: ((item: Item | undefined) => void) | undefined;
  /** The calls of the batch runOne is executing (or collecting); their observations arrive with the next view. */
  private current: CallItem[] = [];
  private readonly batchWindowMs: number;
  private finishing: Extract<Item, { kind: 'finish' }> | undefined;
  /** Framework approvals: queued, being asked (the approval tool's call runs), being recorded as denied. */
  private readonly approvals: ApprovalItem[] = [];
  private approving: ApprovalItem | undefined;
  private denying: ApprovalItem | undefined;
  private deny: ((call: Call, reason: string) => void) | undefined;
  private closing: SessionEnd | undefined;
  private over: RunEnd | undefined;
  private created = false;
  /** The model usage the client reported (with finish); undefined: unknown. */
  private usage: ReturnType<NonNullable<Planner['usage']>> | undefined;
  /** Set when a restart fault cut this session: why. */
  private cutWith: string | undefined;
  /** Told on the first call or finish a client sends (`npm run serve` starts the session's run then, at the latest). */
  onFirstUse: (() => void) | undefined;

  constructor(
    readonly name: string,
    opts: ChannelOptions = {},
  ) {
    this.batchWindowMs = Math.max(0, opts.batchWindowMs ?? DEFAULT_BATCH_WINDOW_MS);
    this.handle = { name, create: (ctx) => this.planner(ctx.deny) };
  }

  /** True once the run is recorded. */
  get ended(): boolean {
    return this.over !== undefined;
  }

  /** Calls received and not yet answered. */
  get unanswered(): number {
    return (
      this.queue.filter((i) => i.kind === 'call').length +
      this.current.length +
      this.approvals.length +
      (this.approving ? 1 : 0) +
      (this.denying ? 1 : 0)
    );
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

  /**
   * A framework's approval step before `call`: `ask` (a call of the scenario's approval tool) runs as
   * its own one-call batch, answered by the scenario's `approvals:`; when the human does not approve,
   * `call` is recorded as a blocked attempt (DENIED_BY_HUMAN). Resolves with `{approved}`.
   */
  approve(call: Call, ask: Call): Promise<CallToolResult> {
    this.used();
    const refused = this.refusal();
    if (refused) return Promise.resolve(refused);
    return new Promise((answer) => {
      this.approvals.push({ call, ask, answer });
      if (this.waiting && this.queue.length === 0) this.wake(undefined);
    });
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
    for (const item of this.current.splice(0)) item.answer(r);
    for (const item of this.queue.splice(0)) item.answer(r);
    this.answerApprovals(r);
    this.finishing = undefined;
  }

  /** The client's own account of its model usage (tokens, cost), kept for the run's record. */
  reportUsage(usage: ReturnType<NonNullable<Planner['usage']>> | undefined): void {
    if (usage) this.usage = usage;
  }

  /** The run is recorded: everything still waiting is answered, and later calls are refused. */
  end(run: RunEnd): void {
    if (this.over) return;
    this.over = run;
    const done = this.endResult(run);
    const over = errorResult(`this run has ended (${describeEnd(run)}); open a new session for a new run`, {
      'oneway/end_reason': run.end_reason,
    });
    for (const item of this.current.splice(0)) item.answer(over);
    this.answerApprovals(over);
    for (const item of this.queue.splice(0)) item.answer(item.kind === 'finish' ? done : over);
    this.finishing?.answer(done);
    this.finishing = undefined;
    // A next() still waiting belongs to a run loop that stopped asking (a decision timeout): let it go.
    this.wake(undefined);
  }

  private answerApprovals(r: CallToolResult): void {
    for (const item of [this.approving, this.denying, ...this.approvals.splice(0)]) item?.answer(r);
    this.approving = undefined;
    this.denying = undefined;
  }

  private used(): void {
    const first = this.onFirstUse;
    this.onFirstUse = undefined;
    first?.();
  }

  private refusal(): CallToolResult | undefined {
    if (this.cutWith && !this.over) return errorResult(this.cutWith, { 'oneway/restart': true });
    if (this.over)
      return errorResult(`this run has ended (${describeEnd(this.over)}); open a new session for a new run`, {
        'oneway/end_reason': this.over.end_reason,
      });
    if (this.finishing) return errorResult('finish was called: this run takes no more calls');
    if (this.closing) return errorResult('this session is closing: the run takes no more calls');
    return undefined;
  }

  private endResult(run: RunEnd): CallToolResult {
    const text = `run ended (${describeEnd(run)}); recorded in ${run.record}`;
    const meta = { 'oneway/end_reason': run.end_reason, 'oneway/record': run.record };
    return run.error && run.end_reason !== 'finish'
      ? errorResult(text, meta)
      : { content: [{ type: 'text', text }], _meta: meta };
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

  private planner(deny?: (call: Call, reason: string) => void): Planner {
    this.deny = deny;
    // One channel is one run: a second run on it would answer the wrong client.
    if (this.created) throw new Error('internal: a session channel serves exactly one run');
    this.created = true;
    return { name: this.name, next: (view) => this.next(view), usage: () => this.usage };
  }

  private async next(view: PlannerView): Promise<Decision> {
    if (this.current.length > 0) {
      // The batch ran in canonical order (then its rejected calls): each caller gets the observation of its own call.
      // Matched by tool and arguments; a call whose arguments the run recorded otherwise takes a left-over observation of its tool.
      const left = [...(view.history.at(-1)?.observations ?? [])];
      const keys = left.map((o) => callKey(o));
      const items = this.current.splice(0);
      const matched = items.map((item) => {
        const i = keys.indexOf(callKey(item.call));
        if (i < 0) return undefined;
        keys.splice(i, 1);
        return left.splice(i, 1)[0];
      });
      items.forEach((item, n) => {
        let observation = matched[n];
        if (!observation) {
          const i = left.findIndex((o) => o.tool === item.call.tool);
          observation = i >= 0 ? left.splice(i, 1)[0] : undefined;
        }
        item.answer(observation ? toToolResult(observation) : errorResult('internal: the call left no observation'));
      });
    }
    if (this.approving) {
      const item = this.approving;
      this.approving = undefined;
      const observation = view.history.at(-1)?.observations[0];
      const approved =
        observation?.status === 'ok' && (observation.result as { approved?: unknown } | undefined)?.approved === true;
      if (approved || !this.deny) item.answer(approvalResult(item, approved, observation));
      else {
        // Not signed off: the call the framework held back is an attempt all the same, recorded as blocked.
        this.deny(item.call, DENIED_BY_HUMAN);
        this.denying = item;
        return { type: 'call', call: item.call };
      }
    }
    if (this.denying) {
      const item = this.denying;
      this.denying = undefined;
      item.answer(approvalResult(item, false, view.history.at(-1)?.observations[0]));
    }
    // An approval asked before the next call goes first, alone.
    const approval = this.approvals.shift();
    if (approval) {
      this.approving = approval;
      return { type: 'call', call: approval.ask };
    }
    let item = this.queue.shift();
    while (!item && !this.closing && !this.over) {
      item = await new Promise<Item | undefined>((r) => (this.waiting = r));
      const asked = this.approvals.shift();
      if (asked) {
        if (item) this.queue.unshift(item);
        this.approving = asked;
        return { type: 'call', call: asked.ask };
      }
      if (!item && !this.closing && !this.over) continue;
      break;
    }
    if (item?.kind === 'call') {
      this.current = [item];
      if (this.batchWindowMs > 0) {
        // Siblings: calls that arrive within the window, before any result of this batch is delivered.
        await new Promise((r) => setTimeout(r, this.batchWindowMs));
        while (this.queue[0]?.kind === 'call' && this.current.length < MAX_BATCH)
          this.current.push(this.queue.shift() as CallItem);
        // The run ended or was cut while collecting: its calls are answered already.
        if (this.current.length === 0) return { type: 'finish' };
      }
      const calls = this.current.map((c) => c.call);
      return calls.length === 1 ? { type: 'call', call: calls[0] as Call } : { type: 'batch', calls };
    }
    if (item?.kind === 'finish') return { type: 'finish', ...(item.reason ? { reason: item.reason } : {}) };
    const end = this.closing ?? { ok: false, message: 'the session ended' };
    if (end.ok) return { type: 'finish', reason: end.value };
    throw new Error(end.message);
  }
}

function describeEnd(run: RunEnd): string {
  return run.error ? `${run.end_reason}: ${run.error}` : run.end_reason;
}
