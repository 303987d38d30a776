/**
 * What two threads gain on this machine with no oneway code: the same fixed work in one worker
 * thread and in two at once, for plain arithmetic and for allocation-heavy JavaScript (objects made
 * and dropped, as an evaluation's runs do), with the cores each keeps busy (process CPU time ÷
 * wall time). On the 2-core machine the bench was built on, arithmetic scaled 1.97-1.99× and
 * allocation 1.19-1.23×: one allocating thread already kept 1.2-1.4 cores busy, because V8's
 * collector works on background threads beside it, so a second thread had less than a core to
 * gain. The bench reports both beside its workers rows.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { median, round } from './stats.ts';

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
  /** Cores kept busy (the process's CPU time ÷ wall time), medians of `rounds`. */
  cores: Record<keyof typeof KERNELS, { one_thread: number; two_threads: number }>;
}

function inThreads(code: string, n: number): Promise<{ ms: number; cores: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
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
  ).then(() => {
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    return { ms, cores: (cpu.user + cpu.system) / 1000 / ms };
  });
}

/** Two threads against one, each kernel `rounds` times in alternation (other load moves both alike). */
export async function parallelScaling(rounds = 3): Promise<Scaling> {
  const out = { cores: {} } as Scaling;
  for (const [name, code] of Object.entries(KERNELS) as [keyof typeof KERNELS, string][]) {
    const ratios: number[] = [];
    const ones: number[] = [];
    const twos: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const one = await inThreads(code, 1);
      const two = await inThreads(code, 2);
      ratios.push((2 * one.ms) / two.ms);
      ones.push(one.cores);
      twos.push(two.cores);
    }
    out[name] = round(median(ratios), 2);
    out.cores[name] = { one_thread: round(median(ones), 2), two_threads: round(median(twos), 2) };
  }
  return out;
}
