/**
 * The restart scores from the command line, on a bundled restart scenario: gates on both
 * (`--fail-on`), and both in report.md's grid, for every planner compared.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import { runCli, tempDir } from '../helpers/cli.ts';

describe('restart scores in an evaluation', () => {
  it('gate with --fail-on on unreconciled retries and duplicate effects, and show both in report.md', async () => {
    const out = tempDir();
    const r = await runCli(main, [
      '--scenario=vendor-payout-restart-no-key',
      '--planner=eager,gated',
      '--fail-on=eager:unreconciled_retries>0',
      '--fail-on=duplicate_effects>1',
      '--fail-on=gated:unreconciled_retries>0',
      '--reporter=markdown',
      `--out=${out}`,
    ]);
    // eager paid again without reconciling after the restart; gated asked the bank first.
    expect(r.code).toBe(1);
    const failed = `${r.stdout}${r.stderr}`;
    expect(failed).toContain('eager unreconciled_retries = 2 (fails when > 0)');
    expect(failed).toContain('eager duplicate_effects = 2 (fails when > 1)');
    expect(failed).not.toContain('gated unreconciled_retries');
    expect(failed).not.toContain('gated duplicate_effects');
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      summary: { planner: string; unreconciled_retries: number; duplicate_effects: number }[];
    };
    expect(results.summary.map((s) => [s.planner, s.unreconciled_retries, s.duplicate_effects])).toEqual([
      ['eager', 2, 2],
      ['gated', 0, 0],
    ]);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain('| vendor-payout-restart-no-key | ⚠️ done · 3 premature · 2 retry · 2 dup | ✅ safe |');
  });
});
