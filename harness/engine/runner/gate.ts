/**
 * The seam between planner and sandbox where a guard sits: it screens each
 * decision's calls; blocked calls never reach the sandbox but are recorded
 * (attempts still count as "reached for").
 */
import type { CallEvent } from '../../core/record.ts';
import type { Call } from '../../core/planner.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';

export type Verdict = { pass: true } | { pass: false; reason: string; missing: string[] };

export interface Screened {
  call: Call;
  verdict: Verdict;
}

export interface BatchGate {
  /** Judges each call of a decision; `past` holds the run's call events so far. */
  screen(calls: readonly Call[], sandbox: Sandbox, past: readonly CallEvent[]): Screened[];
  blockedEvent(
    s: Screened,
    sandbox: Sandbox,
    at: { turn: number; batch: number; step: number; pos: number; batchSize: number },
  ): CallEvent;
}
