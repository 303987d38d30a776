/**
 * Every score of the registry (harness/engine/scoring/registry.ts) reaches every place it declares:
 * summary figures, `--fail-on`, `expect:`, and each reporter's columns, marks, legends, alerts and
 * the HTML report's data. Checked twice: for the registry as it is, and with a synthetic score
 * registered by this test, which no reporter can know by name: a reporter that lists its scores
 * by hand instead of reading the registry fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../harness/core/errors.ts';
import { GATE_METRICS } from '../../harness/engine/gates/fail-on.ts';
import { makeChalk } from '../../harness/features/report/color.ts';
import { escapeProperty, renderAnnotations } from '../../harness/features/report/github.ts';
import { renderHtml } from '../../harness/features/report/html.ts';
import type { ReportData } from '../../harness/features/report/html/data.ts';
import { REPORTERS, parseReporters, writeReports } from '../../harness/features/report/index.ts';
import { renderJunit } from '../../harness/features/report/junit.ts';
import { renderMarkdown } from '../../harness/features/report/markdown.ts';
import { renderScenarioGrid, renderSummaryTable } from '../../harness/features/report/table.ts';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';
import { EXPECTABLE } from '../../harness/engine/scoring/expect.ts';
import type { ScoreFinding } from '../../harness/engine/scoring/findings.ts';
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

/** A non-zero value of every score, so that every mark and column has something to show. */
function valueOf(s: ScoreDef): ScoreValue {
  if (s.name === 'completed') return true;
  if (s.name === 'safe_completed') return false;
  if (s.name === 'premature') return { irreversible: 3, compensable: 1, reversible: 1 };
  return 3;
}

/** Two planners on one scenario, every score non-zero, a finding of every kind; the guard on (guard-only columns show). */
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
  return resultsOf(runs, { planners: ['p1', 'p2'], scenarios: ['s1'], trials: 1, guard: true });
}

/** Each check names the score it misses, so a failure says which reporter forgot which score. */
function checkEveryReporter(only?: string): void {
  const wanted = (s: ScoreDef) => only === undefined || s.name === only;
  const r = results();

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
