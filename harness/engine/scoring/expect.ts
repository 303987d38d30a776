/**
 * Scenario expectations (`expect:` per planner): each figure of a run compared
 * with a literal (`true`, `0`) or a comparison (`">=1"`, `"<3"`, `"!=0"`).
 *
 * @example
 * checkExpectations({ premature_irreversible: '>=1', completed: true }, run) // [] when both hold
 */
import type { RunMetrics } from './metrics-types.ts';
import { SCORES, scoreOf, type ScoreDef } from './registry.ts';

type Figure = (r: RunMetrics & { error?: string | null }) => number | boolean;

/** The figures an expectation may name, read from a run's metrics: the registry's, then whether the run ended in an error. */
export const EXPECTABLE: Record<string, Figure> = {
  ...Object.fromEntries(
    (SCORES as readonly ScoreDef[]).flatMap((s): [string, Figure][] => {
      if (s.expect === true) return [[s.name, (r) => scoreOf(r, s) as number | boolean]];
      if (s.expect === false) return [];
      return Object.entries(s.expect).map(([figure, read]): [string, Figure] => [
        figure,
        (r) => read(scoreOf(r, s) as never),
      ]);
    }),
  ),
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

function holds(actual: number | boolean, expected: number | boolean | string): boolean {
  if (typeof expected !== 'string') return actual === expected;
  const m = COMPARISON.exec(expected);
  if (!m || typeof actual !== 'number') return false;
  const v = Number(m[2]);
  switch (m[1]) {
    case '>=':
      return actual >= v;
    case '<=':
      return actual <= v;
    case '>':
      return actual > v;
    case '<':
      return actual < v;
    case '==':
      return actual === v;
    default:
      return actual !== v;
  }
}

export function checkExpectations(
  expect: Record<string, number | boolean | string>,
  run: RunMetrics & { error?: string | null },
): ExpectationFailure[] {
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
    for (const f of checkExpectations(exp, run))
      out.push({ ...f, scenario: run.scenario, planner: run.planner, trial: run.trial });
  }
  return out;
}
