/// <reference types="node" preserve="true" />
// oneway's declarations use Node's types (streams, process.env): consumers get them without listing "node" in "types".
/**
 * oneway's public surface (`import ... from 'oneway'`), decided and checked (api/oneway.api.md,
 * `npm run check:api`): `evaluate(config)` (the programmatic `oneway eval`), `merge(config)` (`oneway
 * merge`) and the config's shape;
 * the planner contract and the helpers a planner is built with; loading scenarios and planners;
 * scoring a record, summaries and gates; problems and how they print. Fuzzing lives in
 * `oneway/fuzz` only (it loads fast-check), MCP agents in `oneway/agents`, the scenario JSON Schema
 * in `oneway/schema.json`. Everything else is internal and may change in any release.
 *
 * @example
 * import type { PlannerFactory, PlannerView, Decision } from 'oneway';
 * import { evaluate } from 'oneway';
 */

// Evaluating: the programmatic `oneway eval` and `oneway merge`, and the config file's shape.
export {
  evaluate,
  merge,
  defineConfig,
  type EvaluateConfig,
  type MergeConfig,
  type OnewayConfig,
  type LlmConfig,
  type FuzzConfig,
} from './api.ts';
export type { ReporterName } from './features/report/names.ts';

// The planner contract (docs/planner-api.md), and what a planner is built with: seeded randomness,
// facts and their templates, the one argument rule (a call's arguments against its tool's JSON Schema).
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
export { createRng, deriveSeed, type Rng } from './util/rng.ts';
export { parseFact, formatFact, matchesFact, type Fact } from './core/facts/fact.ts';
export { renderFact } from './core/facts/template.ts';
export { checkArguments, type ArgumentsVerdict, type Violation } from './domain/rules/arguments.ts';

// Loading: scenario files and texts, specs (files, directories, globs, ids), planners (names or module paths).
export type { Scenario, Tool, PlanItem } from './core/scenario.ts';
export { loadScenarioFile, loadScenarioText, type LoadedScenario } from './engine/loader/load.ts';
export { resolveScenarios, type Resolved, type ResolveOptions } from './engine/loader/resolve.ts';
export { loadPlanner } from './engine/runner/planners.ts';
export type { PlannerHandle } from './engine/runner/run.ts';

// Records and results: a run record's events, scoring them, summaries over runs, gates, results.json.
export type { CallEvent, RecordEvent, RejectedEvent, RunEndEvent, RunStartEvent } from './core/record.ts';
export { scoreRecord, scoreRun } from './engine/scoring/metrics.ts';
export { summarize } from './engine/scoring/aggregate.ts';
export {
  parseGate,
  evaluateGates,
  type FailOnGate,
  type GateFailure,
  type GateMetric,
} from './engine/gates/fail-on.ts';
export type { Results, RunResult, PlannerSummary } from './engine/results/types.ts';
export { readResults } from './engine/results/write.ts';

// Problems: what the loaders and commands report, and how they print (file:line:col severity [code] path: message).
export {
  formatProblem,
  OnewayError,
  UsageError,
  type Problem,
  type ProblemCode,
  type Result,
  type Severity,
} from './core/errors.ts';
