import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as mergeMain } from '../../harness/cli/merge.ts';
import { LOCK_FILE, lockOutDir } from '../../harness/engine/results/lock.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

/**
 * `oneway merge` goes through the evaluation pipeline's last steps (harness/features/pipeline/merge.ts):
 * the --out lock an evaluation takes (and no part a live evaluation still writes), and the line-up checks, gates and baseline as `oneway eval`
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

  it('refuses a part a live evaluation still writes (exit 2, naming the part and its holder, nothing written); merges it once done', async () => {
    const [eager, gated] = await evaluated();
    const out = tempDir();
    const args = [`--out=${out}`, '--reporter=json', eager!, gated!];
    const held = lockOutDir(gated!, { command: 'oneway eval' });
    const since = (JSON.parse(readFileSync(held.path, 'utf8')) as { started_at: string }).started_at;
    try {
      const r = await runCli(mergeMain, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `oneway: part ${gated} is still being written by an evaluation (pid ${process.pid}, started ${since})`,
      );
      expect(r.stderr).toContain(`hint: wait for it to finish, then merge`);
      expect(r.stderr).toContain(`if no evaluation is running there, delete ${join(gated!, LOCK_FILE)}`);
      expect(readdirSync(out)).toEqual([]);
    } finally {
      held.release();
    }
    const r = await runCli(mergeMain, args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('lock');
    expect(existsSync(join(out, 'results.json'))).toBe(true);
  });

  it('merges a part whose lock is stale (its process gone) or unreadable, saying so in a warning', async () => {
    const [eager, gated] = await evaluated();
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '']);
      child.on('exit', () => resolve(child.pid as number));
    });
    const lock = join(eager!, LOCK_FILE);
    const stale = { pid: dead, process_start: null, host: hostname(), started_at: '2020-01-01T00:00:00.000Z' };
    writeFileSync(lock, JSON.stringify({ ...stale, command: 'oneway eval' }));
    const damaged = join(gated!, LOCK_FILE);
    writeFileSync(damaged, '{"pid": "not a lock');
    try {
      const out = tempDir();
      const r = await runCli(mergeMain, [`--out=${out}`, '--reporter=json', eager!, gated!]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `oneway: part ${eager} has a stale lock: its evaluation (pid ${dead}, started 2020-01-01T00:00:00.000Z) is no longer running; merging the results it left`,
      );
      expect(r.stderr).toContain(
        `oneway: part ${gated} has an unreadable lock (${damaged}); merging the results it holds`,
      );
      expect(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))).toMatchObject({
        config: { planners: ['eager', 'gated'] },
      });
      // Only read: a part may be read only, and its lock is its evaluation's to remove.
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject(stale);
    } finally {
      rmSync(lock);
      rmSync(damaged);
    }
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
