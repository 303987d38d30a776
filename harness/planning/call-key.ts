/** "The same call" for planners: the one rule in harness/rules/same-call.ts, re-exported where planners look for it. */
export { callKey } from '../rules/same-call.ts';
export { sameValue, stableJson } from '../util/json.ts';
