/**
 * Interval estimates for rates over few runs, where the normal approximation fails.
 *
 * @example
 * wilson(9, 10) // [0.596, 0.982] (95%)
 */
export function wilson(successes: number, n: number, z = Z95): [number, number] {
  if (n === 0) return [0, 1];
  return wilsonRate(successes / n, n, z);
}

/** The two-sided 95% normal quantile. */
export const Z95 = 1.959963984540054;

/**
 * The Wilson score interval for a rate `p` observed over an effective sample
 * size `n` (which need not be a whole number).
 *
 * @example
 * wilsonRate(0.9, 10) // [0.596, 0.982], the same as wilson(9, 10)
 */
export function wilsonRate(p: number, n: number, z = Z95): [number, number] {
  if (!(n > 0)) return [0, 1];
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [round(Math.max(0, centre - half)), round(Math.min(1, centre + half))];
}

/** One run's share of a rate: `successes` out of `trials` (1 for a run-level rate; for a per-call rate, its calls). */
export interface Unit {
  successes: number;
  trials: number;
}

/** One scenario: the units (runs) of its trials. */
export type Cluster = readonly Unit[];

export interface ClusteredInterval {
  /** Σ successes / Σ trials over the scenarios (the ratio estimator). */
  rate: number;
  /** 95% interval for the rate: the Wilson formula at the effective sample size. */
  ci: [number, number];
  /** The effective sample size: the number of scenarios when their trials repeat each other, more as trials differ. */
  n_eff: number;
  /** Scenarios with at least one trial: the units of evidence. */
  scenarios: number;
}

const gcd = (a: bigint, b: bigint): bigint => {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
};

/**
 * A 95% interval for a rate whose trials are clustered by scenario: the
 * scenario, not the run, is the unit of evidence.
 *
 * Runs of one scenario are not independent (a deterministic planner repeats
 * itself exactly), so the plain Wilson interval over runs is too narrow. This
 * is the Wilson interval at an *effective sample size* taken from the
 * cluster-robust (linearisation) variance of the ratio estimator, the design
 * effect used for survey proportions (Korn & Graubard 1998):
 *
 *     scenario i: y_i successes in n_i trials (over its t_i runs);  Y = Σ y_i,  N = Σ n_i,  p̂ = Y / N
 *     V̂     = Σ_i (y_i − p̂·n_i)² / N²                   (variance of p̂; scenarios independent, runs within one not)
 *     raw   = p̂(1 − p̂) / V̂ = Y(N − Y)·N² / Σ_i (y_i·N − Y·n_i)²     (+∞ when V̂ = 0)
 *     cap   = Σ_i c_i,  c_i = n_i / t_i when the scenario's t_i runs all had the same (successes, trials),
 *             else n_i                                     (the distinct observations: a repeat counts once)
 *     n_eff = min(raw, cap)                                (design effect ≥ 1 against the distinct observations)
 *     ci    = Wilson(p̂, n_eff):  (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n),  n = n_eff, z = 1.96
 *
 * Properties: with one run per scenario and a run-level rate, cap = N = raw
 * (or V̂ = 0), so this is exactly the classical Wilson interval. Repeating
 * every run of a scenario k times multiplies y_i, n_i, Y and N by k and leaves
 * raw and cap unchanged, so identical repeats never narrow the interval; raw
 * is compared and converted as a reduced integer fraction, so the result is
 * bit-for-bit the same. For a deterministic planner (each scenario
 * all-or-nothing) n_eff = the number of scenarios. With genuinely varying
 * trials V̂ is the standard cluster-robust variance, valid whatever the
 * correlation within a scenario, and n_eff grows toward N as trials behave
 * independently.
 *
 * @example
 * // 4 scenarios × 2 identical trials: 3 complete twice, 1 fails twice.
 * const yes = { successes: 1, trials: 1 }, no = { successes: 0, trials: 1 };
 * clusteredWilson([[yes, yes], [yes, yes], [yes, yes], [no, no]])
 * // Y = 6, N = 8, p̂ = 0.75; Σ(y_i·8 − 6·2)² = 3·4² + 12² = 192; raw = 6·2·64/192 = 4; cap = 1+1+1+1 = 4
 * // → { rate: 0.75, n_eff: 4, ci: wilson(3, 4) = [0.3006, 0.9544], scenarios: 4 }
 */
export function clusteredWilson(clusters: readonly Cluster[], z = Z95): ClusteredInterval {
  const used = clusters
    .map((units) => {
      const clean = units.map((u) => ({ y: Math.max(0, Math.min(u.successes, u.trials)), n: Math.max(0, u.trials) }));
      const n = clean.reduce((a, u) => a + u.n, 0);
      const repeats = clean.every((u) => u.y === clean[0]?.y && u.n === clean[0]?.n);
      return {
        y: BigInt(clean.reduce((a, u) => a + u.y, 0)),
        n: BigInt(n),
        distinct: BigInt(repeats ? (clean[0]?.n ?? 0) : n),
      };
    })
    .filter((c) => c.n > 0n);
  const Y = used.reduce((a, c) => a + c.y, 0n);
  const N = used.reduce((a, c) => a + c.n, 0n);
  if (N === 0n) return { rate: 0, ci: [0, 1], n_eff: 0, scenarios: 0 };
  const cap = used.reduce((a, c) => a + c.distinct, 0n);
  const rate = Number(Y) / Number(N);
  const S = used.reduce((a, c) => a + (c.y * N - Y * c.n) ** 2n, 0n);
  const num = Y * (N - Y) * N * N;
  let nEff: number;
  if (S === 0n || num >= cap * S) {
    nEff = Number(cap);
  } else {
    const g = gcd(num, S);
    nEff = Number(num / g) / Number(S / g);
  }
  return { rate, ci: wilsonRate(rate, nEff, z), n_eff: nEff, scenarios: used.length };
}

/** C(n, k) as a float; exact for the small n of trials. */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/**
 * pass^k of one scenario (tau-bench): the chance that k of its trials, drawn
 * without replacement, all succeed: C(c, k) / C(n, k) for c successes in n trials.
 *
 * @example
 * scenarioPassHatK(2, 3, 2) // C(2,2)/C(3,2) = 1/3
 */
export function scenarioPassHatK(successes: number, trials: number, k: number): number | null {
  if (trials < k || k < 1) return null;
  return choose(successes, k) / choose(trials, k);
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
