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
  ToolClass,
  ToolView,
} from './planner/types.ts';
export type { CallEvent, RecordEvent, RunEndEvent, RunStartEvent } from './record/events.ts';
export type { Results, RunResult, PlannerSummary } from './results/types.ts';
export type { Scenario, Tool, PlanItem } from './schema/scenario.ts';
export { parseFact, formatFact, matchesFact, type Fact } from './facts/fact.ts';
export { renderFact } from './facts/template.ts';
export { createRng, deriveSeed, type Rng } from './util/rng.ts';
export { scoreRecord, scoreRun } from './scoring/metrics.ts';
export { loadScenarioFile, loadScenarioText, loadPlanFile } from './loader/load.ts';
