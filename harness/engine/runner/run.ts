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
import { checkDecision, rejectedEvent, RUN_LIMITS, runLimitError, type CheckedDecision } from './decision.ts';
import { blockedEvent, type BatchGate } from './gate.ts';
import { worldDiff } from '../../core/world-diff.ts';
import { initialWorldFields } from '../record/initial-world.ts';
import { hostOf } from './isolate.ts';
import { cutText } from '../../util/cut-text.ts';
import { copyJson, deepFreeze, jsonLength } from '../../util/json.ts';
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
  /**
   * The built-in `scripted` planner: without `--plan`, its runs are given the scenario's
   * `reference_plan` (evaluate.ts, offeredPlan). Set by loadPlanner only, never from what a module exports.
   */
  replaysReferencePlan?: true;
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
  if (e instanceof Error) return cutText(`${e.name === 'Error' ? '' : `${e.name}: `}${e.message}`, 2000);
  return cutText(String(e), 2000);
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
    ...initialWorldFields(sandbox.initialSnapshot),
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
    // What changed, not a copy of the whole world (a domain's database is large; a run changes a few rows).
    world_diff: worldDiff(sandbox.initialSnapshot, sandbox.world.snapshot()),
    metrics,
    ...(usage ? { usage } : {}),
  });
  spec.sink.close();
  const findings = spec.findings ? { findings: findingsFrom(events, steps) } : {};
  return Object.assign({}, metrics, { end_reason: end, error }, usage ? { usage } : {}, { events }, findings);
}

/**
 * Runs one planner on one scenario, trial and seed, and returns what the run came to: its scores,
 * how it ended and its record (also written to `spec.sink` as it goes). Whatever the planner does
 * (throws, hangs, answers nonsense), the run ends with a complete record.
 */
export async function runOne(spec: RunSpec): Promise<RunOutcome> {
  const run = new Run(spec);
  await run.play();
  return endRun(spec, run.sandbox, run.events, run.emit, run.end, run.error, run.planner);
}

/** Why a run ended, and the error that says so (null when it ended well). */
type Ending = [EndReason, string | null];

/**
 * One run while its turns are played: the sandbox and transport, the record so far, the budgets
 * used, and what survives a restart fault. `play` is the loop; each of its steps (starting the
 * planner, one turn's decision, its calls, a restart) is a method of its own.
 */
class Run {
  readonly events: RecordEvent[] = [];
  readonly sandbox: Sandbox;
  end: EndReason = 'finish';
  error: string | null = null;
  planner: Planner | undefined;

  private readonly transport: Transport;
  /** Every call of a decision is checked against its tool's declared parameters (harness/domain/rules/arguments.ts). */
  private readonly tools: ReadonlyMap<string, Scenario['tools'][number]>;
  private readonly fixed: ReturnType<typeof staticView>;
  private steps = 0; // calls issued: what max_steps limits
  private attempts = 0; // calls issued or blocked: what step numbers count
  private batch = 0;
  /** Planner code runs inside the run's context, so a request it makes on its own is charged to this run
   *  (until the run ends: what its code still does then, a timer, is unattributed). */
  private readonly runCtx: { onEscape(e: Escape): void; ended?: boolean };
  private turnNow = 0;
  private recording = true;
  /** A call the planner's own human denied (harness/features/mcp/approvals.ts): its next decision is recorded as a blocked attempt. */
  private denied: { call: Call; reason: string } | undefined;
  // Restart faults (scenario `restarts`, --restart-at) and what the planner keeps across one.
  private readonly restartAt: ReadonlySet<number>;
  private readonly fired = new Set<number>();
  private readonly checkpoint: Checkpoint;
  /** What the current planner instance has seen: the history since its checkpoint. */
  private readonly visible: HistoryEntry[] = [];
  /** Calls in flight when the planner restarted (kept only by planners that write intents). */
  private readonly pending: Call[] = [];
  private restarted = 0;
  // The planner's share of what the run keeps (decision.ts, RUN_LIMITS), and how the run ends once it is past one.
  private attemptsNow = 0; // rejected attempts since the last decision was checked
  private bytes = 0;
  private over: Ending | undefined;
  /** Ends the decision being awaited, when the planner goes past a limit while it decides. */
  private abort: (() => void) | undefined;

  constructor(private readonly spec: RunSpec) {
    const { scenario } = spec;
    this.sandbox = new Sandbox(scenario, spec.seed);
    spec.onSandbox?.(this.sandbox);
    const onEscape = (e: Escape) => this.emit({ type: 'escape', t_ms: this.sandbox.nowMs, ...e } satisfies EscapeEvent);
    this.runCtx = { onEscape };
    this.transport =
      spec.transport === 'msw' ? mswTransport(this.sandbox, spec.runId, onEscape) : inProcessTransport(this.sandbox);
    this.tools = toolsByName(scenario);
    this.restartAt = new Set([...scenario.restarts, ...(spec.restartAt ?? [])]);
    this.checkpoint = spec.planner.checkpoint ?? 'initial';
    this.emit(runStartEvent(spec, this.sandbox));
    this.fixed = frozenView(scenario, this.sandbox.classes, spec.maxTurns);
  }

  readonly emit = (e: RecordEvent): void => {
    this.events.push(e);
    this.spec.sink.write(e);
  };

  private readonly inRun = <T>(f: () => T): T => runContext.run(this.runCtx, f);

  /** Attempts a planner refused itself while deciding (an LLM's unusable tool calls): rejected, in the current turn and the batch of the decision that follows. */
  private readonly reject = (a: RejectedAttempt): void => {
    if (!this.recording || this.over) return;
    if (++this.attemptsNow > RUN_LIMITS.attemptsPerDecision) return this.stop('attemptsPerDecision');
    const e = rejectedEvent(this.turnNow, this.batch, a);
    // The tool and reason count as sent, not as cut for the record: reading a long text costs the harness too.
    if (this.kept(String(a.tool).length + jsonLength(e.args) + String(a.reason).length)) this.emit(e);
  };

  /** Counts what an attempt adds to the run: false (and the run is ending) once that is past the limit. */
  private kept(bytes: number): boolean {
    this.bytes += bytes;
    if (this.bytes <= RUN_LIMITS.bytesPerRun) return true;
    this.stop('bytesPerRun');
    return false;
  }

  /** The planner went past a limit: the run ends as a planner error, at once if it is deciding. */
  private stop(limit: keyof typeof RUN_LIMITS): void {
    this.over ??= ['planner_error', runLimitError(limit)];
    this.abort?.();
  }

  private readonly deny = (call: Call, reason: string): void => void (this.denied = { call, reason });

  private plannerContext(): PlannerContext {
    const { spec } = this;
    return Object.assign({}, spec.plannerContext, {
      seed: spec.seed,
      trial: spec.trial,
      scenario: spec.scenario.id,
      reject: this.reject,
      deny: this.deny,
    });
  }

  /** Plays turns until the planner finishes, a budget runs out or something ends the run; sets `end` and `error`. */
  async play(): Promise<void> {
    try {
      this.planner = this.inRun(() => this.spec.planner.create(this.plannerContext()));
      // A planner file runs in a sealed process of its own (runner/isolate.ts), taken before the first turn.
      const host = hostOf(this.planner);
      const unstarted = (host ? await host.start(this.spec.decisionTimeoutMs) : undefined) ?? this.over;
      if (unstarted) [this.end, this.error] = unstarted;
      for (let turn = 1; !unstarted; turn++) {
        if (turn > this.spec.maxTurns) {
          // Running out of budget is how the run ended, not an error (errors are crashes, timeouts, harness faults).
          this.end = 'max_turns';
          break;
        }
        let decided = this.decide(turn);
        if (isThenable(decided)) decided = await decided;
        if (Array.isArray(decided)) {
          [this.end, this.error] = decided;
          break;
        }
        if (decided.decision.type === 'finish') break;
        if (this.steps + decided.calls.length > this.spec.scenario.max_steps) {
          this.end = 'max_steps';
          break;
        }
        let callEvents = this.callsOf(decided.calls, turn);
        if (!Array.isArray(callEvents)) callEvents = await callEvents;
        const crash = this.record(callEvents, turn, decided.rejected);
        if (this.over) {
          [this.end, this.error] = this.over;
          break;
        }
        if (crash) {
          const again = await this.restart(crash, callEvents, turn);
          if (again) {
            [this.end, this.error] = again;
            break;
          }
        }
        this.batch++;
        // A long run whose planner and tools answer at once never lets the event loop turn: now and then,
        // it does (timers fire, and V8 lets go of what fetch made WeakRefs for; see evaluate's pool).
        if (turn % 32 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      // A tool request altered on its way to the sandbox is the planner's doing (its batch was refused);
      // anything else is a fault of the harness itself. The run still ends with a record.
      [this.end, this.error] =
        e instanceof TamperError ? ['planner_error', e.message] : ['harness_error', `internal error: ${errorText(e)}`];
    } finally {
      this.transport.close();
      // The planner's process, and whatever it left running, ends with the run (a loop that blew the timeout included),
      // unless it is clean and serves the next run.
      hostOf(this.planner)?.close();
      this.runCtx.ended = true;
    }
    this.recording = false;
  }

  /**
   * One turn's decision, checked and recorded (its `turn` event, and a `rejected` event per call it
   * rejects), or how the run ends because of it. A planner that answered at once is answered without
   * a promise (see `decide`).
   */
  private decide(turn: number): CheckedDecision | Ending | Promise<CheckedDecision | Ending> {
    // History entries are deep-frozen when recorded, so the planner gets them without a copy:
    // cloning the whole history every turn made long runs quadratic (npm run bench, plan length).
    this.turnNow = turn;
    // Object.assign, not a literal opening with `...fixed`: on Node 20, V8 keeps objects built so (a spread,
    // then more keys) alive past young collections, and everything they reference with them (npm run bench).
    const view: PlannerView = Object.assign({}, this.fixed, {
      history: this.visible.slice(),
      turn,
      steps_used: this.steps,
    });
    if (this.restarted > 0) view.restarts = this.restarted;
    if (this.pending.length > 0) view.pending = this.pending.slice();
    const failed = (e: unknown): Ending =>
      this.over ??
      (e instanceof DecisionTimeout
        ? ['decision_timeout', e.message]
        : ['planner_error', `planner threw: ${errorText(e)}`]);
    let raw: unknown;
    try {
      raw = decide(this.planner as Planner, view, this.inRun, this.spec.decisionTimeoutMs);
    } catch (e) {
      return failed(e);
    }
    if (!isThenable(raw)) return this.checked(raw, turn);
    // A planner that goes past a limit while it decides (a flood of rejected attempts) is not waited for.
    return new Promise<CheckedDecision | Ending>((resolve) => {
      this.abort = () => resolve(this.over as Ending);
      Promise.resolve(raw)
        .then((r) => this.checked(r, turn), failed)
        .then(resolve);
    }).finally(() => (this.abort = undefined));
  }

  /** A decision checked against the tools and recorded as the turn's event, or the run's end when it is malformed. */
  private checked(raw: unknown, turn: number): CheckedDecision | Ending {
    if (this.over) return this.over;
    const gate = this.spec.gate;
    const check = checkDecision(
      gate?.complete
        ? gate.complete(
            raw,
            this.sandbox,
            this.events.filter((e): e is CallEvent => e.type === 'call'),
          )
        : raw,
      this.tools,
    );
    if (!check.ok) return ['invalid_decision', cutText(`invalid decision on turn ${turn}: ${check.message}`, 2000)];
    const checked = check.value;
    const { decision } = checked;
    this.emit({
      type: 'turn',
      turn,
      decision: decision.type,
      // Every call the planner decided, rejected ones included (each also has its `rejected` event).
      calls: checked.calls.length + checked.rejected.length,
      ...(decision.type === 'finish' && decision.reason ? { reason: cutText(decision.reason, 500) } : {}),
    });
    // Rejected calls never reach the sandbox and are not steps; the planner sees them in this turn's history.
    if (decision.type !== 'finish') for (const r of checked.rejected) this.reject(r);
    if (this.over) return this.over;
    this.attemptsNow = 0;
    return checked;
  }

  /**
   * The call events of a decision's calls: one blocked attempt when the planner's human denied its
   * only call, else the calls run through the gate and the transport (none when all were rejected:
   * the turn still ends).
   */
  private callsOf(calls: Call[], turn: number): CallEvent[] | Promise<CallEvent[]> {
    const { spec, sandbox, batch } = this;
    const past = spec.gate ? this.events.filter((e): e is CallEvent => e.type === 'call') : [];
    const denial = this.denied;
    this.denied = undefined;
    if (calls.length === 0) return [];
    if (denial && calls.length === 1 && calls[0]?.tool === denial.call.tool)
      return [
        blockedEvent(calls[0], denial.reason, sandbox, { turn, batch, step: this.attempts + 1, pos: 0, batchSize: 1 }),
      ];
    // A batch has no order: it runs in its canonical order, so the world, the seeded ids and faults
    // and the step numbers are the same whatever order the planner listed its calls in.
    return executeTurn(spec, sandbox, this.transport, canonicalOrder(calls), turn, batch, this.attempts + 1, past);
  }

  /**
   * Records a turn's call events and counts them; the planner's history gets the turn unless a
   * restart fault fires after it, which is then returned.
   */
  private record(callEvents: CallEvent[], turn: number, rejected: CheckedDecision['rejected']): CallEvent | undefined {
    // A restart fault: the process died right after this batch was applied, before its replies arrived.
    const crash = callEvents.find((c) => this.restartAt.has(c.step) && !this.fired.has(c.step));
    const recorded = crash
      ? callEvents.map((c) => (c.status === 'blocked' ? c : { ...c, reply_lost: true }))
      : callEvents;
    for (const e of recorded) this.emit(e);
    for (const c of callEvents) this.kept(c.tool.length + jsonLength(c.args));
    this.attempts += callEvents.length;
    for (const c of callEvents) if (c.status !== 'blocked') this.steps++;
    // Deep-frozen: the planner may read what it is shown, not change it.
    const entry = frozenEntry(historyEntry(turn, this.batch, callEvents, rejected));
    if (!crash) this.visible.push(entry);
    return crash;
  }

  /**
   * A restart fault after `crash`'s step: the world keeps everything; the planner keeps only its
   * checkpoint, as a fresh instance. Returns how the run ends when the new instance cannot start.
   */
  private async restart(crash: CallEvent, callEvents: CallEvent[], turn: number): Promise<Ending | undefined> {
    const { checkpoint, batch } = this;
    this.fired.add(crash.step);
    this.restarted++;
    this.emit({ type: 'restart', after_step: crash.step, turn, batch, checkpoint } satisfies RestartEvent);
    if (checkpoint === 'initial') this.visible.length = 0;
    if (checkpoint === 'batch+intents') {
      // The intent log names the calls in flight; what became of them is unknown, like an ambiguous failure.
      const lost = callEvents.filter((c) => c.status !== 'blocked');
      this.pending.push(...lost.map((c) => deepFreeze({ tool: c.tool, args: c.args })));
      this.visible.push(lostReplies(turn, batch, lost));
    }
    hostOf(this.planner)?.close();
    this.planner = this.inRun(() => this.spec.planner.create(this.plannerContext()));
    return await hostOf(this.planner)?.start(this.spec.decisionTimeoutMs);
  }
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
