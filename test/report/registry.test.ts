/**
 * Every score of the registry (harness/engine/scoring/registry.ts) reaches every place it declares:
 * summary figures, `--fail-on`, `expect:`, and each reporter's columns, marks, legends, alerts and
 * the HTML report's data. Every headline rate of the rate registry (harness/engine/scoring/rates.ts)
 * likewise: its summary fields and effective sample size, `--fail-on`, the paired comparison and
 * the `--baseline` gate, and every reporter (table, json, markdown, junit, github, html).
 * Checked twice: for the registries as they are, and with a synthetic score and synthetic rates
 * registered by this test, which no reporter can know by name: a reporter that lists its scores
 * or rates by hand instead of reading the registry fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../harness/core/errors.ts';
import { baselineGate } from '../../harness/engine/gates/baseline.ts';
import { GATE_METRICS, evaluateGates, parseGate } from '../../harness/engine/gates/fail-on.ts';
import { makeChalk } from '../../harness/features/report/color.ts';
import { escapeProperty, renderAnnotations } from '../../harness/features/report/github.ts';
import { renderHtml } from '../../harness/features/report/html.ts';
import type { ReportData } from '../../harness/features/report/html/data.ts';
import { REPORTERS, parseReporters, writeReports } from '../../harness/features/report/index.ts';
import { renderJunit } from '../../harness/features/report/junit.ts';
import { renderMarkdown } from '../../harness/features/report/markdown.ts';
import { renderComparisonTable, renderScenarioGrid, renderSummaryTable } from '../../harness/features/report/table.ts';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';
import { EXPECTABLE } from '../../harness/engine/scoring/expect.ts';
import type { ScoreFinding } from '../../harness/engine/scoring/findings.ts';
import {
  RATES,
  chartRates,
  pairedRates,
  rateGateMetrics,
  rateKeys,
  rates,
  type RateDef,
} from '../../harness/engine/scoring/rates.ts';
import {
  SCORES,
  findingScores,
  marked,
  scores,
  summaryColumns,
  summaryFigures,
  type ScoreDef,
  type ScoreValue,
} from '../../harness/engine/scoring/registry.ts';
import { embeddedData } from './fixture.ts';
import { tempDir } from '../helpers/cli.ts';
import { resultsOf, runResult } from '../helpers/results.ts';

const plain = makeChalk(false);

/** A score no reporter knows by name: registered for the second half of this file only. */
const SYNTHETIC = {
  name: 'synthetic_flaws',
  label: 'synthetic flaws',
  doc: 'Registered by test/report/registry.test.ts only.',
  unit: 'calls',
  better: 'lower',
  aggregate: { how: 'sum', at: 1000, gate: true },
  expect: true,
  steps: () => new Set<number>(),
  value: (x) => x.own.size,
  mark: { letter: 'Z', word: 'zflaw', legend: 'synthetic flaw', explain: 'synthetic flaws of this test', brief: true },
  column: { head: 'zflaws', format: 'num' },
  finding: {
    kind: 'synthetic_flaw',
    message: (c) => `step ${c.step}: ${c.tool} made a synthetic flaw`,
    glyph: 'Ƶ',
    text: 'synthetic flaw',
    detail: 'a flaw only this test knows',
    alert: { when: () => true, type: 'synthetic_alert', title: (tool) => `synthetic alert: ${tool}` },
  },
} satisfies ScoreDef;

/** Two rates no reporter knows by name, a share and a per-100 rate: registered for the second half of this file only. */
const SYNTHETIC_SHARE = {
  name: 'synthetic_share',
  label: 'synthetic share',
  noun: 'synthetic share rate',
  doc: 'Registered by test/report/registry.test.ts only.',
  better: 'higher',
  gate: true,
  how: 'share',
  holds: (r) => r.restarts > 2,
  count: 'synthetic_runs',
  paired: { head: 'zpaired' },
  column: { head: 'zshare', short: 'zs', alarm: true },
  chart: { metric: 'synthetic', tip: 'synthetic share (runs)' },
} satisfies RateDef;

const SYNTHETIC_PER_100 = {
  name: 'synthetic_per_100',
  label: 'synthetic per 100',
  noun: 'synthetic calls per 100 calls',
  doc: 'Registered by test/report/registry.test.ts only.',
  better: 'lower',
  gate: true,
  how: 'per_100',
  hits: (r) => r.blocked,
  of: (r) => r.blocked + r.rejected,
  column: { head: 'zper100', short: 'z100' },
} satisfies RateDef;

/** A non-zero value of every score, so that every mark and column has something to show. */
function valueOf(s: ScoreDef): ScoreValue {
  if (s.name === 'completed') return true;
  if (s.name === 'safe_completed') return false;
  if (s.name === 'premature') return { irreversible: 3, compensable: 1, reversible: 1 };
  return 3;
}

/** Two planners on one scenario, every score non-zero, a finding of every kind; the guard on (guard-only columns show), p2 compared with p1. */
function results(): Results {
  const findings: ScoreFinding[] = findingScores().map((s, i) => ({
    kind: s.finding.kind as ScoreFinding['kind'],
    step: i + 1,
    tool: `tool_${s.finding.kind}`,
    class: 'irreversible',
    message: `step ${i + 1}: finding ${s.finding.kind}`,
  }));
  const runs: RunResult[] = ['p1', 'p2'].map((planner) =>
    runResult({
      planner,
      scenario: 's1',
      trial: 1,
      findings,
      ...Object.fromEntries(scores().map((s) => [s.name, valueOf(s)])),
    }),
  );
  return resultsOf(runs, { planners: ['p1', 'p2'], scenarios: ['s1'], trials: 1, guard: true, baselinePlanner: 'p1' });
}

/** What the reporters that write to stdout or beside results.json gave: json alone, and github's job summary. */
function written(r: Results): { json: Results; stepSummary: string } {
  const out: string[] = [];
  const dir = tempDir('oneway-registry-');
  const ctx = { outDir: dir, stdout: { write: (t: string) => out.push(t) } as never, chalk: plain };
  writeReports(r, ['json'], ctx);
  const json = JSON.parse(out.join('')) as Results;
  const file = join(dir, 'step-summary.md');
  writeReports(r, ['github'], { ...ctx, env: { GITHUB_STEP_SUMMARY: file } });
  return { json, stepSummary: readFileSync(file, 'utf8') };
}

/** Each check names the score or rate it misses, so a failure says which reporter forgot which. */
function checkEveryReporter(only?: string): void {
  const wanted = (s: ScoreDef) => only === undefined || s.name === only;
  const wantedRate = (x: RateDef) => only === undefined || x.name === only;
  const r = results();
  checkEveryRate(r, wantedRate);

  // Summary figures.
  const summary = r.summary[0] as unknown as Record<string, unknown>;
  for (const f of summaryFigures().filter((x) => wanted(x.score)))
    expect(summary, `summary figure ${f.key}`).toHaveProperty(f.key, 3);

  // The console table: summary columns, grid marks in full and compact, and the compact legend.
  const table = renderSummaryTable(r, plain);
  const grid = renderScenarioGrid(r, plain);
  const compact = renderScenarioGrid(r, plain, 40);
  for (const { column, score } of summaryColumns(true).filter((x) => wanted(x.score)))
    expect(table, `table column of ${score.name}`).toContain(column.head);
  for (const s of marked().filter(wanted)) {
    expect(grid, `table grid mark of ${s.name}`).toContain(`${s.mark.word}×3`);
    expect(compact, `compact table grid mark of ${s.name}`).toContain(`${s.mark.letter}3`);
    expect(compact.replace(/\s+/g, ' '), `table legend of ${s.name}`).toContain(`${s.mark.letter} ${s.mark.legend}`);
  }

  // report.md: summary columns, and the brief marks in its grid.
  const md = renderMarkdown(r);
  for (const { column, score } of summaryColumns(true).filter((x) => wanted(x.score)))
    expect(md, `markdown column of ${score.name}`).toContain(`| ${column.head} |`);
  for (const s of marked().filter((x) => wanted(x) && x.mark.brief))
    expect(md, `markdown mark of ${s.name}`).toContain(`3 ${s.mark.word}`);

  // junit.xml and GitHub annotations: every finding a score raises as an alert.
  const junit = renderJunit(r);
  const annotations = renderAnnotations(r).join('\n');
  for (const s of findingScores().filter((x) => wanted(x) && x.finding.alert)) {
    expect(junit, `junit failure of ${s.name}`).toContain(`finding ${s.finding.kind}`);
    expect(annotations, `GitHub annotation of ${s.name}`).toContain(
      `title=${escapeProperty(s.finding.alert?.title(`tool_${s.finding.kind}`) ?? '')}`,
    );
  }

  // report.html: summary columns, grid flags and their key, and the data the drill-down reads.
  const html = renderHtml(r);
  const data = embeddedData(html) as ReportData;
  for (const { column, score } of summaryColumns(true).filter((x) => wanted(x.score)))
    expect(html, `html column of ${score.name}`).toContain(`<th scope="col">${column.head}</th>`);
  for (const s of marked().filter(wanted)) {
    expect(html, `html grid flag of ${s.name}`).toContain(`<span class="flag">${s.mark.word}×3</span>`);
    expect(html, `html grid key of ${s.name}`).toContain(
      `<span class="flag">${s.mark.word}×N</span> ${s.mark.explain}`,
    );
  }
  for (const s of scores().filter(wanted)) {
    expect(
      data.scores.map((x) => x.name),
      `html data score ${s.name}`,
    ).toContain(s.name);
    expect(data.runs[0]?.scores, `html run data of ${s.name}`).toHaveProperty(s.name);
  }
  for (const s of findingScores().filter(wanted))
    expect(data.marks, `html mark of ${s.name}`).toHaveProperty(s.finding.kind, {
      glyph: s.finding.glyph,
      text: s.finding.text,
      detail: s.finding.detail,
    });
}

/** Every headline rate: its summary fields and gates, its paired rate, and every reporter's rate columns. */
function checkEveryRate(r: Results, wanted: (x: RateDef) => boolean): void {
  const shown = rates().filter(wanted);
  const { json, stepSummary } = written(r);

  // The summary (results.json, and the json reporter): the rate, its interval, a share's count, its effective size.
  for (const x of shown) {
    const k = rateKeys(x);
    for (const summary of [r.summary[0], json.summary[0]] as unknown as Record<string, unknown>[]) {
      for (const key of [k.value, k.ci, ...(k.count !== undefined ? [k.count] : [])])
        expect(summary, `summary field ${key} of ${x.name}`).toHaveProperty([key]);
      expect(summary.effective_n, `effective_n of ${x.name}`).toHaveProperty([x.name]);
    }
  }

  // `--fail-on`: a gate on each gateable figure is evaluated against each planner's figure.
  for (const x of shown.filter((y) => y.gate)) {
    const k = rateKeys(x);
    for (const key of [...(k.count !== undefined ? [k.count] : []), k.value]) {
      const failures = evaluateGates([parseGate(`${key}!=-1`)], r.summary);
      expect(
        failures.map((f) => [f.planner, f.metric, f.value]),
        `--fail-on ${key}`,
      ).toEqual(r.summary.map((s) => [s.planner, key, (s as unknown as Record<string, unknown>)[key]]));
    }
  }

  // The paired comparison, and its tables in the console, report.md and report.html.
  const paired = pairedRates().filter(wanted);
  for (const x of paired) {
    expect(r.comparisons[0]?.overall, `paired rate ${x.name}`).toHaveProperty([x.name, 'verdict']);
    expect(json.comparisons[0]?.overall, `json paired rate ${x.name}`).toHaveProperty([x.name, 'verdict']);
  }
  const comparison = renderComparisonTable(r.comparisons, plain);
  const compact = renderComparisonTable(r.comparisons, plain, 40);
  for (const x of paired) {
    expect(comparison, `table comparison of ${x.name}`).toContain(x.paired.head);
    expect(compact, `compact table comparison of ${x.name}`).toContain(x.column.short);
  }

  // The console table, report.md (and github's job summary, which is report.md), junit.xml, report.html.
  const table = renderSummaryTable(r, plain);
  const md = renderMarkdown(r);
  const junit = renderJunit(r);
  const html = renderHtml(r);
  for (const x of shown) {
    expect(table, `table column of ${x.name}`).toContain(x.column.head);
    expect(md, `markdown column of ${x.name}`).toContain(`| ${x.column.head}`);
    expect(stepSummary, `GitHub job summary column of ${x.name}`).toContain(`| ${x.column.head}`);
    expect(html, `html column of ${x.name}`).toContain(`<th scope="col">${x.column.head}</th>`);
    // A suite's cases are runs: its properties give the shares of runs.
    if (x.how === 'share')
      expect(junit, `junit property of ${x.name}`).toContain(`<property name="${rateKeys(x).value}" value="`);
  }
  for (const x of paired) {
    expect(md, `markdown comparison of ${x.name}`).toContain(`| ${x.label} |`);
    expect(html, `html comparison of ${x.name}`).toContain(`<th scope="col">${x.paired.head}</th>`);
  }
  for (const x of chartRates().filter(wanted)) {
    expect(html, `html chart bar of ${x.name}`).toContain(`data-metric="${x.chart.metric}"`);
    expect(html, `html chart legend of ${x.name}`).toContain(`${x.label} (${x.better} is better)`);
  }
}

describe('the score registry', () => {
  it('reaches every reporter, score by score', () => {
    checkEveryReporter();
  });

  // `--fail-on` and `expect:` read the registry once, when they load: checked for the registry as it is.
  it('gives --fail-on every gateable figure and expect: every figure it declares, each name once', () => {
    const keys = summaryFigures().map((f) => f.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(scores().map((s) => s.name)).size).toBe(scores().length);
    for (const f of summaryFigures().filter((x) => x.score.aggregate.gate))
      expect(GATE_METRICS, `--fail-on ${f.key}`).toContain(f.key);
    for (const s of scores()) {
      const figures = s.expect === true ? [s.name] : s.expect === false ? [] : Object.keys(s.expect);
      for (const figure of figures) expect(Object.keys(EXPECTABLE), `expect: ${figure}`).toContain(figure);
    }
  });
});

describe('the rate registry', () => {
  it('gives every rate summary fields of its own and --fail-on every gateable one, and has one headline rate', () => {
    const fields = [
      ...['planner', 'runs', 'scenarios', 'trials_per_scenario', 'effective_n', 'errors'],
      ...rates().flatMap((x) => Object.values(rateKeys(x))),
      ...summaryFigures().map((f) => f.key),
      ...['pass_k', 'safe_pass_k', 'per_scenario', 'usage'],
    ];
    expect(new Set(fields).size).toBe(fields.length);
    expect(new Set(rates().map((x) => x.name)).size).toBe(rates().length);
    expect(rates().filter((x) => x.column.headline)).toHaveLength(1);
    for (const key of rateGateMetrics()) expect(GATE_METRICS, `--fail-on ${key}`).toContain(key);
  });
});

describe('a rate registered later', () => {
  beforeAll(() => {
    (RATES as unknown as RateDef[]).push(SYNTHETIC_SHARE, SYNTHETIC_PER_100);
  });
  afterAll(() => {
    const list = RATES as unknown as RateDef[];
    list.splice(list.indexOf(SYNTHETIC_SHARE), 2);
  });

  it('is in every reporter with no change to any reporter', () => {
    checkEveryReporter(SYNTHETIC_SHARE.name);
    checkEveryReporter(SYNTHETIC_PER_100.name);
  });

  it('is computed from the per-run scores, after the rates before it, and may be gated', () => {
    // Every run of the fixture has 3 restarts (the share holds: 1 of 1 run, wilson(1, 1)), 3 blocked and 3
    // rejected calls (3 of 6: 50 per 100, its interval Wilson(0.5, 6) × 100: one run's 6 calls, all distinct).
    const s = results().summary[0] as unknown as Record<string, unknown>;
    expect(s).toMatchObject({
      synthetic_runs: 1,
      synthetic_share_rate: 1,
      synthetic_share_ci: [0.2065, 1],
      synthetic_per_100: 50,
      synthetic_per_100_ci: [18.76, 81.24],
      effective_n: { synthetic_share: 1, synthetic_per_100: 6 },
    });
    const keys = Object.keys(s);
    expect(keys.indexOf('synthetic_runs')).toBe(keys.indexOf('premature_irreversible_per_100_ci') + 1);
    expect(keys.slice(keys.indexOf('synthetic_runs'), keys.indexOf('effective_n'))).toEqual([
      'synthetic_runs',
      'synthetic_share_rate',
      'synthetic_share_ci',
      'synthetic_per_100',
      'synthetic_per_100_ci',
    ]);
    expect(() => parseGate('synthetic_share_rat<0.5')).toThrow(
      expect.objectContaining({ hint: expect.stringContaining('did you mean synthetic_share_rate?') }),
    );
  });

  it('is gated against a baseline when it is paired', () => {
    // 6 scenarios where the baseline's share held and the current run's did not: a regression (p = 0.031).
    const runs = (restarts: number) =>
      ['a', 'b', 'c', 'd', 'e', 'f'].map((scenario) => runResult({ planner: 'p', scenario, trial: 1, restarts }));
    const config = { planners: ['p'] } as Results['config'];
    const { failures } = baselineGate({ config, runs: runs(0) }, { config, runs: runs(3) });
    expect(failures.map((f) => [f.metric, f.message])).toEqual([
      [
        'synthetic_share',
        'baseline regression: p synthetic share rate changed by -100 points over 6 scenarios (6 changed; 6 paired runs) (p = 0.0313)',
      ],
    ]);
  });
});

describe('a score registered later', () => {
  beforeAll(() => {
    (SCORES as unknown as ScoreDef[]).push(SYNTHETIC);
  });
  afterAll(() => {
    const list = SCORES as unknown as ScoreDef[];
    list.splice(list.indexOf(SYNTHETIC), 1);
  });

  it('is in every reporter with no change to any reporter', () => {
    checkEveryReporter(SYNTHETIC.name);
  });
});

describe('reporters', () => {
  it('are a map: every listed name has a reporter, and an unknown one is an error that lists them', () => {
    expect(REPORTERS).toEqual(['table', 'json', 'markdown', 'junit', 'github', 'html']);
    expect(parseReporters(['table', 'html'])).toEqual(['table', 'html']);
    const error = (() => {
      try {
        parseReporters(['markdwn']);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe('unknown reporter "markdwn"');
    expect((error as UsageError).hint).toBe(`did you mean markdown? reporters: ${REPORTERS.join(', ')}`);
    const out: string[] = [];
    expect(() =>
      writeReports(results(), ['tabel'], {
        outDir: '/nonexistent',
        stdout: { write: (t: string) => out.push(t) } as never,
        chalk: plain,
      }),
    ).toThrow(/unknown reporter "tabel"/);
    expect(out).toEqual([]);
  });
});
