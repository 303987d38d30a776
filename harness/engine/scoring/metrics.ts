/**
 * Per-run scores as pure functions of the run record (events in, numbers out),
 * so they can be recomputed from any JSONL record and property-tested.
 * The scores are the entries of the registry (registry.ts); the rules they
 * rest on are in steps.ts and harness/domain/rules/. Definitions: docs/scores.md.
 */
import type { RecordEvent } from '../../core/record.ts';
import { evaluateScores, type RunMetrics, type ScoredSteps } from './registry.ts';
import { runFacts } from './steps.ts';

export type { RunMetrics, ScoredSteps };

/** The step sets behind a run's scores, by score name, computed once; findings and scores both read them. */
export function scoredSteps(events: readonly RecordEvent[], completed: boolean): ScoredSteps {
  return evaluateScores(runFacts(events, completed)).steps;
}

/** A run's scores and the step sets behind them, from one evaluation of the rules. */
export function scoreRunWithSteps(
  events: readonly RecordEvent[],
  completed: boolean,
): { metrics: RunMetrics; steps: ScoredSteps } {
  return evaluateScores(runFacts(events, completed));
}

/**
 * Scores one run from its record.
 *
 * @example
 * scoreRun(events, sandbox.outcome().completed).premature.irreversible
 */
export function scoreRun(events: readonly RecordEvent[], completed: boolean): RunMetrics {
  return evaluateScores(runFacts(events, completed)).metrics;
}

/** Re-scores a whole record (with its run_end) — e.g. a JSONL file read back. */
export function scoreRecord(events: readonly RecordEvent[]): RunMetrics {
  const end = events.find((e) => e.type === 'run_end');
  return scoreRun(events, end?.type === 'run_end' ? end.completed : false);
}
