/**
 * "The same call". Two keys, one home:
 * - `callKey`: one tool with the same arguments, object key order ignored. The order a batch runs
 *   in, the MCP channel's batching and the planners' retry limits key calls with it.
 * - `callIdentity`: what unreconciled retries, duplicate effects, the guard and recover's "repeats"
 *   mean by the same call: the tool and its arguments without its `idempotency_key` parameter, or
 *   only its `dedupe_on` arguments where it declares them. A repeat with a fresh key is the same
 *   call by this identity (a fresh key reconciles nothing).
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

/** What "the same call" needs of a tool declaration. */
export interface IdentityTool {
  idempotency_key?: string | undefined;
  dedupe_on?: readonly string[] | undefined;
}

/**
 * The identity of a call for unreconciled retries and duplicate effects: `callKey` over the
 * arguments that identify it (all but the idempotency key, or only `dedupe_on`).
 *
 * @example
 * // pay declares idempotency_key: key
 * callIdentity({ tool: 'pay', args: { to: 'v1', key: 'k1' } }, pay) === callIdentity({ tool: 'pay', args: { to: 'v1', key: 'k2' } }, pay) // true
 */
export function callIdentity(call: CallLike, tool: IdentityTool | undefined): string {
  if (tool?.dedupe_on) {
    const args: Record<string, unknown> = {};
    for (const p of tool.dedupe_on) args[p] = call.args[p];
    return callKey({ tool: call.tool, args });
  }
  if (tool?.idempotency_key === undefined || !Object.hasOwn(call.args, tool.idempotency_key)) return callKey(call);
  const args = { ...call.args };
  delete args[tool.idempotency_key];
  return callKey({ tool: call.tool, args });
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

/** A value with every list sorted (by its items' key-order-free JSON), at every level. */
function orderFree(v: unknown): unknown {
  if (Array.isArray(v)) {
    const items = v.map(orderFree);
    const keyed = items.map((x) => ({ x, k: stableJson(x) }));
    sortBy(keyed, (a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
    return keyed.map((e) => e.x);
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = orderFree((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/**
 * What a human's confirmation is about: "the same call" (`callIdentity`), with lists compared in any
 * order (a confirmation of `{items: [a, b]}` licenses a call with `{items: [b, a]}`).
 *
 * @example
 * confirmationKey({ tool: 'exchange', args: { items: ['b', 'a'] } }, undefined) === confirmationKey({ tool: 'exchange', args: { items: ['a', 'b'] } }, undefined) // true
 */
export function confirmationKey(call: CallLike, tool: IdentityTool | undefined): string {
  return callIdentity({ tool: call.tool, args: orderFree(call.args) as Record<string, unknown> }, tool);
}
