/**
 * What two threads can gain on this machine at all: the same fixed work in one worker thread and
 * in two at once, for plain arithmetic and for allocation-heavy JavaScript (objects made and
 * dropped, as an evaluation's runs do). On the 2-core machine the bench was built on, arithmetic
 * scaled 1.99× and allocation 1.23×: the collectors of two isolates share the machine's memory
 * and V8's background threads, so `--workers=2` (allocation-heavy) is bounded near the second
 * figure, whatever the harness does. The bench reports both beside its workers rows.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

/** Fixed work, not fixed time: the same in every thread. */
const KERNELS = {
  arithmetic: `
let x = 0;
const a = new Float64Array(1 << 16);
for (let i = 0; i < 1e8; i++) { x = (x + i * 7) % 1000003; a[i & 65535] += x; }
require('node:worker_threads').parentPort.postMessage(x);
`,
  allocation: `
let keep = [];
for (let i = 0; i < 6e6; i++) { keep.push({ i, s: 'k' + i, a: [i, i + 1] }); if (keep.length > 5e4) keep = []; }
require('node:worker_threads').parentPort.postMessage(keep.length);
`,
} as const;

export interface Scaling {
  /** 2 × (one thread's wall) ÷ (two threads' wall), the median of `rounds`: 2 is perfect. */
  arithmetic: number;
  allocation: number;
}

function inThreads(code: string, n: number): Promise<number> {
  const t0 = performance.now();
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(code, { eval: true });
          w.once('message', () => resolve());
          w.once('error', reject);
        }),
    ),
  ).then(() => performance.now() - t0);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

/** Two threads against one, each kernel `rounds` times in alternation (other load moves both alike). */
export async function parallelScaling(rounds = 3): Promise<Scaling> {
  const out = {} as Scaling;
  for (const [name, code] of Object.entries(KERNELS) as [keyof Scaling, string][]) {
    const ratios: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const one = await inThreads(code, 1);
      const two = await inThreads(code, 2);
      ratios.push((2 * one) / two);
    }
    out[name] = Math.round(median(ratios) * 100) / 100;
  }
  return out;
}
