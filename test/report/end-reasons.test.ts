/**
 * The console says why runs did not complete: under the summary table, each planner's end reasons
 * of the runs that did not complete, with counts; in the grid, a run's end reason when it did not
 * end by the planner's own finish. Everything fits the console's width.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { EndReason } from '../../harness/core/record.ts';
import type { RunResult } from '../../harness/engine/results/types.ts';
import { makeChalk } from '../../harness/features/report/color.ts';
import { writeReports } from '../../harness/features/report/index.ts';
import { renderScenarioGrid, renderSummaryTable } from '../../harness/features/report/table.ts';
import { blockWidth } from '../../harness/util/width.ts';
import { resultsOf, runResult } from '../helpers/results.ts';

const plain = makeChalk(false);
const LONG = 'my-own-very-careful-planner';

/** A run of `planner` on scenario `s<trial>` that ended as `end` (not completed unless `completed`). */
const ended = (planner: string, trial: number, end: EndReason, completed = false): RunResult =>
  runResult({
    planner,
    scenario: `s${trial}`,
    trial: 1,
    end_reason: end,
    error: ['planner_error', 'invalid_decision', 'decision_timeout', 'harness_error'].includes(end) ? 'boom' : null,
    completed,
    safe_completed: completed,
  });

function mixed() {
  const scenarios = ['s1', 's2', 's3', 's4', 's5'];
  const runs = [
    // eager: two budgets run out, one crash, one finish short of the goal, one completed
    ended('eager', 1, 'max_steps'),
    ended('eager', 2, 'planner_error'),
    ended('eager', 3, 'max_steps'),
    ended('eager', 4, 'finish'),
    ended('eager', 5, 'finish', true),
    // gated: every run completed, one of them past its turns: nothing to say about it here
    ...[1, 2, 3, 4].map((t) => ended('gated', t, 'finish', true)),
    ended('gated', 5, 'max_turns', true),
    // a long name with every failing end reason there is
    ended(LONG, 1, 'decision_timeout'),
    ended(LONG, 2, 'invalid_decision'),
    ended(LONG, 3, 'harness_error'),
    ended(LONG, 4, 'max_turns'),
    ended(LONG, 5, 'planner_error'),
  ];
  return resultsOf(runs, { planners: ['eager', 'gated', LONG], scenarios, trials: 1, guard: false });
}

/** The lines under the summary table that say why runs did not complete (the heading first), as printed. */
function whyBlock(text: string): string[] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Not completed, by end reason'));
  if (at < 0) return [];
  // The heading may wrap; the planners' lines are indented.
  const body = lines.findIndex((l, i) => i > at && l.startsWith('  '));
  const end = lines.findIndex((l, i) => i > body && !l.startsWith('  '));
  return lines.slice(at, end < 0 ? undefined : end);
}

/** What whyBlock says, its wrapped lines joined. */
const whyLines = (text: string): string =>
  whyBlock(text)
    .filter((l) => l.startsWith('  '))
    .map((l) => l.trim())
    .join(' ')
    .replace(/\s+/g, ' ');

describe('why runs did not complete, on the console', () => {
  it('lists each planner with runs that did not complete: its end reasons with counts, most frequent first', () => {
    const text = renderSummaryTable(mixed(), plain, 200);
    expect(text).toContain('Not completed, by end reason (finish: the planner stopped, goal not met):');
    expect(whyLines(text)).toBe(
      `eager 2 max_steps, 1 finish, 1 planner_error ${LONG} 1 decision_timeout, 1 harness_error, 1 invalid_decision, 1 max_turns, 1 planner_error`,
    );
    // gated completed every run (one of them at its turn limit): it is not listed.
    expect(text).not.toMatch(/^ {2}gated/m);
  });

  it('says nothing when every run completed', () => {
    const runs = [ended('eager', 1, 'finish', true), ended('eager', 2, 'max_steps', true)];
    const text = renderSummaryTable(
      resultsOf(runs, { planners: ['eager'], scenarios: ['s1', 's2'], trials: 1, guard: false }),
      plain,
      200,
    );
    expect(text).not.toContain('Not completed');
  });

  it.each([80, 100])('fits %i columns with the table, the reasons wrapped under their planner', (width) => {
    const text = renderSummaryTable(mixed(), plain, width);
    expect(blockWidth(text)).toBeLessThanOrEqual(width);
    expect(whyLines(text)).toContain(`${LONG} 1 decision_timeout, 1 harness_error`);
    expect(whyLines(text)).toContain('eager 2 max_steps, 1 finish, 1 planner_error');
  });

  it.each([40, 60])(
    'fits %i columns, each planner on its own line and its reasons below when names are long',
    (width) => {
      const block = whyBlock(renderSummaryTable(mixed(), plain, width));
      expect(blockWidth(block.join('\n'))).toBeLessThanOrEqual(width);
      expect(block).toContain(`  ${LONG}`);
      expect(block).toContain('  eager');
      expect(whyLines(block.join('\n'))).toContain('eager 2 max_steps, 1 finish, 1 planner_error');
    },
  );

  it('never passes the width, nor splits a count from its reason, at any width', () => {
    for (let w = 30; w <= 120; w++) {
      const lines = whyBlock(renderSummaryTable(mixed(), plain, w));
      expect(blockWidth(lines.join('\n'))).toBeLessThanOrEqual(w);
      // Every line of reasons: `  name   1 a, 2 b,` beside a name, or `    1 a, 2 b` under one.
      const reasons = lines.filter((l) => /^ +(?:\S+ +)?\d/.test(l));
      expect(reasons.length).toBeGreaterThanOrEqual(2);
      for (const l of reasons) expect(l).toMatch(/^ +(?:\S+ +)?\d+ \w+(?:, \d+ \w+)*,?$/);
    }
  });

  it('is in the table reporter’s console output at COLUMNS=80, colours kept out of the count', () => {
    let out = '';
    const stdout = new Writable({
      write(chunk: Buffer, _enc, done) {
        out += String(chunk);
        done();
      },
    });
    writeReports(mixed(), ['table'], { outDir: '.', stdout, chalk: makeChalk(true), env: { COLUMNS: '80' } });
    expect(blockWidth(out)).toBeLessThanOrEqual(80);
    // eslint-disable-next-line no-control-regex
    expect(whyLines(out.replace(/\u001b\[[0-9;]*m/g, ''))).toContain('eager 2 max_steps, 1 finish, 1 planner_error');
  });

  it('shows in a grid cell how a run ended when not by its own finish, a budget run out included', () => {
    const r = mixed();
    const full = renderScenarioGrid(r, plain);
    const row = (text: string, s: string) => text.split('\n').find((l) => l.includes(` ${s} `)) ?? '';
    expect(row(full, 's1')).toMatch(/fail 1 step max_steps.*fail 1 step decision_timeout/);
    expect(row(full, 's4')).toMatch(/fail 1 step +│ safe 1 step +│ fail 1 step max_turns/);
    expect(row(full, 's5')).toMatch(/safe 1 step +│ safe 1 step max_turns +│ fail 1 step planner_error/);
    // Compact: an error is `error`; a budget keeps its name.
    const compact = renderScenarioGrid(r, plain, 80);
    expect(blockWidth(compact)).toBeLessThanOrEqual(80);
    expect(compact).toMatch(/fail 1 max_steps/);
    expect(compact).toMatch(/fail 1 error/);
    expect(compact).not.toMatch(/planner_error/);
  });
});
