/**
 * The bench's long workers case (harness/features/bench/cases.ts `longWorkersChild`): the README's
 * row for a long evaluation, where `eval` picks workers itself, a ratio of a pass on two workers
 * to a serial one. The numbers are measurements (`npm run bench`, 100 copies of the suite); what is
 * tested, with 5 copies, is that both passes run every copy × eager and gated, and the same runs:
 * the same results and byte-identical records, so the ratio compares the same work.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { longWorkersChild } from '../../harness/features/bench/cases.ts';
import { loaded, TINY } from '../loader/helpers.ts';
import { tempDir } from '../helpers/cli.ts';
import { readResults, timeless } from '../helpers/results.ts';

describe('the bench long workers case', () => {
  const suite = [{ scenario: loaded(TINY).scenario, file: 'tiny.yaml' }];

  it('runs the copies of the suite × eager and gated serially and on two workers: the same runs, the same records', async () => {
    const out = tempDir();
    const serial = await longWorkersChild(suite, 1, out, 5);
    const two = await longWorkersChild(suite, 2, out, 5);
    expect(serial).toMatchObject({ workers: 1, runs: 10 });
    expect(two).toMatchObject({ workers: 2, runs: 10 });
    for (const pass of [serial, two]) expect(pass.peak_rss_mib).toBeGreaterThan(0);

    const [a, b] = [readResults(join(out, 'w1')), readResults(join(out, 'w2'))];
    expect(a.runs.map((r) => `${r.scenario} ${r.planner}`).sort()).toEqual(
      [0, 1, 2, 3, 4].flatMap((i) => [`tiny-x${i} eager`, `tiny-x${i} gated`]).sort(),
    );
    // Something happened in each run (the planners called tools), so equal records say something.
    expect(a.runs.every((r) => r.steps > 0)).toBe(true);
    expect(timeless(b)).toEqual(timeless(a));
    for (const run of a.runs)
      expect(readFileSync(join(out, 'w2', run.record), 'utf8')).toBe(readFileSync(join(out, 'w1', run.record), 'utf8'));
  }, 120_000);
});
