/**
 * What `evaluate()` shares with `oneway eval` through the one evaluation pipeline
 * (harness/features/pipeline/evaluation.ts): the same settings give the same results.json; stopped
 * by an AbortSignal, it keeps and writes what finished, marked interrupted; `resume: true`
 * finishes it to the results of an evaluation nobody stopped, and refuses to resume a different one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, UsageError, type EvaluateConfig } from 'oneway';
import { main } from '../../harness/cli/eval.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { readResults, timeless } from '../helpers/results.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

/** Six runs, one at a time, in a project of one scenario. */
function project(): { dir: string; config: EvaluateConfig } {
  const dir = tempDir('oneway-api-');
  writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
  return {
    dir,
    config: { cwd: dir, scenarios: ['email.yaml'], planners: ['eager', 'gated'], trials: 3, transport: 'inprocess' },
  };
}

describe('evaluate() and oneway eval', () => {
  it('are one evaluation: the same settings give the same results.json and the same failed gate', async () => {
    const { dir, config } = project();
    const api = await evaluate({ ...config, out: 'api', failOn: ['eager:premature_irreversible_rate>0'] });
    const cli = await runCli(
      main,
      [
        '--scenario=email.yaml',
        '--planner=eager,gated',
        '--trials=3',
        '--transport=inprocess',
        '--out=cli',
        '--fail-on=eager:premature_irreversible_rate>0',
      ],
      dir,
    );
    expect(cli.code).toBe(1);
    expect(api.gates.failures.map((f) => f.planner)).toEqual(['eager']);
    expect(timeless(readResults(join(dir, 'cli')))).toEqual(timeless(readResults(join(dir, 'api'))));
  });
});

describe('evaluate(): interruption and resume', () => {
  it('stops after the runs in flight when its signal is aborted, and resume finishes it to the uninterrupted results', async () => {
    const { dir, config } = project();
    const reference = await evaluate({ ...config, out: 'full' });
    expect(reference.interrupted).toBe(false);
    expect(reference.runs).toHaveLength(6);

    const stop = new AbortController();
    const cut = await evaluate({
      ...config,
      out: 'cut',
      signal: stop.signal,
      onRunDone: (_run, done) => {
        if (done === 2) stop.abort();
      },
    });
    expect(cut.interrupted).toBe(true);
    expect(cut.runs).toHaveLength(2);
    // What finished is written, marked interrupted, as Ctrl-C leaves `oneway eval`'s.
    expect(readResults(join(dir, 'cut')).interrupted).toBe(true);
    expect(readResults(join(dir, 'cut')).runs).toHaveLength(2);

    const ran: string[] = [];
    const resumed = await evaluate({
      ...config,
      out: 'cut',
      resume: true,
      onRunDone: (run) => ran.push(`${run.planner}/${run.trial}`),
    });
    expect(ran).toHaveLength(4);
    expect(resumed.interrupted).toBe(false);
    expect(timeless(resumed)).toEqual(timeless(reference));
    expect(timeless(readResults(join(dir, 'cut')))).toEqual(timeless(readResults(join(dir, 'full'))));
  });

  it('runs nothing with a signal aborted before it starts, and says so', async () => {
    const { config } = project();
    const results = await evaluate({ ...config, out: 'none', signal: AbortSignal.abort() });
    expect(results.interrupted).toBe(true);
    expect(results.runs).toHaveLength(0);
  });

  it('refuses to resume a different evaluation, saying what differs', async () => {
    const { config } = project();
    await evaluate({ ...config, out: 'out', planners: ['gated'] });
    const resumed = evaluate({ ...config, out: 'out', planners: ['eager'], resume: true });
    await expect(resumed).rejects.toBeInstanceOf(UsageError);
    await expect(resumed).rejects.toThrow(
      /evaluate\(\)'s "resume": .* holds a different evaluation: planners gated, now eager/,
    );
  });

  it('refuses a signal that is not an AbortSignal, and resume that is not a boolean', async () => {
    const { config } = project();
    await expect(evaluate({ ...config, signal: 'stop' as unknown as AbortSignal })).rejects.toThrow(
      /"signal" must be an AbortSignal/,
    );
    await expect(evaluate({ ...config, resume: 'yes' as unknown as boolean })).rejects.toThrow(
      /"resume" must be true or false/,
    );
  });
});
