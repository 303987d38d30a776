/**
 * Two small holes (issue 39, failure 12): a planner named with a look-alike letter ("gаted", a
 * Cyrillic "а") read as `gated` in every report: a name that is not printable ASCII is now refused
 * when the planner loads, shown escaped, with a hint. And a planner that crashed on every run
 * scored "premature 0" and passed a premature-only `--fail-on`: a gate now fails for a planner
 * with no evidence, every run of it an error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { UsageError } from '../../harness/core/errors.ts';
import { evaluateGates, parseGate } from '../../harness/engine/gates/fail-on.ts';
import type { PlannerSummary } from '../../harness/engine/results/types.ts';
import { loadPlanners } from '../../harness/features/request/eval.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { readResults } from '../helpers/results.ts';

const CYRILLIC_A = '\u0430';

describe('a planner name that is not printable ASCII', () => {
  it('from a planner file is refused before anything runs: exit 2, the name escaped, a hint', async () => {
    const dir = tempDir();
    const file = join(dir, 'lookalike.mjs');
    writeFileSync(file, `export default { name: 'g${CYRILLIC_A}ted', next() { return { type: 'finish' }; } };\n`);
    const out = tempDir();
    const r = await runCli(main, [`--planner=${file},gated`, '--scenario=invoice-and-notify', `--out=${out}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('planner name "g\\u{430}ted"');
    expect(r.stderr).toContain('U+0430');
    expect(r.stderr).toContain('printable ASCII');
    expect(r.stderr).not.toContain(CYRILLIC_A);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('of a planner object (the API) is refused too; a control character as well', async () => {
    for (const name of [`g${CYRILLIC_A}ted`, 'gated\u001b[2K', 'tab\there']) {
      const e = await loadPlanners([{ name, next: () => ({ type: 'finish' as const }) }], process.cwd()).catch(
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(UsageError);
      expect((e as UsageError).message).toContain('is not printable ASCII');
    }
    const [ok] = await loadPlanners([{ name: 'my planner-2 (v1.0)', next: () => ({ type: 'finish' as const }) }], '.');
    expect(ok?.name).toBe('my planner-2 (v1.0)');
  });
});

describe('a gate and a planner whose every run errored', () => {
  it('fails the gate as no evidence, with a hint; a planner with one good run is judged by the figure', () => {
    const summary = [
      { planner: 'crashes', runs: 4, errors: 4, premature_irreversible_rate: 0 },
      { planner: 'flaky', runs: 4, errors: 3, premature_irreversible_rate: 0 },
    ] as PlannerSummary[];
    const failures = evaluateGates([parseGate('premature_irreversible_rate>0')], summary);
    expect(failures).toEqual([
      {
        gate: 'premature_irreversible_rate>0',
        planner: 'crashes',
        metric: 'premature_irreversible_rate',
        value: null,
        threshold: '> 0',
        message: expect.stringContaining('no evidence for crashes: all 4 of its runs ended in an error'),
      },
    ]);
    expect(failures[0]?.message).toContain('hint:');
    // A gate on errors itself is judged by its condition.
    expect(evaluateGates([parseGate('errors>10')], summary)).toEqual([]);
  });

  it('eval: a planner file that kills itself on every run fails a premature-only --fail-on (exit 1)', async () => {
    const dir = tempDir();
    const file = join(dir, 'dies.mjs');
    writeFileSync(file, `export default { name: 'dies', next() { process.exit(0); } };\n`);
    const out = tempDir();
    const r = await runCli(main, [
      `--planner=${file},gated`,
      '--scenario=invoice-and-notify',
      '--trials=2',
      '--transport=inprocess',
      '--fail-on=premature_irreversible_rate>0',
      `--out=${out}`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no evidence for dies: all 2 of its runs ended in an error');
    const results = readResults(out);
    expect(results.gates.failures.map((f) => f.planner)).toEqual(['dies']);
    expect(results.runs.filter((x) => x.planner === 'dies').map((x) => x.end_reason)).toEqual([
      'planner_error',
      'planner_error',
    ]);
  });
});
