/**
 * What an evaluation is, once, for every entry point (`oneway eval`, its --watch, `evaluate()`):
 *
 *   request → scenarios through the lint gate → planners (the line-up) → --plan → guard policy →
 *   the --out lock → the engine's options → resume or kept runs → workers → run → analyse →
 *   results.json and the reports → --check's expectations
 *
 * The request comes checked and complete (harness/features/request/eval.ts, `evalRequest`); the
 * evaluation says what happens as it goes through `EvaluationEvents` (plain values: how they are
 * shown is the caller's), stops after the runs in flight when its `signal` is aborted (what
 * finished is written, marked interrupted), and ends with an `EvaluationOutcome` the caller turns
 * into an exit status or a return value. Nothing here writes to a console but the reporters asked
 * for (`table` prints to the `console` given).
 */
import type { ChalkInstance } from 'chalk';
import type { Problem } from '../../core/errors.ts';
import type { PlanItem } from '../../core/scenario.ts';
import { loadPlanFile, type LoadedScenario } from '../../engine/loader/load.ts';
import type { OutLock } from '../../engine/results/lock.ts';
import type { Results, RunResult } from '../../engine/results/types.ts';
import type { PlannerHandle } from '../../engine/runner/run.ts';
import { checkRuns, type ScenarioExpectationFailure } from '../../engine/scoring/expect.ts';
import { ensureDir } from '../../engine/io/atomic-write.ts';
import { formatProblem, UsageError } from '../../core/errors.ts';
import {
  analysisOf,
  checkLineUp,
  evalOptionsOf,
  loadPlanners,
  requestPolicy,
  requestScenarios,
  settleWorkers,
  type AnalysisRequest,
  type EvalRequest,
  type RequestScenarios,
} from '../request/eval.ts';
import { watchedOf, type Reached, type Watched } from './read.ts';
import { keptRuns, resumable } from './resume.ts';

/** What an evaluation says as it goes, in this order; each is optional. */
interface EvaluationEvents {
  /** The scenarios loaded and narrowed, through the lint gate: `problems` are the files that did not load or lint refused. */
  scenarios?(scenarios: RequestScenarios): void;
  /** About to run (scenarios remain, the plan and the policy are good): the lint gate's findings can be said. */
  running?(scenarios: RequestScenarios): void;
  /** A note for the user: a stale --out lock taken over, a damaged results.json resumed from its checkpoint. */
  warning?(message: string): void;
  /** `workers: 'auto'` chose worker threads for this many runs. */
  workers?(runs: number, workers: number): void;
  /** A run finished (`done` of `total`). */
  runDone?(run: RunResult, done: number, total: number): void;
  /** The runs are over (finished, stopped or failed): a progress display can go; results and reports follow. */
  runsOver?(): void;
}

/** Where the reporters that print (`table`, `json` alone, `github`) write, and how. */
export interface ReportConsole {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  chalk: ChalkInstance;
}

/**
 * What evaluations in a row share (`eval --watch`): the --out lock, taken once (again when --out
 * moves), the last evaluation's results (not an interrupted one's), whose runs the next may keep,
 * and, when watching, what the last evaluation read.
 */
export interface EvaluationSession {
  /** `watch`: what the last evaluation read, as far as it got (read.ts); undefined before the first. */
  readonly watched: Watched | undefined;
  /** Releases the --out lock. */
  release(): void;
}

interface SessionState extends EvaluationSession {
  watch: boolean;
  watched: Watched | undefined;
  lock?: { dir: string; lock: OutLock };
  previous?: Results;
}

/** A session for one evaluation or several in a row (`watch`: each records what it read); `release` it when done. */
export function evaluationSession(o: { watch?: boolean } = {}): EvaluationSession {
  const state: SessionState = {
    watch: o.watch === true,
    watched: undefined,
    release() {
      state.lock?.lock.release();
      state.lock = undefined;
    },
  };
  return state;
}

/** How an evaluation runs, beside what it evaluates (the request). */
export interface EvaluationOptions {
  /** Who holds the --out lock, as another evaluation is told ("oneway eval", "oneway evaluate()"). */
  command: string;
  /** Aborted: stop after the runs in flight; what finished is written, marked interrupted. */
  signal?: AbortSignal;
  /** `--check`: the planners of the scenarios' expect: blocks when none are asked for; the figures checked after the run. */
  check?: boolean;
  /** Evaluations in a row (`eval --watch`); without one, the lock is released when this evaluation ends. */
  session?: EvaluationSession;
  /** With a session: the runs of its last evaluation that may be kept (those of what a change did not touch). */
  keep?: (run: RunResult) => boolean;
  /** Wraps each planner loaded (the command line keeps its errors' stack traces for --verbose). */
  wrapPlanner?: (planner: PlannerHandle) => PlannerHandle;
}

/** How an evaluation is shown: what it says as it goes, and where the reporters that print write. */
export interface EvaluationDisplay {
  events?: EvaluationEvents;
  console: ReportConsole;
}

/** Why an evaluation ran nothing: every refusal is an input error (`problems` lists what was wrong). */
type Refusal = 'plan' | 'no-scenarios' | 'policy';

export type EvaluationOutcome =
  | {
      ran: false;
      why: Refusal;
      scenarios: RequestScenarios;
      /** The problems that refused it (the plan's, the policy's; for no-scenarios, the scenarios' problems). */
      problems: Problem[];
    }
  | {
      ran: true;
      results: Results;
      scenarios: RequestScenarios;
      /** Every input problem: scenario files that did not load or lint refused (results.json lists them). */
      problems: Problem[];
      /** The reports written beside results.json (file names). */
      written: string[];
      /** `keep`: the runs kept from the evaluation before. */
      kept?: RunResult[];
      /** `check`: the figures of the scenarios' expect: blocks that did not hold, and how many sets were checked. */
      expectations?: { failures: ScenarioExpectationFailure[]; checked: number };
    };

/**
 * Runs one evaluation of a request to its end: see the module comment for the steps. A usage
 * error (an unknown planner, a refused resume, a live lock on --out) throws a UsageError; input
 * problems that leave nothing to run are an outcome (`ran: false`).
 *
 * @example
 * const outcome = await evaluation(request, { command: 'oneway evaluate()' }, { console });
 * if (outcome.ran) console.log(outcome.results.summary);
 */
export async function evaluation(
  request: EvalRequest,
  o: EvaluationOptions,
  display: EvaluationDisplay,
): Promise<EvaluationOutcome> {
  const session = (o.session ?? evaluationSession()) as SessionState;
  const reached: Reached = {};
  try {
    return await steps(request, o, display, session, reached);
  } finally {
    if (session.watch) session.watched = watchedOf(request, reached, session.watched);
    if (!o.session) session.release();
  }
}

async function steps(
  request: EvalRequest,
  o: EvaluationOptions,
  display: EvaluationDisplay,
  session: SessionState,
  reached: Reached,
): Promise<EvaluationOutcome> {
  const { events = {} } = display;
  const scenarios = await requestScenarios(request, request.env);
  reached.scenarios = scenarios;
  events.scenarios?.(scenarios);
  const { selected } = scenarios;
  const problems = [...scenarios.problems];

  const engine = await import('../../engine/runner/evaluate.ts');
  const lineup = await lineUp(request, selected, o);
  reached.planners = lineup.planners;
  const plan = request.plan ? readPlan(request.plan, selected) : undefined;
  if (plan && !plan.ok) return { ran: false, why: 'plan', scenarios, problems: plan.problems };
  if (selected.length === 0) return { ran: false, why: 'no-scenarios', scenarios, problems };
  events.running?.(scenarios);
  const policy = await requestPolicy(request);
  if (!policy.ok) return { ran: false, why: 'policy', scenarios, problems: policy.problems };

  // One evaluation per --out at a time (harness/engine/results/lock.ts); released on any exit.
  for (const m of await lockSession(session, request.outDir, o.command)) events.warning?.(m);
  const options = await evalOptionsOf(request, {
    scenarios,
    planners: lineup.planners,
    policy: policy.value,
    ...(plan ? { plan: plan.value } : {}),
  });
  const { agent } = lineup;
  options.shouldStop = () => o.signal?.aborted === true;
  options.onRunDone = (run, done, total) => {
    agent?.runDone(run);
    events.runDone?.(run, done, total);
  };
  // Evaluations in a row: the runs of the last one that the change left as they were.
  const kept =
    o.keep && session.previous ? keptRuns(session.previous, options, engine.buildResults, o.keep) : undefined;
  if (kept) options.resume = kept;
  else if (request.resume) {
    // A damaged results.json falls back to the last good checkpoint (results.json.prev), said as a warning.
    const { readResultsForResume } = await import('../../engine/results/write.ts');
    const previous = readResultsForResume(request.outDir);
    if (previous.note) events.warning?.(`${request.labels.resume}: ${previous.note}`);
    options.resume = resumable(request.outDir, previous.results, options, engine.buildResults, request.labels.resume);
  }
  // workers 'auto': a long evaluation of planners that only compute goes to worker threads.
  const runs = await settleWorkers(request, options);
  if (runs !== undefined) events.workers?.(runs, options.workers ?? 1);
  const ran = await engine.evaluate(options).finally(async () => {
    events.runsOver?.();
    await agent?.close();
  });

  const results = await writeResults(ran, request, display.console);
  if (!results.results.interrupted) session.previous = results.results;
  return {
    ran: true,
    results: results.results,
    scenarios,
    problems,
    written: results.written,
    ...(kept ? { kept } : {}),
    ...(o.check ? { expectations: expectations(results.results, selected) } : {}),
  };
}

/** The planners to evaluate (the request's, --check's expectations' planners, and the agent), each name once. */
async function lineUp(request: EvalRequest, selected: readonly LoadedScenario[], o: EvaluationOptions) {
  const { agent: asked } = request;
  const specs =
    o.check && request.planners === undefined
      ? expectedPlanners(selected)
      : (request.planners ?? (asked ? [] : ['gated']));
  const loaded = await loadPlanners(specs, request.cwd, request.plannerOptions, request.plannerEnv);
  const planners = o.wrapPlanner ? loaded.map(o.wrapPlanner) : loaded;
  const mcpAgent = asked ? await import('../mcp/agent.ts') : undefined;
  const agent =
    asked && mcpAgent
      ? mcpAgent.agentPlanner({
          command: asked.command,
          name: asked.name ?? mcpAgent.DEFAULT_AGENT_COMMAND_NAME,
          timeoutMs: asked.timeoutMs,
          outDir: request.outDir,
          cwd: request.cwd,
          env: request.env,
          scenarios: selected.map((l) => l.scenario),
          maxTurns: request.maxTurns,
          batchWindowMs: asked.batchWindowMs,
        })
      : undefined;
  if (agent) planners.push(agent);
  checkLineUp(
    planners.map((p) => p.name),
    request,
  );
  return { planners, agent };
}

/** The planners named in the scenarios' expect: blocks, in a stable order. */
function expectedPlanners(loaded: readonly LoadedScenario[]): string[] {
  const names = new Set(loaded.flatMap((l) => Object.keys(l.scenario.expect ?? {})));
  if (names.size === 0) throw new UsageError('--check: no selected scenario has an expect: block');
  return [...names].sort();
}

/** The --plan file, checked against every selected scenario (a plan naming a tool a scenario lacks is an input error). */
function readPlan(
  file: string,
  selected: readonly LoadedScenario[],
): { ok: true; value: PlanItem[] | undefined } | { ok: false; problems: Problem[] } {
  let plan: PlanItem[] | undefined;
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const l of selected.length ? selected : [undefined]) {
    const loaded = loadPlanFile(file, l?.scenario);
    if (loaded.ok) {
      plan = loaded.value;
      continue;
    }
    for (const p of loaded.problems) {
      const key = formatProblem(p);
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push(l && selected.length > 1 ? { ...p, message: `${p.message} (scenario ${l.scenario.id})` } : p);
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, value: plan };
}

/** Takes the --out lock for the session (once; again when --out moved since); returns the warnings of a stale lock taken over. */
async function lockSession(session: SessionState, dir: string, command: string): Promise<string[]> {
  if (session.lock?.dir === dir) return [];
  session.release();
  const { lock, warnings } = await lockOut(dir, command);
  session.lock = { dir, lock };
  return warnings;
}

/**
 * The --out step every command that writes results.json takes (eval, evaluate(), serve, merge;
 * fuzz for its fuzz.json): the directory made, and one evaluation or server at a time in it
 * (harness/engine/results/lock.ts; a live holder is a UsageError naming it). `warnings`: a stale
 * lock taken over, to be said.
 */
export async function lockOut(dir: string, command: string): Promise<{ lock: OutLock; warnings: string[] }> {
  const { lockOutDir } = await import('../../engine/results/lock.ts');
  ensureDir(dir);
  const warnings: string[] = [];
  return { lock: lockOutDir(dir, { command, warn: (m) => warnings.push(m) }), warnings };
}

/** Attaches the comparisons and gates, writes results.json and the reports asked for (an evaluation's last step, and a merge's). */
export async function writeResults(
  ran: Results,
  request: AnalysisRequest,
  console: ReportConsole,
): Promise<{ results: Results; written: string[] }> {
  const [{ analyseResults }, write, { writeReports }] = await Promise.all([
    import('../../engine/results/build.ts'),
    import('../../engine/results/write.ts'),
    import('../report/index.ts'),
  ]);
  const { outDir, reporters } = request;
  const results = analyseResults(ran, analysisOf(request));
  write.writeResults(outDir, results);
  const written = reporters.length
    ? writeReports(results, reporters, { outDir, stdout: console.stdout, chalk: console.chalk, env: request.env })
    : [];
  return { results, written };
}

/** --check: the figures of the selected scenarios' expect: blocks that do not hold. */
function expectations(
  results: Results,
  selected: readonly LoadedScenario[],
): { failures: ScenarioExpectationFailure[]; checked: number } {
  const failures = checkRuns(results.runs, new Map(selected.map((l) => [l.scenario.id, l.scenario.expect ?? {}])));
  return { failures, checked: selected.reduce((a, l) => a + Object.keys(l.scenario.expect ?? {}).length, 0) };
}
