/// <reference types="node" preserve="true" />
// oneway's declarations use Node's types (streams, process.env): consumers get them without listing "node" in "types".
/**
 * `oneway/fuzz`: property-based testing of plans in your own test suite (fast-check): plan
 * arbitraries for a scenario, running a plan or a planner in a sandbox, the built-in properties
 * and the scoring oracle, rollback, shrinking, plan files, and whole-scenario fuzzing as `oneway fuzz`
 * does it. The package root does not re-export any of it: importing 'oneway' does not load fast-check.
 *
 * @example
 * import fc from 'fast-check';
 * import { loadScenarioFile } from 'oneway';
 * import { planArbitrary, checkPlan, scoringOracle } from 'oneway/fuzz';
 *
 * const loaded = loadScenarioFile('scenarios/payout.yaml');
 * if (!loaded.ok) throw new Error('scenario has problems');
 * const scenario = loaded.value.scenario;
 * await fc.assert(fc.asyncProperty(planArbitrary(scenario), async (plan) => (await checkPlan(scenario, plan, [scoringOracle])).length === 0));
 */
export {
  planArbitrary,
  compensationCall,
  itemCalls,
  planCallCount,
  type ItemKind,
  type PlanArbitraryOptions,
  type PlanCall,
} from './arbitraries.ts';
export { runPlan, runPlanner, type PlanRun, type PlanRunOptions } from './run-plan.ts';
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
} from './properties.ts';
export { fromRecordProperty, loadPropertyModule, resolveProperties, type RecordProperty } from './property-module.ts';
export { oracleScores, type OracleScores } from './oracle.ts';
export { rollBack, type RollbackResult } from './rollback.ts';
export { checkPlan, fuzzScenario, type Failure, type FuzzFailure, type FuzzOptions, type FuzzReport } from './fuzz.ts';
// Plan files: a plan as YAML (what a failure writes and `--plan` replays), and reading one back.
export { planFromRun, planYaml } from './plan-file.ts';
export { loadPlanFile } from '../../engine/loader/load.ts';
export type { PlanItem } from '../../core/scenario.ts';
export { shrinkPlan } from './shrink.ts';
