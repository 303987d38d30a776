/**
 * The planner API: what a planner sees (the view), what it decides, and what it
 * observes. This is the whole surface a planner author needs; import it from
 * `oneway` (harness/index.ts) or from this file.
 *
 * The view never holds the facts the run established: those are the harness's
 * ground truth. After a 504 whose effect was applied, the world knows the
 * email went out; the planner only sees a failure.
 */
import type { PlanItem, ToolClass } from './scenario.ts';

export type { ToolClass };

/** A tool as the planner sees it: its declaration, with the effective class for this deployment. */
export interface ToolView {
  name: string;
  description: string;
  kind: 'action' | 'approval' | 'confirmation';
  /** The effective class for this run's deployment. */
  class: ToolClass;
  read_only: boolean;
  /** JSON Schema of the arguments. */
  parameters: { type: 'object'; properties: Record<string, Record<string, unknown>>; required: string[] };
  /** Fact templates that must hold when the call is issued; `{{inputs.*}}` and `{{deployment.*}}` already rendered. */
  preconditions: string[];
  /** Fact templates the call establishes when it succeeds (over `{{args.*}}` and `{{result.*}}`). */
  establishes: string[];
  /** Fact templates the call revokes when it succeeds. */
  revokes: string[];
  compensating_operation: string | null;
  compensation_requires_approval: boolean;
  /** Arguments of the compensating call, templates over `{{args.*}}` and `{{result.*}}`. */
  compensation_args: Record<string, unknown> | null;
  /**
   * Tools whose earlier calls this tool reports on (every call its arguments match: `applied` whether
   * any applied, `reported` which did): those it declares it reconciles, and those whose effects write
   * a table it `reads`.
   */
  reconciles: string[];
  /** Tables this read-only tool shows: its reply carries, under each table's name, the rows that agree with its arguments. */
  reads?: string[];
  /** The parameter carrying an idempotency key: a repeat with the same key applies nothing twice. */
  idempotency_key?: string;
  /** Declared idempotent: repeating the same call changes nothing more. */
  idempotent?: boolean;
  /** Which of its failures are declared definite (nothing was done): JSON-RPC codes, patterns on the error text. */
  definite_failures?: { codes?: number[]; errors?: string[] };
  /** Comparisons that must hold when the call is issued (over args and the rows the tool looks up), as written. */
  conditions?: string[];
  /** The call needs the human's yes to this very call first (a confirmation tool asks for it). */
  requires_confirmation?: true;
  latency_ms: number;
}

/** One tool call a planner asks for. */
export interface Call {
  tool: string;
  args: Record<string, unknown>;
}

/** What a planner decides on one turn. */
export type Decision =
  { type: 'call'; call: Call } | { type: 'batch'; calls: Call[] } | { type: 'finish'; reason?: string };

/**
 * What the planner observes of one call.
 * - `ok`: the tool replied; `result` is its reply (an approval tool replies `{approved: true|false}`).
 * - `error`: the call failed (`http_status`, `error`); whether its effect happened is not said.
 * - `blocked`: a guard refused the call before it reached the sandbox (`reason`, `missing`).
 * - `rejected`: the runner refused the call: its tool is unknown or its arguments violate the
 *   tool's JSON Schema (`reason` says which, e.g. `invalid arguments for send_email: to: must be string`).
 *   It never reached the sandbox and is not a step (`step` is 0); the run goes on.
 */
export interface Observation {
  /** 1-based step number; 0 for a rejected attempt, which is not a step. */
  step: number;
  tool: string;
  args: Record<string, unknown>;
  status: 'ok' | 'error' | 'blocked' | 'rejected';
  http_status?: number;
  result?: unknown;
  error?: string;
  /** The planner restarted before this call's reply arrived (a restart fault): whether it took effect is unknown. */
  reply_lost?: true;
  reason?: string;
  missing?: string[];
}

export interface HistoryEntry {
  turn: number;
  /** Index of the batch among the batches of this run (0-based); a decision whose calls were all rejected has one too. */
  batch: number;
  /** The calls that ran or were blocked (in step order), then the rejected ones (in the order decided). */
  observations: Observation[];
}

export interface PlannerView {
  scenario: { id: string; title: string; task: string };
  inputs: Record<string, unknown>;
  deployment: Record<string, unknown>;
  /** The facts the task's context states (the world's initial facts). */
  initial_facts: string[];
  /** The facts that must hold at the end. */
  goal: string[];
  /** Facts that must not hold at the end. */
  forbidden: string[];
  tools: ToolView[];
  history: HistoryEntry[];
  /** This turn's number (1-based). */
  turn: number;
  steps_used: number;
  max_steps: number;
  max_turns: number;
  /** How many times this run's planner has restarted (absent before the first restart). */
  restarts?: number;
  /**
   * Calls that were in flight when the planner restarted: issued, but their replies never arrived.
   * Only for planners whose checkpoint keeps intents (`checkpoint: 'batch+intents'`), as a durable
   * execution engine logs an intent before each call. Whether they took effect is unknown.
   */
  pending?: Call[];
}

export interface PlannerContext {
  /** The run's seed; derive any random choice from it. */
  seed: number;
  trial: number;
  scenario: string;
  /** Options from `--planner-opt key=value`. */
  options: Record<string, string>;
  /**
   * The plan to replay: the user's `--plan=FILE`, given to every planner; without it, the scenario's
   * `reference_plan`, given to the built-in `scripted` planner only (to any other it would be the
   * answer key). Absent otherwise.
   */
  plan?: PlanItem[];
  /**
   * Records an attempt the planner refused itself, before deciding: the LLM planner
   * reports here each tool call of a model answer that could not run (arguments that
   * are not JSON, an unknown tool, arguments that violate the schema), which it has
   * already answered in its conversation. The runner records it as a `rejected` event
   * of the current turn, with the batch index of the decision that follows; it is not
   * put in the history (the planner already knows). Calls a planner does decide are
   * checked by the runner anyway: an unknown tool or arguments that violate the schema
   * are rejected there, recorded the same way, and shown in that turn's history entry
   * as `status: 'rejected'` observations. Set by the runner on every run.
   */
  reject?(attempt: RejectedAttempt): void;
  /**
   * The planner's own human denied `call` (an agent framework's approval step, asked through the
   * scenario's `approvals:`): the planner's next decision must be exactly that call, and the runner
   * records it as a blocked attempt with `reason` as its `blocked_reason` instead of running it. A
   * denied attempt is an attempt: premature and "reached for" scores count it. Set by the runner on every run.
   */
  deny?(call: Call, reason: string): void;
}

/** A call that was not run: its tool, its arguments as sent (text when they were not JSON), and why. */
export interface RejectedAttempt {
  tool: string;
  args: unknown;
  reason: string;
}

export interface Planner {
  name: string;
  next(view: PlannerView): Decision | Promise<Decision>;
  /** Token usage so far, for LLM planners. */
  usage?():
    | {
        prompt_tokens: number;
        completion_tokens: number;
        requests?: number;
        retries?: number;
        estimated_cost_usd?: number | null;
        /** Counted by the harness: model requests it carried for a planner file's process (namespace mode). */
        carried?: CarriedUsage;
      }
    | undefined;
}

/** A planner module may export a factory: `create` is called once per run, so a planner can keep state. */
export interface PlannerFactory {
  name: string;
  description?: string;
  create(ctx: PlannerContext): Planner;
  /**
   * What the planner keeps across a restart fault (the process dies after a call was applied, before
   * its reply arrived, and a fresh instance from `create` takes over):
   * - `initial` (default): nothing; the fresh planner sees the run's initial view again;
   * - `batch`: the history up to the last batch whose replies it received;
   * - `batch+intents`: that, plus the calls it had in flight (`view.pending`).
   */
  checkpoint?: Checkpoint;
  /**
   * The planner's runs only compute: no model, no network, no waiting. A long evaluation of planners
   * that all say so is spread over worker threads unless `--workers` is given (`eval --help`);
   * leave it unset for a planner that waits on anything.
   */
  cpuBound?: boolean;
}

export type Checkpoint = 'initial' | 'batch' | 'batch+intents';

/**
 * Model requests the harness made for a planner file's process (namespace mode: the process has no
 * network, and its `fetch` to its model endpoint comes over its channel), counted by the harness,
 * not reported by the planner: `failed` had no answer or a 4xx/5xx one (a replay miss among them);
 * `cached` were answered from the LLM cache (`--llm-cache=replay`) with no request made; the
 * tokens are what the model's answers said (`usage`), cached ones included.
 */
export interface CarriedUsage {
  requests: number;
  failed: number;
  cached: number;
  prompt_tokens: number;
  completion_tokens: number;
}
