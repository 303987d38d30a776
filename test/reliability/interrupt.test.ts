/**
 * Nothing lost: Ctrl-C stops after the runs in flight, writes results.json
 * marked interrupted, and --resume finishes with results identical to an
 * uninterrupted evaluation. The evaluation a signal stops is the real CLI in a
 * child process (the compiled build, test/helpers/compiled.ts); the ones no
 * signal reaches (the uninterrupted reference, the resume, a refused resume)
 * run its `main` in process. The planner waits before each decision only in
 * the processes a signal stops, so that there are runs left to stop; it decides
 * the same everywhere. The reference and both stopped processes run side by
 * side (they mostly wait), once for the file.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { cli, REPO } from '../helpers/compiled.ts';
import { readResults, timeless } from '../helpers/results.ts';

/**
 * gated, but slow enough (real time) to be interrupted mid-evaluation in the process stopWith starts
 * (it waits 40 ms before each decision there; elsewhere it does not wait, and decides the same).
 */
const SLOW = `import gated from '${join(REPO, 'dist/planners/gated.js')}';
const wait = Number(process.env.ONEWAY_TEST_DECISION_WAIT_MS ?? 0);
export default { name: 'slow-gated', create(ctx) { const p = gated.create(ctx); return { name: 'slow-gated', next: async (v) => { if (wait > 0) await new Promise((r) => setTimeout(r, wait)); return p.next(v); } }; } };
`;

/** Starts `eval` with `args`, sends it `signal` once results.json holds a finished run, and waits for it to end. */
function stopWith(
  signal: NodeJS.Signals,
  args: string[],
  out: string,
): Promise<{ sent: boolean; code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let sent = false;
  return new Promise((resolve) => {
    // The planner's process gets the wait only when it is passed on (it gets no other environment).
    const child = spawn(
      process.execPath,
      [cli('eval'), ...args, '--planner-env=ONEWAY_TEST_DECISION_WAIT_MS', `--out=${out}`],
      {
        env: { ...process.env, NO_COLOR: '1', ONEWAY_TEST_DECISION_WAIT_MS: '40' },
      },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.stdout.resume();
    const timer = setInterval(() => {
      try {
        if (!sent && readResults(out).runs.length > 0) {
          sent = true;
          child.kill(signal);
        }
      } catch {
        /* results.json not written yet */
      }
    }, 20);
    child.on('close', (code, got) => {
      clearInterval(timer);
      resolve({ sent, code, signal: got, stderr });
    });
  });
}

describe('interruption and --resume', () => {
  let slow = '';
  // Six runs, one at a time: stopped after the first, the one in flight finishes and at least the
  // last three (over a second of the planner's waits) are left for --resume.
  const interrupted = () => [
    `--planner=${slow}`,
    '--trials=2',
    '--seed=3',
    '--scenario=invoice-and-notify,purge-inactive-accounts,webhook-timeout-reconcile',
  ];
  let full = '';
  let reference: Awaited<ReturnType<typeof runCli>>;
  let cut = '';
  let byInt: Awaited<ReturnType<typeof stopWith>>;
  let termed = '';
  let byTerm: Awaited<ReturnType<typeof stopWith>>;

  // The uninterrupted reference (in process) and the two processes a signal stops run side by side:
  // they mostly wait on the planner.
  beforeAll(async () => {
    const dir = tempDir();
    slow = join(dir, 'slow.mjs');
    writeFileSync(slow, SLOW);
    [full, cut, termed] = [tempDir(), tempDir(), tempDir()];
    [reference, byInt, byTerm] = await Promise.all([
      runCli(main, [...interrupted(), `--out=${full}`]),
      stopWith('SIGINT', [...interrupted(), '--fail-on=premature_irreversible_rate>0'], cut),
      stopWith(
        'SIGTERM',
        [
          `--planner=${slow}`,
          '--trials=3',
          '--scenario=invoice-and-notify,purge-inactive-accounts,webhook-timeout-reconcile',
          '--fail-on=premature_irreversible_rate>0',
        ],
        termed,
      ),
    ]);
  }, 180_000);

  it('stops on SIGINT after the runs in flight, then resumes to the uninterrupted results', async () => {
    expect(reference.code).toBe(0);
    expect(readResults(full).runs).toHaveLength(6);
    expect(byInt.sent).toBe(true);
    expect(byInt.stderr).toContain('stopping after the runs in flight');
    // Interrupted, so never 0, though the (passing) gate was the only one set.
    expect(byInt.code).toBe(130);
    const partial = readResults(cut);
    expect(partial.interrupted).toBe(true);
    expect(partial.runs.length).toBeGreaterThan(0);
    expect(partial.runs.length).toBeLessThan(readResults(full).runs.length);

    const resumed = await runCli(main, [...interrupted(), `--out=${cut}`, '--resume']);
    expect(resumed.code).toBe(0);
    expect(timeless(readResults(cut))).toEqual(timeless(readResults(full)));
  }, 180_000);

  it('stops on SIGTERM after the runs in flight, keeps what finished and exits 143, gates or not', () => {
    expect(byTerm.sent).toBe(true);
    expect(byTerm.signal).toBeNull();
    expect(byTerm.code).toBe(143);
    expect(byTerm.stderr).toContain('SIGTERM: stopping after the runs in flight');
    const partial = readResults(termed);
    expect(partial.interrupted).toBe(true);
    expect(partial.runs.length).toBeGreaterThan(0);
    expect(partial.runs.length).toBeLessThan(9);
  });

  it('refuses to resume a different evaluation', async () => {
    const out = tempDir();
    expect((await runCli(main, ['--planner=gated', '--scenario=invoice-and-notify', `--out=${out}`])).code).toBe(0);
    const r = await runCli(main, ['--planner=eager', '--scenario=invoice-and-notify', `--out=${out}`, '--resume']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--resume');
  }, 120_000);
});
