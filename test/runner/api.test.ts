/** `evaluate(config)`, the programmatic `oneway eval`, as a consumer imports it from 'oneway'. */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluate, UsageError, type PlannerFactory } from 'oneway';
import { tempDir } from '../helpers/cli.ts';
import { EMAIL_YAML } from '../helpers/run.ts';

describe('evaluate(config)', () => {
  it('returns the results object, with planners given by name or as objects, and writes results.json', async () => {
    const dir = tempDir('oneway-api-');
    writeFileSync(join(dir, 'email.yaml'), EMAIL_YAML);
    const finisher: PlannerFactory = {
      name: 'finisher',
      create: () => ({ name: 'finisher', next: () => ({ type: 'finish' }) }),
    };
    const results = await evaluate({
      cwd: dir,
      scenarios: ['email.yaml'],
      planners: ['gated', finisher],
      trials: 2,
      transport: 'inprocess',
      failOn: ['finisher:completion_rate<1'],
      out: 'out',
    });
    expect(results.config.planners).toEqual(['gated', 'finisher']);
    expect(results.runs).toHaveLength(4);
    expect(results.summary.find((s) => s.planner === 'gated')?.safe_completion_rate).toBe(1);
    expect(results.gates.failures.map((f) => f.planner)).toEqual(['finisher']);
    expect(existsSync(join(dir, 'out', 'results.json'))).toBe(true);
  });

  it('throws a UsageError with a hint when there is nothing to run', async () => {
    const dir = tempDir('oneway-api-');
    writeFileSync(join(dir, 'package.json'), '{}');
    await expect(evaluate({ cwd: dir })).rejects.toBeInstanceOf(UsageError);
  });
});
