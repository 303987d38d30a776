/**
 * No answer key (issue 39): a scenario's reference_plan reaches the built-in `scripted` planner
 * only; a plan the user gives (`--plan`) reaches every planner. A planner file that replays
 * `ctx.plan` with scripted's own code, and finishes when it has none, ties `scripted` when it is
 * given the plan, and completes nothing otherwise.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import type { Results, RunResult } from '../../harness/engine/results/types.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { REPO } from '../helpers/compiled.ts';
import { readResults } from '../helpers/results.ts';

// A TypeScript planner file is bundled with what it imports, so scripted's code (outside the file's
// own directory, which is all a planner process may read) comes with it.
const REPLAY = `import { scriptedDecision } from ${JSON.stringify(join(REPO, 'planners/scripted.ts'))};
export default { name: 'replay', create(ctx) {
  const plan = ctx.plan;
  return { name: 'replay', next: (view) => (plan ? scriptedDecision(plan, view) : { type: 'finish', reason: 'no plan' }) };
} };
`;
const SCENARIOS = 'invoice-and-notify,return-item-refund,release-with-migration';

let dir = '';
const evaluate = async (scenarios: string, args: string[] = []): Promise<Results> => {
  const out = tempDir();
  const r = await runCli(main, [
    `--planner=${join(dir, 'replay.ts')},scripted`,
    `--scenario=${scenarios}`,
    '--transport=inprocess',
    `--out=${out}`,
    ...args,
  ]);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.code, r.stderr).toBe(0);
  return readResults(out);
};
const of = (results: Results, planner: string): RunResult[] => results.runs.filter((r) => r.planner === planner);
/** What a run came to: its scenario, whether it completed, its steps and turns. */
const outcome = (r: RunResult) => [r.scenario, r.completed, r.steps, r.turns];

beforeAll(() => {
  dir = tempDir();
  writeFileSync(join(dir, 'replay.ts'), REPLAY);
});

describe('the reference plan', () => {
  it('is not given to a planner file: replaying ctx.plan completes nothing, while scripted completes every scenario', async () => {
    const results = await evaluate(SCENARIOS);
    expect(of(results, 'scripted').map((r) => r.completed)).toEqual([true, true, true]);
    expect(of(results, 'replay').map((r) => [r.completed, r.steps, r.end_reason])).toEqual([
      [false, 0, 'finish'],
      [false, 0, 'finish'],
      [false, 0, 'finish'],
    ]);
  });

  it('--plan is given to every planner: the file then replays it as scripted does', async () => {
    const plan = join(dir, 'plan.yaml');
    writeFileSync(plan, '- verify_recipient: { email: "{{inputs.email}}" }\n- finish\n');
    const results = await evaluate('invoice-and-notify', [`--plan=${plan}`]);
    const [scripted] = of(results, 'scripted');
    const [replay] = of(results, 'replay');
    expect(scripted?.steps).toBe(1);
    expect(replay && outcome(replay)).toEqual(scripted && outcome(scripted));
  });
});
