/**
 * CPU time by thread, for the `--workers` case: where an evaluation's CPU goes. On Linux each
 * thread's user+system time is in /proc/self/task/TID/stat; worker threads end before the pool
 * returns, so the threads are sampled while the work runs and each keeps its last reading.
 *
 * The main thread's id is the process id. Threads that existed before the work began are V8's
 * background threads (its compilers and garbage collector) and libuv's; threads that appeared
 * during it are the work's worker threads (and any libuv pool thread started lazily, which costs
 * next to nothing). Elsewhere than Linux every figure is null.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { round } from './stats.ts';

export interface ThreadCpu {
  /**
   * CPU-seconds of the whole process over the work (process.cpuUsage: every thread, those that
   * ended included; any platform). What `--workers` is measured by: unlike wall time, it hardly
   * moves with the machine's load.
   */
  process_s: number;
  /** CPU-seconds of the main thread. */
  main_s: number | null;
  /** CPU-seconds of threads started during the work (worker threads). */
  started_s: number | null;
  /** CPU-seconds of the other threads (V8's compilers and collector, libuv). */
  background_s: number | null;
  /**
   * Seconds the main thread's event loop sat idle, waiting (for files created on libuv's pool, for
   * workers' runs): any platform. Serially, time the main thread could have run runs in.
   */
  main_idle_s: number;
}

const TASKS = '/proc/self/task';
const TICKS_PER_S = 100;

function readAll(into: Map<string, number>): void {
  for (const tid of readdirSync(TASKS)) {
    try {
      const stat = readFileSync(`${TASKS}/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces): state is field 3; utime and stime are 14 and 15.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      into.set(tid, (Number(f[11]) + Number(f[12])) / TICKS_PER_S);
    } catch {
      // The thread ended between the listing and the read: its last sample stands.
    }
  }
}

/** Runs `work`, sampling every thread's CPU time every `everyMs`; returns its result and the split. */
export async function withThreadCpu<T>(work: () => Promise<T>, everyMs = 50): Promise<{ value: T; cpu: ThreadCpu }> {
  const loop = performance.eventLoopUtilization();
  const idle = () => round(performance.eventLoopUtilization(loop).idle / 1000, 2);
  const c0 = process.cpuUsage();
  const total = () => {
    const c = process.cpuUsage(c0);
    return round((c.user + c.system) / 1e6, 2);
  };
  if (!existsSync(TASKS)) {
    const value = await work();
    return {
      value,
      cpu: { process_s: total(), main_s: null, started_s: null, background_s: null, main_idle_s: idle() },
    };
  }
  const before = new Map<string, number>();
  readAll(before);
  const last = new Map(before);
  const timer = setInterval(() => readAll(last), everyMs);
  try {
    const value = await work();
    const processS = total();
    readAll(last);
    const main = String(process.pid);
    let started = 0;
    let background = 0;
    let mainS = 0;
    for (const [tid, cpu] of last) {
      const used = cpu - (before.get(tid) ?? 0);
      if (tid === main) mainS = used;
      else if (before.has(tid)) background += used;
      else started += used;
    }
    const r = (x: number) => round(x, 2);
    return {
      value,
      cpu: {
        process_s: processS,
        main_s: r(mainS),
        started_s: r(started),
        background_s: r(background),
        main_idle_s: idle(),
      },
    };
  } finally {
    clearInterval(timer);
  }
}
