/**
 * Finds planners by name (the built-ins in planners/) or by path (a user's
 * module), and normalises what the module exports into a PlannerHandle.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UsageError } from '../errors.ts';
import type { Planner, PlannerFactory } from '../planner/types.ts';
import { suggest } from '../loader/did-you-mean.ts';
import type { PlannerHandle } from './run.ts';

export const PLANNERS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../planners');

/** Names of the bundled planners: one file each in planners/. */
export function builtinPlanners(): string[] {
  return readdirSync(PLANNERS_DIR)
    .filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts') && !f.startsWith('_'))
    .map((f) => basename(f, '.ts'))
    .sort();
}

const looksLikePath = (spec: string) => /[\\/]/.test(spec) || /\.(m?[jt]s|cjs)$/.test(spec);

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
      return { name, create: (ctx) => candidate.create(ctx), ...(candidate.checkpoint ? { checkpoint: candidate.checkpoint } : {}) };
    }
    if (isPlanner(candidate)) {
      const name = typeof candidate.name === 'string' && candidate.name ? candidate.name : fallbackName;
      return { name, create: () => candidate };
    }
  }
  throw new UsageError(
    `${where} does not export a planner`,
    'export default { name, next(view) { ... } } (a Planner) or { name, create(ctx) { return planner } } (a PlannerFactory); see planners/README.md',
  );
}

export async function loadPlanner(spec: string, cwd: string): Promise<PlannerHandle> {
  let file: string;
  if (looksLikePath(spec)) {
    file = resolve(cwd, spec);
    if (!existsSync(file)) throw new UsageError(`planner file not found: ${spec}`, `looked at ${file}`);
  } else {
    file = join(PLANNERS_DIR, `${spec}.ts`);
    if (!existsSync(file)) {
      const names = builtinPlanners();
      const s = suggest(spec, names);
      throw new UsageError(`unknown planner "${spec}"`, `${s ? `did you mean "${s}"? ` : ''}built-in planners: ${names.join(', ')}; or give a path to a module`);
    }
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`planner module ${spec} failed to load: ${(e as Error).message}`, 'check that the file compiles and its imports resolve');
  }
  return { ...toHandle(mod, basename(file, extname(file)), spec), source: file };
}
