/**
 * Where a command's scenarios come from when none are named, where ids are looked up, and where
 * loaded scenarios are cached: the same for every entry point (the commands, `evaluate()`).
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../../core/errors.ts';
import type { Resolved } from '../../engine/loader/resolve.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';

/** The scenarios that ship with oneway (examples: used when asked for, `--bundled`). */
export const BUNDLED_SCENARIOS = resolve(PACKAGE_ROOT, 'scenarios');

/** Where a command runs: its working directory, and its environment (for the cache settings). */
interface Place {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The project a command runs in: the nearest directory from `cwd` upward holding a package.json (else `cwd`). */
function projectRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Which scenarios a command uses when none are named, and where scenario ids are looked up: the
 * project's own `scenarios/` directory (next to its package.json; in a clone of oneway, the
 * bundled ones). Without one, nothing runs by default: oneway's bundled scenarios are examples,
 * used only when asked for (`--bundled`). Ids are looked up in the project's `scenarios/`, else
 * among the bundled ones.
 */
export function scenarioHome(place: Pick<Place, 'cwd'>, bundled = false): { root: string; defaults: string[] } {
  if (bundled) return { root: BUNDLED_SCENARIOS, defaults: [BUNDLED_SCENARIOS] };
  const own = join(projectRoot(place.cwd), 'scenarios');
  if (isDir(own)) return { root: own, defaults: [own] };
  return { root: BUNDLED_SCENARIOS, defaults: [] };
}

/**
 * Where commands cache loaded scenarios (harness/engine/loader/scenario-cache.ts): ONEWAY_CACHE_DIR
 * when set, else node_modules/.cache/oneway in the project (the nearest directory upward with a
 * package.json, when it has node_modules), where babel, eslint and ava keep theirs. None with
 * ONEWAY_CACHE=off, or outside a project.
 */
export function scenarioCache(place: Place): string | undefined {
  if (/^(off|0|false|no)$/i.test(place.env.ONEWAY_CACHE ?? '')) return undefined;
  if (place.env.ONEWAY_CACHE_DIR) return resolve(place.cwd, place.env.ONEWAY_CACHE_DIR);
  const root = projectRoot(place.cwd);
  if (!existsSync(join(root, 'package.json')) || !isDir(join(root, 'node_modules'))) return undefined;
  return join(root, 'node_modules', '.cache', 'oneway');
}

/**
 * Resolves scenario specs as every command does: against the working directory, ids searched for
 * under `root` (the project's scenarios, or the bundled ones), through the cache of loaded scenarios.
 * The loader is imported here, when scenarios are resolved, not by every module that imports this one.
 */
export async function resolveScenarioSpecs(
  specs: string[],
  place: Place,
  root: string = scenarioHome(place).root,
): Promise<Resolved> {
  const { resolveScenarios } = await import('../../engine/loader/resolve.ts');
  return resolveScenarios(specs, { cwd: place.cwd, root, cache: scenarioCache(place) });
}

/** The specs to resolve: those given, else the project's default; none at all is a usage error that says what to do. */
export function scenarioSpecs(
  given: readonly string[] | undefined,
  home: { defaults: string[] },
  place: Pick<Place, 'cwd'>,
): string[] {
  const specs = given?.length ? [...given] : home.defaults;
  if (specs.length > 0) return specs;
  throw new UsageError(
    `no scenarios to run: ${join(projectRoot(place.cwd), 'scenarios')} does not exist`,
    'name them with --scenario=FILE|DIR|GLOB (or "scenarios" in oneway.config.*), create ./scenarios, or add --bundled for the examples that ship with oneway',
  );
}
