/** Types of module-exports.mjs: what a user's module must export to be a planner or fuzz properties. */
import type { Checkpoint } from '../../core/record.ts';
import type { Planner, PlannerContext } from '../../core/planner.ts';

export interface ExportedPlanner {
  name: string;
  create(ctx: PlannerContext): Planner;
  checkpoint?: Checkpoint;
  cpuBound?: boolean;
}

export const PLANNER_HINT: string;
export function plannerExport(mod: Record<string, unknown>, fallbackName: string): ExportedPlanner | undefined;

export interface ExportedProperty {
  name: string;
  description?: string;
  check(events: readonly unknown[], ctx: unknown): unknown;
}

export const PROPERTY_HINT: string;
export function propertyExports(mod: Record<string, unknown>): ExportedProperty[];
export function verdictOf(v: unknown): true | string;
