/**
 * One run: a planner against a fresh sandbox, turn by turn, within budgets.
 * A planner that throws, hangs or returns nonsense ends only its own run,
 * with `error` set; the record is written as the run goes.
 */
import { OnewayError } from '../../core/errors.ts';
import type {
  CallEvent,
  Checkpoint,
  EndReason,
  EscapeEvent,
  RecordEvent,
  RestartEvent,
  RunEndEvent,
  RunStartEvent,
} from '../../core/record.ts';
import { RECORD_SCHEMA_VERSION } from '../../core/record.ts';
import type { RecordSink } from '../record/writer.ts';
import type { Call, HistoryEntry, Planner, PlannerContext, PlannerView, RejectedAttempt } from '../../core/planner.ts';
import { Sandbox } from '../sandbox/sandbox.ts';
import { runContext, type Escape } from '../sandbox/seal.ts';
import {
  inProcessTransport,
  mswTransport,
  TamperError,
  type Transport,
  type TransportName,
} from '../sandbox/transport.ts';
import type { Scenario, ToolClass } from '../../core/scenario.ts';
import { scoreRunWithSteps, type RunMetrics, type ScoredSteps } from '../scoring/metrics.ts';
import { findingsFrom, type ScoreFinding } from '../scoring/findings.ts';
import { canonicalOrder } from '../../domain/rules/same-call.ts';
import { reportedTools } from '../../domain/rules/reconcile.ts';
import { LOST_REPLY } from '../../domain/planner-kit/lost-reply.ts';
import { checkDecision, rejectedEvent } from './decision.ts';
import { blockedEvent, type BatchGate } from './gate.ts';
import { hostOf } from './isolate.ts';
import { copyJson, deepFreeze } from '../../util/json.ts';
import { RecentCache } from '../../util/recent.ts';
import { isThenable } from '../../util/thenable.ts';
import { historyEntry, staticView } from './view.ts';

/** A planner as the runner uses it: a name and a per-run constructor. */
export interface PlannerHandle {
  name: string;
  create(ctx: PlannerContext): Planner;
  /** The file it was loaded from, so a worker thread can load it again. */
  source?: string;
  /** What the planner keeps across a restart (default `initial`: nothing). */
  checkpoint?: Checkpoint;
  /** Its factory says its runs only compute (PlannerFactory.cpuBound): a long evaluation may go to workers. */
  cpuBound?: boolean;
}

export interface RunSpec {
  scenario: Scenario;
  scenarioFile: string;
  planner: PlannerHandle;
  plannerContext: Omit<PlannerContext, 'seed' | 'trial' | 'scenario' | 'reject'>;
  trial: number;
  seed: number;
  runId: string;
  sink: RecordSink;
  transport: TransportName;
  maxTurns: number;
  decisionTimeoutMs: number;
  gate?: BatchGate;
  /** Restart faults for every scenario (`--restart-at`), on top of the scenario's own `restarts`. */
  restartAt?: readonly number[];
  /** Called with the run's sandbox before the first turn (tests inspect what reached it). */
  onSandbox?: (sandbox: Sandbox) => void;
  /** Also list the calls each score counted (`findings`), from the same scoring (evaluations do; fuzzing does not). */
  findings?: boolean;
}

export interface RunOutcome extends RunMetrics {
  end_reason: EndReason;
  error: string | null;
  usage?: RunEndEvent['usage'];
  events: RecordEvent[];
  /** With `findings` asked for: the calls each score counted. */
  findings?: ScoreFinding[];
}

class DecisionTimeout extends OnewayError {
  constructor(message: string) {
    super('decision_timeout', message);
  }
}

/**
 * The part of the view that never changes in a run, deep-frozen, built once per scenario and turn
 * budget: being frozen, one copy can serve every run (fuzzing runs thousands of plans a second,
 * and rendering, cloning and freezing it per run was a good part of a short run's cost).
 */
const staticViews = new RecentCache<Scenario, Map<number, ReturnType<typeof staticView>>>(128);
function frozenView(
  scenario: Scenario,
  classes: ReadonlyMap<string, ToolClass>,
  maxTurns: number,
): ReturnType<typeof staticView> {
  let byTurns = staticViews.get(scenario);
  if (!byTurns) staticViews.set(scenario, (byTurns = new Map()));
  let view = byTurns.get(maxTurns);
  // The classes come from the scenario's deployment, so they are the same for every run of this scenario object.
  if (!view) byTurns.set(maxTurns, (view = copyJson(staticView(scenario, classes, maxTurns), true)));
  return view;
}

const toolRecords = new RecentCache<Scenario, RunStartEvent['tools']>(128);
/** The tools as run_start records them (a guard's journal too): the same for every run of a scenario object, so built once and deep-frozen. */
export function recordTools(scenario: Scenario, classes: ReadonlyMap<string, ToolClass>): RunStartEvent['tools'] {
  let tools = toolRecords.get(scenario);
  if (!tools) {
    tools = deepFreeze(
      scenario.tools.map((t) => ({
        name: t.name,
        class: classes.get(t.name) ?? 'irreversible',
        read_only: t.read_only,
        kind: t.kind,
        compensating_operation: t.compensating_operation ?? null,
        // What it reports on: declared, and every tool that writes a table it reads (rules/reconcile.ts).
        reconciles: reportedTools(t, scenario.tools),
        ...(t.reads.length > 0 ? { reads: t.reads.slice() } : {}),
        idempotent: t.idempotent === true,
        parameters: Object.keys(t.parameters.properties),
        ...(t.idempotency_key !== undefined ? { idempotency_key: t.idempotency_key } : {}),
        ...(t.dedupe_on ? { dedupe_on: t.dedupe_on.slice() } : {}),
      })),
    );
    toolRecords.set(scenario, tools);
  }
  return tools;
}

/** The scenario's tools by name, which every call of a decision is checked against: the same for every run of a scenario object. */
const toolMaps = new RecentCache<Scenario, ReadonlyMap<string, Scenario['tools'][number]>>(128);
const toolsByName = (scenario: Scenario) =>
  toolMaps.get(scenario) ?? toolMaps.set(scenario, new Map(scenario.tools.map((t) => [t.name, t] as const)));

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DecisionTimeout(`the planner did not decide within ${ms} ms`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

function errorText(e: unknown): string {
  if (e instanceof Error) return `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}`.slice(0, 2000);
  return String(e).slice(0, 2000);
}

/** The record's first event: the run's identity, its tools as this deployment classes them, its initial world. */
function runStartEvent(spec: RunSpec, sandbox: Sandbox): RunStartEvent {
  const { scenario } = spec;
  return {
    type: 'run_start',
    schema_version: RECORD_SCHEMA_VERSION,
    run_id: spec.runId,
    scenario: scenario.id,
    scenario_file: spec.scenarioFile,
    planner: spec.planner.name,
    trial: spec.trial,
    seed: spec.seed,
    deployment: scenario.deployment,
    max_steps: scenario.max_steps,
    guard: spec.gate !== undefined,
    tools: recordTools(scenario, sandbox.classes),
    initial_world: sandbox.initialSnapshot,
    ...(scenario.restarts.length > 0 || spec.restartAt?.length
      ? { restarts: [...new Set([...scenario.restarts, ...(spec.restartAt ?? [])])].sort((a, b) => a - b) }
      : {}),
  };
}

/**
 * The planner's decision for a view, in the run's context. A planner that answered synchronously has
 * decided: no timer is armed for it (none could have interrupted it), and its decision is returned as
 * it is, not as a promise: a run of such a planner over the in-process transport awaits nothing (with
 * AsyncLocalStorage on, every promise runs Node's async hooks; a fuzzed plan made over 50 of them).
 * A promise (an LLM, a planner's own thread) races the decision timeout.
 */
function decide(planner: Planner, view: PlannerView, inRun: <T>(f: () => T) => T, timeoutMs: number): unknown {
  let decided: unknown;
  const pending = inRun(() => {
    decided = planner.next(view);
    return isThenable(decided) ? Promise.resolve(decided) : undefined;
  });
  return pending ? withTimeout(pending, timeoutMs) : decided;
}

/**
 * A new history entry, deep-frozen as a deep-frozen copy of it would be: its own objects (the entry, its
 * observations) are frozen as they are, and what it shares with the record (arguments, results, missing
 * preconditions) is copied frozen, so the record's objects stay as they were.
 */
function frozenEntry(entry: HistoryEntry): HistoryEntry {
  for (const o of entry.observations) {
    const fields = o as unknown as Record<string, unknown>;
    // The observation is a plain literal of view.ts: its own keys are all for...in sees.
    for (const k in fields) {
      const v = fields[k];
      if (v !== null && typeof v === 'object') fields[k] = copyJson(v, true);
    }
    Object.freeze(o);
  }
  Object.freeze(entry.observations);
  return Object.freeze(entry);
}

/** What a planner that writes intents sees of the calls in flight at a restart: failures whose outcome is unknown. */
function lostReplies(turn: number, batch: number, lost: readonly CallEvent[]): HistoryEntry {
  return deepFreeze({
    turn,
    batch,
    observations: lost.map((c) => ({
      step: c.step,
      tool: c.tool,
      args: c.args,
      status: 'error' as const,
      error: LOST_REPLY,
      reply_lost: true as const,
    })),
  });
}

/** Scores the run and writes its last event; what the run came to. */
function endRun(
  spec: RunSpec,
  sandbox: Sandbox,
  events: RecordEvent[],
  emit: (e: RecordEvent) => void,
  endReason: EndReason,
  endError: string | null,
  planner: Planner | undefined,
): RunOutcome {
  let [end, error] = [endReason, endError];
  const outcome = sandbox.outcome();
  let metrics: RunMetrics;
  let steps: ScoredSteps;
  try {
    ({ metrics, steps } = scoreRunWithSteps(events, outcome.completed));
  } catch (e) {
    // A fault in scoring is the harness's, not the planner's: the run still ends with its record, marked as an error.
    [end, error] = ['harness_error', `internal error while scoring: ${errorText(e)}`];
    ({ metrics, steps } = scoreRunWithSteps([], false));
  }
  const usage = planner?.usage?.();
  emit({
    type: 'run_end',
    end_reason: end,
    error,
    completed: outcome.completed,
    goal: outcome.goal,
    forbidden_held: outcome.forbidden_held,
    final_world: sandbox.world.snapshot(),
    metrics,
    ...(usage ? { usage } : {}),
  });
  spec.sink.close();
  const findings = spec.findings ? { findings: findingsFrom(events, steps) } : {};
  return Object.assign({}, metrics, { end_reason: end, error }, usage ? { usage } : {}, { events }, findings);
}

export async function runOne(spec: RunSpec): Promise<RunOutcome> {
  const { scenario } = spec;
  const events: RecordEvent[] = [];
  const emit = (e: RecordEvent) => {
    events.push(e);
    spec.sink.write(e);
  };
  const sandbox = new Sandbox(scenario, spec.seed);
  spec.onSandbox?.(sandbox);
  const onEscape = (e: Escape) => emit({ type: 'escape', t_ms: sandbox.nowMs, ...e } satisfies EscapeEvent);
  const transport: Transport =
    spec.transport === 'msw' ? mswTransport(sandbox, spec.runId, onEscape) : inProcessTransport(sandbox);
  // Every call of a decision is checked against its tool's declared parameters (harness/domain/rules/arguments.ts).
  const tools = toolsByName(scenario);

  emit(runStartEvent(spec, sandbox));

  const fixed = frozenView(scenario, sandbox.classes, spec.maxTurns);
  let steps = 0; // calls issued: what max_steps limits
  let attempts = 0; // calls issued or blocked: what step numbers count
  let batch = 0;
  let end: EndReason = 'finish';
  let error: string | null = null;
  let planner: Planner | undefined;

  // Planner code runs inside the run's context, so a request it makes on its own is charged to this run
  // (until the run ends: what its code still does then, a timer, is unattributed).
  const runCtx: { onEscape(e: Escape): void; ended?: boolean } = { onEscape };
  const inRun = <T>(f: () => T): T => runContext.run(runCtx, f);

  // Attempts a planner refused itself while deciding (an LLM's unusable tool calls) are recorded as
  // rejected, with the current turn and the batch index of the decision that follows.
  let turnNow = 0;
  let recording = true;
  const reject = (a: RejectedAttempt) => {
    if (recording) emit(rejectedEvent(turnNow, batch, a));
  };

  // A call the planner's own human denied (harness/features/mcp/approvals.ts): its next decision is recorded as a blocked attempt.
  let denied: { call: Call; reason: string } | undefined;
  const deny = (call: Call, reason: string) => void (denied = { call, reason });

  const plannerContext = () =>
    Object.assign({}, spec.plannerContext, { seed: spec.seed, trial: spec.trial, scenario: scenario.id, reject, deny });
  // Restart faults (scenario `restarts`, --restart-at) and what the planner keeps across one.
  const restartAt = new Set([...scenario.restarts, ...(spec.restartAt ?? [])]);
  const fired = new Set<number>();
  const checkpoint: Checkpoint = spec.planner.checkpoint ?? 'initial';
  /** What the current planner instance has seen: the history since its checkpoint. */
  const visible: HistoryEntry[] = [];
  /** Calls in flight when the planner restarted (kept only by planners that write intents). */
  const pending: Call[] = [];
  let restarted = 0;

  try {
    planner = inRun(() => spec.planner.create(plannerContext()));
    // A planner file runs in a sealed process of its own (runner/isolate.ts), taken before the first turn.
    const host = hostOf(planner);
    const unstarted = host ? await host.start(spec.decisionTimeoutMs) : undefined;
    if (unstarted) [end, error] = unstarted;
    for (let turn = 1; !unstarted; turn++) {
      if (turn > spec.maxTurns) {
        // Running out of budget is how the run ended, not an error (errors are crashes, timeouts, harness faults).
        end = 'max_turns';
        break;
      }
      // History entries are deep-frozen when recorded, so the planner gets them without a copy:
      // cloning the whole history every turn made long runs quadratic (npm run bench, plan length).
      turnNow = turn;
      // Object.assign, not a literal opening with `...fixed`: on Node 20, V8 keeps objects built so (a spread,
      // then more keys) alive past young collections, and everything they reference with them (npm run bench).
      const view: PlannerView = Object.assign({}, fixed, { history: visible.slice(), turn, steps_used: steps });
      if (restarted > 0) view.restarts = restarted;
      if (pending.length > 0) view.pending = pending.slice();
      let raw: unknown;
      try {
        raw = decide(planner, view, inRun, spec.decisionTimeoutMs);
        if (isThenable(raw)) raw = await raw;
      } catch (e) {
        [end, error] =
          e instanceof DecisionTimeout
            ? ['decision_timeout', e.message]
            : ['planner_error', `planner threw: ${errorText(e)}`];
        break;
      }
      const check = checkDecision(raw, tools);
      if (!check.ok) {
        [end, error] = ['invalid_decision', `invalid decision on turn ${turn}: ${check.message}`];
        break;
      }
      const checked = check.value;
      const { decision } = checked;
      emit({
        type: 'turn',
        turn,
        decision: decision.type,
        // Every call the planner decided, rejected ones included (each also has its `rejected` event).
        calls: checked.calls.length + checked.rejected.length,
        ...(decision.type === 'finish' && decision.reason ? { reason: decision.reason.slice(0, 500) } : {}),
      });
      if (decision.type === 'finish') break;
      // Rejected calls never reach the sandbox and are not steps; the planner sees them in this turn's history.
      for (const r of checked.rejected) reject(r);
      if (steps + checked.calls.length > scenario.max_steps) {
        end = 'max_steps';
        break;
      }
      const past = spec.gate ? events.filter((e): e is CallEvent => e.type === 'call') : [];
      // A batch has no order: it runs in its canonical order, so the world, the seeded ids and faults
      // and the step numbers are the same whatever order the planner listed its calls in.
      // A decision whose calls were all rejected sends no batch, but still ends the turn.
      const denial = denied;
      denied = undefined;
      let callEvents =
        checked.calls.length === 0
          ? []
          : denial && checked.calls.length === 1 && checked.calls[0]?.tool === denial.call.tool
            ? [
                blockedEvent(checked.calls[0], denial.reason, sandbox, {
                  turn,
                  batch,
                  step: attempts + 1,
                  pos: 0,
                  batchSize: 1,
                }),
              ]
            : executeTurn(spec, sandbox, transport, canonicalOrder(checked.calls), turn, batch, attempts + 1, past);
      if (!Array.isArray(callEvents)) callEvents = await callEvents;
      // A restart fault: the process died right after this batch was applied, before its replies arrived.
      const crash = callEvents.find((c) => restartAt.has(c.step) && !fired.has(c.step));
      const recorded = crash
        ? callEvents.map((c) => (c.status === 'blocked' ? c : { ...c, reply_lost: true }))
        : callEvents;
      for (const e of recorded) emit(e);
      attempts += callEvents.length;
      for (const c of callEvents) if (c.status !== 'blocked') steps++;
      // Deep-frozen: the planner may read what it is shown, not change it.
      const entry = frozenEntry(historyEntry(turn, batch, callEvents, checked.rejected));
      if (crash) {
        fired.add(crash.step);
        restarted++;
        emit({ type: 'restart', after_step: crash.step, turn, batch, checkpoint } satisfies RestartEvent);
        // The world keeps everything; the planner keeps only its checkpoint, as a fresh instance.
        if (checkpoint === 'initial') visible.length = 0;
        if (checkpoint === 'batch+intents') {
          // The intent log names the calls in flight; what became of them is unknown, like an ambiguous failure.
          const lost = callEvents.filter((c) => c.status !== 'blocked');
          pending.push(...lost.map((c) => deepFreeze({ tool: c.tool, args: c.args })));
          visible.push(lostReplies(turn, batch, lost));
        }
        hostOf(planner)?.close();
        planner = inRun(() => spec.planner.create(plannerContext()));
        const again = await hostOf(planner)?.start(spec.decisionTimeoutMs);
        if (again) {
          [end, error] = again;
          break;
        }
      } else visible.push(entry);
      batch++;
      // A long run whose planner and tools answer at once never lets the event loop turn: now and then,
      // it does (timers fire, and V8 lets go of what fetch made WeakRefs for; see evaluate's pool).
      if (turn % 32 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } catch (e) {
    // A tool request altered on its way to the sandbox is the planner's doing (its batch was refused);
    // anything else is a fault of the harness itself. The run still ends with a record.
    [end, error] =
      e instanceof TamperError ? ['planner_error', e.message] : ['harness_error', `internal error: ${errorText(e)}`];
  } finally {
    transport.close();
    // The planner's process, and whatever it left running, ends with the run (a loop that blew the timeout included),
    // unless it is clean and serves the next run.
    hostOf(planner)?.close();
    runCtx.ended = true;
  }

  recording = false;
  return endRun(spec, sandbox, events, emit, end, error, planner);
}

/**
 * Runs one decision's calls: the gate (if any) screens them, the rest go to the sandbox as one batch.
 * A transport that answers at once (in process) is answered without a promise (see `decide`).
 */
function executeTurn(
  spec: RunSpec,
  sandbox: Sandbox,
  transport: Transport,
  calls: Call[],
  turn: number,
  batch: number,
  firstStep: number,
  past: readonly CallEvent[],
): CallEvent[] | Promise<CallEvent[]> {
  const send = (c: Call[]): CallEvent[] | Promise<CallEvent[]> =>
    transport.executeBatchNow
      ? transport.executeBatchNow({ turn, batch, firstStep, calls: c }).events
      : transport.executeBatch({ turn, batch, firstStep, calls: c }).then((o) => o.events);
  if (!spec.gate) return send(calls);
  const gate = spec.gate;
  const screened = gate.screen(calls, sandbox, past);
  const passing = screened.filter((s) => s.verdict.pass).map((s) => s.call);
  // Blocked attempts are recorded after the issued calls (their steps continue the numbering), but
  // assessed before the batch runs: like their siblings, against the world before the batch, so a
  // sibling that establishes a blocked call's precondition does not make the attempt look timely.
  let next = firstStep + passing.length;
  let pos = passing.length;
  const blocked = screened
    .filter((s) => !s.verdict.pass)
    .map((s) =>
      blockedEvent(s.call, s.verdict.pass ? 'blocked' : s.verdict.reason, sandbox, {
        turn,
        batch,
        step: next++,
        pos: pos++,
        batchSize: calls.length,
      }),
    );
  const sent = passing.length > 0 ? send(passing) : [];
  // A passing compensable call's compensation is scheduled: the record says so.
  const annotate = (events: CallEvent[]): CallEvent[] => [
    ...events.map((e) => ({
      ...e,
      batch_size: calls.length,
      ...(e.class === 'compensable' && e.compensation ? { compensation: { ...e.compensation, scheduled: true } } : {}),
    })),
    ...blocked,
  ];
  return Array.isArray(sent) ? annotate(sent) : sent.then(annotate);
}
