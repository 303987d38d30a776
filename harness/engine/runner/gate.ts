/**
 * The seam between planner and sandbox where a guard sits: it screens each
 * decision's calls; blocked calls never reach the sandbox but are recorded
 * (attempts still count as "reached for").
 */
import { blockedOutcome, type CallEvent } from '../../core/record.ts';
import type { Call } from '../../core/planner.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';

export type Verdict = { pass: true } | { pass: false; reason: string; missing: string[] };

export interface Screened {
  call: Call;
  verdict: Verdict;
}

export interface BatchGate {
  /**
   * Completes a decision before its calls are checked against their schemas (the guard fills a
   * declared idempotency key a call left out, as `oneway guard` does before its own check). Gets the
   * planner's decision as it came, unchecked; returns it, or a copy with calls completed.
   */
  complete?(decision: unknown, sandbox: Sandbox, past: readonly CallEvent[]): unknown;
  /** Judges each call of a decision; `past` holds the run's call events so far. */
  screen(calls: readonly Call[], sandbox: Sandbox, past: readonly CallEvent[]): Screened[];
}

/** Where a blocked attempt sits in the record: its turn and batch, its step number, its place in the batch. */
export interface BlockedAt {
  turn: number;
  batch: number;
  step: number;
  pos: number;
  batchSize: number;
}

/**
 * The record of a call that never reached the sandbox (a guard refused it, or the planner's own
 * human denied it): assessed against the world as it stands, nothing applied, `reason` as its
 * `blocked_reason`. The one place a blocked call event is built.
 */
export function blockedEvent(call: Call, reason: string, sandbox: Sandbox, at: BlockedAt): CallEvent {
  const a = sandbox.assess(call);
  const decl = sandbox.scenario.tools.find((t) => t.name === call.tool);
  return {
    type: 'call',
    step: at.step,
    turn: at.turn,
    batch: at.batch,
    pos: at.pos,
    batch_size: at.batchSize,
    t_ms: sandbox.nowMs,
    latency_ms: 0,
    tool: call.tool,
    args: call.args,
    class: a.class,
    read_only: decl?.read_only ?? false,
    kind: decl?.kind ?? 'action',
    preconditions: { held: a.held, missing: a.missing },
    establishes: a.establishes,
    ...blockedOutcome(reason),
  };
}
