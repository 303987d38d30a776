/**
 * Scenario expectations (`expect:` per planner): each figure of a run compared
 * with a literal (`true`, `0`) or a comparison (`">=1"`, `"<3"`, `"!=0"`).
 *
 * @example
 * checkExpectations({ premature_irreversible: '>=1', completed: true }, run) // [] when both hold
 */
import type { RunMetrics } from './metrics-types.ts';

/** The figures an expectation may name, read from a run's metrics. */
export const EXPECTABLE: Record<string, (r: RunMetrics & { error?: string | null }) => number | boolean> = {
  completed: (r) => r.completed,
  safe_completed: (r) => r.safe_completed,
  steps: (r) => r.steps,
  turns: (r) => r.turns,
  depth: (r) => r.depth,
  sim_time_ms: (r) => r.sim_time_ms,
  premature: (r) => r.premature.irreversible + r.premature.compensable + r.premature.reversible,
  premature_irreversible: (r) => r.premature.irreversible,
  premature_compensable: (r) => r.premature.compensable,
  premature_reversible: (r) => r.premature.reversible,
  parallel_irreversible: (r) => r.parallel_irreversible,
  speculative: (r) => r.speculative,
  unreconciled_retries: (r) => r.unreconciled_retries,
  dangling_effects: (r) => r.dangling_effects,
  duplicate_effects: (r) => r.duplicate_effects,
  restarts: (r) => r.restarts,
  sandbox_escapes: (r) => r.sandbox_escapes,
  blocked: (r) => r.blocked,
  rejected: (r) => r.rejected,
  error: (r) => r.error !== null && r.error !== undefined,
};

const COMPARISON = /^\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/;

export interface ExpectationFailure {
  figure: string;
  expected: string;
  actual: number | boolean | undefined;
}

/** Parses one expected value; returns an error message for values it cannot read. */
export function expectationError(figure: string, expected: unknown): string | null {
  if (!(figure in EXPECTABLE)) return `unknown figure "${figure}" (known: ${Object.keys(EXPECTABLE).join(', ')})`;
  if (typeof expected === 'boolean' || typeof expected === 'number') return null;
  if (typeof expected === 'string' && COMPARISON.test(expected)) return null;
  return `expected value for "${figure}" must be a number, true/false, or a comparison like ">=1"`;
}

export function holds(actual: number | boolean, expected: number | boolean | string): boolean {
  if (typeof expected !== 'string') return actual === expected;
  const m = COMPARISON.exec(expected);
  if (!m || typeof actual !== 'number') return false;
  const v = Number(m[2]);
  switch (m[1]) {
    case '>=': return actual >= v;
    case '<=': return actual <= v;
    case '>': return actual > v;
    case '<': return actual < v;
    case '==': return actual === v;
    default: return actual !== v;
  }
}

export function checkExpectations(expect: Record<string, number | boolean | string>, run: RunMetrics & { error?: string | null }): ExpectationFailure[] {
  const out: ExpectationFailure[] = [];
  for (const [figure, expected] of Object.entries(expect)) {
    const read = EXPECTABLE[figure];
    const actual = read?.(run);
    if (actual === undefined || !holds(actual, expected)) out.push({ figure, expected: String(expected), actual });
  }
  return out;
}

export interface ScenarioExpectationFailure extends ExpectationFailure {
  scenario: string;
  planner: string;
  trial: number;
}

/**
 * Checks every run against its scenario's `expect:` for its planner; every trial must hold.
 * Pure: reads run metrics and the expectations, nothing else.
 */
export function checkRuns(
  runs: readonly (RunMetrics & { scenario: string; planner: string; trial: number; error: string | null })[],
  expectations: ReadonlyMap<string, Record<string, Record<string, number | boolean | string>>>,
): ScenarioExpectationFailure[] {
  const out: ScenarioExpectationFailure[] = [];
  for (const run of runs) {
    const exp = expectations.get(run.scenario)?.[run.planner];
    if (!exp) continue;
    for (const f of checkExpectations(exp, run)) out.push({ ...f, scenario: run.scenario, planner: run.planner, trial: run.trial });
  }
  return out;
}
