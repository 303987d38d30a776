/**
 * `eval` without `--workers`: which evaluations go to worker threads (autoWorkers), that a planner
 * file's own `cpuBound` reaches the decision through its sealed loading thread, and the CLI's
 * choice end to end: a long evaluation (the compiled CLI in a process of its own) says it goes to
 * worker threads, runs there, and is stopped by Ctrl-C once a run finished, so its thousands of runs
 * are not all done (that an evaluation on worker threads completes with the runs of a serial one is
 * test/cli/compare.test.ts's).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import type { PlannerHandle } from '../../harness/engine/runner/run.ts';
import {
  AUTO_WORKERS_MAX,
  AUTO_WORKERS_MIN_RUNS,
  autoWorkers,
  workerCapable,
} from '../../harness/engine/runner/workers.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cli } from '../helpers/compiled.ts';
import { readResults } from '../helpers/results.ts';

let eager: PlannerHandle;
let gated: PlannerHandle;
let openai: PlannerHandle;
let fileCpu: PlannerHandle;
let fileWaits: PlannerHandle;

beforeAll(async () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'cpu.mjs'),
    "export default { name: 'cpu', cpuBound: true, create: () => ({ name: 'cpu', next: () => ({ type: 'finish' }) }) };\n",
  );
  // A truthy value that is not `true` does not count: the field is a promise the planner makes.
  writeFileSync(
    join(dir, 'waits.mjs'),
    "export default { name: 'waits', cpuBound: 'yes', create: () => ({ name: 'waits', next: () => ({ type: 'finish' }) }) };\n",
  );
  [eager, gated, openai, fileCpu, fileWaits] = await Promise.all([
    loadPlanner('eager', process.cwd()),
    loadPlanner('gated', process.cwd()),
    loadPlanner('openai', process.cwd()),
    loadPlanner(join(dir, 'cpu.mjs'), dir),
    loadPlanner(join(dir, 'waits.mjs'), dir),
  ]);
});

describe('autoWorkers', () => {
  const long = AUTO_WORKERS_MIN_RUNS;

  it('the built-ins that only compute say so; the LLM planners do not', () => {
    expect([eager.cpuBound, gated.cpuBound, openai.cpuBound]).toEqual([true, true, undefined]);
  });

  it('a planner file says so through its loading thread, and only with `true`', () => {
    expect(fileCpu.cpuBound).toBe(true);
    expect(fileWaits.cpuBound).toBeUndefined();
    expect(workerCapable({ planners: [fileCpu, eager] })).toBe(true);
  });

  it('spreads a long evaluation of CPU-bound planners over one worker per core, up to the maximum', () => {
    const planners = [eager, gated];
    expect(autoWorkers({ runs: long, planners, concurrency: 1, cores: 2 })).toBe(2);
    expect(autoWorkers({ runs: long, planners, concurrency: 1, cores: 3 })).toBe(3);
    expect(autoWorkers({ runs: 10 * long, planners, concurrency: 1, cores: 64 })).toBe(AUTO_WORKERS_MAX);
    expect(autoWorkers({ runs: long, planners: [fileCpu], concurrency: 1, cores: 2 })).toBe(2);
  });

  it('keeps everything else on this thread', () => {
    const planners = [eager, gated];
    // Too short to pay for the workers' start.
    expect(autoWorkers({ runs: long - 1, planners, concurrency: 1, cores: 8 })).toBe(1);
    // One core.
    expect(autoWorkers({ runs: long, planners, concurrency: 1, cores: 1 })).toBe(1);
    // --concurrency above 1: the planners wait on something.
    expect(autoWorkers({ runs: long, planners, concurrency: 2, cores: 8 })).toBe(1);
    // One planner that does not say it only computes is enough.
    expect(autoWorkers({ runs: long, planners: [eager, openai], concurrency: 1, cores: 8 })).toBe(1);
    expect(autoWorkers({ runs: long, planners: [eager, fileWaits], concurrency: 1, cores: 8 })).toBe(1);
    // A planner not loaded from a file (an API user's object) cannot be loaded in a worker.
    const inline: PlannerHandle = { name: 'inline', cpuBound: true, create: () => eager.create({} as never) };
    expect(autoWorkers({ runs: long, planners: [eager, inline], concurrency: 1, cores: 8 })).toBe(1);
    expect(autoWorkers({ runs: long, planners: [], concurrency: 1, cores: 8 })).toBe(1);
  });
});

describe('eval without --workers', () => {
  const args = (out: string, extra: string[] = []) => [
    '--planner=eager,gated',
    '--scenario=invoice-and-notify',
    '--transport=inprocess',
    '--reporter=json',
    `--out=${out}`,
    ...extra,
  ];
  const trials = String(AUTO_WORKERS_MIN_RUNS / 2);

  it(`goes to worker threads from ${AUTO_WORKERS_MIN_RUNS} runs (on two cores or more), says so, and runs there`, async () => {
    const out = tempDir();
    const child = spawn(process.execPath, [cli('eval'), ...args(out, [`--trials=${trials}`])], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    child.stdout.resume();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    // Ctrl-C once results.json holds a finished run: the runs in flight finish, the rest never start.
    const code = await new Promise<number | null>((resolve) => {
      let sent = false;
      const poll = setInterval(() => {
        try {
          if (!sent && readResults(out).runs.length > 0) {
            sent = true;
            child.kill('SIGINT');
          }
        } catch {
          /* no checkpoint yet */
        }
      }, 20);
      child.on('close', (c) => {
        clearInterval(poll);
        resolve(c);
      });
    });
    expect(code, stderr).toBe(130);
    const results = readResults(out);
    expect(results.interrupted).toBe(true);
    expect(results.runs.length).toBeGreaterThan(0);
    expect(results.runs.length).toBeLessThan(AUTO_WORKERS_MIN_RUNS);
    const n = Math.min(availableParallelism(), AUTO_WORKERS_MAX);
    if (n > 1)
      expect(stderr).toContain(
        `${AUTO_WORKERS_MIN_RUNS} runs of planners that only compute: on ${n} threads, this one included`,
      );
    else expect(stderr).not.toContain('threads, this one included');
  }, 120_000);

  it('stays on this thread below that, --workers left out or auto', async () => {
    const short = await runCli(main, args(tempDir(), ['--trials=3']));
    expect(short.code).toBe(0);
    expect(short.stderr).not.toContain('threads, this one included');
    const auto = await runCli(main, args(tempDir(), ['--trials=3', '--workers=auto']));
    expect(auto.code).toBe(0);
    expect(auto.stderr).not.toContain('threads, this one included');
  });

  it('refuses a --workers that is neither a count nor auto', async () => {
    const r = await runCli(main, args(tempDir(), ['--workers=some']));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--workers must be an integer >= 1, got "some"');
  });
});
