/**
 * Finds planners by name (the built-ins in planners/) or by path (a user's
 * module), and normalises what the module exports into a PlannerHandle.
 *
 * A user's module runs in sealed processes, never in this one
 * (runner/isolate.ts): its faults, leftovers, loops, signals and allocations
 * end only its own run. The built-ins are the harness's own code and run in process.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../core/errors.ts';
import { suggest } from '../../util/did-you-mean.ts';
import { hostedPlanner, probePlanner } from './isolate.ts';
import type { PlannerHandle } from './run.ts';
import { ownExtension } from '../../util/module-url.ts';
import { importUserModule, looksLikeModulePath } from '../io/ts-loader.ts';
import { plannerExport, PLANNER_HINT } from './module-exports.mjs';

const PLANNERS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../planners');
/** The built-ins' extension: .ts from source, .js compiled (dist/planners/). */
const EXT = ownExtension(import.meta.url);

/** Names of the bundled planners: one file each in planners/. */
export function builtinPlanners(): string[] {
  return readdirSync(PLANNERS_DIR)
    .filter((f) => f.endsWith(EXT) && !f.endsWith('.d.ts') && !f.startsWith('_'))
    .map((f) => basename(f, EXT))
    .sort();
}

/** Turns a module's exports (a Planner or a PlannerFactory) into a handle, or explains what it should export. */
export function toHandle(mod: Record<string, unknown>, fallbackName: string, where: string): PlannerHandle {
  const handle = plannerExport(mod, fallbackName);
  if (!handle) throw new UsageError(`${where} does not export a planner`, PLANNER_HINT);
  return { ...handle, name: plannerName(handle.name, where) };
}

/**
 * A planner's name, refused unless it is printable ASCII: it is shown in every table, report and
 * record file name, where a look-alike letter (a Cyrillic "а" in "gаted") would pass for another
 * planner, and a control character would change what a terminal shows.
 *
 * @example
 * plannerName('g\u0430ted', './mine.mjs') // throws: planner name "g\u{430}ted" ... U+0430 ...
 */
function plannerName(name: string, where: string): string {
  const chars = [...name];
  const bad = chars.findIndex((c) => !/^[\x20-\x7e]$/.test(c));
  if (bad < 0) return name;
  const shown = chars
    .map((c) => (/^[\x20-\x7e]$/.test(c) ? c : `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`))
    .join('');
  const code = (chars[bad]?.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  throw new UsageError(
    `planner name "${shown}" (${where}) is not printable ASCII: character ${bad + 1} is U+${code}`,
    'name the planner with printable ASCII only (letters, digits, punctuation, spaces): names are shown in every report, where a look-alike letter would pass for another planner',
  );
}

/** Whether a file is one of the built-in planners (the harness's own, trusted code). */
function isBuiltinFile(file: string): boolean {
  return dirname(file) === PLANNERS_DIR && builtinPlanners().includes(basename(file, EXT)) && extname(file) === EXT;
}

/**
 * A planner by name (a built-in, run in process) or by path (a user's module, run in sealed processes).
 * `options`, the planner options its runs will have, let the process that loads a planner file serve
 * the first run (isolate.ts, probePlanner). A planner file's processes get no environment variable
 * but `env` (`--planner-env`: names and values, checked by `checkPlannerEnv`).
 *
 * @example
 * const gated = await loadPlanner('gated', process.cwd());
 * const mine = await loadPlanner('./planners/mine.ts', process.cwd()); // its code never runs here
 */
export async function loadPlanner(
  spec: string,
  cwd: string,
  options?: Record<string, string>,
  env?: Readonly<Record<string, string>>,
): Promise<PlannerHandle> {
  let file: string;
  if (looksLikeModulePath(spec)) {
    file = resolve(cwd, spec);
    if (!existsSync(file)) throw new UsageError(`planner file not found: ${spec}`, `looked at ${file}`);
  } else {
    file = join(PLANNERS_DIR, `${spec}${EXT}`);
    if (!existsSync(file)) {
      const names = builtinPlanners();
      const s = suggest(spec, names);
      throw new UsageError(
        `unknown planner "${spec}"`,
        `${s ? `did you mean "${s}"? ` : ''}built-in planners: ${names.join(', ')}; or give a path to a module`,
      );
    }
  }
  const fallback = basename(file, extname(file));
  if (!isBuiltinFile(file)) {
    // Its code runs in sealed processes, never in this one (its top level included); TypeScript is compiled for them.
    const { name, checkpoint, cpuBound, pool } = await probePlanner(
      { file, spec, fallbackName: fallback },
      undefined,
      options,
      env,
    );
    return {
      name: plannerName(name, spec),
      source: file,
      create: (ctx) => hostedPlanner(name, pool, ctx),
      ...(checkpoint ? { checkpoint } : {}),
      ...(cpuBound ? { cpuBound } : {}),
    };
  }
  const mod = await importUserModule(file, { what: `planner module ${spec}` });
  // The reference plan is the answer key: only the built-in that replays plans is given it (evaluate.ts, offeredPlan).
  return {
    ...toHandle(mod, fallback, spec),
    source: file,
    ...(fallback === 'scripted' ? { replaysReferencePlan: true } : {}),
  };
}
