/**
 * `--workers=N` runs on N threads: this one and N - 1 worker threads, taking jobs from one queue
 * (runner/workers.ts, runWorkerPool). A worker thread adds CPU this thread does not (it loads the
 * engine again and collects a heap of its own), so this thread runs jobs too. Runs done here and
 * runs done on the worker must be the runs a serial evaluation does: the same results and
 * byte-identical records. The first run here waits until a worker has finished one, so both
 * threads run jobs whatever the machine's speed (a worker from the source starts in seconds, and
 * this thread alone could otherwise finish them all first): the test waits on events, not on time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate, runJob } from '../../harness/engine/runner/evaluate.ts';
import type { EvalOptions, Job } from '../../harness/engine/runner/eval-types.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import type { PlannerHandle } from '../../harness/engine/runner/run.ts';
import { runWorkerPool } from '../../harness/engine/runner/workers.ts';
import type { RunResult } from '../../harness/engine/results/types.ts';
import { loaded, TINY } from '../loader/helpers.ts';
import { tempDir } from '../helpers/cli.ts';

let planners: PlannerHandle[];
beforeAll(async () => {
  planners = await Promise.all(['eager', 'gated'].map((p) => loadPlanner(p, process.cwd())));
});

const base = loaded(TINY).scenario;
const scenarios = [0, 1, 2, 3, 4, 5].map((i) => ({ scenario: { ...base, id: `tiny-${i}` }, file: 'tiny.yaml' }));
const options = (outDir: string): EvalOptions => ({
  scenarios,
  planners,
  trials: 2,
  seed: 7,
  outDir,
  transport: 'inprocess',
  maxTurns: 50,
  decisionTimeoutMs: 30_000,
  plannerOptions: {},
});
const timeless = ({ wall_ms: _, ...run }: RunResult) => run;

describe('--workers: this thread runs jobs beside the worker threads', () => {
  it('runs some jobs here and some on a worker, each once, and they are the serial runs, records included', async () => {
    const serialOut = tempDir();
    const serial = await evaluate(options(serialOut));
    expect(serial.runs.every((r) => r.steps > 0)).toBe(true);

    const out = tempDir();
    const opts = options(out);
    const jobs: Job[] = [];
    for (const scenario of opts.scenarios)
      for (const planner of opts.planners)
        for (let trial = 1; trial <= opts.trials; trial++) jobs.push({ index: jobs.length, scenario, planner, trial });
    const here = new Set<number>();
    let workerRan!: () => void;
    const aWorkerRan = new Promise<void>((resolve) => (workerRan = resolve));
    const stored = new Map<number, RunResult>();
    let storedTwice = 0;
    await runWorkerPool(
      jobs,
      { ...opts, onRunDone: (run) => void (here.has(indexOf(run)) || workerRan()) },
      2,
      (job, run) => {
        if (stored.has(job.index)) storedTwice++;
        stored.set(job.index, run);
      },
      async (job, o, how) => {
        here.add(job.index);
        if (here.size === 1) await aWorkerRan;
        return runJob(job, o, how);
      },
    );
    function indexOf(run: RunResult): number {
      return jobs.findIndex(
        (j) => j.scenario.scenario.id === run.scenario && j.planner.name === run.planner && j.trial === run.trial,
      );
    }

    expect(storedTwice).toBe(0);
    expect([...stored.keys()].sort((a, b) => a - b)).toEqual(jobs.map((j) => j.index));
    // Both threads ran jobs.
    expect(here.size).toBeGreaterThan(0);
    expect(here.size).toBeLessThan(jobs.length);
    const runs = jobs.map((j) => stored.get(j.index) as RunResult);
    expect(runs.map(timeless)).toEqual(serial.runs.map(timeless));
    for (const run of runs)
      expect(readFileSync(join(out, run.record), 'utf8')).toBe(readFileSync(join(serialOut, run.record), 'utf8'));
  }, 120_000);

  it('stops handing out jobs once a run here fails, and throws its error once the runs in flight end', async () => {
    const out = tempDir();
    const opts = options(out);
    const jobs: Job[] = opts.scenarios.flatMap((scenario, i) =>
      opts.planners.map((planner, p) => ({ index: 2 * i + p, scenario, planner, trial: 1 })),
    );
    let stored = 0;
    await expect(
      runWorkerPool(
        jobs,
        opts,
        2,
        () => stored++,
        async () => {
          throw new Error('disk full here');
        },
      ),
    ).rejects.toThrow('disk full here');
    // The first job here failed at once: the worker ran what it had taken, never all the rest.
    expect(stored).toBeLessThan(jobs.length);
  }, 120_000);
});
