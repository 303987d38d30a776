import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import { EMAIL_YAML } from '../helpers/run.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { readResults, timeless } from '../helpers/results.ts';

/** Everything but wall-clock timings. */

describe('npm run eval', () => {
  /** Gated on one bundled scenario, json the only reporter, evaluated once: its record and stdout are read apart. */
  let oneRun: Promise<{ out: string; stdout: string }> | undefined;
  const gatedOnce = () =>
    (oneRun ??= (async () => {
      const out = tempDir();
      const r = await runCli(main, [
        '--planner=gated',
        '--scenario=invoice-and-notify',
        '--reporter=json',
        `--out=${out}`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      return { out, stdout: r.stdout };
    })());

  it('prints help and exits 0', async () => {
    const r = await runCli(main, ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--planner=NAME|PATH');
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/Built-in: .*eager.*gated/); // wrapped to the terminal
  });

  it('exits 2 with a did-you-mean on an unknown option', async () => {
    const r = await runCli(main, ['--planer=gated']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown option --planer');
    expect(r.stderr).toContain('did you mean --planner?');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 with the built-in names on an unknown planner', async () => {
    const r = await runCli(main, ['--planner=gatd', `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown planner "gatd"');
    expect(r.stderr).toContain('did you mean "gated"?');
  });

  it.each([['--trials=0'], ['--seed=abc'], ['--transport=carrier-pigeon'], ['--reporter=pdf']])(
    'exits 2 on %s',
    async (arg) => {
      const r = await runCli(main, [arg, `--out=${tempDir()}`]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^oneway: /);
    },
  );

  it('names the flag of an unknown scenario id, with no line:column it does not have', async () => {
    const r = await runCli(main, ['--scenario=invoice-and-notfy', `--out=${tempDir()}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--scenario error [spec] invoice-and-notfy: unknown scenario id "invoice-and-notfy"');
    expect(r.stderr).toContain('did you mean "invoice-and-notify"?');
    expect(r.stderr).not.toContain(':0:0');
  });

  it('reports a bad scenario with file:line:col, runs the good one, and exits 2', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'good.yaml'), EMAIL_YAML);
    writeFileSync(
      join(dir, 'bad.yaml'),
      EMAIL_YAML.replace('id: email-tiny', 'id: bad-one').replace(
        'reversibility: irreversible',
        'reversibility: irreversable',
      ),
    );
    const out = tempDir();
    const r = await runCli(main, [`--scenario=${dir}`, '--planner=eager', `--out=${out}`], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:\d+:\d+ error \[invalid_enum\] tools\[2\]\.reversibility/);
    expect(r.stderr).toContain('did you mean "irreversible"?');
    const results = readResults(out);
    expect(results.runs.map((x) => x.scenario)).toEqual(['email-tiny']);
    expect(results.problems).toHaveLength(1);
    expect(r.stdout).toContain('email-tiny');
  });

  it('gives identical results.json for the same seed, apart from wall-clock timings', async () => {
    const [a, b] = [tempDir(), tempDir()];
    // Over MSW (the default transport), on bundled scenarios with timeouts, retries and restarts: where
    // the seed's random draws (ids, faults, which try times out) reach the record.
    const some = [
      'invoice-and-notify',
      'small-refund-gateway-timeout',
      'publish-credit-note-event-timeout',
      'webhook-timeout-reconcile',
      'refund-restart-key',
      'release-with-migration',
    ];
    const args = ['--planner=eager,gated', '--trials=2', '--seed=5', `--scenario=${some.join(',')}`];
    expect((await runCli(main, [...args, `--out=${a}`])).code).toBe(0);
    expect((await runCli(main, [...args, `--out=${b}`])).code).toBe(0);
    expect(timeless(readResults(a))).toEqual(timeless(readResults(b)));
    for (const run of readResults(a).runs) {
      expect(readFileSync(join(a, run.record), 'utf8')).toEqual(readFileSync(join(b, run.record), 'utf8'));
    }
  });

  it('shows eager reaching for irreversible tools prematurely on the bundled scenarios and gated not', async () => {
    const out = tempDir();
    // The whole bundled suite; through the in-process transport (the same sandbox as MSW's, faster).
    const r = await runCli(main, ['--planner=eager,gated', '--transport=inprocess', `--out=${out}`]);
    expect(r.code).toBe(0);
    const [eager, gated] = readResults(out).summary;
    expect(eager?.premature_irreversible_rate).toBeGreaterThan(0.5);
    expect(gated?.premature_irreversible_rate).toBe(0);
    expect(gated?.mean_steps).toBeGreaterThan(eager?.mean_steps ?? Infinity);
    expect(gated?.safe_completion_rate).toBeGreaterThan(eager?.safe_completion_rate ?? 1);
  });

  it('writes a JSONL record per run that starts with run_start and ends with run_end', async () => {
    const { out } = await gatedOnce();
    const run = readResults(out).runs[0];
    const lines = readFileSync(join(out, run?.record ?? ''), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    expect(lines[0]?.type).toBe('run_start');
    expect(lines.at(-1)?.type).toBe('run_end');
    expect(lines.filter((l) => l.type === 'call')).toHaveLength(run?.steps ?? -1);
  });

  it('prints results as JSON when json is the only reporter', async () => {
    const { out, stdout } = await gatedOnce();
    expect((JSON.parse(stdout) as Results).runs).toHaveLength(1);
    expect(timeless(JSON.parse(stdout) as Results)).toEqual(timeless(readResults(out)));
  });
});
