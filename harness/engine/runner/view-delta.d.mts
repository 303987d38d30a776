/** Types of view-delta.mjs: a planner's view as it crosses to its sealed process. */
import type { PlannerView } from '../../core/planner.ts';

/**
 * A view as sent: `keys` (in order) and `refs` (the number of each deep-frozen part) only when they
 * differ from the last view sent to the process; `define` gives new parts their numbers; `plain`
 * holds the rest as it is; the history is kept up to `keep`, then `add` follows.
 */
export interface ViewDelta {
  keys?: string[];
  refs?: Record<string, number>;
  define?: [number, unknown][];
  plain: Record<string, unknown>;
  keep: number;
  add: unknown[];
}

export function deepFreeze<T>(v: T): T;

/** The harness's side, one per process: the delta to `view`, given the history sent last in this run. */
export function viewEncoder(): (view: PlannerView, sent: readonly unknown[]) => ViewDelta;

/** The process's side, one per process: the view a delta encodes; `newRun` drops the history. */
export function viewDecoder(): { newRun(): void; apply(delta: ViewDelta): PlannerView };
