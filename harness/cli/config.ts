/**
 * `oneway.config.(ts|mts|js|mjs|yaml|yml|json)`: a project's defaults for the `oneway` command and
 * for `evaluate(config)`. Found from the working directory upward, up to the nearest directory
 * holding a package.json (the project's root). Paths in it are relative to the file. Flags given
 * on the command line override it, option by option.
 *
 * Light on purpose: the `oneway` command reads it before loading any command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { suggest } from '../util/did-you-mean.ts';
import { importUserModule } from '../engine/io/ts-loader.ts';

/** What a config file may set. Every key is optional; see docs/use-in-your-project.md. */
export interface OnewayConfig {
  /** Scenario files, directories, globs or ids (default: the project's ./scenarios). */
  scenarios?: string[];
  /** With no `scenarios` and no ./scenarios: run the example scenarios that ship with oneway. */
  bundled?: boolean;
  /** Built-in planner names or planner module paths (default: gated). */
  planners?: string[];
  /** Options passed to every planner (`--planner-opt KEY=VALUE`). */
  plannerOptions?: Record<string, string | number | boolean>;
  /** LLM planners (openai, openai-aware): the model, its endpoint, and recorded answers. The key stays in OPENAI_API_KEY. */
  llm?: LlmConfig;
  /** Reporters: table, json, markdown, junit, github, html (default: table). */
  reporters?: string[];
  /** Gates over summary metrics (`--fail-on`), e.g. "premature_irreversible_rate>0". */
  failOn?: string[];
  /** A committed results.json to compare with (`--baseline`). */
  baseline?: string;
  /** Paired deltas of every other planner against this one (`--baseline-planner`). */
  baselinePlanner?: string;
  /** Enforce the class constraints at the sandbox boundary: true, or a guard policy file. */
  guard?: boolean | string;
  /** Where results.json, reports and run records go (default: reports/latest). */
  out?: string;
  trials?: number;
  seed?: number;
  maxTurns?: number;
  decisionTimeoutMs?: number;
  /** Wall-clock limit per agent run (`--agent-timeout`, milliseconds). */
  agentTimeoutMs?: number;
  /** How long an agent's concurrent MCP calls are collected into one batch (`--batch-window`, milliseconds). */
  batchWindowMs?: number;
  /** Restart faults on every scenario (`--restart-at`): the steps after which planners restart. */
  restartAt?: number[];
  transport?: 'msw' | 'inprocess';
  concurrency?: number;
  workers?: number;
  /** Defaults of `oneway fuzz`. */
  fuzz?: FuzzConfig;
}

export interface LlmConfig {
  model?: string;
  baseUrl?: string;
  temperature?: number | 'omit';
  timeoutMs?: number;
  maxRetries?: number;
  priceFile?: string;
  cache?: 'off' | 'record' | 'replay';
  cacheDir?: string;
}

export interface FuzzConfig {
  runs?: number;
  timeLimitMs?: number;
  properties?: string[];
  maxItems?: number;
  planner?: string;
  out?: string;
}

/** Typed config in oneway.config.ts / .mjs: `export default defineConfig({ ... })`. */
export function defineConfig(config: OnewayConfig): OnewayConfig {
  return config;
}

export const CONFIG_FILES = [
  'oneway.config.ts',
  'oneway.config.mts',
  'oneway.config.js',
  'oneway.config.mjs',
  'oneway.config.yaml',
  'oneway.config.yml',
  'oneway.config.json',
];

/**
 * The config file for `cwd`: the first of CONFIG_FILES in `cwd`, then in each parent up to the
 * nearest directory with a package.json. Outside any package, only `cwd` is looked at.
 */
export function findConfig(cwd: string): string | undefined {
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.push(dir);
    if (existsSync(join(dir, 'package.json'))) break;
    if (dirname(dir) === dir) {
      dirs.splice(1);
      break;
    }
  }
  for (const dir of dirs) {
    for (const name of CONFIG_FILES) if (existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

type Kind = 'string' | 'boolean' | 'int' | 'ints' | 'strings' | 'record' | 'object' | 'guard' | 'temperature';
const TOP: Record<keyof OnewayConfig, Kind> = {
  scenarios: 'strings',
  bundled: 'boolean',
  planners: 'strings',
  plannerOptions: 'record',
  llm: 'object',
  reporters: 'strings',
  failOn: 'strings',
  baseline: 'string',
  baselinePlanner: 'string',
  guard: 'guard',
  out: 'string',
  trials: 'int',
  seed: 'int',
  maxTurns: 'int',
  decisionTimeoutMs: 'int',
  agentTimeoutMs: 'int',
  batchWindowMs: 'int',
  restartAt: 'ints',
  transport: 'string',
  concurrency: 'int',
  workers: 'int',
  fuzz: 'object',
};
const LLM: Record<keyof LlmConfig, Kind> = {
  model: 'string',
  baseUrl: 'string',
  temperature: 'temperature',
  timeoutMs: 'int',
  maxRetries: 'int',
  priceFile: 'string',
  cache: 'string',
  cacheDir: 'string',
};
const FUZZ: Record<keyof FuzzConfig, Kind> = {
  runs: 'int',
  timeLimitMs: 'int',
  properties: 'strings',
  maxItems: 'int',
  planner: 'string',
  out: 'string',
};

const KIND_TEXT: Record<Kind, string> = {
  string: 'a string',
  boolean: 'true or false',
  int: 'a whole number',
  ints: 'a list of whole numbers',
  strings: 'a list of strings',
  record: 'a map of names to strings, numbers or booleans',
  object: 'a map',
  guard: 'true, false or a guard policy file',
  temperature: 'a number or "omit"',
};

function fits(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'int':
      return Number.isSafeInteger(v) && (v as number) >= 0;
    case 'ints':
      return Array.isArray(v) && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 0);
    case 'strings':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'record':
    case 'object':
      return (
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        (kind === 'object' || Object.values(v).every((x) => ['string', 'number', 'boolean'].includes(typeof x)))
      );
    case 'guard':
      return typeof v === 'boolean' || typeof v === 'string';
    case 'temperature':
      return typeof v === 'number' || v === 'omit';
  }
}

/** Checks a config's shape: unknown keys (with a did-you-mean) and wrong types are a UsageError naming the file. */
export function checkConfig(raw: unknown, file: string): OnewayConfig {
  const problems: string[] = [];
  const walk = (v: unknown, shape: Record<string, Kind>, at: string) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      problems.push(`${at || 'the file'} must be a map of settings`);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      const kind = shape[k];
      const path = at ? `${at}.${k}` : k;
      if (!kind) {
        const s = suggest(k, Object.keys(shape));
        problems.push(`unknown setting "${path}"${s ? ` (did you mean "${at ? `${at}.` : ''}${s}"?)` : ''}`);
      } else if (x !== undefined && !fits(kind, x)) problems.push(`"${path}" must be ${KIND_TEXT[kind]}`);
      else if (k === 'llm' && x !== undefined) walk(x, LLM, path);
      else if (k === 'fuzz' && x !== undefined) walk(x, FUZZ, path);
    }
  };
  walk(raw, TOP, '');
  if (problems.length)
    throw new UsageError(
      `${file}: ${problems.join('; ')}`,
      `settings: ${Object.keys(TOP).join(', ')} (docs/use-in-your-project.md, "Config file")`,
    );
  return raw as OnewayConfig;
}

/** Reads and checks a config file (TypeScript needs a loader: see util/ts-loader.ts). */
export async function loadConfig(file: string): Promise<OnewayConfig> {
  let raw: unknown;
  if (/\.(ya?ml)$/.test(file) || file.endsWith('.json')) {
    const text = readFileSync(file, 'utf8');
    try {
      raw = file.endsWith('.json') ? JSON.parse(text) : (await import('yaml')).parse(text);
    } catch (e) {
      throw new UsageError(`${file} does not parse: ${(e as Error).message}`);
    }
    if (raw === null || raw === undefined) raw = {};
  } else {
    const mod = await importUserModule(file, {
      what: `the config file ${file}`,
      failed: file,
      hint: 'check that it compiles and its imports resolve',
    });
    raw = mod.default;
    if (typeof raw === 'function') raw = await (raw as () => unknown)();
  }
  return checkConfig(raw, file);
}

const looksLikePath = (spec: string) =>
  /[\\/*?[\]{}]/.test(spec) || /\.(ya?ml|json|m?[jt]s|cjs)$/.test(spec) || spec === '.' || spec === '..';

/** A config path, made absolute against the config file's directory. */
const at = (dir: string, p: string) => resolve(dir, p);
/** A scenario or planner spec from the config: a path (or glob) made absolute; an id or a name kept. */
const spec = (dir: string, s: string) => (looksLikePath(s) || existsSync(resolve(dir, s)) ? resolve(dir, s) : s);

/** The LLM settings as the planner options the LLM planners read, and the eval flags for the cache. */
export function llmPlannerOptions(llm: LlmConfig | undefined, dir: string): Record<string, string> {
  if (!llm) return {};
  const out: Record<string, string> = {};
  if (llm.model !== undefined) out.model = llm.model;
  if (llm.baseUrl !== undefined) out.base_url = llm.baseUrl;
  if (llm.temperature !== undefined) out.temperature = String(llm.temperature);
  if (llm.timeoutMs !== undefined) out.timeout_ms = String(llm.timeoutMs);
  if (llm.maxRetries !== undefined) out.max_retries = String(llm.maxRetries);
  if (llm.priceFile !== undefined) out.price_file = at(dir, llm.priceFile);
  if (llm.cache !== undefined) out.llm_cache = llm.cache;
  if (llm.cacheDir !== undefined || llm.cache !== undefined)
    out.llm_cache_dir = at(dir, llm.cacheDir ?? 'reports/llm-cache');
  return out;
}

/** Whether argv already sets `--name` (as `--name`, `--name=...` or `--name value`), before any `--`. */
export function hasFlag(argv: readonly string[], name: string): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === `--${name}` || a.startsWith(`--${name}=`)) return true;
  }
  return false;
}

/** Positional arguments in argv (a rough cut: what does not start with "-" and does not follow a bare value-taking flag). */
function hasPositionals(argv: readonly string[], valued: ReadonlySet<string>): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') return i + 1 < argv.length;
    if (a.startsWith('-')) {
      if (!a.includes('=') && valued.has(a.replace(/^-+/, ''))) i++;
      continue;
    }
    return true;
  }
  return false;
}

/**
 * The flags a config adds to a command's argv: one per setting the command takes whose flag argv
 * does not already give (flags override the config). Paths come out absolute.
 */
export function configArgs(
  command: string,
  config: OnewayConfig,
  file: string,
  argv: readonly string[],
  options: Readonly<Record<string, { type: string }>>,
): string[] {
  const dir = dirname(file);
  const out: string[] = [];
  const add = (name: string, value: string | number | boolean | undefined) => {
    if (value === undefined || value === false || !(name in options) || hasFlag(argv, name)) return;
    out.push(value === true ? `--${name}` : `--${name}=${value}`);
  };
  const addAll = (name: string, values: readonly string[] | undefined) => {
    if (!values?.length || !(name in options) || hasFlag(argv, name)) return;
    for (const v of values) out.push(`--${name}=${v}`);
  };
  const guard = (g: boolean | string | undefined) => {
    if (typeof g === 'string') {
      if (!hasFlag(argv, 'guard')) add('guard-policy', at(dir, g));
    } else if (!hasFlag(argv, 'guard-policy')) add('guard', g);
  };
  const plannerOpts = (opts: Record<string, string>) => {
    if (!('planner-opt' in options)) return;
    const given = new Set(
      argv.filter((a) => a.startsWith('--planner-opt=')).map((a) => a.slice('--planner-opt='.length).split('=')[0]),
    );
    argv.forEach((a, i) => a === '--planner-opt' && given.add((argv[i + 1] ?? '').split('=')[0] as string));
    for (const [k, v] of Object.entries(opts)) if (!given.has(k)) out.push(`--planner-opt=${k}=${v}`);
  };
  const scenarios = config.scenarios?.map((s) => spec(dir, s));

  if (command === 'eval') {
    addAll('scenario', scenarios);
    if (!config.scenarios) add('bundled', config.bundled);
    addAll(
      'planner',
      config.planners?.map((p) => spec(dir, p)),
    );
    const llm = llmPlannerOptions(config.llm, dir);
    const { llm_cache: cache, llm_cache_dir: cacheDir, ...llmRest } = llm;
    add('llm-cache', cache);
    add('llm-cache-dir', cacheDir);
    plannerOpts({
      ...Object.fromEntries(Object.entries(config.plannerOptions ?? {}).map(([k, v]) => [k, String(v)])),
      ...llmRest,
    });
    addAll('reporter', config.reporters);
    addAll('fail-on', config.failOn);
    add('baseline', config.baseline && at(dir, config.baseline));
    add('baseline-planner', config.baselinePlanner);
    guard(config.guard);
    add('out', config.out && at(dir, config.out));
    add('trials', config.trials);
    add('seed', config.seed);
    add('max-turns', config.maxTurns);
    add('decision-timeout', config.decisionTimeoutMs);
    add('agent-timeout', config.agentTimeoutMs);
    add('batch-window', config.batchWindowMs);
    add('restart-at', config.restartAt?.join(','));
    add('transport', config.transport);
    add('concurrency', config.concurrency);
    add('workers', config.workers);
  } else if (command === 'fuzz') {
    addAll('scenario', scenarios);
    if (!config.scenarios) add('bundled', config.bundled);
    add('seed', config.seed);
    guard(config.guard);
    add('workers', config.workers);
    const f = config.fuzz ?? {};
    add('runs', f.runs);
    add('time-limit', f.timeLimitMs);
    addAll(
      'property',
      f.properties?.map((p) => spec(dir, p)),
    );
    add('max-items', f.maxItems);
    add('out', f.out && at(dir, f.out));
    add('planner', f.planner && spec(dir, f.planner));
    if (f.planner || hasFlag(argv, 'planner'))
      plannerOpts(Object.fromEntries(Object.entries(config.plannerOptions ?? {}).map(([k, v]) => [k, String(v)])));
  } else if (command === 'lint') {
    const valued = new Set(
      Object.entries(options)
        .filter(([, o]) => o.type === 'string')
        .map(([k]) => k),
    );
    if (!hasPositionals(argv, valued)) {
      if (scenarios?.length) out.push(...scenarios);
      else add('bundled', config.bundled);
    }
  } else if (command === 'serve') {
    guard(config.guard);
  } else if (command === 'merge') {
    addAll('reporter', config.reporters);
    addAll('fail-on', config.failOn);
    add('baseline', config.baseline && at(dir, config.baseline));
    add('baseline-planner', config.baselinePlanner);
    add('out', config.out && at(dir, config.out));
  } else if (command === 'view') {
    add('out', config.out && at(dir, config.out));
  }
  return out;
}
