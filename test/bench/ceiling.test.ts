/**
 * The bench's machine-scaling row (harness/features/bench/ceiling.ts). Its ratios are measurements
 * (`npm run bench`), which other load on the machine moves, so nothing here bounds a time: what is
 * tested is that a ratio compares the same work (every thread computes the kernel's whole answer)
 * and that the row's arithmetic is what its doc says, on passes built by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  inThreads,
  KERNELS,
  parallelScaling,
  scalingOf,
  type ThreadsPass,
} from '../../harness/features/bench/ceiling.ts';

/** The arithmetic kernel's answer after `n` steps, computed here. */
function arithmetic(n: number): number {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x + i * 7) % 1000003;
  return x;
}

const pass = (ms: number, cores: number, answers: unknown[]): ThreadsPass => ({ ms, cores, answers });

describe('what two threads gain on this machine', () => {
  it('gives each of two threads the same whole kernel as one thread: the ratio compares the same work', async () => {
    const code = KERNELS.arithmetic(12_345);
    const one = await inThreads(code, 1);
    const two = await inThreads(code, 2);
    expect(one.answers).toEqual([arithmetic(12_345)]);
    expect(two.answers).toEqual([arithmetic(12_345), arithmetic(12_345)]);
    // The allocation kernel keeps what it made since it last dropped everything (every 50,001 objects).
    expect((await inThreads(KERNELS.allocation(50_001 + 7), 2)).answers).toEqual([7, 7]);
  });

  it("is 2 × one thread's wall ÷ two threads' wall, and the cores busy, each the median of the rounds", () => {
    const row = scalingOf([
      { one: pass(100, 1, [5]), two: pass(60, 1.9, [5, 5]) }, // 3.33
      { one: pass(120, 1.2, [5]), two: pass(50, 2, [5, 5]) }, // 4.8
      { one: pass(80, 0.9, [5]), two: pass(80, 1.5, [5, 5]) }, // 2
    ]);
    expect(row).toEqual({ ratio: 3.33, cores: { one_thread: 1, two_threads: 1.9 } });
  });

  it('refuses rounds whose threads did different work, or a round that is not one thread then two', () => {
    expect(() => scalingOf([{ one: pass(100, 1, [5]), two: pass(60, 2, [5, 4]) }])).toThrow(
      'the threads did different work (answers 5, 4)',
    );
    expect(() => scalingOf([{ one: pass(100, 1, [5]), two: pass(60, 2, [5]) }])).toThrow('one thread, then two');
  });

  it('measures both kernels, one thread against two (small sizes here; the bench runs the large ones)', async () => {
    const r = await parallelScaling(1, { arithmetic: 1000, allocation: 1000 });
    expect(Object.keys(r).sort()).toEqual(['allocation', 'arithmetic', 'cores']);
    expect(Object.keys(r.cores).sort()).toEqual(['allocation', 'arithmetic']);
    for (const k of ['arithmetic', 'allocation'] as const) {
      expect(Object.keys(r.cores[k]).sort()).toEqual(['one_thread', 'two_threads']);
      expect(r[k]).toBeGreaterThan(0);
    }
  });
});
