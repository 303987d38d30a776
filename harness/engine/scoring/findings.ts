/**
 * The offending calls behind a run's scores, for reporters that point at them
 * (JUnit messages, GitHub annotations, the HTML timeline). Pure, from the record,
 * using the same step sets the scores count: one finding per registry entry
 * with a `finding`, in registry order.
 */
import type { CallEvent, RecordEvent } from '../../core/record.ts';
import type { ToolClass } from '../../core/scenario.ts';
import type { ScoredSteps } from './metrics.ts';
import { findingScores, type FindingKind, type MarkedSteps } from './registry.ts';
import { attemptsPerBatch } from './steps.ts';

export interface ScoreFinding {
  kind: FindingKind;
  step: number;
  tool: string;
  class: ToolClass;
  message: string;
}

/** The findings of a run whose scores' step sets are known (the run loop has them from scoring it). */
export function findingsFrom(events: readonly RecordEvent[], scored: ScoredSteps): ScoreFinding[] {
  const calls = events.filter((e): e is CallEvent => e.type === 'call');
  const steps = scored as Readonly<Record<string, MarkedSteps>>;
  const attempts = attemptsPerBatch(calls);
  const out: ScoreFinding[] = [];
  const scoresWithFindings = findingScores();
  for (const c of calls) {
    const verb = c.status === 'blocked' ? 'reached for (blocked)' : 'called';
    for (const s of scoresWithFindings) {
      const marked = steps[s.name];
      if (!marked?.has(c.step)) continue;
      const related = marked instanceof Map ? marked.get(c.step) : undefined;
      const message = s.finding.message(c, { verb, related, batchAttempts: attempts.get(c.batch) ?? 0 });
      out.push({ kind: s.finding.kind as FindingKind, step: c.step, tool: c.tool, class: c.class, message });
    }
  }
  return out;
}
