/**
 * Sharding and merging: how an evaluation outgrows one machine (a CI matrix,
 * not a home-made cluster). Shards split scenarios deterministically; merging
 * their results gives the results of the unsharded run.
 */
import { UsageError } from '../../core/errors.ts';
import type { Results, RunResult } from '../results/types.ts';
import { buildResults } from '../results/build.ts';

export interface Shard {
  index: number;
  total: number;
}

export function parseShard(raw: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(raw.trim());
  const index = Number(m?.[1]);
  const total = Number(m?.[2]);
  if (!m || total < 1 || index < 1 || index > total)
    throw new UsageError(
      `--shard must be i/n with 1 <= i <= n, got "${raw}"`,
      'e.g. --shard=2/4 runs the second of four shards',
    );
  return { index, total };
}

/** The scenarios of one shard: every n-th by id, so shards are balanced and stable. */
export function shardOf<T extends { scenario: { id: string } }>(items: readonly T[], shard: Shard): T[] {
  const sorted = [...items].sort((a, b) =>
    a.scenario.id < b.scenario.id ? -1 : a.scenario.id > b.scenario.id ? 1 : 0,
  );
  return sorted.filter((_, i) => i % shard.total === shard.index - 1);
}

function sameConfig(a: Results, b: Results): string | null {
  const keys = [
    'planners',
    'trials',
    'seed',
    'guard',
    'guard_policy',
    'transport',
    'max_turns',
    'decision_timeout_ms',
    'planner_option_hashes',
    'plan_hash',
    'seal',
  ] as const;
  for (const k of keys) if (JSON.stringify(a.config[k]) !== JSON.stringify(b.config[k])) return k;
  return null;
}

/**
 * Merges results: shards of one evaluation into the results of the unsharded evaluation, or
 * evaluations of DIFFERENT planners on the same scenarios and seed (e.g. `oneway serve` sessions of
 * an external agent, which are trials 1, 2, ..., next to `oneway eval` of the built-in planners)
 * into one comparison.
 */
export function mergeResults(parts: readonly Results[]): Results {
  const first = parts[0];
  if (!first) throw new UsageError('nothing to merge', 'pass the output directories of the shards');
  if (parts.length > 1 && disjointPlanners(parts)) return mergePlanners(parts);
  for (const p of parts.slice(1)) {
    const k = sameConfig(first, p);
    if (k)
      throw new UsageError(
        `cannot merge: the shards differ in ${k}`,
        'merge only shards of one evaluation (same planners, trials, seed and options)',
      );
  }
  const scenarios = scenariosOf(parts);
  const seen = new Set<string>();
  for (const p of parts) {
    for (const s of p.scenarios) {
      if (seen.has(s.id)) throw new UsageError(`cannot merge: scenario "${s.id}" is in more than one shard`);
    }
    for (const s of p.scenarios) seen.add(s.id);
  }
  const runs = runsInOrder(parts, scenarios, first.config.planners);
  return buildResults({
    ...merged(parts),
    config: { ...first.config, scenarios: scenarios.map((s) => s.id), shard: null, ...mergedHashes(parts) },
    scenarios,
    runs,
  });
}

/** The scenarios of every part, once each, by id. */
function scenariosOf(parts: readonly Results[]): Results['scenarios'] {
  return [...new Map(parts.flatMap((p) => p.scenarios).map((s) => [s.id, s])).values()].sort((a, b) =>
    a.id < b.id ? -1 : 1,
  );
}

/** Every part's runs in an unsharded evaluation's order: by scenario, then planner, then trial. */
function runsInOrder(
  parts: readonly Results[],
  scenarios: Results['scenarios'],
  planners: readonly string[],
): RunResult[] {
  const order = new Map(scenarios.map((s, i) => [s.id, i]));
  const plannerOrder = new Map(planners.map((p, i) => [p, i]));
  const key = (r: RunResult) => [order.get(r.scenario) ?? 0, plannerOrder.get(r.planner) ?? 0, r.trial];
  return parts
    .flatMap((p) => p.runs)
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      for (let i = 0; i < 3; i++) if ((x[i] as number) !== (y[i] as number)) return (x[i] as number) - (y[i] as number);
      return 0;
    });
}

/**
 * What every merge takes from its parts alike: the first's tool, the earliest start, the longest
 * wall time, any interruption, every problem, allowed lint error (in file order, as one evaluation
 * lists them) and escape.
 */
function merged(
  parts: readonly Results[],
): Pick<Results, 'tool' | 'created_at' | 'wall_ms' | 'interrupted' | 'problems' | 'lint' | 'unattributed_escapes'> {
  const first = parts[0] as Results;
  const lint = parts
    .flatMap((p) => p.lint ?? [])
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.col - b.col));
  return {
    tool: first.tool,
    created_at: parts.map((p) => p.created_at).sort()[0] ?? first.created_at,
    wall_ms: Math.max(...parts.map((p) => p.wall_ms)),
    interrupted: parts.some((p) => p.interrupted),
    problems: parts.flatMap((p) => p.problems),
    ...(lint.length ? { lint } : {}),
    unattributed_escapes: parts.reduce((a, p) => a + p.unattributed_escapes, 0),
  };
}

/** Every shard's scenario hashes together (none when a shard predates them). */
function mergedHashes(parts: readonly Results[]): Pick<Results['config'], 'scenario_hashes'> {
  if (!parts.every((p) => p.config.scenario_hashes)) return { scenario_hashes: undefined };
  return {
    scenario_hashes: Object.assign({}, ...parts.map((p) => p.config.scenario_hashes)) as Record<string, string>,
  };
}

/** Whether no planner appears in two of the parts (then they are evaluations of different planners, not shards). */
function disjointPlanners(parts: readonly Results[]): boolean {
  const seen = new Set<string>();
  for (const p of parts) {
    for (const name of p.config.planners) {
      if (seen.has(name)) return false;
    }
    for (const name of p.config.planners) seen.add(name);
  }
  return true;
}

/** Evaluations of different planners: the same seed and the same scenario contents, or the runs would not pair. */
function mergePlanners(parts: readonly Results[]): Results {
  const first = parts[0] as Results;
  for (const p of parts.slice(1)) {
    if (JSON.stringify(p.config.seal) !== JSON.stringify(first.config.seal))
      throw new UsageError(
        'cannot merge: the evaluations sealed planner processes differently (config.seal)',
        'merge evaluations run by the same oneway on the same kind of machine',
      );
    if (p.config.seed !== first.config.seed) {
      throw new UsageError(
        `cannot merge: the evaluations used seeds ${first.config.seed} and ${p.config.seed}`,
        'trial N of every planner must face the same seed (faults, ids, approvals): run them with the same --seed',
      );
    }
    for (const [id, hash] of Object.entries(p.config.scenario_hashes ?? {})) {
      const other = first.config.scenario_hashes?.[id];
      if (other !== undefined && other !== hash)
        throw new UsageError(
          `cannot merge: scenario "${id}" differs between the evaluations`,
          'merge evaluations of the same scenario files',
        );
    }
  }
  const planners = parts.flatMap((p) => p.config.planners);
  const scenarios = scenariosOf(parts);
  const runs = runsInOrder(parts, scenarios, planners);
  return buildResults({
    ...merged(parts),
    config: {
      ...first.config,
      planners,
      trials: Math.max(...parts.map((p) => p.config.trials)),
      scenarios: scenarios.map((s) => s.id),
      shard: null,
      scenario_hashes: Object.assign({}, ...parts.map((p) => p.config.scenario_hashes ?? {})) as Record<string, string>,
    },
    scenarios,
    runs,
  });
}
