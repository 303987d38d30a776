/**
 * Sealed processes (runner/sealed-process.ts, runner/isolate.ts): the permission model's flag per
 * Node version (`--permission` where it is stable, 22.13+, 23.5+, 24; `--experimental-permission`
 * before it), and when a planner's process serves another run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memorySink } from '../../harness/engine/record/writer.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import { runOne, type PlannerHandle } from '../../harness/engine/runner/run.ts';
import { permissionFlag } from '../../harness/engine/runner/sealed-process.ts';
import { tempDir } from '../helpers/cli.ts';
import { EMAIL_YAML, scenarioFrom } from '../helpers/run.ts';

describe('permissionFlag', () => {
  it.each([
    ['20.19.0', '--experimental-permission'],
    ['20.20.2', '--experimental-permission'],
    ['21.7.3', '--experimental-permission'],
    ['22.12.0', '--experimental-permission'],
    ['22.13.0', '--permission'],
    ['23.4.0', '--experimental-permission'],
    ['23.5.0', '--permission'],
    ['24.0.0', '--permission'],
    ['24.11.1', '--permission'],
  ])('Node %s: %s', (version, flag) => {
    expect(permissionFlag(version)).toBe(flag);
  });
});

/** A planner file whose module counts the runs its process served; `leftover` leaves a timer behind each run. */
function countingPlanner(dir: string, name: string, leftover: boolean): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `let served = 0;
export default { name: '${name}', create() { served++; return { name: '${name}', next(view) {
  ${leftover ? 'if (view.turn === 1) setTimeout(() => {}, 600_000).unref();' : ''}
  return view.turn === 1 ? { type: 'call', call: { tool: 'verify_recipient', args: { email: 'run' + served + '@acme.example' } } } : { type: 'finish' };
} }; } };
`,
  );
  return file;
}

async function emailsOfRuns(handle: PlannerHandle, runs: number): Promise<string[]> {
  const scenario = scenarioFrom(EMAIL_YAML);
  const out: string[] = [];
  for (let i = 1; i <= runs; i++) {
    const r = await runOne({
      scenario,
      scenarioFile: 'inline.yaml',
      planner: handle,
      plannerContext: { options: {} },
      trial: i,
      seed: i,
      runId: `reuse/${i}`,
      sink: memorySink(),
      transport: 'inprocess',
      maxTurns: 5,
      decisionTimeoutMs: 20_000,
    });
    expect(r.error).toBeNull();
    out.push(...r.events.flatMap((e) => (e.type === 'call' ? [String(e.args.email)] : [])));
  }
  return out;
}

describe('a planner process serves the next run only if the last one left nothing pending', () => {
  it('a clean process is reused (its module state goes on); one with a timer left is replaced', async () => {
    const dir = tempDir('oneway-reuse-');
    const clean = await loadPlanner(countingPlanner(dir, 'clean', false), dir);
    expect(await emailsOfRuns(clean, 3)).toEqual(['run1@acme.example', 'run2@acme.example', 'run3@acme.example']);
    const dirty = await loadPlanner(countingPlanner(dir, 'dirty', true), dir);
    expect(await emailsOfRuns(dirty, 3)).toEqual(['run1@acme.example', 'run1@acme.example', 'run1@acme.example']);
  });
});
