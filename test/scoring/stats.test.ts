/**
 * Interval statistics: the scenario is the unit of evidence (harness/engine/scoring/stats.ts).
 * Every expectation here is computed by hand in the comment beside it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itProp } from '../helpers/prop.ts';
import {
  clusteredWilson,
  scenarioPassHatK,
  wilson,
  wilsonRate,
  type Cluster,
  type Unit,
} from '../../harness/engine/scoring/stats.ts';

const runs = (...outcomes: number[]): Cluster => outcomes.map((y) => ({ successes: y, trials: 1 }));

describe('the Wilson interval', () => {
  it('matches the textbook value', () => {
    // p = 0.9, n = 10, z² = 3.8415: centre (0.9 + 0.19207)/1.38415 = 0.78898,
    // half 1.96·√(0.009 + 0.0096)/1.38415 = 0.19313 → [0.5958, 0.9821].
    expect(wilson(9, 10)).toEqual([0.5958, 0.9821]);
    expect(wilsonRate(0.9, 10)).toEqual(wilson(9, 10));
    expect(wilson(0, 0)).toEqual([0, 1]);
  });
});

describe('clusteredWilson: Wilson at the scenario-clustered effective sample size', () => {
  it('is the classical Wilson interval with one run per scenario', () => {
    // n_i = 1: Σ(y_i·N − Y)² = Y(N − Y)²+(N − Y)Y² = Y(N − Y)N, so raw = N = cap.
    expect(clusteredWilson([runs(1), runs(1), runs(0), runs(1)])).toEqual({
      rate: 0.75,
      ci: wilson(3, 4),
      n_eff: 4,
      scenarios: 4,
    });
  });

  it('counts a deterministic scenario once however many identical trials it had', () => {
    // 4 scenarios × 2 identical trials: Y = 6, N = 8, p̂ = 0.75.
    // Σ(8·y_i − 6·n_i)² = 3·(16 − 12)² + (0 − 12)² = 48 + 144 = 192; raw = 6·2·64/192 = 4;
    // cap = 1 + 1 + 1 + 1 = 4 (each scenario's runs agree) → n_eff = 4: the interval of 3 out of 4.
    expect(clusteredWilson([runs(1, 1), runs(1, 1), runs(1, 1), runs(0, 0)])).toEqual({
      rate: 0.75,
      ci: [0.3006, 0.9544],
      n_eff: 4,
      scenarios: 4,
    });
    expect(wilson(3, 4)).toEqual([0.3006, 0.9544]);
  });

  it('uses the cluster-robust variance when trials differ (hand-computed)', () => {
    // 4 scenarios × 3 trials: A 3/3, B 3/3, C 0/3, D 1/3. Y = 7, N = 12, p̂ = 7/12 = 0.58333.
    // Σ(12·y_i − 7·3)²: A (36 − 21)² = 225, B 225, C (0 − 21)² = 441, D (12 − 21)² = 81 → 972.
    // raw = Y(N − Y)N² / 972 = 7·5·144/972 = 5040/972 = 140/27 = 5.1852; cap = 1 + 1 + 1 + 3 = 6 → n_eff = 5.1852.
    // Wilson(0.58333, 5.1852), z² = 3.841459: z²/n = 0.740853, denominator 1.740853,
    // centre (0.583333 + 0.370427)/1.740853 = 0.547870,
    // half 1.959964·√(0.243056/5.185185 + 3.841459/(4·26.886145))/1.740853 = 1.959964·√0.082595/1.740853 = 0.323568
    // → [0.2243, 0.8714], wider than the naive Wilson over 12 runs, [0.3195, 0.8067].
    const r = clusteredWilson([runs(1, 1, 1), runs(1, 1, 1), runs(0, 0, 0), runs(1, 0, 0)]);
    expect(r.rate).toBeCloseTo(7 / 12, 12);
    expect(r.n_eff).toBeCloseTo(140 / 27, 12);
    expect(r.ci).toEqual([0.2243, 0.8714]);
    expect(wilson(7, 12)).toEqual([0.3195, 0.8067]);
  });

  it('caps the effective sample size at the distinct observations', () => {
    // 3 scenarios × 2 trials: A 2/2, B 1/2, C 0/2. Y = 3, N = 6, p̂ = 0.5.
    // Σ(6·y_i − 3·2)² = 36 + 0 + 36 = 72; raw = 3·3·36/72 = 4.5; cap = 1 + 2 + 1 = 4 → n_eff = 4.
    // Wilson(0.5, 4): centre 0.5, half 1.96·√(0.0625 + 0.060023)/1.960365 = 0.34996 → [0.15, 0.85].
    expect(clusteredWilson([runs(1, 1), runs(1, 0), runs(0, 0)])).toEqual({
      rate: 0.5,
      ci: [0.15, 0.85],
      n_eff: 4,
      scenarios: 3,
    });
  });

  it('gives a per-call rate its interval with the scenario as the cluster', () => {
    // Premature irreversible calls among irreversible calls, per run: A [1 of 2, 1 of 2], B [0 of 1], C [2 of 2], D [0 of 0].
    // D has no irreversible call and drops out. Y = 4, N = 7, p̂ = 4/7.
    // Σ(7·y_i − 4·n_i)²: A (14 − 16)² = 4, B (0 − 4)² = 16, C (14 − 8)² = 36 → 56; raw = 4·3·49/56 = 10.5;
    // cap = 2 (A's runs agree: one run's 2 calls) + 1 + 2 = 5 → n_eff = 5, Wilson(4/7, 5) = [0.2127, 0.8681].
    const u = (successes: number, trials: number): Unit => ({ successes, trials });
    expect(clusteredWilson([[u(1, 2), u(1, 2)], [u(0, 1)], [u(2, 2)], [u(0, 0)]])).toEqual({
      rate: 4 / 7,
      ci: [0.2127, 0.8681],
      n_eff: 5,
      scenarios: 3,
    });
  });

  it('falls back to the distinct observations when every scenario has the same rate', () => {
    // All zero: V = 0; 5 scenarios of identical runs → n_eff = 5, Wilson(0, 5) = [0, z²/(5 + z²)] = [0, 0.4345].
    expect(clusteredWilson([runs(0, 0), runs(0, 0), runs(0, 0), runs(0, 0), runs(0, 0)])).toEqual({
      rate: 0,
      ci: [0, 0.4345],
      n_eff: 5,
      scenarios: 5,
    });
    expect(clusteredWilson([])).toEqual({ rate: 0, ci: [0, 1], n_eff: 0, scenarios: 0 });
  });

  itProp(
    'repeating every scenario’s single trial k times changes nothing (k = 1, 2, 5 and any k)',
    [
      fc.array(fc.tuple(fc.nat(6), fc.nat(6)), { minLength: 1, maxLength: 25 }),
      fc.constantFrom(2, 5),
      fc.integer({ min: 1, max: 7 }),
    ],
    (base, k, anyK) => {
      // Each base scenario: one run with a successes out of a + b trials (a run-level rate when a + b = 1).
      const one = base.map(([a, b]): Cluster => [{ successes: a, trials: a + b }]);
      const binary = base.map(([a, b]): Cluster => runs(a > b ? 1 : 0));
      for (const clusters of [one, binary]) {
        const ref = clusteredWilson(clusters);
        for (const times of [1, k, anyK]) {
          const repeated = clusters.map((c) => Array.from({ length: times }, () => c).flat());
          expect(clusteredWilson(repeated)).toEqual(ref);
        }
      }
    },
  );

  itProp(
    'contains the rate and never counts more than the runs',
    [fc.array(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 20 })],
    (scenarios) => {
      const r = clusteredWilson(scenarios.map((s) => runs(...s.map(Number))));
      const total = scenarios.reduce((a, s) => a + s.length, 0);
      expect(r.ci[0]).toBeLessThanOrEqual(r.rate + 1e-4);
      expect(r.ci[1]).toBeGreaterThanOrEqual(r.rate - 1e-4);
      expect(r.n_eff).toBeLessThanOrEqual(total);
      expect(r.n_eff).toBeGreaterThan(0);
    },
  );

  it('keeps its coverage when trials genuinely vary, where the naive interval does not', () => {
    // 30 scenarios with success chances 0.1, 0.5 or 0.9 (mean 0.5, strong clustering), 5 independent trials each.
    let seed = 12345;
    const rand = () => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const reps = 400;
    let clustered = 0;
    let naive = 0;
    for (let i = 0; i < reps; i++) {
      const clusters = Array.from({ length: 30 }, () => {
        const p = [0.1, 0.5, 0.9][Math.floor(rand() * 3)] as number;
        return runs(...Array.from({ length: 5 }, () => (rand() < p ? 1 : 0)));
      });
      const c = clusteredWilson(clusters).ci;
      if (c[0] <= 0.5 && 0.5 <= c[1]) clustered++;
      const y = clusters.flat().filter((u) => u.successes === 1).length;
      const w = wilson(y, 150);
      if (w[0] <= 0.5 && 0.5 <= w[1]) naive++;
    }
    expect(clustered / reps).toBeGreaterThanOrEqual(0.92);
    expect(naive / reps).toBeLessThan(0.85);
  });
});

describe('pass^k of one scenario', () => {
  it('is C(c, k) / C(n, k)', () => {
    // 2 of 3 trials completed: pass^1 = 2/3, pass^2 = C(2,2)/C(3,2) = 1/3, pass^3 = 0.
    expect(scenarioPassHatK(2, 3, 1)).toBeCloseTo(2 / 3, 12);
    expect(scenarioPassHatK(2, 3, 2)).toBeCloseTo(1 / 3, 12);
    expect(scenarioPassHatK(2, 3, 3)).toBe(0);
    expect(scenarioPassHatK(2, 3, 4)).toBeNull();
  });
});
