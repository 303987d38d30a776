import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzzScenario } from '../../harness/features/fuzz/fuzz.ts';
import { planArbitrary, planCallCount } from '../../harness/features/fuzz/arbitraries.ts';
import { rollBack } from '../../harness/features/fuzz/rollback.ts';
import {
  DEFAULT_PROPERTIES,
  BUILTIN_PROPERTIES,
  determinism,
  guardSoundness,
  sameJson,
  rollbackCompleteness,
  scoringOracle,
  sealHolds,
  transportEquivalence,
  type PropertyContext,
} from '../../harness/features/fuzz/properties.ts';
import { runPlan, runPlanner } from '../../harness/features/fuzz/run-plan.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import type { RecordEvent } from '../../harness/core/record.ts';
import { auditFact, bundled, changedField, notes } from './fixtures.ts';

const byName = (names: readonly string[]) => BUILTIN_PROPERTIES.filter((p) => names.includes(p.name));

/** A context over a fixed run, for checking a property against a hand-made record. */
function contextFor(events: RecordEvent[], extra: Partial<PropertyContext> = {}): PropertyContext {
  return {
    scenario: notes,
    run: { events, received: null },
    guarded: true,
    transport: 'inprocess',
    rerun: async () => ({ events, received: null }),
    ...extra,
  };
}

describe('rollback-completeness', () => {
  it.each([
    ['restores the row with a changed field', changedField, /restored_by/],
    ['leaves an audit fact', auditFact, /fact note_restored\(note=n1\) holds, but did not before the run/],
  ])(
    'catches a reversible tool whose undo %s, with a counterexample of at most two calls',
    async (_what, scenario, message) => {
      const report = await fuzzScenario({ scenario, properties: [rollbackCompleteness], runs: 100, seed: 1 });
      expect(report.failures).toHaveLength(1);
      const [f] = report.failures;
      expect(f?.property).toBe('rollback-completeness');
      expect(f?.message).toMatch(message);
      expect(planCallCount(f?.plan ?? [])).toBeGreaterThan(0);
      expect(planCallCount(f?.plan ?? [])).toBeLessThanOrEqual(2);
      // The counterexample fails on its own, with the seed it was found with.
      const run = await runPlan(scenario, f?.plan ?? [], { seed: f?.seed ?? 0 });
      expect(rollBack(run.events, scenario).status).toBe('differs');
    },
  );

  it('holds for a soft delete whose restore is exact, whatever the plan', async () => {
    const report = await fuzzScenario({ scenario: notes, properties: [rollbackCompleteness], runs: 150, seed: 3 });
    expect(report.failures).toEqual([]);
    expect(report.plans).toBe(150);
    // The plans do reach reversible effects: most roll something back.
    const rolledBack = await Promise.all(
      fc
        .sample(fc.tuple(planArbitrary(notes), fc.nat(1000)), { numRuns: 60, seed: 3 })
        .map(async ([plan, seed]) => rollBack((await runPlan(notes, plan, { seed })).events, notes)),
    );
    expect(rolledBack.filter((r) => r.status === 'restored' && r.compensations.length > 0).length).toBeGreaterThan(20);
  });

  it('restores the world after archive and restore, and leaves read-only facts out of the comparison', async () => {
    const run = await runPlan(notes, [
      { list_notes: {} },
      { archive_note: { note: 'n1' } },
      { archive_note: { note: 'n2' } },
    ]);
    const r = rollBack(run.events, notes);
    expect(r).toEqual({
      status: 'restored',
      compensations: [
        { tool: 'restore_note', args: { note: 'n2' } },
        { tool: 'restore_note', args: { note: 'n1' } },
      ],
    });
  });

  it('does not undo an update that changed nothing', async () => {
    // Restoring a live note changes nothing; undoing it with archive_note would.
    const run = await runPlan(notes, [{ restore_note: { note: 'n1' } }]);
    expect(rollBack(run.events, notes)).toEqual({ status: 'restored', compensations: [] });
  });

  it('does not apply when a compensable or irreversible effect changed the world', async () => {
    const irreversible = {
      ...notes,
      tools: notes.tools.map((t) =>
        t.name === 'restore_note' ? { ...t, reversibility: 'irreversible' as const, compensating_operation: null } : t,
      ),
    };
    const run = await runPlan(irreversible, [{ restore_note: { note: 'n3' } }]);
    expect(rollBack(run.events, irreversible).status).toBe('not_applicable');
  });
});

describe('guard-soundness', () => {
  it('holds through the guard for the eager and random planners across seeds', async () => {
    const loaded = [
      'invoice-and-notify',
      'webhook-timeout-reconcile',
      'release-with-migration',
      'purge-inactive-accounts-no-pitr',
    ].map((id) => ({ scenario: bundled(id) }));
    for (const name of ['eager', 'random']) {
      const planner = await loadPlanner(name, process.cwd());
      for (const { scenario } of loaded) {
        const report = await fuzzScenario({
          scenario,
          properties: [guardSoundness],
          runs: name === 'random' ? 8 : 2,
          seed: 1,
          planner,
          guard: true,
        });
        expect(report.failures, `${name} on ${scenario.id}`).toEqual([]);
      }
    }
    // The guard had something to do: eager reaches for irreversible tools too early, and is blocked.
    const eager = await loadPlanner('eager', process.cwd());
    const run = await runPlanner(bundled('invoice-and-notify'), eager, { guard: true });
    expect(run.blocked).toBeGreaterThan(0);
    expect(run.premature.irreversible).toBeGreaterThan(0);
  });

  it('fails on a run in which a premature irreversible call reached the sandbox', async () => {
    const received = [
      {
        tool: 'send_email',
        args: { to: 'x@y' },
        class: 'irreversible' as const,
        missing: ['recipient_verified(email=x@y)'],
        batch_size: 1,
      },
    ];
    const v = await guardSoundness.check({ ...contextFor([]), run: { events: [], received } });
    expect(v).toMatch(
      /premature irreversible call reached the sandbox through the guard: send_email\(to=x@y\), missing recipient_verified/,
    );
  });

  it('does not run a plan that calls no irreversible tool again', async () => {
    const run = await runPlan(notes, [{ archive_note: { note: 'n1' } }]);
    const ctx = contextFor(run.events, {
      guarded: false,
      plan: [{ archive_note: { note: 'n1' } }],
      rerun: () => Promise.reject(new Error('ran again')),
    });
    expect(await guardSoundness.check(ctx)).toBe(true);
  });

  it('runs the plan again through the guard when the run under test was not guarded', async () => {
    const asked: unknown[] = [];
    const v = await guardSoundness.check(
      contextFor([], {
        guarded: false,
        rerun: async (change) => {
          asked.push(change);
          return { events: [], received: [] };
        },
      }),
    );
    expect(v).toBe(true);
    expect(asked).toEqual([{ guard: true }]);
  });
});

describe('the other built-in properties', () => {
  it('hold on generated plans for a bundled scenario, over HTTP as in process', async () => {
    const scenario = bundled('webhook-timeout-reconcile');
    const report = await fuzzScenario({
      scenario,
      properties: byName(['scoring-oracle', 'determinism', 'seal', 'transport-equivalence']),
      runs: 15,
      seed: 5,
    });
    expect(report.failures).toEqual([]);
  });

  it('scoring-oracle names the figure on which record and oracle disagree', async () => {
    const run = await runPlan(notes, [{ archive_note: { note: 'n1' } }]);
    const tampered = run.events.map((e) =>
      e.type === 'run_end'
        ? {
            ...e,
            metrics: { ...e.metrics, premature: { ...(e.metrics.premature as Record<string, number>), reversible: 0 } },
          }
        : e,
    );
    expect(await scoringOracle.check(contextFor(run.events))).toBe(true);
    expect(await scoringOracle.check(contextFor(tampered))).toBe('premature reversible: record 0, oracle 1');
  });

  it('determinism and transport-equivalence show where two records part', async () => {
    const run = await runPlan(notes, [{ list_notes: {} }]);
    const other = run.events.map((e) => (e.type === 'call' ? { ...e, latency_ms: e.latency_ms + 1 } : e));
    const ctx = contextFor(run.events, { rerun: async () => ({ events: other, received: null }) });
    expect(await determinism.check(ctx)).toMatch(/^two runs with the same seed differ: event 3 \(call\) differs/);
    expect(await transportEquivalence.check(ctx)).toMatch(/^inprocess and msw records differ: event 3 \(call\)/);
  });

  it('compare records as JSON text would, without building it', () => {
    expect(sameJson({ a: 1, b: [1, { c: null }] }, { a: 1, b: [1, { c: null }] })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
  });

  it('seal counts escapes from the record', async () => {
    const run = await runPlan(notes, [{ list_notes: {} }]);
    expect(await sealHolds.check(contextFor(run.events))).toBe(true);
    const escaped: RecordEvent[] = [
      ...run.events,
      { type: 'escape', t_ms: 0, method: 'GET', url: 'https://example.com/', reason: 'no tool serves this request' },
    ];
    expect(await sealHolds.check(contextFor(escaped))).toMatch(/^1 sandbox escape: GET https:\/\/example.com\//);
  });

  it('are checked by default, except transport-equivalence', () => {
    expect(DEFAULT_PROPERTIES).toEqual([
      'scoring-oracle',
      'guard-soundness',
      'rollback-completeness',
      'determinism',
      'seal',
    ]);
  });
});
