/**
 * An evaluation holds each finished run's scores in memory and the rest of it on disk
 * (results/run-store.ts): results.json written from what is held is byte for byte the one written
 * from the whole runs, the runs come back whole (same keys, same order, same values), a run whose
 * text holds a secret never goes to disk, and the scratch file leaves nothing behind.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunStore } from '../../harness/engine/results/run-store.ts';
import type { RunResult } from '../../harness/engine/results/types.ts';
import { writeResults } from '../../harness/engine/results/write.ts';
import { registerSecret, resetSecrets } from '../../harness/util/secrets.ts';
import { tempDir } from '../helpers/cli.ts';
import { resultsOf, runResult } from '../helpers/results.ts';

const finding = (step: number, message: string): RunResult['findings'][number] => ({
  kind: 'premature',
  step,
  tool: 'refund',
  class: 'irreversible',
  message,
});

/** Runs of two planners on 300 scenarios: some with findings (escapes, non-ASCII), some with usage or an error. */
function someRuns(): RunResult[] {
  const runs: RunResult[] = [];
  for (let s = 0; s < 300; s++)
    for (const planner of ['eager', 'gated']) {
      const run = runResult({ planner, scenario: `s${s}`, trial: 1, completed: s % 3 !== 0 });
      if (s % 2 === 0) run.findings = [finding(1, `step 1: "refund" before ${'é→'.repeat(s % 5)}\\ confirmation`)];
      if (s % 7 === 0) run.usage = { prompt_tokens: s, completion_tokens: 2, estimated_cost_usd: 0.125 };
      if (s % 11 === 0) run.error = `Error: planner failed on s${s}\nat line 2`;
      runs.push(run);
    }
  return runs;
}

const scenarios = Array.from({ length: 300 }, (_, s) => `s${s}`);
const opts = { planners: ['eager', 'gated'], scenarios, trials: 1, guard: false, baselinePlanner: 'eager' };

afterEach(() => resetSecrets());

describe('the runs an evaluation holds', () => {
  it('writes results.json from the held runs byte for byte as from the whole runs, and gives the runs back whole', () => {
    const runs = someRuns();
    const dir = tempDir('oneway-run-store-');
    const store = new RunStore(dir);
    try {
      const rows = runs.map((r) => store.hold(r));
      // In memory: the scores; findings and record are on disk.
      expect(rows.every((r, i) => r !== runs[i] && r.findings.length === 0 && r.record === '')).toBe(true);
      expect(rows.map((r) => Object.keys(r))).toEqual(runs.map((r) => Object.keys(r)));

      const whole = resultsOf(runs, opts);
      const held = resultsOf(rows, opts);
      // The summary and comparisons read only what is held.
      expect(held.summary).toEqual(whole.summary);
      expect(held.comparisons).toEqual(whole.comparisons);
      writeResults(join(dir, 'whole'), whole);
      writeResults(join(dir, 'held'), held, store.textOf);
      const text = readFileSync(join(dir, 'held', 'results.json'), 'utf8');
      expect(text).toBe(readFileSync(join(dir, 'whole', 'results.json'), 'utf8'));
      expect(text).toBe(`${JSON.stringify(whole, null, 2)}\n`);

      const back = rows.map((r) => store.whole(r));
      expect(back).toStrictEqual(runs);
      expect(back.map((r) => Object.keys(r))).toEqual(runs.map((r) => Object.keys(r)));
      // The scratch file was removed as soon as it was open: nothing of it in the directory.
      expect(readdirSync(dir).sort()).toEqual(['held', 'whole']);
    } finally {
      store.close();
    }
  });

  it('keeps a run whose text holds a secret whole in memory, never on disk', () => {
    registerSecret('sk-canary-1234567890', 'CANARY_KEY');
    const dir = tempDir('oneway-run-store-');
    const store = new RunStore(dir);
    try {
      const plain = runResult({ planner: 'eager', scenario: 'a', trial: 1 });
      const secret = runResult({ planner: 'eager', scenario: 'b', trial: 1 });
      secret.findings = [finding(2, 'step 2: refund with key sk-canary-1234567890')];
      expect(store.hold(secret)).toBe(secret);
      expect(store.textOf(secret)).toBeUndefined();
      const row = store.hold(plain);
      expect(row).not.toBe(plain);
      expect(store.whole(row)).toStrictEqual(plain);
    } finally {
      store.close();
    }
  });

  it('holds runs whole when it has nowhere to write them, and the results are the same', () => {
    const runs = someRuns().slice(0, 40);
    const store = new RunStore(join(tempDir('oneway-run-store-'), 'no', 'such', 'dir'));
    const rows = runs.map((r) => store.hold(r));
    expect(rows.every((r, i) => r === runs[i])).toBe(true);
    expect(rows.map((r) => store.whole(r))).toStrictEqual(runs);
    store.close();
  });
});
