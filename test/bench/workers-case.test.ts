/**
 * The bench's long workers case (harness/features/bench/cases.ts `longWorkersChild`): the README's
 * row for a long evaluation, where `eval` picks workers itself, a ratio of a pass on two workers
 * to a serial one. The numbers are measurements (`npm run bench`, 100 copies of the suite); what is
 * tested, with 5 copies, is that both passes run every copy × eager and gated, and the same runs:
 * the same results and byte-identical records, so the ratio compares the same work. The case runs
 * from the compiled build, in a process of its own (test/helpers/compiled.ts): its worker threads
 * load the engine's JavaScript, where threads started from the source would each compile the
 * engine through tsx.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loaded, TINY } from '../loader/helpers.ts';
import { tempDir } from '../helpers/cli.ts';
import { REPO, runNode } from '../helpers/compiled.ts';
import type { LongWorkersPass } from '../../harness/features/bench/cases.ts';
import { readResults, timeless } from '../helpers/results.ts';

describe('the bench long workers case', () => {
  const suite = [{ scenario: loaded(TINY).scenario, file: 'tiny.yaml' }];

  it('runs the copies of the suite × eager and gated serially and on two workers: the same runs, the same records', async () => {
    const out = tempDir();
    const script = join(out, 'passes.mjs');
    writeFileSync(
      script,
      `import { longWorkersChild } from ${JSON.stringify(join(REPO, 'dist/harness/features/bench/cases.js'))};
const [suite, out] = [${JSON.stringify(suite)}, ${JSON.stringify(out)}];
const serial = await longWorkersChild(suite, 1, out, 5);
const two = await longWorkersChild(suite, 2, out, 5);
process.stdout.write(JSON.stringify({ serial, two }));
`,
    );
    const r = await runNode([script]);
    expect(r.code, r.stderr).toBe(0);
    const { serial, two } = JSON.parse(r.stdout) as { serial: LongWorkersPass; two: LongWorkersPass };
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
