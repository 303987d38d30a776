/**
 * Bounded memory per run (runner/decision.ts, RUN_LIMITS): a planner file that reports rejected
 * attempts by the thousand in one decision, large or small, ends its own run as a planner error
 * naming the limit, as soon as it is past it; the evaluation keeps its other runs (a built-in
 * planner's, the same file's next run), writes results.json and leaves no lock behind. The floods
 * are far larger than the limits, so a run that kept them would not end this way: the run's record
 * shows it stopped at the limit. The stack trace of a planner file's error, which the evaluation
 * keeps for every run that threw (for --verbose), is cut to 16 KiB.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/eval.ts';
import type { RecordEvent } from '../../harness/core/record.ts';
import { RUN_LIMITS } from '../../harness/engine/runner/decision.ts';
import { LOCK_FILE } from '../../harness/engine/results/lock.ts';
import type { Results } from '../../harness/engine/results/types.ts';
import { runCli, tempDir } from '../helpers/cli.ts';
import { readResults } from '../helpers/results.ts';

/** 5,000 attempts of 250 KiB each in one decision (1.2 GiB, were they all kept), on every run. */
const LARGE = `const body = 'x'.repeat(250 * 1024);
export default { name: 'flood-large', create(ctx) { return { name: 'flood-large', next() {
  for (let i = 0; i < 5000; i++) ctx.reject({ tool: 'send_email', args: { body }, reason: 'refused' });
  return { type: 'finish' };
} }; } };
`;
/** 20,000 small attempts in one decision. */
const MANY = `export default { name: 'flood-many', create(ctx) { return { name: 'flood-many', next() {
  for (let i = 0; i < 20000; i++) ctx.reject({ tool: 'send_email', args: { i }, reason: 'refused' });
  return { type: 'finish' };
} }; } };
`;

/** 100 attempts whose reasons are 1 MiB each: a record keeps 2,000 characters of each, the limit counts them all. */
const LONG_REASONS = `const reason = 'r'.repeat(2 ** 20);
export default { name: 'long-reasons', create(ctx) { return { name: 'long-reasons', next() {
  for (let i = 0; i < 100; i++) ctx.reject({ tool: 'send_email', args: {}, reason });
  return { type: 'finish' };
} }; } };
`;

let out = '';
let code: number;
let stderr = '';
let results: Results;
const record = (path: string): RecordEvent[] =>
  readFileSync(join(out, path), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RecordEvent);

beforeAll(async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'large.mjs'), LARGE);
  writeFileSync(join(dir, 'many.mjs'), MANY);
  writeFileSync(join(dir, 'long-reasons.mjs'), LONG_REASONS);
  out = tempDir();
  const r = await runCli(main, [
    `--planner=${join(dir, 'large.mjs')},${join(dir, 'many.mjs')},${join(dir, 'long-reasons.mjs')},gated`,
    '--scenario=invoice-and-notify',
    '--trials=2',
    '--transport=inprocess',
    `--out=${out}`,
  ]);
  ({ code, stderr } = r);
  results = readResults(out);
}, 120_000);

describe('a planner past a run limit', () => {
  it('250 KiB attempts by the thousand: each of its runs ends as a planner error naming the bytes limit', () => {
    const runs = results.runs.filter((r) => r.planner === 'flood-large');
    expect(runs.map((r) => [r.trial, r.end_reason])).toEqual([
      [1, 'planner_error'],
      [2, 'planner_error'],
    ]);
    for (const r of runs) expect(r.error).toContain(`over the limit of ${RUN_LIMITS.bytesPerRun / 2 ** 20} MiB`);
    // Recorded up to the limit, not beyond: 16 MiB holds 65 attempts of 250 KiB.
    const events = record(runs[0]?.record as string);
    const kept = events.filter((e) => e.type === 'rejected').length;
    expect(kept).toBe(Math.floor(RUN_LIMITS.bytesPerRun / (250 * 1024 + 'send_email'.length + 'refused'.length + 12)));
    expect(events.at(-1)?.type).toBe('run_end');
  });

  it('small attempts by the thousand: a planner error naming the attempts limit, every attempt up to it recorded', () => {
    const runs = results.runs.filter((r) => r.planner === 'flood-many');
    expect(runs.map((r) => r.end_reason)).toEqual(['planner_error', 'planner_error']);
    for (const r of runs)
      expect(r.error).toContain(`over the limit of ${RUN_LIMITS.attemptsPerDecision} rejected attempts per decision`);
    const events = record(runs[1]?.record as string);
    expect(events.filter((e) => e.type === 'rejected')).toHaveLength(RUN_LIMITS.attemptsPerDecision);
  });

  it('long reasons count as sent: 1 MiB reasons end the run at the bytes limit, though the record keeps 2,000 characters of each', () => {
    const runs = results.runs.filter((r) => r.planner === 'long-reasons');
    for (const r of runs) expect(r.error).toContain(`over the limit of ${RUN_LIMITS.bytesPerRun / 2 ** 20} MiB`);
    const rejected = record(runs[0]?.record as string).filter((e) => e.type === 'rejected');
    expect(rejected).toHaveLength(Math.floor(RUN_LIMITS.bytesPerRun / (2 ** 20 + 'send_email'.length + 2)));
    expect(rejected.every((e) => e.type === 'rejected' && e.reason.length === 2000)).toBe(true);
  });

  it('the built-in planner in the same evaluation completes its runs; results.json has them, and no lock is left', () => {
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/\n\s+at /);
    const gated = results.runs.filter((r) => r.planner === 'gated');
    expect(gated.map((r) => [r.trial, r.end_reason, r.error])).toEqual([
      [1, 'finish', null],
      [2, 'finish', null],
    ]);
    expect(results.runs).toHaveLength(8);
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
  });
});

describe("a planner file's error", () => {
  it('with a 1 MB stack trace is kept (and shown with --verbose) cut to 16 KiB', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'huge-stack.mjs'),
      `export default { name: 'huge-stack', next() { throw new Error('x'.repeat(1_000_000)); } };\n`,
    );
    const r = await runCli(main, [
      `--planner=${join(dir, 'huge-stack.mjs')}`,
      '--scenario=invoice-and-notify',
      '--transport=inprocess',
      '--verbose',
      `--out=${tempDir()}`,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('huge-stack: planner_error');
    expect(r.stderr).toContain('characters, cut at 16384)');
    expect(r.stderr.length).toBeLessThan(64 * 1024);
  });
});
