import type { Call, Decision } from '../../core/planner.ts';
import { callKey } from '../rules/same-call.ts';

/**
 * The decision for a set of calls to issue together: one call, or a parallel
 * batch; duplicates (same tool, same args) are issued once; none is a finish.
 *
 * @example
 * issue([{ tool: 'a', args: {} }])                         // { type: 'call', call: { tool: 'a', args: {} } }
 * issue([{ tool: 'a', args: {} }, { tool: 'b', args: {} }]) // { type: 'batch', calls: [...] }
 */
export function issue(calls: readonly Call[], emptyReason = 'nothing left to do'): Decision {
  // One call has no duplicate: its key (its arguments as JSON) is not needed.
  if (calls.length === 1) return { type: 'call', call: calls[0] as Call };
  const seen = new Set<string>();
  const unique = calls.filter((c) => {
    const k = callKey(c);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const [first] = unique;
  if (!first) return { type: 'finish', reason: emptyReason };
  return unique.length === 1 ? { type: 'call', call: first } : { type: 'batch', calls: unique };
}

export function finish(reason: string): Decision {
  return { type: 'finish', reason };
}
