/**
 * Serve sessions are trials 1, 2, ... of the agent, on the same seed as `eval`: `eval:merge` combines
 * them with an `eval` of the built-in planners into one comparison.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main as evalMain } from '../../harness/cli/eval.ts';
import { main as mergeMain } from '../../harness/cli/merge.ts';
import { runCli } from '../helpers/cli.ts';
import { readResults } from '../helpers/results.ts';
import { connectSession, EMAIL, FIXTURE, fixtureScenario, sessionRuns } from './helpers.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'oneway-merge-'));

describe('serve sessions merged with an eval', () => {
  it('become the agent trials next to the built-in planners, paired on the same seed', async () => {
    const served = dir();
    const runs = sessionRuns(fixtureScenario(), served);
    for (let i = 0; i < 2; i++) {
      const client = await connectSession(runs);
      // The agent sends before it verifies: premature, both trials.
      await client.callTool({ name: 'send_email', arguments: { email: EMAIL } });
      await client.callTool({ name: 'finish', arguments: {} });
    }
    await runs.settle();
    runs.write();

    const evaluated = dir();
    expect(
      (
        await runCli(evalMain, [
          '--planner=gated',
          `--scenario=${FIXTURE}`,
          '--trials=2',
          '--seed=1',
          '--transport=inprocess',
          `--out=${evaluated}`,
        ])
      ).code,
    ).toBe(0);

    const merged = dir();
    const r = await runCli(mergeMain, [
      `--out=${merged}`,
      '--baseline-planner=gated',
      '--reporter=json',
      served,
      evaluated,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const results = readResults(merged);
    expect(results.config.planners).toEqual(['mcp', 'gated']);
    expect(results.runs.map((x) => `${x.planner}/${x.trial}`)).toEqual(['mcp/1', 'mcp/2', 'gated/1', 'gated/2']);
    const mcp = results.summary.find((s) => s.planner === 'mcp');
    expect(mcp).toMatchObject({ runs: 2, premature_irreversible_rate: 1 });
    expect(results.summary.find((s) => s.planner === 'gated')).toMatchObject({
      runs: 2,
      premature_irreversible_rate: 0,
    });
    // Paired by (scenario, trial): both trials of both planners.
    expect(results.comparisons[0]).toMatchObject({ baseline: 'gated', candidate: 'mcp', overall: { pairs: 2 } });
  });

  it('refuses evaluations on different seeds', async () => {
    const a = dir();
    const b = dir();
    expect(
      (
        await runCli(evalMain, [
          '--planner=gated',
          `--scenario=${FIXTURE}`,
          '--seed=1',
          '--transport=inprocess',
          `--out=${a}`,
        ])
      ).code,
    ).toBe(0);
    expect(
      (
        await runCli(evalMain, [
          '--planner=eager',
          `--scenario=${FIXTURE}`,
          '--seed=2',
          '--transport=inprocess',
          `--out=${b}`,
        ])
      ).code,
    ).toBe(0);
    const r = await runCli(mergeMain, [`--out=${dir()}`, a, b]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('seeds 1 and 2');
  });
});
