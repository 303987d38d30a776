/**
 * One evaluation request, whatever asks for it. `oneway eval` gives its flags over
 * oneway.config.*, `evaluate()` its options, `oneway serve` its flags (over the config file's
 * guard): each is a layer of settings (layers.ts). `evalRequest` merges them, checks every value
 * once, naming it as its source does, and fills in the defaults; the steps after it (the
 * scenarios through the lint gate, the planners, the guard's policy, the engine's options and
 * the analysis) are here too, so a setting reaches the engine by one road from every entry point.
 *
 * What only running needs (planners, gates, the baseline, shards) is imported when a request
 * needs it: `eval --list` resolves a request and loads scenarios, nothing more.
 */
import { availableParallelism } from 'node:os';
import { relative, resolve } from 'node:path';
import { UsageError, type LintFinding, type Problem, type Result } from '../../core/errors.ts';
import type { Planner, PlannerFactory } from '../../core/planner.ts';
import type { PlanItem } from '../../core/scenario.ts';
import type { FailOnGate } from '../../engine/gates/fail-on.ts';
import type { Policy } from '../../engine/guard/policy.ts';
import type { LoadedScenario } from '../../engine/loader/load.ts';
import type { Analysis } from '../../engine/results/build.ts';
import type { Results } from '../../engine/results/types.ts';
import type { EvalOptions } from '../../engine/runner/eval-types.ts';
import type { PlannerHandle } from '../../engine/runner/run.ts';
import { checkPlannerEnv } from '../../engine/runner/planner-env.ts';
import type { Shard } from '../../engine/runner/shard.ts';
import type { TransportName } from '../../engine/sandbox/transport.ts';
import { suggest } from '../../util/did-you-mean.ts';
import { reportersFor, type ReporterName } from '../report/names.ts';
import type { ConfigFile, LlmConfig, OnewayConfig } from './config.ts';
import {
  mergeLayers,
  settingLabel,
  specAt,
  configDir,
  type Layer,
  type Merged,
  type SettingName,
  type Source,
} from './layers.ts';
import { resolveScenarioSpecs, scenarioHome, scenarioSpecs } from './scenarios.ts';

/** A planner as an entry point names it: a built-in's name or a module path, or (evaluate()) the planner itself. */
export type PlannerSpec = string | Planner | PlannerFactory;

/**
 * The settings of an evaluation, as one layer gives them: every one optional. Numbers and the
 * restart steps come as numbers from a config file or evaluate(), as text from the command line;
 * `evalRequest` reads both, and says which it got when one is wrong.
 */
export interface EvalSettings {
  scenarios?: string[];
  bundled?: boolean;
  planners?: PlannerSpec[];
  /** Options passed to every planner, by key; the config's `llm` settings are among them (as the LLM planners read them). */
  plannerOptions?: Record<string, string>;
  /** Environment variables a planner file's process gets (`--planner-env`), by name: it gets no other. */
  plannerEnv?: string[];
  reporters?: string[];
  failOn?: string[];
  baseline?: string;
  baselinePlanner?: string;
  /** true: the default policy; a string: a guard policy file. */
  guard?: boolean | string;
  out?: string;
  trials?: number | string;
  seed?: number | string;
  maxTurns?: number | string;
  decisionTimeoutMs?: number | string;
  agentTimeoutMs?: number | string;
  batchWindowMs?: number | string;
  restartAt?: number[] | string;
  transport?: string;
  concurrency?: number | string;
  workers?: number | string;
  allowLintErrors?: boolean;
  // What only the command line gives.
  agentCmd?: string;
  agentName?: string;
  plan?: string;
  shard?: string;
  resume?: boolean;
  tags?: string[];
  filter?: string;
}

/** Each setting's name on the command line and in a config file. */
const NAMES: Record<keyof EvalSettings, SettingName> = {
  scenarios: { flag: 'scenario', config: 'scenarios' },
  bundled: { flag: 'bundled', config: 'bundled' },
  planners: { flag: 'planner', config: 'planners' },
  plannerOptions: { flag: 'planner-opt', config: 'plannerOptions' },
  plannerEnv: { flag: 'planner-env', config: 'plannerEnv' },
  reporters: { flag: 'reporter', config: 'reporters' },
  failOn: { flag: 'fail-on', config: 'failOn' },
  baseline: { flag: 'baseline', config: 'baseline' },
  baselinePlanner: { flag: 'baseline-planner', config: 'baselinePlanner' },
  guard: { flag: 'guard-policy', config: 'guard' },
  out: { flag: 'out', config: 'out' },
  trials: { flag: 'trials', config: 'trials' },
  seed: { flag: 'seed', config: 'seed' },
  maxTurns: { flag: 'max-turns', config: 'maxTurns' },
  decisionTimeoutMs: { flag: 'decision-timeout', config: 'decisionTimeoutMs' },
  agentTimeoutMs: { flag: 'agent-timeout', config: 'agentTimeoutMs' },
  batchWindowMs: { flag: 'batch-window', config: 'batchWindowMs' },
  restartAt: { flag: 'restart-at', config: 'restartAt' },
  transport: { flag: 'transport', config: 'transport' },
  concurrency: { flag: 'concurrency', config: 'concurrency' },
  workers: { flag: 'workers', config: 'workers' },
  allowLintErrors: { flag: 'allow-lint-errors', config: 'allowLintErrors' },
  agentCmd: { flag: 'agent-cmd', config: 'agentCmd' },
  agentName: { flag: 'agent-name', config: 'agentName' },
  plan: { flag: 'plan', config: 'plan' },
  shard: { flag: 'shard', config: 'shard' },
  resume: { flag: 'resume', config: 'resume' },
  tags: { flag: 'tag', config: 'tags' },
  filter: { flag: 'filter', config: 'filter' },
};

/** The least value of each whole-number setting. */
const LEAST = {
  trials: 1,
  seed: 0,
  maxTurns: 1,
  decisionTimeoutMs: 1,
  agentTimeoutMs: 1,
  batchWindowMs: 0,
  concurrency: 1,
  workers: 1,
} as const;

/** The defaults that differ by entry point; every other default is the same for all. */
export interface EntryDefaults {
  /** Reporters when none are asked for: `table` on the command line, none for evaluate() (a library prints nothing unasked). */
  reporters: string[];
  /** Add the `github` reporter under GitHub Actions (the command line; not evaluate()). */
  githubInActions: boolean;
  out: string;
  decisionTimeoutMs: number;
}

/** `oneway eval`'s defaults (evaluate() differs only in `reporters` and `githubInActions`). */
export const EVAL_DEFAULTS: EntryDefaults = {
  reporters: ['table'],
  githubInActions: true,
  out: 'reports/latest',
  decisionTimeoutMs: 30_000,
};

/**
 * What is done with results, whether they ran here or elsewhere (`oneway merge` asks for this
 * alone): the comparisons and gates, the directory results.json goes to, the reports.
 */
export interface AnalysisRequest {
  cwd: string;
  /** The environment the request was made in: a planner file's `plannerEnv` values, an agent process's, the scenario cache's (ONEWAY_CACHE), the reporters' (GITHUB_STEP_SUMMARY). */
  env: NodeJS.ProcessEnv;
  reporters: ReporterName[];
  gates: FailOnGate[];
  baseline: { label: string; results: Results } | undefined;
  baselinePlanner: string | undefined;
  outDir: string;
  /** How the settings checked against the planners are named, as their sources name them. */
  labels: { baselinePlanner: string; failOn: string };
}

/** A request, checked and complete: what every later step reads. */
export interface EvalRequest extends AnalysisRequest {
  /** Scenario specs, or undefined for the default: the project's ./scenarios (with `bundled`, oneway's). */
  scenarios: string[] | undefined;
  bundled: boolean;
  /** undefined: the default, gated (none when an agent command runs). */
  planners: PlannerSpec[] | undefined;
  plannerOptions: Record<string, string>;
  /** What a planner file's process gets as its whole environment: the names asked for, with this process's values. */
  plannerEnv: Record<string, string>;
  /** false, true (the default policy) or a guard policy file (absolute). */
  guard: boolean | string;
  trials: number;
  seed: number;
  maxTurns: number;
  decisionTimeoutMs: number;
  /** The agent process `--agent-cmd` starts for each run, with its name, run time limit and batch window. */
  agent: { command: string; name: string | undefined; timeoutMs: number; batchWindowMs: number } | undefined;
  restartAt: number[];
  transport: TransportName;
  concurrency: number;
  /** 'auto': decided once the runs are known (`settleWorkers`). */
  workers: number | 'auto';
  allowLintErrors: boolean;
  plan: string | undefined;
  shard: Shard | undefined;
  resume: boolean;
  tags: string[];
  filter: RegExp | undefined;
  /** How the settings checked after the request (against the planners loaded, the results resumed) are named, as their sources name them. */
  labels: AnalysisRequest['labels'] & { planners: string; resume: string };
}

/**
 * The settings a config file gives an evaluation (all but `fuzz`), or evaluate()'s options: paths
 * made absolute against `dir` (the config file's directory, or evaluate()'s cwd), the `llm`
 * settings turned into the planner options the LLM planners read, numbers kept as numbers.
 *
 * @example
 * settingsOf({ trials: 2, out: 'reports/ci', llm: { model: 'm' } }, '/p') // { trials: 2, out: '/p/reports/ci', plannerOptions: { model: 'm' } }
 */
export function settingsOf(
  config: Omit<OnewayConfig, 'planners'> & { planners?: PlannerSpec[] },
  dir: string,
): EvalSettings {
  const at = (p: string | undefined) => (p === undefined ? undefined : resolve(dir, p));
  const options = {
    ...Object.fromEntries(Object.entries(config.plannerOptions ?? {}).map(([k, v]) => [k, String(v)])),
    ...llmPlannerOptions(config.llm, dir),
  };
  const out: EvalSettings = {
    scenarios: config.scenarios?.map((s) => specAt(dir, s)),
    bundled: config.bundled,
    planners: config.planners?.map((p) => (typeof p === 'string' ? specAt(dir, p) : p)),
    plannerOptions: Object.keys(options).length ? options : undefined,
    plannerEnv: config.plannerEnv,
    reporters: config.reporters,
    failOn: config.failOn,
    baseline: at(config.baseline),
    baselinePlanner: config.baselinePlanner,
    guard: typeof config.guard === 'string' ? at(config.guard) : config.guard,
    out: at(config.out),
    trials: config.trials,
    seed: config.seed,
    maxTurns: config.maxTurns,
    decisionTimeoutMs: config.decisionTimeoutMs,
    agentTimeoutMs: config.agentTimeoutMs,
    batchWindowMs: config.batchWindowMs,
    restartAt: config.restartAt,
    transport: config.transport,
    concurrency: config.concurrency,
    workers: config.workers,
    allowLintErrors: config.allowLintErrors,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as EvalSettings;
}

/** The config file's layer of an evaluation's settings (its paths relative to the file). */
export function configLayer(cf: ConfigFile): Layer<EvalSettings> {
  return { from: { kind: 'config', file: cf.file }, settings: settingsOf(cf.config, configDir(cf.file)) };
}

/** The LLM settings as the planner options the LLM planners read (paths absolute against `dir`). */
function llmPlannerOptions(llm: LlmConfig | undefined, dir: string): Record<string, string> {
  if (!llm) return {};
  const out: Record<string, string> = {};
  if (llm.model !== undefined) out.model = llm.model;
  if (llm.baseUrl !== undefined) out.base_url = llm.baseUrl;
  if (llm.temperature !== undefined) out.temperature = String(llm.temperature);
  if (llm.timeoutMs !== undefined) out.timeout_ms = String(llm.timeoutMs);
  if (llm.maxRetries !== undefined) out.max_retries = String(llm.maxRetries);
  if (llm.priceFile !== undefined) out.price_file = resolve(dir, llm.priceFile);
  if (llm.cache !== undefined) out.llm_cache = llm.cache;
  if (llm.cacheDir !== undefined || llm.cache !== undefined)
    out.llm_cache_dir = resolve(dir, llm.cacheDir ?? 'reports/llm-cache');
  return out;
}

/**
 * Merges the layers (later over earlier) and checks the result into a request: every value once,
 * each error naming the value as its source does, with a hint. Reads the `baseline` file.
 *
 * @example
 * const request = await evalRequest([configLayer(cf), { from: { kind: 'flags' }, settings: { trials: '3' } }], { cwd, env, defaults: EVAL_DEFAULTS });
 */
export async function evalRequest(
  layers: readonly Layer<EvalSettings>[],
  ctx: { cwd: string; env: NodeJS.ProcessEnv; defaults: EntryDefaults },
): Promise<EvalRequest> {
  const { settings: s, origin } = mergeLayers(layers);
  const { cwd, defaults } = ctx;
  const label = (key: keyof EvalSettings) => settingLabel(NAMES[key], origin[key], cwd);
  const int = (key: keyof typeof LEAST, fallback: number) => wholeNumber(s[key], label(key), LEAST[key], fallback);

  const agentCmd = s.agentCmd;
  if (agentCmd !== undefined && agentCmd.trim() === '')
    throw new UsageError('--agent-cmd is empty', 'e.g. --agent-cmd="node examples/mcp-agent/agent.mjs"');
  // The agent's own limits mean nothing without an agent; given on the command line or to evaluate(), they are a mistake.
  for (const key of ['agentTimeoutMs', 'batchWindowMs'] as const) {
    if (agentCmd === undefined && s[key] !== undefined && origin[key]?.kind !== 'config')
      throw new UsageError(
        `${label(key)} applies to an agent command, and none is given`,
        origin[key]?.kind === 'api'
          ? 'evaluate() runs planners, not agent processes: run an agent with oneway eval --agent-cmd=COMMAND'
          : 'add --agent-cmd=COMMAND (see docs/agents.md), or leave it out',
      );
  }
  const agentTimeoutMs = int('agentTimeoutMs', 300_000);
  const agentName = s.agentName;
  if (agentCmd !== undefined && agentName !== undefined && !/^[A-Za-z0-9._-]{1,80}$/.test(agentName))
    throw new UsageError(`--agent-name must be letters, digits, ".", "_" or "-", got "${agentName}"`);

  const transport = s.transport ?? 'msw';
  if (transport !== 'msw' && transport !== 'inprocess')
    throw new UsageError(`${label('transport')} must be msw or inprocess, got "${transport}"`);

  const plannerOptions = { ...s.plannerOptions };
  const cache = plannerOptions.llm_cache;
  if (cache !== undefined && !['off', 'record', 'replay'].includes(cache))
    throw new UsageError(`${llmCacheLabel(origin, cwd)} must be off, record or replay, got "${cache}"`);
  if (cache !== undefined) plannerOptions.llm_cache_dir ??= resolve(cwd, 'reports/llm-cache');

  const workers = s.workers === undefined || s.workers === 'auto' ? ('auto' as const) : int('workers', 1);
  const analysis = await analysisRequest({ settings: s, origin }, ctx);
  return {
    ...analysis,
    scenarios: s.scenarios?.length ? s.scenarios : undefined,
    bundled: s.bundled === true,
    planners: s.planners?.length ? s.planners : undefined,
    plannerOptions,
    plannerEnv: checkPlannerEnv(s.plannerEnv ?? [], ctx.env, label('plannerEnv')),
    guard: typeof s.guard === 'string' ? resolve(cwd, s.guard) : s.guard === true,
    trials: int('trials', 1),
    seed: int('seed', 1),
    maxTurns: int('maxTurns', 50),
    // An agent thinks between tool calls as long as its run allows; the margin lets the agent's own limit
    // (which also kills its process group) fire first.
    decisionTimeoutMs: int(
      'decisionTimeoutMs',
      agentCmd !== undefined ? agentTimeoutMs + 5_000 : defaults.decisionTimeoutMs,
    ),
    agent:
      agentCmd === undefined
        ? undefined
        : {
            command: agentCmd,
            name: agentName,
            timeoutMs: agentTimeoutMs,
            batchWindowMs: int('batchWindowMs', (await import('../mcp/channel.ts')).DEFAULT_BATCH_WINDOW_MS),
          },
    restartAt: restartSteps(s.restartAt, label('restartAt')),
    transport,
    concurrency: int('concurrency', 1),
    workers,
    allowLintErrors: s.allowLintErrors === true,
    plan: s.plan === undefined ? undefined : resolve(cwd, s.plan),
    shard: s.shard === undefined ? undefined : (await import('../../engine/runner/shard.ts')).parseShard(s.shard),
    resume: s.resume === true,
    tags: s.tags ?? [],
    filter: s.filter === undefined ? undefined : filterOf(s.filter),
    labels: { ...analysis.labels, planners: label('planners'), resume: label('resume') },
  };
}

/**
 * The analysis part of a request from merged settings (those of `evalRequest`, or `oneway merge`'s
 * alone): the gates parsed, the baseline file read, the reporters and --out with their defaults.
 */
export async function analysisRequest(
  { settings: s, origin }: Merged<EvalSettings>,
  ctx: { cwd: string; env: NodeJS.ProcessEnv; defaults: Pick<EntryDefaults, 'reporters' | 'githubInActions' | 'out'> },
): Promise<AnalysisRequest> {
  const { cwd, defaults } = ctx;
  const label = (key: keyof EvalSettings) => settingLabel(NAMES[key], origin[key], cwd);
  const failOn = s.failOn ?? [];
  // The config file's gates stand for every run: one naming a planner an ad-hoc run leaves out is skipped.
  const optional = origin.failOn?.kind === 'config';
  const fail = failOn.length ? await import('../../engine/gates/fail-on.ts') : undefined;
  const gates = fail ? failOn.map((g) => fail.parseGate(g, { optional })) : [];
  const baselineFile = s.baseline === undefined ? undefined : resolve(cwd, s.baseline);
  const baseline = baselineFile
    ? {
        label: relative(cwd, baselineFile) || baselineFile,
        results: (await import('../../engine/gates/baseline.ts')).readBaseline(baselineFile),
      }
    : undefined;
  return {
    cwd,
    env: ctx.env,
    reporters: reportersFor(s.reporters ?? defaults.reporters, defaults.githubInActions ? ctx.env : {}),
    gates,
    baseline,
    baselinePlanner: s.baselinePlanner,
    outDir: resolve(cwd, s.out ?? defaults.out),
    labels: { baselinePlanner: label('baselinePlanner'), failOn: label('failOn') },
  };
}

/** The name of the LLM cache mode as its source gives it. */
function llmCacheLabel(origin: Partial<Record<string, Source>>, cwd: string): string {
  return settingLabel({ flag: 'llm-cache', config: 'llm.cache' }, origin['plannerOptions.llm_cache'], cwd);
}

/** A whole number at least `least`, given as a number or as text; `fallback` when not given. */
function wholeNumber(raw: unknown, label: string, least: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < least || n > 2 ** 31)
    throw new UsageError(
      `${label} must be an integer >= ${least}, got ${typeof raw === 'string' ? `"${raw}"` : String(raw)}`,
    );
  return n;
}

/** Restart steps (`--restart-at=3,7`, or `restartAt: [3, 7]`): sorted, without repeats, each from 1. */
function restartSteps(raw: number[] | string | undefined, label: string): number[] {
  if (raw === undefined) return [];
  const parts = typeof raw === 'string' ? raw.split(',').map((p) => p.trim()) : raw.map(String);
  const steps = parts.map(Number);
  if (parts.some((p) => !/^\d+$/.test(p)) || steps.some((n) => n < 1 || !Number.isSafeInteger(n))) {
    throw new UsageError(
      `${label} takes step numbers from 1, got "${typeof raw === 'string' ? raw : raw.join(',')}"`,
      'e.g. --restart-at=2 or --restart-at=2,5 (restartAt: [2, 5] in a config file)',
    );
  }
  return [...new Set(steps)].sort((a, b) => a - b);
}

function filterOf(filter: string): RegExp {
  try {
    return new RegExp(filter);
  } catch (e) {
    throw new UsageError(`--filter is not a valid regular expression: ${(e as Error).message}`);
  }
}

/** The scenarios of a request, after the lint gate; what did not load or lint refused is in `problems`. */
export interface RequestScenarios {
  /** Scenarios that loaded, before --tag, --filter and --shard. */
  loaded: number;
  /** The scenarios to run: loaded, narrowed by --tag, --filter and --shard, and let through by lint. */
  selected: LoadedScenario[];
  /** Files that did not load, then lint errors of scenarios refused for them (code `lint`). */
  problems: Problem[];
  /** With `allowLintErrors`: the lint errors of the scenarios that run with them. */
  lint: LintFinding[];
}

/**
 * Loads the request's scenarios and narrows them (--tag, --filter, --shard). Then the lint gate
 * (harness/features/lint/lint.ts, `lintGate`): a scenario `oneway lint` finds an error in is
 * refused like a file that did not load, unless the request allows lint errors. `lint: false`
 * skips the gate (`eval --list` lists what loaded).
 */
export async function requestScenarios(
  req: Pick<EvalRequest, 'cwd' | 'scenarios' | 'bundled' | 'tags' | 'filter' | 'shard' | 'allowLintErrors'>,
  env: NodeJS.ProcessEnv,
  opts: { lint?: boolean } = {},
): Promise<RequestScenarios> {
  const place = { cwd: req.cwd, env };
  const home = scenarioHome(place, req.bundled);
  const resolved = await resolveScenarioSpecs(scenarioSpecs(req.scenarios, home, place), place, home.root);
  const { tags, filter } = req;
  const filtered = resolved.loaded.filter(
    (l) =>
      (tags.length === 0 || l.scenario.tags.some((t) => tags.includes(t))) && (!filter || filter.test(l.scenario.id)),
  );
  const narrowed = req.shard ? (await import('../../engine/runner/shard.ts')).shardOf(filtered, req.shard) : filtered;
  if (opts.lint === false)
    return { loaded: resolved.loaded.length, selected: narrowed, problems: resolved.problems, lint: [] };
  const { lintGate } = await import('../lint/lint.ts');
  const gate = lintGate(narrowed, req.cwd, req.allowLintErrors);
  return {
    loaded: resolved.loaded.length,
    selected: gate.kept,
    problems: [...resolved.problems, ...gate.problems],
    lint: gate.allowed,
  };
}

/** The guard's policy a request asks for: none, the default, or a policy file's (its problems, when it has any). */
export async function requestPolicy(req: Pick<EvalRequest, 'guard'>): Promise<Result<Policy | undefined>> {
  if (req.guard === false) return { ok: true, value: undefined };
  const { DEFAULT_POLICY, loadPolicyFile } = await import('../../engine/guard/policy.ts');
  return req.guard === true ? { ok: true, value: DEFAULT_POLICY } : loadPolicyFile(req.guard);
}

/**
 * Loads planners by name or path, or takes them as given (evaluate()'s Planner and PlannerFactory
 * objects). `options`: the planner options the runs will have (a planner file's loading process
 * then serves its first run); `env`: a planner file's processes' whole environment (`--planner-env`).
 */
export async function loadPlanners(
  specs: readonly PlannerSpec[],
  cwd: string,
  options?: Record<string, string>,
  env?: Readonly<Record<string, string>>,
): Promise<PlannerHandle[]> {
  const { loadPlanner, toHandle } = await import('../../engine/runner/planners.ts');
  const handles: PlannerHandle[] = [];
  for (const [i, p] of specs.entries())
    handles.push(
      typeof p === 'string'
        ? await loadPlanner(p, cwd, options, env)
        : toHandle({ default: p }, `planner-${i + 1}`, `planners[${i}]`),
    );
  return handles;
}

/**
 * Checks the line-up before any run (or, merging, before anything is written): each planner once,
 * the baseline planner among them, and so is every planner a gate given for this run names
 * (`gated:...`: a typo must not cost a whole evaluation to find; a standing gate of the config file
 * is skipped instead, after the run). Each is named as its source names it; `labels.planners`, how
 * the planners were asked for (a merge asks for none: they are its parts').
 */
export function checkLineUp(
  names: readonly string[],
  req: Pick<AnalysisRequest, 'baselinePlanner' | 'gates'> & {
    labels: AnalysisRequest['labels'] & { planners?: string };
  },
): void {
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup)
    throw new UsageError(`planner "${dup}" is given twice`, 'each planner is evaluated once per scenario and trial');
  const { baselinePlanner } = req;
  if (baselinePlanner !== undefined && !names.includes(baselinePlanner)) {
    throw new UsageError(
      `${req.labels.baselinePlanner} names "${baselinePlanner}", which is not among the planners (${names.join(', ')})`,
      req.labels.planners === undefined
        ? `name one of these, or merge an evaluation of "${baselinePlanner}" with them`
        : `add it to the planners (${req.labels.planners}): ${[baselinePlanner, ...names].join(',')}`,
    );
  }
  const absent = req.gates.find((g) => !g.optional && g.planner !== null && !names.includes(g.planner));
  if (absent) {
    const planner = absent.planner as string;
    const s = suggest(planner, names);
    throw new UsageError(
      `${req.labels.failOn} "${absent.source}" names planner "${planner}", which is not among the planners (${names.join(', ')})`,
      `${s ? `did you mean "${s}"? ` : ''}a gate's planner: prefix names a planner of this evaluation; without it the gate holds for every planner`,
    );
  }
}

/** What running a request needs beyond it: its scenarios, planners, policy, and the --plan when given. */
export interface RequestParts {
  scenarios: RequestScenarios;
  planners: PlannerHandle[];
  policy: Policy | undefined;
  plan?: PlanItem[];
}

/**
 * The engine's options for a request: the one place a request's settings become EvalOptions, for
 * every entry point. `workers: 'auto'` is left for `settleWorkers` (it needs the runs to do).
 */
export async function evalOptionsOf(req: EvalRequest, parts: RequestParts): Promise<EvalOptions> {
  const { createGuard } = await import('../../engine/guard/guard.ts');
  return {
    scenarios: parts.scenarios.selected.map((l) => ({
      scenario: l.scenario,
      file: relative(req.cwd, l.file) || l.file,
      toolLines: l.toolLines,
    })),
    planners: parts.planners,
    trials: req.trials,
    seed: req.seed,
    outDir: req.outDir,
    transport: req.transport,
    maxTurns: req.maxTurns,
    decisionTimeoutMs: req.decisionTimeoutMs,
    plannerOptions: req.plannerOptions,
    ...(Object.keys(req.plannerEnv).length ? { plannerEnv: req.plannerEnv } : {}),
    ...(req.restartAt.length ? { restartAt: req.restartAt } : {}),
    ...(parts.plan ? { plan: parts.plan } : {}),
    ...(parts.policy ? { gate: createGuard(parts.policy), guardPolicy: parts.policy } : {}),
    problems: parts.scenarios.problems,
    ...(parts.scenarios.lint.length ? { lint: parts.scenarios.lint } : {}),
    concurrency: req.concurrency,
    ...(req.workers !== 'auto' ? { workers: req.workers } : {}),
    ...(req.shard ? { shard: `${req.shard.index}/${req.shard.total}` } : {}),
    ...(req.agent ? { agent: { timeoutMs: req.agent.timeoutMs, batchWindowMs: req.agent.batchWindowMs } } : {}),
  };
}

/**
 * `workers: 'auto'`: worker threads for a long evaluation of planners that only compute
 * (engine/runner/workers.ts, `autoWorkers`), else this thread. Sets `options.workers`; returns
 * the runs to do when auto chose workers (for the caller to say so), else undefined.
 */
export async function settleWorkers(
  req: Pick<EvalRequest, 'workers'>,
  options: EvalOptions,
): Promise<number | undefined> {
  if (req.workers !== 'auto') return undefined;
  const { autoWorkers } = await import('../../engine/runner/workers.ts');
  const { scenarios, planners, trials, resume } = options;
  const runs = scenarios.length * planners.length * trials - (resume?.length ?? 0);
  options.workers = autoWorkers({
    runs,
    planners,
    concurrency: options.concurrency ?? 1,
    cores: availableParallelism(),
  });
  return options.workers > 1 ? runs : undefined;
}

/** The comparisons and gates a request asks for. */
export function analysisOf(req: Pick<AnalysisRequest, 'baselinePlanner' | 'gates' | 'baseline'>): Analysis {
  return {
    ...(req.baselinePlanner !== undefined ? { baselinePlanner: req.baselinePlanner } : {}),
    gates: req.gates,
    ...(req.baseline ? { baseline: req.baseline } : {}),
  };
}
