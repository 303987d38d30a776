/**
 * Every reporter gives the number of scenarios as the sample size (n), says how
 * many trials each had, shows the per-100 interval and, with more than one
 * trial, pass^k; comparisons give n as scenarios, not paired runs.
 */
import { describe, expect, it } from 'vitest';
import { makeChalk } from '../../harness/features/report/color.ts';
import { renderAnnotations } from '../../harness/features/report/github.ts';
import { renderHtml } from '../../harness/features/report/html.ts';
import { renderJunit } from '../../harness/features/report/junit.ts';
import { renderMarkdown } from '../../harness/features/report/markdown.ts';
import { renderComparisonTable, renderSummaryTable } from '../../harness/features/report/table.ts';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';
import { resultsOf, runResult } from '../helpers/results.ts';

const run = (planner: string, scenario: string, trial: number, completed: boolean, premature: number): RunResult =>
  runResult({
    scenario,
    planner,
    trial,
    wall_ms: 1,
    completed,
    safe_completed: completed && premature === 0,
    steps: 2,
    turns: 2,
    depth: 1,
    sim_time_ms: 100,
    premature: { irreversible: premature, compensable: 0, reversible: 0 },
    irreversible_calls: 2,
  });

/** 3 scenarios × `trials`: eager completes everything but calls early in a and b; "careful" fails c on trial 2. */
function results(trials: number): Results {
  const scenarios = ['a', 'b', 'c'];
  const runs: RunResult[] = [];
  for (let t = 1; t <= trials; t++) {
    for (const s of scenarios) {
      runs.push(run('eager', s, t, true, s === 'c' ? 0 : 1));
      runs.push(run('careful', s, t, !(s === 'c' && t === 2), 0));
    }
  }
  const planners = ['eager', 'careful'];
  return resultsOf(runs, { planners, scenarios, trials, guard: false, baselinePlanner: 'eager' });
}

const plain = makeChalk(false);

describe('the summary fields behind the reporters', () => {
  it('carry n, trials, the per-100 interval and pass^k', () => {
    const careful = results(2).summary[1]!;
    // careful on c: trials [done, not done] → pass^2 of c = C(1,2)/C(2,2) = 0; a, b: 1 → pass^2 = (1 + 1 + 0)/3 = 0.6667.
    expect(careful).toMatchObject({
      planner: 'careful',
      runs: 6,
      scenarios: 3,
      trials_per_scenario: { min: 2, max: 2 },
      pass_k: { 1: 0.8333, 2: 0.6667 },
    });
    expect(careful.per_scenario.find((s) => s.scenario === 'c')).toMatchObject({
      trials: 2,
      completed: 1,
      pass_k: { 1: 0.5, 2: 0 },
    });
    const eager = results(2).summary[0]!;
    // 4 premature of 12 irreversible calls; each scenario's runs agree → cap = 2 + 2 + 2 = 6 calls.
    expect(eager.premature_irreversible_per_100).toBe(33.33);
    expect(eager.premature_irreversible_per_100_ci).not.toBeNull();
  });
});

describe('the console table', () => {
  it('gives n as scenarios × trials, the per-100 interval and pass^k', () => {
    const text = renderSummaryTable(results(2), plain);
    expect(text).toContain('n (scen. × trials)');
    expect(text).toContain('3 × 2');
    expect(text).toContain('pass^2 done / safe');
    expect(text).toMatch(/careful\s*│ 3 × 2 /);
    expect(text).toMatch(/67% \/ 67%/);
    expect(text).toMatch(/33\.3 \[\d+(\.\d)?, \d+(\.\d)?\]/);
    expect(text).toContain('The scenario is the unit of evidence');
  });

  it('has no pass^k column with one trial', () => {
    const text = renderSummaryTable(results(1), plain);
    expect(text).toContain('3 × 1');
    expect(text).not.toContain('pass^');
  });

  it('gives a comparison’s n as scenarios, with the paired runs beside it', () => {
    const text = renderComparisonTable(results(2).comparisons, plain);
    expect(text).toContain('n (scenarios)');
    expect(text).toContain('3 (6 paired runs)');
    expect(text).toContain('sign test over scenarios');
  });
});

describe('report.md', () => {
  it('gives n, trials, pass^k and the comparison over scenarios', () => {
    const md = renderMarkdown(results(2));
    expect(md).toContain('| planner | n (scenarios × trials) |');
    expect(md).toContain('| **careful** | 3 × 2 |');
    expect(md).toContain('pass^2 done / safe');
    expect(md).toContain('| 67% / 67% |');
    expect(md).toContain('The scenario is the unit of evidence');
    expect(md).toContain('| careful | 3 (6 paired runs) |');
    expect(md).toContain('exact sign test over scenarios');
  });
});

describe('junit.xml', () => {
  it('gives each suite its sample size and pass^k as properties', () => {
    const xml = renderJunit(results(2));
    expect(xml).toContain('<property name="scenarios" value="3"/>');
    expect(xml).toContain('<property name="trials_per_scenario" value="2"/>');
    expect(xml).toContain('<property name="pass^2" value="0.6667"/>');
  });
});

describe('GitHub annotations', () => {
  it('give the sample size in a notice', () => {
    const lines = renderAnnotations(results(2));
    expect(lines[0]).toBe(
      '::notice title=oneway%3A sample size::eager n = 3 scenarios × 2 trials; careful n = 3 scenarios × 2 trials. Intervals and the paired test count scenarios, not runs.',
    );
  });
});

describe('report.html', () => {
  it('gives n, pass^k and the comparison over scenarios', () => {
    const html = renderHtml(results(2));
    expect(html).toContain('<th scope="col">n (scenarios × trials)</th>');
    expect(html).toContain('<td class="num">3 × 2</td>');
    expect(html).toContain('<th scope="col">pass^2 done / safe</th>');
    expect(html).toContain('<th scope="col">n (scenarios)</th>');
    expect(html).toContain('3 <span class="ci">(6 paired runs)</span>');
    expect(html).toContain('clustered by scenario');
  });
});
