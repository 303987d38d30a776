/**
 * `oneway.config.(ts|mts|js|mjs|yaml|yml|json)`: a project's defaults for the `oneway` command, in
 * the shape `evaluate(config)` takes too. Found from the working directory upward, up to the
 * nearest directory holding a package.json (the project's root). Paths in it are relative to the
 * file. Flags given on the command line override it, setting by setting (request/eval.ts merges them).
 *
 * Light on purpose: the `oneway` command reads it before loading any command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { suggest } from '../../util/did-you-mean.ts';
import { importUserModule } from '../../engine/io/ts-loader.ts';

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
  /**
   * Environment variables a planner file's process gets (`--planner-env`), with this process's values;
   * it gets no other. An LLM planner file needs its key named here (e.g. OPENAI_API_KEY).
   */
  plannerEnv?: string[];
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
  /** Run scenarios that `oneway lint` finds errors in (`--allow-lint-errors`); results list the findings. */
  allowLintErrors?: boolean;
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

const CONFIG_FILES = [
  'oneway.config.ts',
  'oneway.config.mts',
  'oneway.config.js',
  'oneway.config.mjs',
  'oneway.config.yaml',
  'oneway.config.yml',
  'oneway.config.json',
];

/**
 * Where a config file for `cwd` may be, in the order they are looked at: each of CONFIG_FILES in
 * `cwd`, then in each parent up to the nearest directory with a package.json. Outside any package,
 * only `cwd` is looked at. (`eval --watch` watches them all: a config file added is a change too.)
 */
export function configCandidates(cwd: string): string[] {
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.push(dir);
    if (existsSync(join(dir, 'package.json'))) break;
    if (dirname(dir) === dir) {
      dirs.splice(1);
      break;
    }
  }
  return dirs.flatMap((dir) => CONFIG_FILES.map((name) => join(dir, name)));
}

/** The config file for `cwd`: the first of `configCandidates` that exists. */
export function findConfig(cwd: string): string | undefined {
  return configCandidates(cwd).find((f) => existsSync(f));
}

/** What a setting's value must be; `KIND_TEXT` says it in words. */
export type Kind =
  | 'string'
  | 'boolean'
  | 'int'
  | 'ints'
  | 'strings'
  | 'record'
  | 'object'
  | 'guard'
  | 'temperature'
  | 'planners'
  | 'function'
  | 'signal';

/**
 * Every setting of a config file and its kind: the one list of the keys (a key of OnewayConfig
 * missing here does not compile; test/cli/settings.test.ts has a row for each key listed here).
 */
export const CONFIG_SHAPE: Readonly<Record<keyof OnewayConfig, Kind>> = {
  scenarios: 'strings',
  bundled: 'boolean',
  planners: 'strings',
  plannerOptions: 'record',
  plannerEnv: 'strings',
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
  allowLintErrors: 'boolean',
  fuzz: 'object',
};
export const LLM_SHAPE: Readonly<Record<keyof LlmConfig, Kind>> = {
  model: 'string',
  baseUrl: 'string',
  temperature: 'temperature',
  timeoutMs: 'int',
  maxRetries: 'int',
  priceFile: 'string',
  cache: 'string',
  cacheDir: 'string',
};
export const FUZZ_SHAPE: Readonly<Record<keyof FuzzConfig, Kind>> = {
  runs: 'int',
  timeLimitMs: 'int',
  properties: 'strings',
  maxItems: 'int',
  planner: 'string',
  out: 'string',
};
/** The maps inside a config, by key: checked against their own shapes. */
const NESTED: Readonly<Record<string, Readonly<Record<string, Kind>>>> = { llm: LLM_SHAPE, fuzz: FUZZ_SHAPE };

/**
 * Modes of the command line that are no setting of an evaluation, and why: a config file's settings
 * hold for every run (CI's included) and evaluate() returns once, so neither may ask for them.
 */
const COMMAND_LINE_ONLY: Readonly<Record<string, string>> = {
  watch:
    "watch mode is asked for on the command line only (oneway eval --watch): a config file holds for every run, CI's included, and evaluate() returns its results once",
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
  planners: 'a list of planner names, module paths, or Planner / PlannerFactory objects',
  function: 'a function',
  signal: 'an AbortSignal',
};

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
      return isMap(v) && Object.values(v).every((x) => ['string', 'number', 'boolean'].includes(typeof x));
    case 'object':
      return isMap(v);
    case 'guard':
      return typeof v === 'boolean' || typeof v === 'string';
    case 'temperature':
      return typeof v === 'number' || v === 'omit';
    case 'planners':
      return Array.isArray(v) && v.every((x) => typeof x === 'string' || isMap(x));
    case 'function':
      return typeof v === 'function';
    case 'signal':
      return v instanceof AbortSignal;
  }
}

/**
 * The problems of a map of settings against a shape: unknown keys (with a did-you-mean) and
 * values of the wrong kind, each naming its path (`llm.model`). `what` names a key in messages
 * ("setting" in a config file, "option" of evaluate()).
 */
export function shapeProblems(raw: unknown, shape: Readonly<Record<string, Kind>>, what: string): string[] {
  const problems: string[] = [];
  const walk = (v: unknown, at: string, kinds: Readonly<Record<string, Kind>>) => {
    if (!isMap(v)) {
      problems.push(`${at || 'the file'} must be a map of ${what}s`);
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      const kind = kinds[k];
      const path = at ? `${at}.${k}` : k;
      if (!kind && !at && COMMAND_LINE_ONLY[k]) problems.push(`"${k}" is no ${what}: ${COMMAND_LINE_ONLY[k]}`);
      else if (!kind) {
        const s = suggest(k, Object.keys(kinds));
        problems.push(`unknown ${what} "${path}"${s ? ` (did you mean "${at ? `${at}.` : ''}${s}"?)` : ''}`);
      } else if (x !== undefined && !fits(kind, x)) problems.push(`"${path}" must be ${KIND_TEXT[kind]}`);
      else if (!at && x !== undefined && NESTED[k]) walk(x, path, NESTED[k]);
    }
  };
  walk(raw, '', shape);
  return problems;
}

/** Checks a config's shape: unknown keys (with a did-you-mean) and wrong types are a UsageError naming the file. */
export function checkConfig(raw: unknown, file: string): OnewayConfig {
  const problems = shapeProblems(raw, CONFIG_SHAPE, 'setting');
  if (problems.length)
    throw new UsageError(
      `${file}: ${problems.join('; ')}`,
      `settings: ${Object.keys(CONFIG_SHAPE).join(', ')} (docs/use-in-your-project.md, "Config file")`,
    );
  return raw as OnewayConfig;
}

/** A config file found and read: its settings, and where it is (paths in it are relative to its directory). */
export interface ConfigFile {
  file: string;
  config: OnewayConfig;
}

/**
 * Reads and checks a config file (TypeScript needs a loader: see util/ts-loader.ts). `fresh`: a
 * module is imported again, not taken from the module cache (`eval --watch`, after it changed).
 */
export async function loadConfig(file: string, o: { fresh?: boolean } = {}): Promise<OnewayConfig> {
  let raw: unknown;
  if (/\.(ya?ml)$/.test(file) || file.endsWith('.json')) {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.json'))
      try {
        raw = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`${file} does not parse: ${(e as Error).message}`);
      }
    else {
      // The loader's parser: its limits (size, nesting, aliases) and a located problem.
      const parsed = (await import('../../engine/loader/yaml-source.ts')).parseYamlSource(text, file);
      if (!parsed.ok) {
        const p = parsed.problems[0];
        throw new UsageError(p ? `${file}:${p.line}:${p.col}: ${p.message}` : `${file} does not parse`, p?.hint);
      }
      raw = parsed.value.value;
    }
    if (raw === null || raw === undefined) raw = {};
  } else {
    const mod = await importUserModule(file, {
      what: `the config file ${file}`,
      failed: file,
      hint: 'check that it compiles and its imports resolve',
      ...(o.fresh ? { fresh: true } : {}),
    });
    raw = mod.default;
    if (typeof raw === 'function') raw = await (raw as () => unknown)();
  }
  return checkConfig(raw, file);
}
