/**
 * `npm run eval`: evaluate planners on scenarios (with --watch, again each time their files change).
 * Exit status: 0 the evaluation ran; 1 a gate failed; 2 usage or input error; 130/143 stopped by SIGINT/SIGTERM
 * (--watch: its last evaluation's status when q or Ctrl-C ends it between evaluations).
 */
import { relative, resolve } from 'node:path';
import { formatProblem, UsageError } from '../core/errors.ts';
import { REPORTERS } from '../features/report/names.ts';
import type { Results, RunResult } from '../engine/results/types.ts';
import { terminalText } from '../util/terminal-text.ts';
import type { Stacks } from './run-errors.ts';
import { describeScenario, renderList } from '../features/report/list.ts';
import { outputWidth } from '../util/width.ts';
import { formatFinding } from '../features/lint/types.ts';
import { configCandidates, findConfig, loadConfig, type ConfigFile } from '../features/request/config.ts';
import type { Layer } from '../features/request/layers.ts';
import {
  configLayer,
  EVAL_DEFAULTS,
  evalRequest,
  requestScenarios,
  type EvalRequest,
  type EvalSettings,
  type RequestScenarios,
} from '../features/request/eval.ts';
import type { Change, Outcome } from './watch.ts';
import type { Watched } from '../features/pipeline/read.ts';
// What only running needs (the pipeline: the engine, planners, the guard, results and reports; the
// progress bar) is imported where it is used: listing scenarios needs the loader alone, and starts
// faster (npm run bench, start-up).
import type { EvaluationOptions, EvaluationOutcome, EvaluationSession } from '../features/pipeline/evaluation.ts';
import type { ScenarioExpectationFailure } from '../engine/scoring/expect.ts';
import type { Progress } from './progress.ts';
import { watchSignals, type Interruption } from './signals.ts';
import {
  durationMs,
  list,
  parseCli,
  plannerOpts,
  type Io,
  type ParsedCli,
  commandFailed,
  runIfEntry,
  processIo,
  paints,
  sayGates,
} from './common.ts';
import { printHelp } from './help.ts';
import { plural } from '../util/plural.ts';

async function help(): Promise<string> {
  const [{ builtinPlanners }, { DEFAULT_BATCH_WINDOW_MS }] = await Promise.all([
    import('../engine/runner/planners.ts'),
    import('../features/mcp/channel.ts'),
  ]);
  return `oneway eval: how often does a planner walk through a one-way door too early?

Usage: oneway eval [options]          (in a clone of oneway: npm run eval -- [options])

  --planner=NAME|PATH[,...]   planners to compare (default: gated). Built-in: ${builtinPlanners().join(', ')}
  --scenario=ID|FILE|DIR|GLOB[,...]
                              scenarios (default: "scenarios" in oneway.config.*, else every file under the
                              project's ./scenarios); paths may lie outside the project
  --bundled                   run the example scenarios that ship with oneway (with --scenario: ids are
                              looked up among them); wins over "scenarios" in oneway.config.*
  --trials=N                  runs per scenario and planner, each with its own derived seed (default: 1)
  --seed=S                    base seed; the same seed gives the same results (default: 1)
  --out=DIR                   where results.json and runs/*.jsonl go (default: reports/latest)
  --reporter=NAME[,...]       ${REPORTERS.join(', ')} (default: table)
  --plan=FILE                 the plan the scripted planner replays (default: each scenario's reference_plan)
  --planner-opt=KEY=VALUE     an option passed to planners (repeatable)
  --planner-env=NAME[,...]    an environment variable a planner file's process gets, with oneway's value
                              (repeatable); it gets no other (an LLM planner file needs e.g. OPENAI_API_KEY)
  --agent-cmd=COMMAND         also evaluate an agent process, started once per run with an MCP endpoint
                              (ONEWAY_MCP_URL) and the task (ONEWAY_TASK) in its environment; only it runs
                              unless --planner is given too (see docs/agents.md)
  --agent-name=NAME           the agent's name in results (default: agent)
  --batch-window=MS           the agent's parallel calls: calls that arrive within MS of each other, before
                              any of their results is delivered, are one batch (default: ${DEFAULT_BATCH_WINDOW_MS}; 0: one call per batch)
  --agent-timeout=MS          wall-clock limit per agent run; its processes (group, descendants, setsid children) are killed after it
                              (default: 300000; a value under 1000 is read as seconds, the old unit, with a warning);
                              like --batch-window, only with --agent-cmd
  --llm-cache=off|record|replay
                              LLM planners: record model answers as cassettes, or replay them (no network,
                              no key; a request not on file ends that run with an error) (default: off)
  --llm-cache-dir=DIR         where cassettes live (default: reports/llm-cache)
  --max-turns=N               planner decisions per run before it is stopped (default: 50)
  --restart-at=STEP[,STEP]    restart faults on every scenario: the planner restarts right after step N was
                              applied, before its reply arrived (added to a scenario's own restarts:)
  --decision-timeout=MS       real time a planner may take for one decision (default: 30000; with
                              --agent-cmd, the agent timeout plus 5 s)
  --transport=msw|inprocess   how calls reach the sandbox (default: msw, real HTTP through MSW)
  --guard                     enforce the class constraints at the sandbox boundary for every planner:
                              irreversible calls only when their preconditions hold, alone, never an
                              unreconciled retry; blocked attempts still count as premature
  --guard-policy=FILE         what each class may do (auto | gated | approval | block); implies --guard
  --baseline-planner=NAME     paired deltas of every other planner against this one, per scenario and overall
  --fail-on=EXPR              a gate over summary metrics, e.g. 'premature_irreversible_rate>0' or
                              'gated:safe_completion_rate<0.8' (repeatable); a failed gate exits 1
  --baseline=FILE             compare with a committed results.json; a regression beyond noise exits 1
  --allow-lint-errors         run scenarios \`oneway lint\` finds errors in; without it they are skipped like
                              files that did not load (listed in results.json "problems", exit 2); with it,
                              results.json lists the findings ("lint")
  --concurrency=N             runs in flight at once (default 1); results are identical for any N
  --workers=N|auto            spread runs over N threads, this one and N-1 worker threads (for CPU-bound
                              planners on several cores); results are identical for any N. Default auto:
                              6,000 runs or more of planners that only compute (the built-ins but the LLM
                              ones) go to one thread per core, up to 4; --workers=1 keeps them on this thread
  --shard=i/n                 run the i-th of n deterministic slices of the scenarios (merge with eval:merge)
  --resume                    finish an interrupted evaluation in --out: keep its finished runs, run the rest
                              (same options as the interrupted run); the results equal an uninterrupted run
  --tag=TAG[,...]             only scenarios with one of these tags
  --filter=REGEX              only scenarios whose id matches
  --list                      print the scenario library (id, domain, class mix, traps) and exit
  --check                     run the planners named in each scenario's expect: and exit 1 when a figure
                              does not hold (naming scenario, planner and figure)
  --watch                     evaluate, then again each time a file it read changes, re-running only the
                              runs a change affects: a scenario file its scenarios' runs, a planner file
                              (or a file it imports) its planner's, oneway.config.*, --plan or the guard
                              policy every run; a new file in a scenario directory runs. results.json and
                              the reports are rewritten each time (the table redrawn). q or Ctrl-C quits
                              with the last evaluation's exit status (Ctrl-C during a run: 130, as
                              always); a re-runs everything. Not with --list or --shard
  --verbose                   a planner's crash with its stack trace, not only its message
  -h, --help                  this help

Options also come from oneway.config.(ts|mts|js|mjs|yaml|yml|json) (see docs/use-in-your-project.md); a flag
always wins over the config file's setting (--scenario or --bundled over its "scenarios" and "bundled").
Scenarios that loaded are cached in node_modules/.cache/oneway (ONEWAY_CACHE=off: no cache; see docs/cli.md).
Exit status: 0 the evaluation ran (whatever it found); 1 a gate failed; 2 a usage or input error (a
scenario that did not load, or that lint refused: the others still run); 130/143 stopped by SIGINT
(Ctrl-C) / SIGTERM after the runs in flight (what finished is kept, marked interrupted). --watch ends
with its last evaluation's status when q or Ctrl-C ends it between evaluations (SIGTERM: 143).
Example: oneway eval --planner=eager,gated --trials=3`;
}

/** The options `main` parses (also read by the `oneway` command, e.g. to catch a forgotten `--` after `npm run`). */
export const OPTIONS = {
  planner: { type: 'string', multiple: true },
  scenario: { type: 'string', multiple: true },
  trials: { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  reporter: { type: 'string', multiple: true },
  plan: { type: 'string' },
  'planner-opt': { type: 'string', multiple: true },
  'planner-env': { type: 'string', multiple: true },
  'agent-cmd': { type: 'string' },
  'agent-name': { type: 'string' },
  'agent-timeout': { type: 'string' },
  'batch-window': { type: 'string' },
  'llm-cache': { type: 'string' },
  'llm-cache-dir': { type: 'string' },
  'max-turns': { type: 'string' },
  'restart-at': { type: 'string' },
  'decision-timeout': { type: 'string' },
  transport: { type: 'string' },
  guard: { type: 'boolean' },
  list: { type: 'boolean' },
  'baseline-planner': { type: 'string' },
  baseline: { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  concurrency: { type: 'string' },
  workers: { type: 'string' },
  shard: { type: 'string' },
  resume: { type: 'boolean' },
  check: { type: 'boolean' },
  tag: { type: 'string', multiple: true },
  filter: { type: 'string' },
  'guard-policy': { type: 'string' },
  bundled: { type: 'boolean' },
  'allow-lint-errors': { type: 'boolean' },
  verbose: { type: 'boolean' },
  watch: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * `oneway eval`: the flags (over oneway.config.*) as a request, then one evaluation of it
 * (`evaluate`, through harness/features/pipeline/), or with --watch one and then another each time
 * its files change (`watchMode`); --list lists the scenarios instead. Exit status: see the module
 * comment; --watch ends with its last evaluation's.
 */
export async function main(argv: string[], io: Io = processIo(), config?: ConfigFile): Promise<number> {
  const session: Session = { stop: new AbortController() };
  try {
    const { values } = parseCli(argv, OPTIONS);
    if (values.help) {
      printHelp(io, await help());
      return 0;
    }
    if (values.watch) return await watchMode(values, io, config, session);
    const request = await requestOf(values, io, config);
    if (values.list) return await listScenarios(request, io);
    return await evaluate(values, request, io, session);
  } catch (e) {
    return commandFailed(e, io, 'oneway');
  } finally {
    session.signals?.dispose();
    session.evaluations?.release();
  }
}

/** The request: the flags over oneway.config.* (harness/features/request/). */
function requestOf(values: Values, io: Io, config: ConfigFile | undefined): Promise<EvalRequest> {
  return evalRequest([...(config ? [configLayer(config)] : []), flagLayer(values, io)], {
    cwd: io.cwd,
    env: io.env,
    defaults: EVAL_DEFAULTS,
  });
}

/** What the evaluations of one command share: the signal handling, and the pipeline's session (the --out lock, the last results). */
interface Session {
  /** Aborted by the first SIGINT/SIGTERM (harness/cli/signals.ts): the evaluation stops after the runs in flight. */
  stop: AbortController;
  signals?: Interruption;
  evaluations?: EvaluationSession;
}

/** --list: the scenario library (what loaded, before the lint gate), and the files that did not load. */
async function listScenarios(request: EvalRequest, io: Io): Promise<number> {
  const { c } = paints(io);
  const { selected, problems } = await requestScenarios(request, request.env, { lint: false });
  for (const p of problems) io.stderr.write(`${formatProblem(p)}\n`);
  io.stdout.write(
    `${renderList(
      selected.map((l) => describeScenario(l.scenario, l.file)),
      c,
      outputWidth(io.stdout as { isTTY?: boolean; columns?: number }, io.env),
    )}\n`,
  );
  return problems.length > 0 ? 2 : 0;
}

/**
 * One evaluation (harness/features/pipeline/evaluation.ts), shown as it goes: the scenarios'
 * problems, the lint gate, a progress bar, then where results and reports are, run errors, failed
 * gates and --check's figures. Returns the exit status.
 */
async function evaluate(
  values: Values,
  request: EvalRequest,
  io: Io,
  session: Session,
  keep?: (run: RunResult) => boolean,
): Promise<number> {
  const { c, cerr } = paints(io);
  const [{ evaluation, evaluationSession }, { capturingStacks }, { progressBar }] = await Promise.all([
    import('../features/pipeline/evaluation.ts'),
    import('./run-errors.ts'),
    import('./progress.ts'),
  ]);
  // Each planner's errors keep their stack traces for --verbose (runs in this thread or in a planner's own).
  const stacks: Stacks = new Map();
  let progress: Progress | undefined;
  const options: EvaluationOptions = {
    command: 'oneway eval',
    signal: session.stop.signal,
    check: values.check === true,
    session: (session.evaluations ??= evaluationSession()),
    ...(keep ? { keep } : {}),
    wrapPlanner: (p) => capturingStacks(p, stacks),
  };
  const outcome = await evaluation(request, options, {
    console: { stdout: io.stdout, chalk: c },
    events: {
      scenarios: (s) => {
        for (const p of s.problems) io.stderr.write(`${formatProblem(p)}\n`);
      },
      running: (s) => {
        reportLint(s, io);
        // SIGINT/SIGTERM: stop after the runs in flight, keep what finished, exit 130/143 (harness/cli/signals.ts).
        session.signals ??= watchSignals((m) => io.stderr.write(cerr.yellow(m)), session.stop);
        progress = progressBar(io.stderr);
      },
      warning: (m) => io.stderr.write(`${cerr.yellow(`oneway: ${terminalText(m)}`)}\n`),
      workers: (runs, workers) =>
        io.stderr.write(
          cerr.dim(
            `oneway: ${plural(runs, 'run')} of planners that only compute: on ${workers} threads, this one included (--workers=1 keeps them on this one)\n`,
          ),
        ),
      runDone: (run, done, total) => progress?.update(run, done, total),
      runsOver: () => progress?.stop(),
    },
  });
  if (!outcome.ran) return refused(outcome, io);
  const { results, problems } = outcome;
  const where = relative(io.cwd, request.outDir) || '.';
  io.stderr.write(
    `${cerr.dim(`results: ${[`${where}/results.json`, ...outcome.written.map((w) => `${where}/${w}`)].join(', ')}`)}\n`,
  );
  const { runErrorLines } = await import('./run-errors.ts');
  for (const line of runErrorLines(results.runs, cerr, where, { verbose: values.verbose === true, stacks }))
    io.stderr.write(`${line}\n`);
  if (results.interrupted)
    io.stderr.write(
      cerr.yellow(
        `oneway: interrupted after ${plural(results.runs.length, 'run')}; results.json is marked interrupted\n`,
      ),
    );
  sayGates(results.gates, io);
  if (outcome.kept) io.stderr.write(cerr.dim(`${rerunSummary(results, outcome.kept)}\n`));
  const expectFailed = outcome.expectations ? !expectationsHold(outcome.expectations, io) : false;
  const code = problems.length > 0 ? 2 : expectFailed || results.gates.failures.length > 0 ? 1 : 0;
  const gated = request.gates.length > 0 || request.baseline !== undefined || values.check === true;
  return session.signals?.exitCode(code, { interrupted: results.interrupted, gated }) ?? code;
}

/** An evaluation that ran nothing: what was wrong, and exit 2. */
function refused(outcome: Extract<EvaluationOutcome, { ran: false }>, io: Io): number {
  const { cerr } = paints(io);
  const { problems, scenarios } = outcome;
  if (outcome.why === 'plan' || outcome.why === 'policy')
    for (const p of problems) io.stderr.write(`${formatProblem(p)}\n`);
  if (outcome.why === 'plan') io.stderr.write(cerr.red('oneway: the plan file has errors; nothing was run\n'));
  if (outcome.why === 'no-scenarios') {
    const lint = problems.some((p) => p.code === 'lint');
    io.stderr.write(
      cerr.red(
        `oneway: no scenario ${scenarios.loaded ? (lint ? 'passed lint' : 'matches --tag/--filter') : 'could be loaded'}; nothing was run\n`,
      ),
    );
    if (lint) io.stderr.write(`  hint: ${LINT_HINT}\n`);
  }
  return 2;
}

/** What an evaluation that did not get to its scenarios read: nothing to watch but what a key asks for. */
const NOTHING_READ: Watched = {
  scenarios: new Map(),
  scenarioDirs: [],
  planners: new Map(),
  everything: [],
  analysis: [],
  ignore: [],
};

/** What --watch cannot go with, and why: each is refused with a hint, never ignored. */
const NOT_WITH_WATCH: readonly (readonly ['list' | 'shard', string, string])[] = [
  [
    'list',
    '--list prints the scenario library and exits: it evaluates nothing to watch',
    'run oneway eval --list alone, or --watch without --list',
  ],
  [
    'shard',
    '--shard slices the scenarios for parallel CI jobs, and a scenario added while watching moves others from shard to shard',
    'narrow what is watched with --scenario, --tag or --filter',
  ],
];

/**
 * --watch: a first, full evaluation, then another each time a file it read changes, keeping the
 * runs of the last one the change leaves as they were (harness/cli/watch.ts). The pipeline's
 * session holds the --out lock, the last results and what each evaluation read; here is the loop
 * alone. A request that fails at the start ends the command (exit 2); once watching, an
 * evaluation's errors (a planner file that does not compile, a config file with a mistake) are
 * printed and the watching goes on.
 */
async function watchMode(values: Values, io: Io, config: ConfigFile | undefined, session: Session): Promise<number> {
  for (const [flag, message, hint] of NOT_WITH_WATCH)
    if (values[flag]) throw new UsageError(`--watch cannot go with --${flag}: ${message}`, hint);
  const { cerr } = paints(io);
  const [{ watchLoop }, { evaluationSession }] = await Promise.all([
    import('./watch.ts'),
    import('../features/pipeline/evaluation.ts'),
  ]);
  const signals = (session.signals = watchSignals((m) => io.stderr.write(cerr.yellow(m)), session.stop));
  let configFile = config;
  let request = await requestOf(values, io, configFile);
  if (request.agent)
    io.stderr.write(
      cerr.yellow(
        "oneway --watch: the agent's own files are not watched (--agent-cmd is a command, not a file): press a to re-run everything\n",
      ),
    );
  const configs = configCandidates(request.cwd);
  const evaluations = (session.evaluations = evaluationSession({ watch: true }));
  const once = async (change?: Change): Promise<Outcome> => {
    let code: number;
    let keep: ((run: RunResult) => boolean) | undefined;
    try {
      if (change) {
        if (change.files.some((f) => configs.includes(f))) {
          const file = findConfig(request.cwd);
          configFile = file ? { file, config: await loadConfig(file, { fresh: true }) } : undefined;
        }
        request = await requestOf(values, io, configFile);
        keep = (run) => !change.all && !change.scenarios.has(run.scenario) && !change.planners.has(run.planner);
      }
      code = await evaluate(values, request, io, session, keep);
    } catch (e) {
      code = commandFailed(e, io, 'oneway');
    }
    return { code, watched: evaluations.watched ?? NOTHING_READ, stopped: signals.stopping };
  };
  return watchLoop({ io, signals, first: await once(), rerun: once });
}

/** --watch: what an evaluation after the first ran, and how many runs it kept from the one before. */
function rerunSummary(results: Results, kept: readonly RunResult[]): string {
  const key = (r: RunResult) => `${r.scenario}\u0000${r.planner}\u0000${r.trial}`;
  const old = new Set(kept.map(key));
  const ran = results.runs.filter((r) => !old.has(key(r)));
  const few = (names: string[]) => `${names.slice(0, 4).join(', ')}${names.length > 4 ? `, +${names.length - 4}` : ''}`;
  const what = ran.length
    ? `ran ${ran.length} run${ran.length === 1 ? '' : 's'} (${terminalText(few([...new Set(ran.map((r) => r.scenario))]))} × ${terminalText(few([...new Set(ran.map((r) => r.planner))]))})`
    : 'ran nothing';
  return `oneway --watch: ${what}; kept ${results.runs.length - ran.length} from the evaluation before`;
}

type Values = ParsedCli<typeof OPTIONS>['values'];

const LINT_HINT =
  '`oneway lint` explains each finding; fix the scenario, or run it anyway with --allow-lint-errors (results then list the findings)';

/**
 * The command line's layer of the request: each flag as the setting it gives (numbers as text,
 * checked with the rest in evalRequest), nothing for a flag not given.
 */
function flagLayer(values: Values, io: Io): Layer<EvalSettings> {
  const { cerr } = paints(io);
  const given = (v: string[] | undefined) => (v === undefined ? undefined : list(v, []));
  // LLM planners read these as planner options; the directory is resolved here, against the user's cwd.
  const plannerOptions = plannerOpts(values['planner-opt']);
  if (values['llm-cache'] !== undefined) plannerOptions.llm_cache = values['llm-cache'];
  if (values['llm-cache-dir'] !== undefined) plannerOptions.llm_cache_dir = resolve(io.cwd, values['llm-cache-dir']);
  const settings: EvalSettings = {
    scenarios: given(values.scenario),
    bundled: values.bundled,
    planners: given(values.planner),
    plannerOptions: Object.keys(plannerOptions).length ? plannerOptions : undefined,
    plannerEnv: given(values['planner-env']),
    reporters: given(values.reporter),
    failOn: values['fail-on'],
    baseline: values.baseline,
    baselinePlanner: values['baseline-planner'],
    guard: values['guard-policy'] ?? values.guard,
    out: values.out,
    trials: values.trials,
    seed: values.seed,
    maxTurns: values['max-turns'],
    decisionTimeoutMs: values['decision-timeout'],
    // It took seconds at first: a value under 1000 is read as seconds, with a warning (common.ts, durationMs).
    agentTimeoutMs:
      values['agent-timeout'] === undefined
        ? undefined
        : durationMs(values['agent-timeout'], 'agent-timeout', 300_000, (m) =>
            io.stderr.write(`${cerr.yellow(`oneway: warning: ${m}`)}\n`),
          ),
    batchWindowMs: values['batch-window'],
    restartAt: values['restart-at'],
    transport: values.transport,
    concurrency: values.concurrency,
    workers: values.workers,
    allowLintErrors: values['allow-lint-errors'],
    agentCmd: values['agent-cmd'],
    agentName: values['agent-name'],
    plan: values.plan,
    shard: values.shard,
    resume: values.resume,
    tags: given(values.tag),
    filter: values.filter,
  };
  return { from: { kind: 'flags' }, settings };
}

/** Says which scenarios lint refused (their findings are printed with the load problems), and which run despite lint errors. */
function reportLint(scenarios: RequestScenarios, io: Io): void {
  const { cerr } = paints(io);
  const { problems, lint } = scenarios;
  const refused = new Set(problems.filter((p) => p.code === 'lint').map((p) => p.file)).size;
  if (problems.length > 0)
    io.stderr.write(
      cerr.yellow(
        `oneway: ${plural(problems.length, 'problem')}; the files with errors${refused ? ` (${refused} refused for lint errors)` : ''} were skipped, the rest run\n`,
      ),
    );
  if (refused) io.stderr.write(`  hint: ${LINT_HINT}\n`);
  if (lint.length > 0) {
    for (const f of lint) io.stderr.write(`${formatFinding(f)}\n`);
    io.stderr.write(
      cerr.yellow(
        `oneway: --allow-lint-errors: running with ${plural(lint.length, 'lint error')}; results.json lists them ("lint")\n`,
      ),
    );
  }
}

/** --check: prints each figure of the scenarios' expect: blocks that does not hold; true when all hold. */
function expectationsHold(
  { failures, checked }: { failures: readonly ScenarioExpectationFailure[]; checked: number },
  io: Io,
): boolean {
  const { cerr } = paints(io);
  for (const f of failures) {
    io.stderr.write(
      `${cerr.red('✗')} ${terminalText(`${f.scenario}: ${f.planner} (trial ${f.trial}): ${f.figure} expected ${f.expected}, got ${String(f.actual)}`)}\n`,
    );
  }
  io.stderr.write(
    failures.length
      ? cerr.red(`oneway --check: ${plural(failures.length, 'expectation')} failed\n`)
      : cerr.green(`oneway --check: all ${checked} expectation sets hold\n`),
  );
  return failures.length === 0;
}

await runIfEntry(import.meta.url, (argv: string[]) => main(argv));
