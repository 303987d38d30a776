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

/** Fixed work, not fixed time: `n` steps, the same in every thread; each thread posts its answer. */
export const KERNELS = {
  arithmetic: (n: number) => `
let x = 0;
const a = new Float64Array(1 << 16);
for (let i = 0; i < ${n}; i++) { x = (x + i * 7) % 1000003; a[i & 65535] += x; }
require('node:worker_threads').parentPort.postMessage(x);
`,
  allocation: (n: number) => `
let keep = [];
for (let i = 0; i < ${n}; i++) { keep.push({ i, s: 'k' + i, a: [i, i + 1] }); if (keep.length > 5e4) keep = []; }
require('node:worker_threads').parentPort.postMessage(keep.length);
`,
} as const;

type Kernel = keyof typeof KERNELS;

/** The work the bench measures, per kernel. */
const SIZES: Record<Kernel, number> = { arithmetic: 1e8, allocation: 6e6 };

export interface Scaling {
  /** 2 × (one thread's wall) ÷ (two threads' wall), the median of `rounds`: 2 is perfect. */
  arithmetic: number;
  allocation: number;
  /** Cores kept busy (the process's CPU time ÷ wall time), medians of `rounds`. */
  cores: Record<Kernel, { one_thread: number; two_threads: number }>;
}

/** One pass: the kernel in `n` threads at once; its wall time, the cores it kept busy, and each thread's answer. */
export interface ThreadsPass {
  ms: number;
  cores: number;
  answers: unknown[];
}

/** Runs `code` in `n` worker threads at once and waits for each one's answer. */
export function inThreads(code: string, n: number): Promise<ThreadsPass> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<unknown>((resolve, reject) => {
          const w = new Worker(code, { eval: true });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    ),
  ).then((answers) => {
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    return { ms, cores: (cpu.user + cpu.system) / 1000 / ms, answers };
  });
}

/**
 * One kernel's row from its rounds (one thread, then two): the median ratio and the median cores
 * busy. Every thread of every pass must have given the same answer: a ratio of passes that did
 * different work would measure nothing, so that is an error.
 */
export function scalingOf(rounds: readonly { one: ThreadsPass; two: ThreadsPass }[]): {
  ratio: number;
  cores: { one_thread: number; two_threads: number };
} {
  const answers = rounds.flatMap((r) => [...r.one.answers, ...r.two.answers]);
  if (rounds.some((r) => r.one.answers.length !== 1 || r.two.answers.length !== 2))
    throw new Error('a round is one thread, then two');
  if (answers.some((a) => a !== answers[0]))
    throw new Error(`the threads did different work (answers ${[...new Set(answers)].join(', ')})`);
  return {
    ratio: round(median(rounds.map((r) => (2 * r.one.ms) / r.two.ms)), 2),
    cores: {
      one_thread: round(median(rounds.map((r) => r.one.cores)), 2),
      two_threads: round(median(rounds.map((r) => r.two.cores)), 2),
    },
  };
}

/**
 * Two threads against one, each kernel `rounds` times in alternation (other load moves both
 * alike); `sizes` is the work per thread (the bench's by default).
 */
export async function parallelScaling(rounds = 3, sizes: Record<Kernel, number> = SIZES): Promise<Scaling> {
  const out = { cores: {} } as Scaling;
  for (const name of Object.keys(KERNELS) as Kernel[]) {
    const code = KERNELS[name](sizes[name]);
    const passes: { one: ThreadsPass; two: ThreadsPass }[] = [];
    for (let i = 0; i < rounds; i++) passes.push({ one: await inThreads(code, 1), two: await inThreads(code, 2) });
    const row = scalingOf(passes);
    out[name] = row.ratio;
    out.cores[name] = row.cores;
  }
  return out;
}
