/**
 * During an evaluation V8's heap may grow 30% past what is live (harness/util/heap.ts), but V8 only
 * applies that at its next full collection: until then the limit left from before can be 4× what
 * was live. So once the old generation has grown 30% (and 8 MiB) past where it started, a full
 * collection is run: one that V8, left to itself, would run much later.
 */
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { tightHeapGrowth } from '../../harness/util/heap.ts';

const oldGeneration = () =>
  getHeapSpaceStatistics().reduce((sum, s) => (s.space_name.startsWith('new_') ? sum : sum + s.space_used_size), 0);

/** Full collections seen from now on. */
function majorCollections(): { count: () => number; stop: () => void } {
  let n = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) n++;
  });
  observer.observe({ entryTypes: ['gc'] });
  return { count: () => n, stop: () => observer.disconnect() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** About 3 MiB of live strings. */
const megabytes = (_?: unknown, n = 0) => Array.from({ length: 16 * 1024 }, (__, i) => `${n}:${i}`.padEnd(48, '.'));

/** A full collection (gc() from --expose-gc, switched on here as `oneway bench` does). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('heap growth during an evaluation', () => {
  it('collects once the old generation has grown 30% (and 8 MiB) past where it started, not where V8 would', async () => {
    // What an evaluation starts with (~30 MiB live: scenarios, planners, the engine), and V8's next full
    // collection at 4× that, as after loading them with its own factor.
    const live = Array.from({ length: 10 }, megabytes);
    setFlagsFromString('--heap-growing-percent=300');
    collector()();
    const start = oldGeneration();
    const limit = start * 1.3 + 8 * 2 ** 20;
    const release = tightHeapGrowth();
    const majors = majorCollections();
    const kept: string[][] = [];
    try {
      // The old generation grows 3 MiB at a time, the event loop turning in between (as between runs),
      // until well past the limit: 24 MiB more, while V8 alone would wait for 4× the start.
      while (majors.count() === 0 && oldGeneration() < limit + 24 * 2 ** 20) {
        kept.push(megabytes());
        await sleep(10);
      }
      expect(majors.count(), `old generation ${oldGeneration() >> 20} MiB, from ${start >> 20}`).toBeGreaterThan(0);
      expect(live.length + kept.length).toBeGreaterThan(10);
    } finally {
      majors.stop();
      release();
    }
  });
});
