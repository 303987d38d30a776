/**
 * The bench's machine-scaling row (harness/features/bench/ceiling.ts): a measurement, so what is
 * tested is that both kernels run to the end in one and in two threads and give a ratio.
 */
import { describe, expect, it } from 'vitest';
import { parallelScaling } from '../../harness/features/bench/ceiling.ts';

describe('what two threads gain on this machine', () => {
  it('measures arithmetic and allocation-heavy work, one thread against two', async () => {
    const r = await parallelScaling(1);
    expect(Object.keys(r).sort()).toEqual(['allocation', 'arithmetic', 'cores']);
    // Ratios of wall and CPU times, which other load on the machine moves: only that each is one.
    for (const x of [r.arithmetic, r.allocation]) expect(Number.isFinite(x) && x > 0).toBe(true);
    for (const k of ['arithmetic', 'allocation'] as const) {
      expect(Object.keys(r.cores[k]).sort()).toEqual(['one_thread', 'two_threads']);
      for (const x of Object.values(r.cores[k])) expect(Number.isFinite(x) && x > 0).toBe(true);
    }
  }, 120_000);
});
