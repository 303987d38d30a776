/**
 * `merge()` is `oneway merge` from code, through the same pipeline step (harness/features/pipeline/merge.ts):
 * evaluations of one planner each, merged, give the results.json the command writes from them, gates and
 * baseline planner included; `out` is locked as an evaluation's, and a part one still writes is refused;
 * its options are checked as evaluate()'s.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, merge, UsageError, type MergeConfig } from 'oneway';
import { main } from '../../harness/cli/merge.ts';
import { lockOutDir } from '../../harness/engine/results/lock.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { readResults } from '../helpers/results.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

/** A project of one scenario, evaluated by eager into `eager/` and by gated into `gated/` (the same seed); made once. */
let made: Promise<string> | undefined;
const project = () =>
  (made ??= (async () => {
    const dir = tempDir('oneway-api-merge-');
    writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
    for (const planner of ['eager', 'gated'])
      await evaluate({
        cwd: dir,
        scenarios: ['email.yaml'],
        planners: [planner],
        trials: 2,
        transport: 'inprocess',
        out: planner,
      });
    return dir;
  })());

describe('merge() and oneway merge', () => {
  it('are one merge: the same parts and gates give the same results.json and the same failed gate', async () => {
    const dir = await project();
    const api = await merge({
      cwd: dir,
      parts: ['eager', 'gated'],
      out: 'api',
      baselinePlanner: 'gated',
      failOn: ['premature_irreversible_rate>0'],
    });
    const cli = await runCli(
      main,
      [
        '--out=cli',
        '--reporter=json',
        '--baseline-planner=gated',
        '--fail-on=premature_irreversible_rate>0',
        'eager',
        'gated',
      ],
      dir,
    );
    expect(cli.code).toBe(1);
    expect(api.config.planners).toEqual(['eager', 'gated']);
    expect(api.gates.failures.map((f) => f.planner)).toEqual(['eager']);
    expect(api.comparisons[0]).toMatchObject({ baseline: 'gated', candidate: 'eager' });
    expect(readFileSync(join(dir, 'api', 'results.json'), 'utf8')).toEqual(
      readFileSync(join(dir, 'cli', 'results.json'), 'utf8'),
    );
    expect(readResults(join(dir, 'api'))).toEqual(api);
  });

  it('refuses an out an evaluation holds, naming it', async () => {
    const dir = await project();
    const out = join(dir, 'held');
    mkdirSync(out);
    const lock = lockOutDir(out, { command: 'oneway eval' });
    try {
      await expect(merge({ cwd: dir, parts: ['eager', 'gated'], out: 'held' })).rejects.toThrow(
        `${out} is in use by another evaluation (pid ${process.pid}`,
      );
    } finally {
      lock.release();
    }
    expect(existsSync(join(out, 'results.json'))).toBe(false);
  });

  it('refuses a part an evaluation still writes, naming the part and its holder', async () => {
    const dir = await project();
    const lock = lockOutDir(join(dir, 'gated'), { command: 'oneway eval' });
    try {
      await expect(merge({ cwd: dir, parts: ['eager', 'gated'], out: 'while-held' })).rejects.toThrow(
        `part ${join(dir, 'gated')} is still being written by an evaluation (pid ${process.pid}`,
      );
    } finally {
      lock.release();
    }
    expect(existsSync(join(dir, 'while-held'))).toBe(false);
  });

  it("checks its options as evaluate() does, and names them as merge()'s", async () => {
    const dir = await project();
    const misspelt = { cwd: dir, parts: ['eager', 'gated'], baselinePlaner: 'gated' } as unknown as MergeConfig;
    await expect(merge(misspelt)).rejects.toThrow('unknown option "baselinePlaner" (did you mean "baselinePlanner"?)');
    await expect(merge({ cwd: dir, parts: [] })).rejects.toThrow(UsageError);
    await expect(
      merge({ cwd: dir, parts: ['eager', 'gated'], out: 'typo', failOn: ['gatd:premature_irreversible_rate>0'] }),
    ).rejects.toThrow(`merge()'s "failOn" "gatd:premature_irreversible_rate>0" names planner "gatd"`);
  });
});
