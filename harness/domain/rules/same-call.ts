/**
 * "The same call": one tool with the same arguments, object key order ignored.
 * Unreconciled retries, the guard, recover's "repeats" and the planners' retry
 * limits all key calls with this one function; the order a batch runs in is
 * derived from it too.
 *
 * @example
 * callKey({ tool: 'send', args: { to: 'a', cc: 'b' } }) === callKey({ tool: 'send', args: { cc: 'b', to: 'a' } }) // true
 */
import { stableJson } from '../../util/json.ts';
import { sortBy } from '../../util/sort.ts';

export interface CallLike {
  tool: string;
  args: Record<string, unknown>;
}

export function callKey(call: CallLike): string {
  return `${call.tool}\u0000${stableJson(call.args)}`;
}

/**
 * A batch in its canonical order: by tool name, then by arguments (key-order-free JSON).
 * A batch has no order of its own; running every batch in this one order makes what
 * happens in the world (effects, seeded ids and faults, step numbers) the same whatever
 * order a planner listed its calls in. Stable: identical calls keep their relative order.
 *
 * @example
 * canonicalOrder([{ tool: 'b', args: {} }, { tool: 'a', args: {} }]).map((c) => c.tool) // ['a', 'b']
 */
export function canonicalOrder<T extends CallLike>(calls: readonly T[]): T[] {
  if (calls.length < 2) return calls.slice();
  // By callKey, which opens with the tool name and a NUL: calls of two tools (names without a NUL) are in
  // the order of their names, so the arguments' JSON is written only for calls of the same tool.
  const keyed = calls.map((c, i): { c: T; i: number; k?: string } => ({ c, i }));
  const key = (x: { c: T; k?: string }) => (x.k ??= callKey(x.c));
  const byName = (a: string, b: string) => a !== b && !a.includes('\u0000') && !b.includes('\u0000');
  sortBy(keyed, (x, y) => {
    if (byName(x.c.tool, y.c.tool)) return x.c.tool < y.c.tool ? -1 : 1;
    const kx = key(x);
    const ky = key(y);
    return kx < ky ? -1 : kx > ky ? 1 : x.i - y.i;
  });
  return keyed.map((x) => x.c);
}
