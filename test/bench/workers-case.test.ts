/**
 * The bench's long workers case (harness/features/bench/cases.ts `longWorkersChild`): the README's
 * row for a long evaluation, where `eval` picks workers itself. The numbers are measurements (npm
 * run bench); what is tested is that a pass runs 100 copies of the suite on the threads it names
 * and reports what its fields say.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { longWorkersChild } from '../../harness/features/bench/cases.ts';
import { loaded, TINY } from '../loader/helpers.ts';
import { tempDir } from '../helpers/cli.ts';

describe('the bench long workers case', () => {
  const suite = [{ scenario: loaded(TINY).scenario, file: 'tiny.yaml' }];

  it('runs 100 copies of the suite × eager and gated on two workers, their CPU counted as started threads', async () => {
    const r = await longWorkersChild(suite, 2, tempDir());
    expect(r).toMatchObject({ workers: 2, runs: 200 });
    expect(r.runs_per_s).toBeGreaterThan(0);
    expect(r.peak_rss_mib).toBeGreaterThan(0);
    if (existsSync('/proc/self/task')) {
      expect(r.cpu.started_s).toBeGreaterThan(0);
      // The main thread only hands out jobs and keeps results: less than the two workers did.
      expect(r.cpu.main_s).toBeLessThan(r.cpu.started_s as number);
    }
  }, 120_000);

  it('runs the same serially, on the main thread', async () => {
    const r = await longWorkersChild(suite, 1, tempDir());
    expect(r).toMatchObject({ workers: 1, runs: 200 });
    // No worker: what started during the pass (a lazily started libuv thread, at most) did next to nothing.
    if (existsSync('/proc/self/task')) expect(r.cpu.started_s).toBeLessThan(r.cpu.main_s as number);
  }, 120_000);
});
