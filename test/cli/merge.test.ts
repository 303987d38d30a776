import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as mergeMain } from '../../harness/cli/merge.ts';
import { LOCK_FILE, lockOutDir } from '../../harness/engine/results/lock.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

/**
 * `oneway merge` goes through the evaluation pipeline's last steps (harness/features/pipeline/merge.ts):
 * the --out lock an evaluation takes, and the line-up checks, gates and baseline as `oneway eval`
 * has them. (Merging itself: shards in test/cli/compare.test.ts, serve sessions in
 * test/mcp/merge.test.ts, lint findings in test/cli/lint-gate.test.ts.)
 */

/** Two evaluations to merge, of eager and of gated on the same scenario and seed; made once. */
let parts: Promise<string[]> | undefined;
const evaluated = () =>
  (parts ??= Promise.all(
    ['eager', 'gated'].map(async (planner) => {
      const out = tempDir();
      const r = await runCli(evalMain, [
        `--planner=${planner}`,
        '--scenario=invoice-and-notify',
        '--transport=inprocess',
        '--reporter=json',
        `--out=${out}`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      return out;
    }),
  ));

describe('oneway merge', () => {
  it('takes the --out lock: refused while an evaluation holds it (exit 2, naming it, nothing written), released when done', async () => {
    const args = [`--out=${tempDir()}`, '--reporter=json', ...(await evaluated())];
    const out = args[0]!.slice('--out='.length);
    const held = lockOutDir(out, { command: 'oneway eval' });
    try {
      const r = await runCli(mergeMain, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${out} is in use by another evaluation (pid ${process.pid}`);
      expect(existsSync(join(out, 'results.json'))).toBe(false);
      expect(existsSync(join(out, 'runs'))).toBe(false);
    } finally {
      held.release();
    }
    const r = await runCli(mergeMain, args);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))).toMatchObject({
      config: { planners: ['eager', 'gated'] },
    });
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
  });

  it('refuses a --fail-on gate naming a planner the merged results lack before writing anything, as eval does', async () => {
    const out = tempDir();
    const r = await runCli(mergeMain, [
      `--out=${out}`,
      '--fail-on=gatd:premature_irreversible_rate>0',
      ...(await evaluated()),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--fail-on "gatd:premature_irreversible_rate>0" names planner "gatd", which is not among the planners (eager, gated)',
    );
    expect(r.stderr).toContain('did you mean "gated"?');
    expect(existsSync(join(out, 'results.json'))).toBe(false);
  });

  it('refuses a --baseline-planner the merged results lack, naming the planners they have', async () => {
    const out = tempDir();
    const r = await runCli(mergeMain, [`--out=${out}`, '--baseline-planner=careful', ...(await evaluated())]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--baseline-planner names "careful", which is not among the planners (eager, gated)');
    expect(r.stderr).toContain('hint: name one of these, or merge an evaluation of "careful" with them');
    expect(existsSync(join(out, 'results.json'))).toBe(false);
  });
});
