/**
 * oneway's public surface: everything a planner author or a test suite imports.
 *
 * @example
 * import type { PlannerFactory, PlannerView, Decision } from 'oneway';
 */
export type {
  Call,
  Decision,
  HistoryEntry,
  Observation,
  Planner,
  PlannerContext,
  PlannerFactory,
  PlannerView,
  RejectedAttempt,
  ToolClass,
  ToolView,
} from './planner/types.ts';
export type { CallEvent, RecordEvent, RejectedEvent, RunEndEvent, RunStartEvent } from './record/events.ts';
// The one argument rule: a call's arguments against its tool's JSON Schema.
export { checkArguments, type ArgumentsVerdict, type Violation } from './rules/arguments.ts';
export type { Results, RunResult, PlannerSummary } from './results/types.ts';
export type { Scenario, Tool, PlanItem } from './schema/scenario.ts';
export { parseFact, formatFact, matchesFact, type Fact } from './facts/fact.ts';
export { renderFact } from './facts/template.ts';
export { createRng, deriveSeed, type Rng } from './util/rng.ts';
export { scoreRecord, scoreRun } from './scoring/metrics.ts';
export { loadScenarioFile, loadScenarioText, loadPlanFile } from './loader/load.ts';
// Fuzzing: plan arbitraries for fast-check, running plans, the built-in properties and the scoring oracle.
export { planArbitrary, compensationCall, type PlanArbitraryOptions, type PlanCall } from './fuzz/arbitraries.ts';
export { runPlan, runPlanner, type PlanRun, type PlanRunOptions } from './fuzz/run-plan.ts';
export {
  BUILTIN_PROPERTIES,
  DEFAULT_PROPERTIES,
  determinism,
  guardSoundness,
  rollbackCompleteness,
  scoringOracle,
  sealHolds,
  transportEquivalence,
  type FuzzProperty,
  type PropertyContext,
  type PropertyRun,
  type Verdict,
} from './fuzz/properties.ts';
export { fromRecordProperty, type RecordProperty } from './fuzz/property-module.ts';
export { oracleScores, type OracleScores } from './fuzz/oracle.ts';
export { rollBack, type RollbackResult } from './fuzz/rollback.ts';
export { checkPlan, fuzzScenario, type Failure, type FuzzFailure, type FuzzOptions, type FuzzReport } from './fuzz/fuzz.ts';
export type { PlannerHandle } from './runner/run.ts';
export { planFromRun, planYaml } from './fuzz/plan-file.ts';
export { shrinkPlan } from './fuzz/shrink.ts';
