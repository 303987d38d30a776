/**
 * Finds planners by name (the built-ins in planners/) or by path (a user's
 * module), and normalises what the module exports into a PlannerHandle.
 *
 * A user's module runs in sealed worker threads, never in this one
 * (runner/isolate.ts): its faults, leftovers and loops end only its own run.
 * The built-ins are the harness's own code and run in process.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../core/errors.ts';
import type { Planner, PlannerFactory } from '../../core/planner.ts';
import { suggest } from '../../util/did-you-mean.ts';
import { hostedPlanner, probePlanner } from './isolate.ts';
import type { PlannerHandle } from './run.ts';
import { ownExtension } from '../../util/module-url.ts';
import { importUserModule, looksLikeModulePath, needsTypeScript } from '../io/ts-loader.ts';

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

function isFactory(x: unknown): x is PlannerFactory {
  return typeof x === 'object' && x !== null && typeof (x as PlannerFactory).create === 'function';
}
function isPlanner(x: unknown): x is Planner {
  return typeof x === 'object' && x !== null && typeof (x as Planner).next === 'function';
}

/** Turns a module's exports into a handle, or explains what it should export. */
export function toHandle(mod: Record<string, unknown>, fallbackName: string, where: string): PlannerHandle {
  for (const candidate of [mod.default, mod.planner, mod.factory]) {
    if (isFactory(candidate)) {
      const name = typeof candidate.name === 'string' && candidate.name ? candidate.name : fallbackName;
      return {
        name,
        create: (ctx) => candidate.create(ctx),
        ...(candidate.checkpoint ? { checkpoint: candidate.checkpoint } : {}),
        ...(candidate.cpuBound === true ? { cpuBound: true } : {}),
      };
    }
    if (isPlanner(candidate)) {
      const name = typeof candidate.name === 'string' && candidate.name ? candidate.name : fallbackName;
      return { name, create: () => candidate };
    }
  }
  throw new UsageError(
    `${where} does not export a planner`,
    'export default { name, next(view) { ... } } (a Planner) or { name, create(ctx) { return planner } } (a PlannerFactory); the planner API: docs/planner-api.md in the oneway package',
  );
}

export interface LoadOptions {
  /**
   * Run a planner file (not a built-in) in sealed worker threads (default true). Off only where
   * runs are too many and too short for that (fuzzing), at the cost of that isolation.
   */
  isolate?: boolean;
}

/** Whether a file is one of the built-in planners (the harness's own, trusted code). */
function isBuiltinFile(file: string): boolean {
  return dirname(file) === PLANNERS_DIR && builtinPlanners().includes(basename(file, EXT)) && extname(file) === EXT;
}

export async function loadPlanner(spec: string, cwd: string, opts: LoadOptions = {}): Promise<PlannerHandle> {
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
  // A .ts planner needs a TypeScript loader (tsx, or Node's type stripping): without one, say so now.
  await needsTypeScript(file, `planner module ${spec}`);
  if (opts.isolate !== false && !isBuiltinFile(file)) {
    // Its code runs in sealed threads, never in this one (its top level included).
    const { name, checkpoint, cpuBound, pool } = await probePlanner({ file, spec, fallbackName: fallback });
    return {
      name,
      source: file,
      create: (ctx) => hostedPlanner(name, pool, ctx),
      ...(checkpoint ? { checkpoint } : {}),
      ...(cpuBound ? { cpuBound } : {}),
    };
  }
  const mod = await importUserModule(file, { what: `planner module ${spec}` });
  return { ...toHandle(mod, fallback, spec), source: file };
}
