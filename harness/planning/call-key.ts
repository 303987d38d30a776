import type { Call } from '../planner/types.ts';

/**
 * A stable identity for a call: the tool name and its arguments with object keys
 * sorted, so `{a: 1, b: 2}` and `{b: 2, a: 1}` are the same call. Retry limits and
 * "the same call again" (an unreconciled retry) are counted per key.
 *
 * @example
 * callKey({ tool: 'send', args: { to: 'a', cc: 'b' } }) === callKey({ tool: 'send', args: { cc: 'b', to: 'a' } }) // true
 */
export function callKey(call: Call): string {
  return `${call.tool} ${stableJson(call.args)}`;
}

/** JSON with object keys sorted at every level. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'undefined';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

/** Deep equality of two JSON-like values (key order ignored). */
export function sameValue(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}
