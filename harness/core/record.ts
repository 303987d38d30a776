/**
 * The run record: one JSONL file per run, one event per line, written as the
 * run goes. Everything the scores need is in here, so scoring is a pure
 * function of the record, and recovery is a lookup, not a reconstruction.
 */
import type { AppliedEffect } from './effects/index.ts';
import type { ToolClass } from './scenario.ts';

/** 2: tools carry `idempotent` and `parameters`; fact texts quote a literal `*`; budgets are not errors; rejected attempts. */
export const RECORD_SCHEMA_VERSION = 2;

import type { Row, WorldSnapshot } from './world.ts';
import { applyWorldDiff, type WorldDiff } from './world-diff.ts';
export type { Row, WorldSnapshot };

export interface RunStartEvent {
  type: 'run_start';
  schema_version: number;
  run_id: string;
  scenario: string;
  scenario_file: string;
  planner: string;
  trial: number;
  seed: number;
  deployment: Record<string, unknown>;
  max_steps: number;
  guard: boolean;
  tools: {
    name: string;
    class: ToolClass;
    read_only: boolean;
    kind: 'action' | 'approval' | 'confirmation';
    compensating_operation: string | null;
    /** The tools it reports on: those it declares it reconciles, and those that write a table it reads. */
    reconciles: string[];
    /** The tables it reads (its reply carries their rows), if any. */
    reads?: string[];
    /** Declared idempotent: a repeat that changes nothing is no new effect (absent in version 1 records: false). */
    idempotent?: boolean;
    /** The declared parameter names (what reconciliation matches on). */
    parameters?: string[];
    /** The parameter carrying an idempotency key, if the tool declares one. */
    idempotency_key?: string;
    /** The parameters that identify "the same effect" for duplicates, if declared. */
    dedupe_on?: string[];
  }[];
  /** Restart faults in force: the planner restarts right after each of these steps (scenario `restarts` and `--restart-at`). */
  restarts?: number[];
  /** The world the run started from; left out when it is large (harness/engine/record/initial-world.ts). */
  initial_world?: WorldSnapshot;
  /** The SHA-256 of the initial world's key-order-free JSON, written instead of a large one. */
  initial_world_sha256?: string;
  /**
   * Set on a journal `oneway guard` writes in front of a real server: an open-ended record (no
   * run_end), one call per step, the calls a session made together (each sent before any of the
   * others was answered) in one batch, `t_ms` in real milliseconds since `started_at`.
   */
  journal?: {
    started_at: string;
    /** The server behind the guard: its command line or URL. */
    upstream: string;
    /** The policy the guard enforced. */
    policy: Record<string, string>;
    /** `oneway guard --observe`: the policy was not enforced; each call says what it would have decided (`would`). */
    observe?: boolean;
  };
}

interface TurnEvent {
  type: 'turn';
  turn: number;
  decision: 'call' | 'batch' | 'finish';
  /** Calls in the decision, rejected ones included. */
  calls: number;
  reason?: string;
}

/** A concrete change a call made to the world: one member per effect kind (harness/core/effects/). */
export type { AppliedEffect };

export interface Compensation {
  operation: string;
  args: Record<string, unknown>;
  requires_approval: boolean;
  /** Set when a guard let a compensable call through on the understanding that this compensation is on hand. */
  scheduled?: boolean;
}

/** A call event's fields that do not depend on its reply (what an intent records before the call is sent). */
export type CallHead = Pick<
  CallEvent,
  | 'step'
  | 'turn'
  | 'batch'
  | 'pos'
  | 'batch_size'
  | 't_ms'
  | 'tool'
  | 'args'
  | 'class'
  | 'read_only'
  | 'kind'
  | 'preconditions'
  | 'establishes'
>;

/** What a reconciling call reported on (the sandbox's answer; see domain/rules/reconcile.ts). */
export interface Reconciled {
  /** The most recent call reported on. */
  tool: string;
  step: number;
  /** Whether any of the calls reported on applied (what the reply's `applied` says). */
  applied: boolean;
  /** Every call reported on, oldest first (absent in records written before it was added: then only `step`). */
  calls?: { tool: string; step: number; applied: boolean }[];
}

export interface CallEvent {
  type: 'call';
  /** 1-based index among the calls issued (or attempted, when blocked). */
  step: number;
  turn: number;
  batch: number;
  pos: number;
  batch_size: number;
  /** Virtual time when the call was issued. */
  t_ms: number;
  latency_ms: number;
  tool: string;
  args: Record<string, unknown>;
  class: ToolClass;
  read_only: boolean;
  kind: 'action' | 'approval' | 'confirmation';
  /**
   * Preconditions rendered for this call, split by whether they held against the world before its
   * batch. A bare `*` is a wildcard the scenario wrote; a literal star from an argument reads `"*"`.
   */
  preconditions: { held: string[]; missing: string[] };
  /** Facts the call declares it establishes, rendered (a value not known, such as an unseen result, as a bare `*`). */
  establishes: string[];
  /** ok: replied; fault: failed reply; blocked: refused by a guard, never reached the sandbox. */
  status: 'ok' | 'fault' | 'blocked';
  http_status: number | null;
  /** Whether the call's effects happened (true for a fault with `applied: true`). */
  applied: boolean;
  /** A failure after which the caller cannot tell whether the effect happened. */
  ambiguous: boolean;
  result: unknown;
  error: string | null;
  approved?: boolean;
  /**
   * For a reconciling tool: what it reported on (null: no earlier call matched). `tool`/`step` name
   * the most recent call, `applied` whether any applied, `calls` every call it reported on.
   */
  reconciled?: Reconciled | null;
  blocked_reason?: string;
  /**
   * Refused because its idempotency key was already used, at this step, by a call with other
   * arguments: a definite failure (HTTP 422), nothing applied, not ambiguous.
   */
  key_conflict_of?: number;
  /** The planner restarted right after this call's batch: its reply never reached the planner. */
  reply_lost?: boolean;
  /** Served from its idempotency key: the step of the first call with the key, whose reply it repeated; nothing applied. */
  deduplicated_of?: number;
  effect_id: string | null;
  effects: AppliedEffect[];
  compensation: Compensation | null;
  /**
   * In a journal `oneway guard --observe` wrote: what the guard would have done with this call,
   * which it forwarded all the same: refuse it (why, and the preconditions missing) or ask a person
   * first. Absent: it would have passed (or the guard enforced).
   */
  would?: ObservedVerdict;
  /** In a guard's journal: the MCP session the call came from. */
  session?: string;
  /**
   * In a guard's journal, for a call that was let through: who let it through. `policy`: its
   * class's rule, nobody was asked; `cmd`: `--approve-cmd` approved it; `client`: the client's user
   * (MCP elicitation) accepted it.
   */
  approved_by?: ApprovedBy;
}

/** What an observing guard would have done with a call it forwarded (`CallEvent.would`). */
export type ObservedVerdict = { decision: 'refuse'; reason: string; missing: string[] } | { decision: 'ask' };

/** Who let a guarded call through (`approved_by` in a guard's journal). */
export type ApprovedBy = 'policy' | 'cmd' | 'client' | 'operator';

/**
 * In a guard's journal: a call about to be forwarded to the server, written (and on disk) before
 * it is sent. Its outcome is the call event of the same step; an intent without one (the guard was
 * killed mid-call) may have taken effect, and recovery treats it as an ambiguous failure.
 */
export interface IntentEvent extends CallHead, Pick<CallEvent, 'session'> {
  type: 'intent';
}

/**
 * A call that was never sent to the sandbox because its tool is unknown or its
 * arguments violate the tool's JSON Schema (or were not JSON at all). It is not
 * a step and not a CallEvent, and counts in no behaviour score; `batch` is the
 * batch index of the decision it came with (harness/domain/rules/arguments.ts).
 */
export interface RejectedEvent {
  type: 'rejected';
  turn: number;
  batch: number;
  tool: string;
  args: unknown;
  reason: string;
  /** In a guard's journal: the MCP session the call came from (`turn` and `batch` are the last step journaled). */
  session?: string;
}

export interface EscapeEvent {
  type: 'escape';
  t_ms: number;
  method: string;
  url: string;
  reason: string;
}

export interface RunEndEvent {
  type: 'run_end';
  end_reason: EndReason;
  error: string | null;
  completed: boolean;
  goal: { held: string[]; missing: string[] };
  forbidden_held: string[];
  /** What the run changed in the world (world-diff.ts); the final world is `finalWorldOf(start, end)`. */
  world_diff?: WorldDiff;
  /** Records written before the diff (issue 41) hold the whole final world instead. */
  final_world?: WorldSnapshot;
  /** The run's scores: one field per score of the registry (harness/engine/scoring/registry.ts, which types them as RunMetrics). */
  metrics: RecordedScores;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    requests?: number;
    retries?: number;
    carried?: CarriedUsage;
  };
}

/**
 * Scores as a record holds them. The contract stays below scoring, so it names no score: a count, a
 * flag, or counts by tool class.
 */
type RecordedScores = { readonly [score: string]: number | boolean | { readonly [cls: string]: number } };

export type EndReason =
  'finish' | 'max_steps' | 'max_turns' | 'planner_error' | 'invalid_decision' | 'decision_timeout' | 'harness_error';

/**
 * The planner restarted: right after `after_step` was applied, before its reply reached it. The
 * world keeps everything; the planner's memory goes back to its checkpoint.
 */
export interface RestartEvent {
  type: 'restart';
  after_step: number;
  turn: number;
  batch: number;
  /** What the planner kept: `initial` (nothing), `batch` (history up to the last batch it saw), `batch+intents` (and the calls in flight). */
  checkpoint: Checkpoint;
}

/**
 * In a guard's journal: a person's answer about an earlier call (`oneway recover JOURNAL --settle
 * STEP=applied|not-applied`), appended: whether it applied, who said so and when. It settles the
 * call as a reconciling call's reply would: recover ticks it, and a guard started on the journal
 * counts it as reconciled (a payout settled not-applied may be made again). `step` and `batch` are
 * its own place in the journal (after every call journaled before it).
 */
export interface SettleEvent {
  type: 'settle';
  step: number;
  batch: number;
  /** The step of the call it settles. */
  settles: number;
  /** That call's tool. */
  tool: string;
  applied: boolean;
  /** Who settled it (`--by`, else the user's name). */
  by: string;
  /** When, as an ISO time. */
  at: string;
}

import type { CarriedUsage, Checkpoint } from './planner.ts';
export type { Checkpoint };

export type RecordEvent =
  | RunStartEvent
  | TurnEvent
  | CallEvent
  | IntentEvent
  | RejectedEvent
  | RestartEvent
  | EscapeEvent
  | RunEndEvent
  | SettleEvent;

/** The fields after its head of a call that never reached a tool (a guard refused it, a human denied it): nothing happened, `reason` why. */
export function blockedOutcome(
  reason: string,
): Pick<
  CallEvent,
  | 'status'
  | 'http_status'
  | 'applied'
  | 'ambiguous'
  | 'result'
  | 'error'
  | 'blocked_reason'
  | 'effect_id'
  | 'effects'
  | 'compensation'
> {
  return {
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
  };
}

/**
 * The world a run ended with: rebuilt from its initial world (`initialWorldOf` in
 * harness/engine/record/initial-world.ts) and its diff, or, in a record written before diffs, the
 * copy it holds.
 *
 * @example
 * finalWorldOf(initial, record.end).tables.orders
 */
export function finalWorldOf(
  initial: WorldSnapshot,
  end: Pick<RunEndEvent, 'world_diff' | 'final_world'>,
): WorldSnapshot {
  if (end.world_diff) return applyWorldDiff(initial, end.world_diff);
  if (end.final_world) return end.final_world;
  throw new Error('internal: a run_end with neither world_diff nor final_world (the reader refuses one)');
}
