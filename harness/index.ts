/// <reference types="node" preserve="true" />
// oneway's declarations use Node's types (streams, process.env): consumers get them without listing "node" in "types".
/**
 * oneway's public surface (`import ... from 'oneway'`): the planner contract, loading scenarios
 * and planners, scoring, problems and their formatting, and `evaluate(config)`, the programmatic
 * `oneway eval`. Fuzzing lives in `oneway/fuzz` (also re-exported here, as before), MCP agents in
 * `oneway/agents`, the scenario JSON Schema in `oneway/schema.json`.
 *
 * @example
 * import type { PlannerFactory, PlannerView, Decision } from 'oneway';
 * import { evaluate } from 'oneway';
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
} from './core/planner.ts';
export type { CallEvent, RecordEvent, RejectedEvent, RunEndEvent, RunStartEvent } from './core/record.ts';
// The one argument rule: a call's arguments against its tool's JSON Schema.
export { checkArguments, type ArgumentsVerdict, type Violation } from './domain/rules/arguments.ts';
export type { Results, RunResult, PlannerSummary } from './engine/results/types.ts';
export type { Scenario, Tool, PlanItem } from './core/scenario.ts';
export { parseFact, formatFact, matchesFact, type Fact } from './core/facts/fact.ts';
export { renderFact } from './core/facts/template.ts';
export { createRng, deriveSeed, type Rng } from './util/rng.ts';
export { scoreRecord, scoreRun } from './engine/scoring/metrics.ts';
export { loadScenarioFile, loadScenarioText, loadPlanFile } from './engine/loader/load.ts';
// Fuzzing: everything `oneway/fuzz` exports (plan arbitraries, running plans, properties, the oracle, rollback, shrinking).
export * from './features/fuzz/index.ts';
export type { PlannerHandle } from './engine/runner/run.ts';
// Evaluating: the programmatic `oneway eval`, and the config file's shape.
export {
  evaluate,
  defineConfig,
  type EvaluateConfig,
  type OnewayConfig,
  type LlmConfig,
  type FuzzConfig,
} from './api.ts';
// Loading: scenario specs (files, directories, globs, ids) and planners (names or module paths).
export { resolveScenarios, type Resolved, type ResolveOptions } from './engine/loader/resolve.ts';
export type { LoadedScenario } from './engine/loader/load.ts';
export { loadPlanner, builtinPlanners, toHandle } from './engine/runner/planners.ts';
// Problems: what the loaders and commands report, and how they print it (file:line:col severity [code] path: message).
export {
  formatProblem,
  formatPath,
  OnewayError,
  UsageError,
  type Problem,
  type ProblemCode,
  type Result,
  type Severity,
} from './core/errors.ts';
// Scoring: summaries over runs, gates, and the paired comparison.
export { summarize, summarizePlanner } from './engine/scoring/aggregate.ts';
// `Gate` is FailOnGate's earlier name, kept for code that imports it.
export {
  parseGate,
  evaluateGates,
  GATE_METRICS,
  type FailOnGate,
  type FailOnGate as Gate,
  type GateFailure,
  type GateMetric,
} from './engine/gates/fail-on.ts';
// `applyGates` is analyseResults' earlier name, kept for code that imports it.
export {
  analyseResults,
  analyseResults as applyGates,
  buildResults,
  type Analysis,
  type RanResults,
} from './engine/results/build.ts';
export { readResults, writeResults, RESULTS_FILE } from './engine/results/write.ts';
