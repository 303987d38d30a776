import type { ToolClass } from '../../core/planner.ts';
import type { OptionRank } from './options.ts';

const CLASS_ORDER: Record<ToolClass, number> = { reversible: 0, compensable: 1, irreversible: 2 };

/**
 * The eager rank: fewest declared preconditions, then declaration order. It
 * favours the shortcut, which is the point of the baseline.
 */
export const byFewestPreconditions: OptionRank = (a, b) =>
  a.preconditions.length - b.preconditions.length || a.index - b.index;

/**
 * The gated rank: cheapest class to reverse (reversible < compensable <
 * irreversible), then fewest missing preconditions, then declaration order. It
 * avoids an irreversible distractor when a reversible tool reaches the same fact.
 */
export const byClassThenMissing: OptionRank = (a, b) =>
  CLASS_ORDER[a.tool.class] - CLASS_ORDER[b.tool.class] || a.missing.length - b.missing.length || a.index - b.index;
