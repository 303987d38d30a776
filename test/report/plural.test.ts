/**
 * Counts read as English: one scenario, one run, one trial ("1 scenarios" was in report.md), in
 * every reporter that writes a count of them, and many of each still plural.
 */
import { describe, expect, it } from 'vitest';
import { renderAnnotations } from '../../harness/features/report/github.ts';
import { renderRateChart } from '../../harness/features/report/html/chart.ts';
import { renderMarkdown } from '../../harness/features/report/markdown.ts';
import { plural } from '../../harness/util/plural.ts';
import { resultsOf, runResult } from '../helpers/results.ts';

const one = resultsOf([runResult({ planner: 'gated', scenario: 'a', trial: 1 })], {
  planners: ['gated'],
  scenarios: ['a'],
  trials: 1,
  guard: false,
});
const many = resultsOf(
  ['a', 'b'].flatMap((scenario) => [1, 2].map((trial) => runResult({ planner: 'gated', scenario, trial }))),
  { planners: ['gated'], scenarios: ['a', 'b'], trials: 2, guard: false },
);

describe('counts', () => {
  it('report.md: 1 run, 1 scenario × 1 trial; 4 runs, 2 scenarios × 2 trials', () => {
    expect(renderMarkdown(one)).toContain('## oneway: 1 run · gated · 1 scenario × 1 trial · seed 1');
    expect(renderMarkdown(many)).toContain('## oneway: 4 runs · gated · 2 scenarios × 2 trials · seed 1');
  });

  it('the sample-size notice under GitHub Actions and the HTML chart say 1 scenario × 1 trial', () => {
    expect(renderAnnotations(one).join('\n')).toContain('gated n = 1 scenario × 1 trial.');
    expect(renderAnnotations(many).join('\n')).toContain('gated n = 2 scenarios × 2 trials.');
    expect(renderRateChart(one.summary)).toContain('(n = 1 scenario × 1 trial)');
    expect(renderRateChart(many.summary)).toContain('(n = 2 scenarios × 2 trials)');
  });

  it('plural() is singular for exactly one', () => {
    expect([0, 1, 2].map((n) => plural(n, 'scenario'))).toEqual(['0 scenarios', '1 scenario', '2 scenarios']);
    expect(plural(1, 'property', 'properties')).toBe('1 property');
    expect(plural(3, 'property', 'properties')).toBe('3 properties');
  });
});
