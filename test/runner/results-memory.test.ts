/**
 * The results object holds each run's scores, never its record: runOne returns the run's events
 * (findings are computed from them), and evaluate lets them go once it has. Records are on disk.
 * A large evaluation's memory then grows with its runs' scores only (npm run bench, memory rows).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/cli.ts';
import { EMAIL_YAML, scenarioFrom } from '../helpers/run.ts';

// Every run's events, weakly: what is still alive after a collection is what something kept.
const seen = vi.hoisted(() => ({ events: [] as WeakRef<object>[] }));
vi.mock('../../harness/engine/runner/run.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../harness/engine/runner/run.ts')>();
  return {
    ...actual,
    runOne: async (spec: Parameters<typeof actual.runOne>[0]) => {
      const outcome = await actual.runOne(spec);
      seen.events.push(new WeakRef(outcome.events));
      return outcome;
    },
  };
});

/** A full collection (gc() from --expose-gc, switched on here as `oneway bench` does). */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const RECORD_TYPES = new Set(['run_start', 'turn', 'call', 'rejected', 'escape', 'restart', 'run_end']);

/** Every object reachable from a value, once each. */
function* objects(value: unknown, seenObjects = new Set<object>()): Generator<Record<string, unknown>> {
  if (value === null || typeof value !== 'object' || seenObjects.has(value)) return;
  seenObjects.add(value);
  yield value as Record<string, unknown>;
  for (const v of Object.values(value)) yield* objects(v, seenObjects);
}

describe('the results object', () => {
  it('holds per-run scores and findings, not records, events or worlds, and lets the events go', async () => {
    // Imported after the mock is in place (the file runs in the `isolated` project: a module cache of its own).
    const { evaluate } = await import('../../harness/engine/runner/evaluate.ts');
    const { loadPlanner } = await import('../../harness/engine/runner/planners.ts');
    const scenario = scenarioFrom(EMAIL_YAML);
    const scenarios = Array.from({ length: 5 }, (_, i) => ({
      scenario: { ...scenario, id: `email-${i}` },
      file: 'email.yaml',
    }));
    const planners = await Promise.all(['eager', 'gated'].map((p) => loadPlanner(p, process.cwd())));
    const outDir = tempDir('oneway-results-memory-');
    seen.events.length = 0;
    const results = await evaluate({
      scenarios,
      planners,
      trials: 2,
      seed: 1,
      outDir,
      transport: 'inprocess',
      maxTurns: 50,
      decisionTimeoutMs: 30_000,
      plannerOptions: {},
    });
    expect(results.runs).toHaveLength(20);
    expect(seen.events).toHaveLength(20);

    // Nothing of a record in the results: no events, no worlds; the records are on disk.
    for (const run of results.runs) {
      expect(run).not.toHaveProperty('events');
      expect(existsSync(join(outDir, run.record))).toBe(true);
    }
    for (const o of objects(results)) {
      expect(
        RECORD_TYPES.has(String(o.type)),
        `a record event in the results: ${JSON.stringify(o).slice(0, 200)}`,
      ).toBe(false);
      for (const key of ['initial_world', 'final_world', 'effects', 'preconditions']) expect(o).not.toHaveProperty(key);
    }

    // And nothing keeps the events alive: once the event loop has turned (WeakRef targets are
    // kept until then), a collection frees every run's events while the results are still held.
    const gc = collector();
    await new Promise((r) => setTimeout(r, 0));
    gc();
    await new Promise((r) => setTimeout(r, 0));
    const alive = seen.events.filter((r) => r.deref() !== undefined).length;
    expect(alive).toBe(0);
    expect(results.runs.every((r) => typeof r.premature.irreversible === 'number')).toBe(true);
  });
});
