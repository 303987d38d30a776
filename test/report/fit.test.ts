/**
 * Console output that fits: the tables fit the terminal's width (compact, then fewer columns, or
 * the grid split), ids are never cut, every column is there on a wide terminal; `--list` keeps
 * ids whole; a crashing planner is said on the console (its stack with --verbose) and junit.xml
 * reports its runs as errors.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { makeChalk } from '../../harness/features/report/color.ts';
import { renderJunit } from '../../harness/features/report/junit.ts';
import { renderList, type ListedScenario } from '../../harness/features/report/list.ts';
import { renderComparisonTable, renderScenarioGrid, renderSummaryTable } from '../../harness/features/report/table.ts';
import { blockWidth, outputWidth } from '../../harness/util/width.ts';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { resultsOf, runResult } from '../helpers/results.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

const plain = makeChalk(false);
const LONG_ID = 'refund-the-duplicate-payout-after-the-ledger-webhook-timed-out-twice';
const PLANNERS = ['eager', 'speculative', 'gated', 'serial', 'my-own-very-careful-planner'];

function results(): Results {
  const scenarios = [LONG_ID, 'b', 'c'];
  const runs: RunResult[] = [];
  for (const t of [1, 2])
    for (const s of scenarios)
      for (const p of PLANNERS) {
        const premature = p === 'eager' && s !== 'c' ? 1 : 0;
        runs.push(
          runResult({
            scenario: s,
            planner: p,
            trial: t,
            completed: true,
            safe_completed: premature === 0,
            steps: 3,
            depth: 2,
            sim_time_ms: 300,
            premature: { irreversible: premature, compensable: 0, reversible: 0 },
            parallel_irreversible: premature,
            unreconciled_retries: premature,
            irreversible_calls: 1,
          }),
        );
      }
  return resultsOf(runs, { planners: PLANNERS, scenarios, trials: 2, guard: true, baselinePlanner: 'eager' });
}

describe('tables that fit the terminal', () => {
  it('takes the terminal width, else COLUMNS, else 120 in CI and 100 in a pipe', () => {
    expect(outputWidth({ isTTY: true, columns: 87 }, {})).toBe(87);
    expect(outputWidth({ isTTY: false }, { COLUMNS: '140' })).toBe(140);
    expect(outputWidth({ isTTY: false }, { CI: 'true' })).toBe(120);
    expect(outputWidth(undefined, {})).toBe(100);
  });

  it.each([80, 100, 120])('fits the summary, grid and comparison into %i columns, ids whole', (width) => {
    const r = results();
    for (const text of [
      renderSummaryTable(r, plain, width),
      renderScenarioGrid(r, plain, width),
      renderComparisonTable(r.comparisons, plain, width),
    ]) {
      expect(blockWidth(text)).toBeLessThanOrEqual(width);
    }
    const grid = renderScenarioGrid(r, plain, width);
    expect(grid).toContain(LONG_ID);
    for (const p of PLANNERS) expect(grid).toContain(p);
    const summary = renderSummaryTable(r, plain, width);
    for (const p of PLANNERS) expect(summary).toContain(p);
    expect(summary).toMatch(/Compact at \d+ columns/);
  });

  it('keeps every statistics column on a wide terminal', () => {
    const text = renderSummaryTable(results(), plain, 220);
    for (const head of [
      'n (scen. × trials)',
      'completion [95% CI]',
      'premature irrev. (runs)',
      'per 100 irrev.',
      'pass^2 done / safe',
      'depth',
      'sim time',
      'blocked',
    ]) {
      expect(text).toContain(head);
    }
    expect(text).not.toContain('Compact at');
  });

  it('never cuts a scenario id in --list, even on a narrow terminal', () => {
    const item: ListedScenario = {
      id: LONG_ID,
      domain: 'payments',
      classes: { reversible: 2, compensable: 1, irreversible: 1 },
      tags: ['payments', 'ambiguous-failure'],
      traps: ['ambiguous-failure'],
      title: 'Refund a duplicate payout',
    };
    for (const width of [60, 80, 100, 160]) {
      const text = renderList([item, { ...item, id: 'short' }], plain, width);
      expect(text.split('\n').some((line) => line.includes(LONG_ID))).toBe(true);
      expect(text).toContain('Refund a duplicate payout');
    }
  });
});

describe('a crashing planner', () => {
  const setup = () => {
    const dir = tempDir('oneway-crash-');
    writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
    writeFileSync(
      join(dir, 'crashing.mjs'),
      "export default { name: 'crashing', next() { throw new TypeError('the planner fell over at turn one'); } };\n",
    );
    return dir;
  };

  it('shows its message on the console, and junit.xml reports the run as an error', async () => {
    const dir = setup();
    const out = tempDir();
    const r = await runCli(
      main,
      [
        `--scenario=${join(dir, 'email.yaml')}`,
        `--planner=${join(dir, 'crashing.mjs')},gated`,
        `--out=${out}`,
        '--reporter=table,junit',
      ],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'crashing: planner_error in email-tiny (trial 1): planner threw: TypeError: the planner fell over at turn one',
    );
    expect(r.stderr).toContain('--verbose prints the stack trace');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const xml = readFileSync(join(out, 'junit.xml'), 'utf8');
    const doc = new XMLParser({ ignoreAttributes: false }).parse(xml) as {
      testsuites: {
        '@_errors': string;
        testsuite: { '@_name': string; '@_errors': string; testcase: { error?: { '@_type': string } } }[];
      };
    };
    expect(doc.testsuites['@_errors']).toBe('1');
    const crashing = doc.testsuites.testsuite.find((s) => s['@_name'] === 'oneway.crashing');
    expect(crashing?.['@_errors']).toBe('1');
    expect(crashing?.testcase.error?.['@_type']).toBe('planner_error');
    const gated = doc.testsuites.testsuite.find((s) => s['@_name'] === 'oneway.gated');
    expect(gated?.['@_errors']).toBe('0');
  });

  it('shows its stack with --verbose', async () => {
    const dir = setup();
    const r = await runCli(
      main,
      [
        `--scenario=${join(dir, 'email.yaml')}`,
        `--planner=${join(dir, 'crashing.mjs')}`,
        `--out=${tempDir()}`,
        '--verbose',
      ],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('the planner fell over at turn one');
    expect(r.stderr).toMatch(/\n\s+at .*crashing\.mjs/);
  });

  it('counts errors in junit.xml from results alone', () => {
    const r = results();
    const crashed = {
      ...r,
      runs: r.runs.map((x, i) =>
        i === 0 ? { ...x, end_reason: 'harness_error' as const, error: 'internal error: boom' } : x,
      ),
    };
    const xml = renderJunit(crashed);
    expect(xml).toMatch(/<testsuites name="oneway" tests="15" failures="0" errors="1">/);
    expect(xml).toContain('<error type="harness_error" message="trial 1, internal error: boom">');
    const other = {
      ...r,
      runs: r.runs.map((x) =>
        x.planner === 'gated' && x.scenario === 'c'
          ? { ...x, end_reason: 'decision_timeout' as const, error: 'no decision within 1000 ms' }
          : x,
      ),
    };
    expect(renderJunit(other)).toContain(
      '<error type="decision_timeout" message="trial 1, no decision within 1000 ms">',
    );
  });
});
