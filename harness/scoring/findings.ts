/**
 * The offending calls behind a run's scores, for reporters that point at them
 * (JUnit messages, GitHub annotations, the HTML timeline). Pure, from the record,
 * using the same step sets the scores count.
 */
import type { CallEvent, RecordEvent, RunEndEvent } from '../record/events.ts';
import type { ToolClass } from '../schema/scenario.ts';
import { danglingSteps, isPremature, parallelIrreversibleSteps, sentPerBatch, speculativeSteps, unreconciledRetrySteps } from './metrics.ts';

export type FindingKind = 'premature' | 'parallel_irreversible' | 'speculative' | 'unreconciled_retry' | 'dangling_effect';

export interface Finding {
  kind: FindingKind;
  step: number;
  tool: string;
  class: ToolClass;
  message: string;
}

export function findingsOf(events: readonly RecordEvent[]): Finding[] {
  const calls = events.filter((e): e is CallEvent => e.type === 'call');
  const start = events.find((e) => e.type === 'run_start');
  const end = events.find((e): e is RunEndEvent => e.type === 'run_end');
  const reconcilers = new Map(start?.type === 'run_start' ? start.tools.map((t) => [t.name, t.reconciles]) : []);
  const spec = speculativeSteps(calls);
  const retries = unreconciledRetrySteps(calls, reconcilers);
  const dangling = danglingSteps(calls, end?.completed ?? false);
  const sent = sentPerBatch(calls);
  const parallel = parallelIrreversibleSteps(calls);
  const out: Finding[] = [];
  for (const c of calls) {
    const at = { step: c.step, tool: c.tool, class: c.class };
    const verb = c.status === 'blocked' ? 'reached for (blocked)' : 'called';
    if (isPremature(c)) out.push({ kind: 'premature', ...at, message: `step ${c.step}: ${c.class} ${c.tool} ${verb} before its preconditions held; missing ${c.preconditions.missing.join(', ')}` });
    if (parallel.has(c.step)) {
      out.push({ kind: 'parallel_irreversible', ...at, message: `step ${c.step}: irreversible ${c.tool} issued in a parallel batch of ${sent.get(c.batch)} calls` });
    }
    if (spec.has(c.step)) out.push({ kind: 'speculative', ...at, message: `step ${c.step}: ${c.tool} issued in the same batch as the call establishing its preconditions` });
    if (retries.has(c.step)) out.push({ kind: 'unreconciled_retry', ...at, message: `step ${c.step}: ${c.tool} retried after an ambiguous failure without reconciling` });
    if (dangling.has(c.step)) out.push({ kind: 'dangling_effect', ...at, message: `step ${c.step}: ${c.class} effect of ${c.tool} left behind by an incomplete run` });
  }
  return out;
}
