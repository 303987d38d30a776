/**
 * The worker pool runs up to `inFlight` jobs at once in each worker (eval's workers keep several
 * runs in flight), answers every job it was given, and stops only once the jobs it started are
 * answered. The fixture's first jobs wait for each other, so a pool that ran fewer at once would
 * never finish: the test waits on events, never on time.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runOnWorkers, type JobMessage } from '../../harness/engine/runner/worker-pool.ts';

const entry = new URL('../fixtures/pool/barrier-worker.ts', import.meta.url);

async function pool(opts: { jobs: number; barrier: number; inFlight?: number }) {
  const answers = new Map<number, { index: number; peak: number }>();
  let next = 0;
  await runOnWorkers<{ index: number; peak: number }>({
    entry,
    data: { barrier: opts.barrier },
    workers: 1,
    ...(opts.inFlight === undefined ? {} : { inFlight: opts.inFlight }),
    next: (): JobMessage | undefined => (next < opts.jobs ? { type: 'job', index: next++ } : undefined),
    done: (index, value) => answers.set(index, value),
  });
  return answers;
}

describe('runOnWorkers: jobs in flight in a worker', () => {
  it('runs up to inFlight jobs at once, and answers all of them before the worker stops', async () => {
    const answers = await pool({ jobs: 9, barrier: 3, inFlight: 3 });
    expect([...answers.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    for (const [index, a] of answers) expect(a.index).toBe(index);
    const peaks = [...answers.values()].map((a) => a.peak);
    expect(Math.max(...peaks)).toBe(3);
  }, 60_000);

  it('runs one job at a time by default', async () => {
    const answers = await pool({ jobs: 5, barrier: 1 });
    expect(answers.size).toBe(5);
    expect([...answers.values()].map((a) => a.peak)).toEqual([1, 1, 1, 1, 1]);
  }, 60_000);
});

describe('runOnWorkers: TypeScript in a worker', () => {
  const plain = new URL('../fixtures/pool/plain-worker.mjs', import.meta.url);
  const module = fileURLToPath(new URL('../fixtures/pool/answer.ts', import.meta.url));

  async function answers(data: Record<string, unknown>, modules: string[]): Promise<string[]> {
    const got: string[] = [];
    let next = 0;
    await runOnWorkers<string>({
      entry: plain,
      data,
      modules,
      workers: 1,
      next: (): JobMessage | undefined => (next < 2 ? { type: 'job', index: next++ } : undefined),
      done: (index, value) => (got[index] = value),
    });
    return got;
  }

  it('registers tsx for a TypeScript module the pool names, from a JavaScript entry', async () => {
    expect(await answers({ module }, [module])).toEqual(['answer 0', 'answer 1']);
  }, 60_000);

  it('looks at the named modules, not into the data (which JSON cannot always hold: a BigInt)', async () => {
    // Before, worker-boot.mjs serialised the data to JSON to look for .ts paths in it: every scenario, 0.2 CPU-s a
    // worker at 8,000 runs, and a BigInt threw there.
    expect(await answers({ module, big: 1n }, [module])).toEqual(['answer 0', 'answer 1']);
  }, 60_000);
});
