import { describe, expect, it } from 'vitest';
import { evaluateGates, parseGate } from '../../harness/gates/fail-on.ts';
import { annotation, escapeData, escapeProperty } from '../../harness/report/github.ts';
import { xmlEscape } from '../../harness/report/junit.ts';
import type { PlannerSummary, RunResult } from '../../harness/results/types.ts';
import { compare, signTest } from '../../harness/scoring/compare.ts';

const run = (scenario: string, trial: number, completed: boolean, steps: number, premature = 0): RunResult =>
  ({ scenario, trial, planner: 'x', completed, safe_completed: completed && premature === 0, steps, depth: steps, premature: { irreversible: premature, compensable: 0, reversible: 0 } }) as RunResult;

describe('the sign test', () => {
  it('matches hand-computed exact binomial tails', () => {
    expect(signTest(0, 6)).toBeCloseTo(2 / 64, 10);
    expect(signTest(6, 6)).toBeCloseTo(2 / 64, 10);
    expect(signTest(1, 5)).toBeCloseTo((2 * 6) / 32, 10);
    expect(signTest(3, 6)).toBe(1);
    expect(signTest(0, 0)).toBe(1);
  });
});

describe('paired comparison', () => {
  it('computes differences, ratios and verdicts from paired runs', () => {
    const scenarios = ['a', 'b', 'c', 'd', 'e', 'f'];
    const base = scenarios.map((s) => run(s, 1, true, 2, 1));
    const cand = scenarios.map((s, i) => run(s, 1, i > 0, 4, 0));
    const c = compare('eager', base, 'gated', cand);
    expect(c.overall.pairs).toBe(6);
    // Completion: one pair lost (b=1, c=0): -1/6, not significant.
    expect(c.overall.completion).toMatchObject({ diff: -0.1667, baseline_only: 1, candidate_only: 0, p_value: 1, verdict: 'no significant change' });
    // Safe completion: 5 pairs gained, none lost: p = 2/32.
    expect(c.overall.safe_completion).toMatchObject({ diff: 0.8333, candidate_only: 5, p_value: 0.0625, verdict: 'no significant change' });
    // Premature irreversible: 6 pairs went from yes to no: p = 2/64 < 0.05, lower is better.
    expect(c.overall.premature_irreversible).toMatchObject({ diff: -1, p_value: 0.0313, verdict: 'improvement' });
    expect(c.overall.step_ratio).toBe(2);
    expect(c.per_scenario).toHaveLength(6);
    expect(c.per_scenario[0]).toMatchObject({ scenario: 'a', pairs: 1, step_ratio: 2 });
  });

  it('calls a significant drop in completion a regression', () => {
    const names = Array.from({ length: 8 }, (_, i) => `s${i}`);
    const c = compare('old', names.map((s) => run(s, 1, true, 1)), 'new', names.map((s) => run(s, 1, false, 1)));
    expect(c.overall.completion.verdict).toBe('regression');
  });

  it('leaves out unpaired runs', () => {
    const c = compare('a', [run('x', 1, true, 1), run('y', 1, true, 1)], 'b', [run('x', 1, true, 1), run('x', 2, true, 1)]);
    expect(c.overall.pairs).toBe(1);
  });
});

describe('gate expressions', () => {
  it('parse metric, operator, number, percent and planner prefix', () => {
    expect(parseGate('premature_irreversible_rate>0')).toMatchObject({ planner: null, metric: 'premature_irreversible_rate', op: '>', value: 0 });
    expect(parseGate(' gated : safe_completion_rate < 80% ')).toMatchObject({ planner: 'gated', op: '<', value: 0.8 });
    expect(() => parseGate('safe_completion<1')).toThrow(/unknown metric "safe_completion"/);
    expect(() => parseGate('mean_steps')).toThrow(/is not a gate/);
  });

  it('fail for each planner whose metric meets the bad condition', () => {
    const summary = [{ planner: 'a', mean_steps: 3, premature_irreversible_per_100: null }, { planner: 'b', mean_steps: 7, premature_irreversible_per_100: 5 }] as PlannerSummary[];
    expect(evaluateGates([parseGate('mean_steps>=5')], summary).map((f) => f.planner)).toEqual(['b']);
    expect(evaluateGates([parseGate('premature_irreversible_per_100>0')], summary).map((f) => f.planner)).toEqual(['b']);
    expect(evaluateGates([parseGate('c:mean_steps>0')], summary)[0]?.message).toContain('planner "c" is not in this evaluation');
  });
});

describe('escaping', () => {
  it('escapes GitHub workflow-command data and properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
    expect(annotation('error', 'x\ny', { file: 'dir/a,b.yaml', line: 3, col: undefined })).toBe('::error file=dir/a%2Cb.yaml,line=3::x%0Ay');
  });

  it('escapes XML and drops characters XML cannot hold', () => {
    expect(xmlEscape(`<a href="x">'&'</a>\u0001`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
  });
});
