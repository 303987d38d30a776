/** "The same call" for planners: the one rule in harness/domain/rules/same-call.ts, re-exported where planners look for it. */
export { callKey } from '../rules/same-call.ts';
export { stableJson } from '../../util/json.ts';
