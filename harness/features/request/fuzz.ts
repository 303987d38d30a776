/**
 * A fuzzing request (`oneway fuzz`): its flags over oneway.config.*'s `fuzz` settings and the
 * top-level settings fuzzing shares with evaluations (`scenarios`, `bundled`, `seed`, `guard`,
 * `workers`, `plannerOptions`, `allowLintErrors`), merged and checked as an evaluation's are
 * (layers.ts, eval.ts): a flag wins, and a value is named as its source names it.
 */
import { resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import { checkPlannerEnv } from '../../engine/runner/planner-env.ts';
import type { TransportName } from '../../engine/sandbox/transport.ts';
import type { ConfigFile } from './config.ts';
import { configDir, mergeLayers, settingLabel, specAt, type Layer, type SettingName } from './layers.ts';

/** The settings of a fuzzing run, as one layer gives them (numbers as text from the command line). */
export interface FuzzSettings {
  scenarios?: string[];
  bundled?: boolean;
  seed?: number | string;
  guard?: boolean | string;
  workers?: number | string;
  plannerOptions?: Record<string, string>;
  /** Environment variables the planner file's process gets (`--planner-env`), by name. */
  plannerEnv?: string[];
  allowLintErrors?: boolean;
  runs?: number | string;
  timeLimitMs?: number | string;
  properties?: string[];
  maxItems?: number | string;
  planner?: string;
  out?: string;
  // What only the command line gives.
  transport?: string;
  path?: string;
  /** --no-shrink given: failures are reported as found. */
  noShrink?: boolean;
}

const NAMES: Record<keyof FuzzSettings, SettingName> = {
  scenarios: { flag: 'scenario', config: 'scenarios' },
  bundled: { flag: 'bundled', config: 'bundled' },
  seed: { flag: 'seed', config: 'seed' },
  guard: { flag: 'guard', config: 'guard' },
  workers: { flag: 'workers', config: 'workers' },
  plannerOptions: { flag: 'planner-opt', config: 'plannerOptions' },
  plannerEnv: { flag: 'planner-env', config: 'plannerEnv' },
  allowLintErrors: { flag: 'allow-lint-errors', config: 'allowLintErrors' },
  runs: { flag: 'runs', config: 'fuzz.runs' },
  timeLimitMs: { flag: 'time-limit', config: 'fuzz.timeLimitMs' },
  properties: { flag: 'property', config: 'fuzz.properties' },
  maxItems: { flag: 'max-items', config: 'fuzz.maxItems' },
  planner: { flag: 'planner', config: 'fuzz.planner' },
  out: { flag: 'out', config: 'fuzz.out' },
  transport: { flag: 'transport', config: 'transport' },
  path: { flag: 'path', config: 'path' },
  noShrink: { flag: 'no-shrink', config: 'noShrink' },
};

/** The config file's layer of a fuzzing run: its `fuzz` settings and the shared ones, paths made absolute against the file. */
export function fuzzConfigLayer(cf: ConfigFile): Layer<FuzzSettings> {
  const dir = configDir(cf.file);
  const { config } = cf;
  const f = config.fuzz ?? {};
  const settings: FuzzSettings = {
    scenarios: config.scenarios?.map((s) => specAt(dir, s)),
    bundled: config.bundled,
    seed: config.seed,
    guard: typeof config.guard === 'string' ? resolve(dir, config.guard) : config.guard,
    workers: config.workers,
    plannerOptions: config.plannerOptions
      ? Object.fromEntries(Object.entries(config.plannerOptions).map(([k, v]) => [k, String(v)]))
      : undefined,
    plannerEnv: config.plannerEnv,
    allowLintErrors: config.allowLintErrors,
    runs: f.runs,
    timeLimitMs: f.timeLimitMs,
    properties: f.properties?.map((p) => specAt(dir, p)),
    maxItems: f.maxItems,
    planner: f.planner === undefined ? undefined : specAt(dir, f.planner),
    out: f.out === undefined ? undefined : resolve(dir, f.out),
  };
  return { from: { kind: 'config', file: cf.file }, settings };
}

/** A fuzzing request, checked and complete. */
export interface FuzzRequest {
  cwd: string;
  scenarios: string[] | undefined;
  bundled: boolean;
  seed: number;
  guard: boolean;
  workers: number;
  /** Options for `planner` (none without one: generated plans run with the scripted planner, which takes none). */
  plannerOptions: Record<string, string>;
  /** The planner file's processes' whole environment: the names asked for, with this process's values. */
  plannerEnv: Record<string, string>;
  allowLintErrors: boolean;
  runs: number;
  /** Whether `runs` was given (with a time limit alone, runs are unlimited). */
  runsGiven: boolean;
  /** In seconds, when given. */
  timeLimit: number | undefined;
  /** Property names or module paths (default: every default property). */
  properties: string[] | undefined;
  maxItems: number;
  planner: string | undefined;
  outDir: string;
  transport: TransportName;
  path: string | undefined;
  /** Whether failures are shrunk to minimal plans (false with --no-shrink). */
  shrink: boolean;
}

/**
 * Merges the layers (later over earlier) and checks the result into a fuzzing request; each
 * error names the value as its source does.
 */
export function fuzzRequest(
  layers: readonly Layer<FuzzSettings>[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): FuzzRequest {
  const { settings: s, origin } = mergeLayers(layers);
  const label = (key: keyof FuzzSettings) => settingLabel(NAMES[key], origin[key], cwd);
  const int = (key: keyof FuzzSettings, least: number, fallback: number) => {
    const raw = s[key];
    if (raw === undefined) return fallback;
    const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < least || n > 2 ** 31)
      throw new UsageError(
        `${label(key)} must be an integer >= ${least}, got ${typeof raw === 'string' ? `"${raw}"` : String(raw)}`,
      );
    return n;
  };
  if (typeof s.guard === 'string')
    throw new UsageError(
      `${label('guard')} names a guard policy file; oneway fuzz guards with the default policy only`,
      'fuzz with guard: true (--guard), or without the guard',
    );
  const timeLimitMs = s.timeLimitMs === undefined ? undefined : int('timeLimitMs', 1, 1);
  const timeLimit = timeLimitMs === undefined ? undefined : timeLimitMs / 1000;
  const transport = s.transport ?? 'inprocess';
  if (transport !== 'msw' && transport !== 'inprocess')
    throw new UsageError(`${label('transport')} must be inprocess or msw, got "${transport}"`);
  // The config file's planner options are for a planner; generated plans take none (only a flag given without --planner is a mistake).
  const plannerOptions = s.planner !== undefined ? { ...s.plannerOptions } : {};
  if (s.planner === undefined && s.plannerOptions !== undefined && origin.plannerOptions?.kind !== 'config')
    throw new UsageError(
      `${label('plannerOptions')} needs --planner`,
      'generated plans run with the scripted planner, which takes no options',
    );
  if (s.planner === undefined && s.plannerEnv !== undefined && origin.plannerEnv?.kind !== 'config')
    throw new UsageError(
      `${label('plannerEnv')} needs --planner`,
      "generated plans run with the scripted planner, which is oneway's own and runs in its process",
    );
  return {
    cwd,
    scenarios: s.scenarios?.length ? s.scenarios : undefined,
    bundled: s.bundled === true,
    seed: int('seed', 0, 1),
    guard: s.guard === true,
    workers: int('workers', 1, 1),
    plannerOptions,
    plannerEnv: s.planner !== undefined ? checkPlannerEnv(s.plannerEnv ?? [], env, label('plannerEnv')) : {},
    allowLintErrors: s.allowLintErrors === true,
    runs: int('runs', 1, timeLimit !== undefined ? 2 ** 31 : 100),
    runsGiven: s.runs !== undefined,
    timeLimit,
    properties: s.properties?.length ? s.properties : undefined,
    maxItems: int('maxItems', 1, 6),
    planner: s.planner,
    outDir: resolve(cwd, s.out ?? 'reports/fuzz'),
    transport,
    path: s.path,
    shrink: s.noShrink !== true,
  };
}
