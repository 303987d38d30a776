import type { Call } from '../planner/types.ts';
import { stableJson } from '../util/json.ts';

export { sameValue, stableJson } from '../util/json.ts';

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

