/**
 * Interval estimates for rates over few runs, where the normal approximation fails.
 *
 * @example
 * wilson(9, 10) // [0.596, 0.982] (95%)
 */
export function wilson(successes: number, n: number, z = 1.959963984540054): [number, number] {
  if (n === 0) return [0, 1];
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

/** C(n, k) as a float; exact for the small n of trials. */
export function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/**
 * pass^k (tau-bench): the chance that k trials drawn without replacement all
 * succeed, averaged over tasks: mean over tasks of C(c, k) / C(n, k).
 */
export function passHatK(perTask: readonly { successes: number; trials: number }[], k: number): number | null {
  const eligible = perTask.filter((t) => t.trials >= k);
  if (eligible.length === 0) return null;
  const sum = eligible.reduce((a, t) => a + choose(t.successes, k) / choose(t.trials, k), 0);
  return round(sum / eligible.length);
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : round(xs.reduce((a, b) => a + b, 0) / xs.length);
}

/** Rounds to 4 decimals so results files are stable and readable. */
export function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
