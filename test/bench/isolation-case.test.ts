/**
 * The bench's isolation case (harness/features/bench/cases.ts `isolationChild`): gated as a planner
 * file in its sealed process against the same module in process, and round trips to a process
 * started as a planner's is, with no module (child-host.mjs's echo), bare and paced. The numbers
 * are measurements (`oneway bench --child=isolation`); what is tested, on one small scenario, is
 * that the echo process answers over the sealed channel (the round trips are timed, not refused),
 * and that both sides of the ratio ran the same runs: the same records. The case runs from the
 * compiled build, in a process of its own (test/helpers/compiled.ts), as the bench runs it.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loaded, TINY } from '../loader/helpers.ts';
import { tempDir } from '../helpers/cli.ts';
import { REPO, runNode } from '../helpers/compiled.ts';
import type { IsolationRow } from '../../harness/features/bench/cases.ts';
import { readResults, timeless } from '../helpers/results.ts';

describe('the bench isolation case', () => {
  const suite = [{ scenario: loaded(TINY).scenario, file: 'tiny.yaml' }];

  it('times the sealed and in-process passes over the same runs, and round trips to an echo process', async () => {
    const out = tempDir();
    const script = join(out, 'isolation.mjs');
    writeFileSync(
      script,
      `import { isolationChild } from ${JSON.stringify(join(REPO, 'dist/harness/features/bench/cases.js'))};
process.stdout.write(JSON.stringify(await isolationChild(${JSON.stringify(suite)}, ${JSON.stringify(out)})));
`,
    );
    const r = await runNode([script]);
    expect(r.code, r.stderr).toBe(0);
    const row = JSON.parse(r.stdout) as IsolationRow;
    expect(row).toMatchObject({ runs: 3 });
    expect(row.decisions).toBeGreaterThan(0);
    expect(row.passes.map((p) => p.how)).toEqual(
      Array.from({ length: 5 }, () => ['sealed', 'in-process', 'bare', 'paced']).flat(),
    );
    for (const p of row.passes) expect(p.seconds).toBeGreaterThan(0);
    expect(row.bare_round_trip_us).toBeGreaterThan(0);
    for (const x of [row.per_decision_over_round_trip, row.paced_round_trip_us, row.planner_us])
      expect(Number.isFinite(x)).toBe(true);

    const [sealed, inProcess] = [readResults(join(out, 'sealed')), readResults(join(out, 'in-process'))];
    expect(sealed.runs.every((x) => x.steps > 0)).toBe(true);
    expect(timeless(sealed)).toEqual(timeless(inProcess));
    // The records, file by file (the passes write the same paths: the last pass's are compared).
    const records = (dir: string) =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.jsonl'))
        .sort();
    const files = records(join(out, 'sealed'));
    expect(files).toHaveLength(3);
    expect(records(join(out, 'in-process'))).toEqual(files);
    for (const f of files)
      expect(readFileSync(join(out, 'sealed', f), 'utf8')).toBe(readFileSync(join(out, 'in-process', f), 'utf8'));
  }, 120_000);
});
