import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { withThreadCpu } from '../../harness/features/bench/threads.ts';

// A thread that does a fixed amount of work (not a fixed time): its CPU time is the same under load.
const spin = `
let x = 0;
for (let i = 0; i < 1e8; i++) x = (x + i * 7) % 1000003;
require('node:worker_threads').parentPort.postMessage(x);
`;

describe.runIf(existsSync('/proc/self/task'))('CPU time by thread (the --workers bench case)', () => {
  it('counts a thread started during the work as started, not as the main thread or the background', async () => {
    const { value, cpu } = await withThreadCpu(
      () =>
        new Promise<number>((resolve, reject) => {
          const w = new Worker(spin, { eval: true });
          w.once('message', resolve);
          w.once('error', reject);
        }),
    );
    expect(typeof value).toBe('number');
    // 1e8 iterations take well over 0.1 CPU-s on any machine this runs on (about 0.5 s on CI's); the main thread only waited.
    expect(cpu.started_s).toBeGreaterThan(0.1);
    expect(cpu.main_s).toBeLessThan(cpu.started_s as number);
    expect(cpu.background_s).not.toBeNull();
    // The main thread's event loop waited for the worker's message all along.
    expect(cpu.main_idle_s).toBeGreaterThan(0.05);
    // The process's CPU time counts the worker's, though the worker has ended (its thread is gone from the listing).
    expect(cpu.process_s).toBeGreaterThanOrEqual((cpu.started_s as number) - 0.05);
  });

  it('counts work on the main thread as the main thread', async () => {
    const { cpu } = await withThreadCpu(async () => {
      let x = 0;
      for (let i = 0; i < 1e8; i++) x = (x + i * 7) % 1000003;
      return x;
    });
    expect(cpu.main_s).toBeGreaterThan(0.1);
    expect(cpu.started_s).toBeLessThan(cpu.main_s as number);
    // Busy the whole time: its event loop never waited while the loop ran.
    expect(cpu.main_idle_s).toBeLessThan((cpu.main_s as number) / 2);
  });
});
