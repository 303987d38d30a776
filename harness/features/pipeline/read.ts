/**
 * What an evaluation read (`Watched`): its scenario files, the directories and globs they were
 * found in, the planner files given by path and what they import, oneway.config.*, --plan, the
 * guard policy and the --baseline. `eval --watch` (harness/cli/watch.ts) watches it, and re-runs
 * the runs a change to one of them affects.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PlannerHandle } from '../../engine/runner/run.ts';
import { globBase, hasMagic } from '../../engine/loader/glob.ts';
import { looksLikeModulePath } from '../../engine/io/ts-loader.ts';
import { moduleImports } from '../../util/module-imports.ts';
import { configCandidates } from '../request/config.ts';
import type { EvalRequest, RequestScenarios } from '../request/eval.ts';
import { scenarioCache, scenarioHome, scenarioSpecs } from '../request/scenarios.ts';

/** Files a planner file is followed through its imports at most. */
const MAX_IMPORTS = 500;

/** What one evaluation read, and so what watch mode watches after it (absolute paths throughout). */
export interface Watched {
  /** Scenario files, each with the ids of the scenarios it gave (none when it did not load). */
  scenarios: ReadonlyMap<string, readonly string[]>;
  /** Directories a new scenario file may appear in (a `--scenario` directory, a glob's base), and their subdirectories. */
  scenarioDirs: readonly string[];
  /** Planner files given by path, and the local files they import, each with the planners it is part of. */
  planners: ReadonlyMap<string, readonly string[]>;
  /** Files whose change re-runs everything: oneway.config.* (where one is, or may appear), --plan, the guard policy. */
  everything: readonly string[];
  /** Files whose change re-runs nothing, but is read again: the --baseline. */
  analysis: readonly string[];
  /** Directories oneway writes to (--out, caches): nothing in them is a change. */
  ignore: readonly string[];
}

/** How far an evaluation got: the scenarios it loaded and the planners it loaded, when it got to them. */
export interface Reached {
  scenarios?: RequestScenarios;
  planners?: readonly PlannerHandle[];
}

/**
 * A module file and the local files it imports, at any depth (util/module-imports.ts: relative
 * specifiers read from the text, node_modules not followed).
 *
 * @example
 * localImports('/p/planners/mine.ts') // ['/p/planners/mine.ts', '/p/planners/rules.ts']
 */
export const localImports = (file: string): string[] => moduleImports(file, MAX_IMPORTS).files;

/**
 * What an evaluation of `request` read, as far as it got (`reached`). What it did not get to (a
 * planner file that did not load) is taken from the evaluation before (`previous`).
 */
export function watchedOf(request: EvalRequest, reached: Reached, previous: Watched | undefined): Watched {
  const { cwd, outDir } = request;
  const place = { cwd, env: request.env };
  const scenarios = new Map<string, string[]>();
  const scenarioDirs: string[] = [];
  if (reached.scenarios) {
    const home = scenarioHome(place, request.bundled);
    for (const spec of scenarioSpecs(request.scenarios, home, place)) {
      const at = resolve(cwd, spec);
      if (hasMagic(spec)) scenarioDirs.push(globBase(spec, cwd).base);
      else if (isDirectory(at)) scenarioDirs.push(at);
      else if (existsSync(at)) scenarios.set(at, []);
    }
    for (const p of reached.scenarios.problems) if (p.file) scenarios.set(resolve(cwd, p.file), []);
    for (const l of reached.scenarios.selected)
      scenarios.set(l.file, [...(scenarios.get(l.file) ?? []), l.scenario.id]);
  }
  const planners = new Map<string, string[]>();
  for (const spec of request.planners ?? []) {
    if (typeof spec !== 'string' || !looksLikeModulePath(spec)) continue;
    const file = resolve(cwd, spec);
    const names = reached.planners
      ? reached.planners.filter((p) => p.source === file).map((p) => p.name)
      : [...(previous?.planners.get(file) ?? [])];
    for (const f of localImports(file)) planners.set(f, [...(planners.get(f) ?? []), ...names]);
  }
  const cache = scenarioCache(place);
  const cassettes = request.plannerOptions.llm_cache_dir;
  return {
    scenarios: reached.scenarios ? scenarios : (previous?.scenarios ?? scenarios),
    scenarioDirs: reached.scenarios ? scenarioDirs : (previous?.scenarioDirs ?? scenarioDirs),
    planners,
    everything: [
      ...configCandidates(cwd),
      ...(request.plan ? [request.plan] : []),
      ...(typeof request.guard === 'string' ? [request.guard] : []),
    ],
    analysis: request.baseline ? [resolve(cwd, request.baseline.label)] : [],
    ignore: [outDir, ...(cache ? [cache] : []), ...(cassettes ? [cassettes] : [])],
  };
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};
