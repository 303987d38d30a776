/**
 * `oneway fuzz --no-shrink` (FuzzOptions.shrink false): each failure is reported with the plan that
 * first failed, with no shrinking by fast-check or by the greedy shrinker, and the fast-check replay
 * command says so; without it a failure is shrunk as before. In process: fuzzScenario on a fixture
 * whose restore leaves a trace (rollback-completeness fails on the first plans), and the command's
 * `main` for what it prints and writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as fuzzMain } from '../../harness/cli/fuzz.ts';
import { fuzzScenario } from '../../harness/features/fuzz/fuzz.ts';
import type { FuzzProperty } from '../../harness/features/fuzz/properties.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { CHANGED_FIELD_YAML, changedField, scenarioFile } from './fixtures.ts';

/** Fails on every plan, whatever it does: every shrink candidate fails too, so shrinking goes all the way. */
const alwaysFails: FuzzProperty = { name: 'always-fails', description: 'fails', check: () => 'it always fails' };

describe('fuzz --no-shrink', () => {
  it('reports the first failing plan as found (no shrink), where the default shrinks it', async () => {
    const base = { scenario: changedField, properties: [alwaysFails], runs: 20, seed: 4 };
    const shrunk = await fuzzScenario(base);
    const found = await fuzzScenario({ ...base, shrink: false });

    expect(shrunk.failures[0]?.fastCheck?.numShrinks).toBeGreaterThan(0);
    expect(shrunk.failures[0]?.plan).toEqual([]);
    expect(shrunk.plans).toBeGreaterThan(1);

    const f = found.failures[0];
    expect(found.failures).toHaveLength(1);
    expect(found.plans).toBe(1);
    expect(f?.fastCheck).toMatchObject({ numRuns: 1, numShrinks: 0, path: '0' });
    expect(f?.message).toBe('it always fails');
    // Generated plans have at least one item; only shrinking empties them.
    expect(f?.plan?.length).toBeGreaterThan(0);
    // Its path replays the same plan.
    const replayed = await fuzzScenario({ ...base, shrink: false, path: f?.fastCheck?.path as string });
    expect(replayed.failures[0]).toMatchObject({ plan: f?.plan, seed: f?.seed });
  });

  it('the command prints the plan as not shrunk, replays with --no-shrink and records it in fuzz.json', async () => {
    const file = scenarioFile(CHANGED_FIELD_YAML);
    const args = [`--scenario=${file}`, '--property=rollback-completeness', '--runs=50', '--seed=7'];
    const out = tempDir();
    const r = await runCli(fuzzMain, [...args, '--no-shrink', `--out=${out}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ {4}plan, not shrunk \(\d+ calls?\): /m);
    expect(r.stdout).toMatch(/after 1 plan, 0 shrinks\n.* --path=\S+ --no-shrink$/m);
    const report = JSON.parse(readFileSync(join(out, 'fuzz.json'), 'utf8')) as {
      config: { shrink: boolean };
      failures: { fastCheck: { numShrinks: number } }[];
    };
    expect(report.config.shrink).toBe(false);
    expect(report.failures.map((f) => f.fastCheck.numShrinks)).toEqual([0]);

    const shrunkOut = tempDir();
    const s = await runCli(fuzzMain, [...args, `--out=${shrunkOut}`]);
    expect(s.code).toBe(1);
    expect(s.stdout).toMatch(/^ {4}minimal plan \(1 call\): /m);
    expect(s.stdout).not.toContain('--no-shrink');
    expect(JSON.parse(readFileSync(join(shrunkOut, 'fuzz.json'), 'utf8'))).toMatchObject({ config: { shrink: true } });
  });

  it('a planner run that fails is reported with the calls the planner made, where the default shrinks them', async () => {
    const args = [
      `--scenario=${scenarioFile(CHANGED_FIELD_YAML)}`,
      '--planner=random',
      '--property=rollback-completeness',
      '--runs=20',
    ];
    const found = await runCli(fuzzMain, [...args, '--no-shrink', `--out=${tempDir()}`]);
    const shrunk = await runCli(fuzzMain, [...args, `--out=${tempDir()}`]);
    expect([found.code, shrunk.code]).toEqual([1, 1]);
    const calls = (stdout: string, label: string) =>
      Number(new RegExp(`^ {4}${label} \\((\\d+) calls?\\): `, 'm').exec(stdout)?.[1]);
    expect(calls(shrunk.stdout, 'minimal plan')).toBe(1);
    expect(calls(found.stdout, 'plan, not shrunk')).toBeGreaterThan(1);
    expect(found.stdout).toMatch(/^1 runs in /m);
  });
});
