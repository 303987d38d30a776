/** Small number formats shared by reporters. */
import { rateOf, type RateDef } from '../../engine/scoring/rates.ts';
import { ms } from '../../util/duration.ts';

export const pct = (x: number | null | undefined): string =>
  x === null || x === undefined ? '—' : `${Math.round(x * 100)}%`;
const ci = (c: readonly [number, number]): string => `[${pct(c[0])}, ${pct(c[1])}]`;
const num = (x: number, digits = 1): string => (Number.isInteger(x) ? String(x) : x.toFixed(digits));

/** Trials per scenario: `2`, or `1–2` when an interrupted evaluation left them unequal. */
export const trialsText = (t: { min: number; max: number }): string =>
  t.min === t.max ? String(t.max) : `${t.min}–${t.max}`;
/** The sample size of a planner's figures: scenarios (the unit of evidence) × trials each, e.g. `31 × 2`. */
export const sampleSize = (s: { scenarios: number; trials_per_scenario: { min: number; max: number } }): string =>
  `${s.scenarios} × ${trialsText(s.trials_per_scenario)}`;
/** An interval of per-100 figures, e.g. `[51.2, 86.9]`. */
const ci100 = (c: readonly [number, number]): string => `[${num(c[0])}, ${num(c[1])}]`;
/** The largest k with a pass^k figure (the trials per scenario), or 0 with one trial or none. */
export const passK = (summary: readonly { trials_per_scenario: { max: number } }[]): number => {
  const k = Math.max(0, ...summary.map((s) => s.trials_per_scenario.max));
  return k > 1 ? k : 0;
};
/** A summary figure as its registry column formats it. */
export const figureText = (x: number, format: 'num' | 'ms'): string => (format === 'ms' ? ms(x) : num(x));

/**
 * A rate of the rate registry in a planner's summary: its value, and as text its figure (a share
 * as a percentage, per 100 as a number, `—` when there is none) and its interval (null when none).
 *
 * @example
 * rateText(summary, completionRate) // { value: 0.9, figure: '90%', interval: '[78%, 96%]' }
 */
export function rateText(
  summary: object,
  r: RateDef,
): { value: number | null; figure: string; interval: string | null } {
  const { value, ci: c } = rateOf(summary, r);
  if (r.how === 'share') return { value, figure: pct(value), interval: c ? ci(c) : null };
  return { value, figure: value === null ? '—' : num(value), interval: value !== null && c ? ci100(c) : null };
}

/** A rate column's head in the console and report.md: the first one that shows its interval says what the brackets are. */
export const rateHead = (r: RateDef, shown: readonly RateDef[]): string =>
  r === shown.find((x) => !x.column.headline) ? `${r.column.head} [95% CI]` : r.column.head;
