import { describe, expect, it } from 'vitest';
import { evaluateGates, parseGate, skippedGates } from '../../harness/engine/gates/fail-on.ts';
import { annotation, escapeData, escapeProperty } from '../../harness/features/report/github.ts';
import { xmlEscape } from '../../harness/features/report/junit.ts';
import type { PlannerSummary, RunResult } from '../../harness/engine/results/types.ts';
import { compare, pairedDiffCi, signTest } from '../../harness/engine/scoring/compare.ts';

const run = (scenario: string, trial: number, completed: boolean, steps: number, premature = 0): RunResult =>
  ({
    scenario,
    trial,
    planner: 'x',
    completed,
    safe_completed: completed && premature === 0,
    steps,
    depth: steps,
    premature: { irreversible: premature, compensable: 0, reversible: 0 },
  }) as RunResult;

describe('the sign test', () => {
  it('matches hand-computed exact binomial tails', () => {
    expect(signTest(0, 6)).toBeCloseTo(2 / 64, 10);
    expect(signTest(6, 6)).toBeCloseTo(2 / 64, 10);
    expect(signTest(1, 5)).toBeCloseTo((2 * 6) / 32, 10);
    expect(signTest(3, 6)).toBe(1);
    expect(signTest(0, 0)).toBe(1);
  });

  it('stays exact past 2^1023 (log space)', () => {
    expect(signTest(1000, 2000)).toBe(1);
    expect(signTest(0, 2000)).toBe(0);
    expect(signTest(950, 2000)).toBeGreaterThan(0.02);
    expect(signTest(950, 2000)).toBeLessThan(0.03);
  });
});

describe('the interval of a paired difference over scenarios', () => {
  it('is Agresti–Min’s with one trial per scenario (hand-computed)', () => {
    // 6 scenarios, all +1: b = 0, c = 6, n = 6. Centre (c − b)/(n + 2) = 0.75;
    // se = √((b + c + 1) − (c − b)²/(n + 2))/(n + 2) = √(7 − 4.5)/8 = 0.19764; 1.96·se = 0.38737 → [0.3626, 1 (clamped)].
    expect(pairedDiffCi([1, 1, 1, 1, 1, 1])).toEqual([0.3626, 1]);
    // No scenario of 6 differs: centre 0, v = (0 + 1)/8 = 0.125, se = √(0.125/8) = 0.125, 1.96·se = 0.245 → [−0.245, 0.245].
    expect(pairedDiffCi([0, 0, 0, 0, 0, 0])).toEqual([-0.245, 0.245]);
  });
});

describe('paired comparison', () => {
  it('computes differences, ratios and verdicts from paired runs', () => {
    const scenarios = ['a', 'b', 'c', 'd', 'e', 'f'];
    const base = scenarios.map((s) => run(s, 1, true, 2, 1));
    const cand = scenarios.map((s, i) => run(s, 1, i > 0, 4, 0));
    const c = compare('eager', base, 'gated', cand);
    expect(c.overall.pairs).toBe(6);
    expect(c.overall.scenarios).toBe(6);
    // Completion: one scenario lost (b=1, c=0): -1/6, not significant.
    // Agresti–Min: centre −1/8 = −0.125, se = √(2 − 1/8)/8 = 0.17116, ±0.33547 → [−0.4605, 0.2105].
    expect(c.overall.completion).toMatchObject({
      diff: -0.1667,
      ci: [-0.4605, 0.2105],
      baseline_only: 1,
      candidate_only: 0,
      ties: 5,
      p_value: 1,
      verdict: 'no significant change',
    });
    // Safe completion: 5 pairs gained, none lost: p = 2/32.
    expect(c.overall.safe_completion).toMatchObject({
      diff: 0.8333,
      candidate_only: 5,
      p_value: 0.0625,
      verdict: 'no significant change',
    });
    // Premature irreversible: 6 pairs went from yes to no: p = 2/64 < 0.05, lower is better.
    expect(c.overall.premature_irreversible).toMatchObject({ diff: -1, p_value: 0.0313, verdict: 'improvement' });
    expect(c.overall.step_ratio).toBe(2);
    expect(c.per_scenario).toHaveLength(6);
    // One scenario is one unit of evidence: its figures are given, its test never significant alone.
    expect(c.per_scenario[0]).toMatchObject({ scenario: 'a', scenarios: 1, pairs: 1, step_ratio: 2 });
    expect(c.per_scenario[0]?.premature_irreversible).toMatchObject({
      diff: -1,
      p_value: 1,
      verdict: 'no significant change',
    });
  });

  it('calls a significant drop in completion a regression', () => {
    const names = Array.from({ length: 8 }, (_, i) => `s${i}`);
    const c = compare(
      'old',
      names.map((s) => run(s, 1, true, 1)),
      'new',
      names.map((s) => run(s, 1, false, 1)),
    );
    expect(c.overall.completion.verdict).toBe('regression');
  });

  it('leaves out unpaired runs', () => {
    const c = compare('a', [run('x', 1, true, 1), run('y', 1, true, 1)], 'b', [
      run('x', 1, true, 1),
      run('x', 2, true, 1),
    ]);
    expect(c.overall.pairs).toBe(1);
    expect(c.overall.scenarios).toBe(1);
  });

  it('tests per-scenario mean differences over paired trials (hand-computed)', () => {
    // Completion over 2 paired trials per scenario (baseline → candidate):
    //   s1 [0,0] → [1,1]  d = +1      s4 [0,0] → [1,0]  d = +0.5
    //   s2 [0,1] → [1,1]  d = +0.5    s5 [1,0] → [0,0]  d = −0.5
    //   s3 [1,1] → [1,1]  d = 0       s6 [0,0] → [1,1]  d = +1
    // diff = (1 + 0.5 + 0 + 0.5 − 0.5 + 1)/6 = 2.5/6 = 0.4167.
    // Sign test over the 5 scenarios with d ≠ 0, 4 positive: p = 2·(C(5,0) + C(5,1))/2^5 = 12/32 = 0.375.
    // (Over the 12 paired runs it would be 6 vs 1 discordant pairs: p = 2·8/128 = 0.125.)
    // Interval: m* = 8, centre 2.5/8 = 0.3125, Σd² = 2.75, v = (2.75 + 1)/8 − 0.3125² = 0.37109,
    // se = √(0.37109/8) = 0.21538, 1.96·se = 0.42213 → [−0.1096, 0.7346].
    const table: [string, boolean[], boolean[]][] = [
      ['s1', [false, false], [true, true]],
      ['s2', [false, true], [true, true]],
      ['s3', [true, true], [true, true]],
      ['s4', [false, false], [true, false]],
      ['s5', [true, false], [false, false]],
      ['s6', [false, false], [true, true]],
    ];
    const base = table.flatMap(([s, b]) => b.map((done, t) => run(s, t + 1, done, 1)));
    const cand = table.flatMap(([s, , c]) => c.map((done, t) => run(s, t + 1, done, 1)));
    const c = compare('old', base, 'new', cand);
    expect(c.overall).toMatchObject({ scenarios: 6, pairs: 12 });
    expect(c.overall.completion).toEqual({
      diff: 0.4167,
      ci: [-0.1096, 0.7346],
      baseline_only: 1,
      candidate_only: 4,
      ties: 1,
      p_value: 0.375,
      verdict: 'no significant change',
    });
  });

  it('gives no verdict when the mean and the majority of scenarios disagree', () => {
    // 9 scenarios × 10 trials: in 8 the candidate completes one more trial (d = +0.1), in 1 it loses all 10 (d = −1).
    // Sign test 8 of 9: p = 2·(1 + 9)/512 = 0.0391 < 0.05, but the mean is (0.8 − 1)/9 = −0.0222 < 0.
    const base: RunResult[] = [];
    const cand: RunResult[] = [];
    for (let i = 0; i < 9; i++) {
      for (let t = 1; t <= 10; t++) {
        base.push(run(`s${i}`, t, i === 8 ? true : t <= 5, 1));
        cand.push(run(`s${i}`, t, i === 8 ? false : t <= 6, 1));
      }
    }
    const c = compare('old', base, 'new', cand).overall.completion;
    expect(c).toMatchObject({
      diff: -0.0222,
      candidate_only: 8,
      baseline_only: 1,
      p_value: 0.0391,
      verdict: 'no significant change',
    });
  });
});

describe('gate expressions', () => {
  it('suggests the rate for a metric named without its suffix', () => {
    // Both the rate and the per-100 figure extend the name: the rate, the share of runs, is meant.
    expect(() => parseGate('premature_irreversible>0')).toThrow(
      expect.objectContaining({ hint: expect.stringMatching(/^did you mean premature_irreversible_rate\? metrics: /) }),
    );
  });

  it('parse metric, operator, number, percent and planner prefix', () => {
    expect(parseGate('premature_irreversible_rate>0')).toMatchObject({
      planner: null,
      metric: 'premature_irreversible_rate',
      op: '>',
      value: 0,
    });
    expect(parseGate(' gated : safe_completion_rate < 80% ')).toMatchObject({ planner: 'gated', op: '<', value: 0.8 });
    expect(parseGate('scenarios<10')).toMatchObject({ metric: 'scenarios', op: '<', value: 10 });
    expect(() => parseGate('safe_completion<1')).toThrow(/unknown metric "safe_completion"/);
    expect(() => parseGate('mean_steps')).toThrow(/is not a gate/);
  });

  it('fail for each planner whose metric meets the bad condition', () => {
    const summary = [
      { planner: 'a', mean_steps: 3, premature_irreversible_per_100: null },
      { planner: 'b', mean_steps: 7, premature_irreversible_per_100: 5 },
    ] as PlannerSummary[];
    expect(evaluateGates([parseGate('mean_steps>=5')], summary).map((f) => f.planner)).toEqual(['b']);
    expect(evaluateGates([parseGate('premature_irreversible_per_100>0')], summary).map((f) => f.planner)).toEqual([
      'b',
    ]);
    expect(evaluateGates([parseGate('c:mean_steps>0')], summary)[0]?.message).toContain(
      'planner "c" is not in this evaluation',
    );
    expect(skippedGates([parseGate('c:mean_steps>0')], summary)).toEqual([]);
  });

  it('skip a standing gate (from the config file) whose planner is not in this evaluation, and apply it when it is', () => {
    const summary = [{ planner: 'a', mean_steps: 7 }] as PlannerSummary[];
    const absent = parseGate('c:mean_steps>0', { optional: true });
    expect(evaluateGates([absent], summary)).toEqual([]);
    expect(skippedGates([absent], summary)).toEqual([
      {
        gate: 'c:mean_steps>0',
        planner: 'c',
        message: 'gate c:mean_steps>0 (from the config file) skipped: planner "c" is not in this evaluation',
      },
    ]);
    const present = parseGate('a:mean_steps>5', { optional: true });
    expect(evaluateGates([present], summary).map((f) => f.planner)).toEqual(['a']);
    expect(skippedGates([present, parseGate('mean_steps>100', { optional: true })], summary)).toEqual([]);
  });
});

describe('escaping', () => {
  it('escapes GitHub workflow-command data and properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
    expect(annotation('error', 'x\ny', { file: 'dir/a,b.yaml', line: 3, col: undefined })).toBe(
      '::error file=dir/a%2Cb.yaml,line=3::x%0Ay',
    );
  });

  it('escapes XML and drops characters XML cannot hold', () => {
    expect(xmlEscape(`<a href="x">'&'</a>\u0001`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
  });
});
