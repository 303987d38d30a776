/**
 * Shared planning logic for the rule-based planners: what the planner believes,
 * how a tool's args are bound, and backward chaining from the goal.
 */
export { completeArgs, coerceArg, coerceBindings, factText, type ArgSources, type Completion } from './args.ts';
export { believedFacts, establishedBy, goalFacts, scopedFact } from './belief.ts';
export { callKey, sameValue, stableJson } from './call-key.ts';
export { backwardChain, isReady, type ChainOptions, type PartialPlan, type PlanNode } from './chain.ts';
export { finish, issue } from './decision.ts';
export { approvalVerdict, asRecord, attemptsOf, isAmbiguousFailure, observations, toolNamed } from './history.ts';
export { optionFor, optionsFor, rankOptions, type Option, type OptionRank } from './options.ts';
export { byClassThenMissing, byFewestPreconditions } from './rank.ts';
export { reconcilersOf, reconciliationAt, reportsOn, sharedParameters, type Reconciliation } from './reconcile.ts';
export { renderForCall, toolFact } from './tool-facts.ts';
export { argsMentioned, matchValue, unifyEstablish, unifyPattern, type Bindings } from './unify.ts';
export { failedIrreversibleCalls, irreversibleState, type IrreversibleState, type RecoveryLimits } from './recovery.ts';
export { planningSources } from './sources.ts';
export { avoidsForbidden } from './forbidden.ts';
export { seenValues, type Scalar, type SeenValue } from './values.ts';
export { nearMiss } from './near-miss.ts';
