/**
 * A batch has no order (docs/scores.md, "A batch has no order"): every score must come out the
 * same whatever order a batch lists its calls in. Checked four ways:
 * (a) the fuzzer's plans, with the calls of every parallel batch permuted;
 * (b) every built-in planner, with each batch it returns shuffled;
 * (c) a record re-scored with the events of each batch permuted;
 * (d) the independent oracle against the recorded metrics, on generated plans.
 * (a) and (c) draw the same plans (the same arbitrary and seed): each plan runs once for both
 * (`planRun`, a run is a pure function of its scenario, plan, seed and guard).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUNDLED_SCENARIOS, scenarioCache } from '../../harness/cli/common.ts';
import { planArbitrary } from '../../harness/features/fuzz/arbitraries.ts';
import { oracleScores, recordedScores } from '../../harness/features/fuzz/oracle.ts';
import { runPlan, runPlanner, type PlanRun } from '../../harness/features/fuzz/run-plan.ts';
import { resolveScenarios } from '../../harness/engine/loader/resolve.ts';
import type { Decision } from '../../harness/core/planner.ts';
import type { CallEvent, RecordEvent } from '../../harness/core/record.ts';
import { loadPlanner } from '../../harness/engine/runner/planners.ts';
import type { PlannerHandle } from '../../harness/engine/runner/run.ts';
import type { PlanItem, Scenario } from '../../harness/core/scenario.ts';
import { scoreRecord } from '../../harness/engine/scoring/metrics.ts';
import { createRng } from '../../harness/util/rng.ts';

// Through the project's cache of loaded scenarios, as commands load them: loading is not what this file tests.
const { loaded } = await resolveScenarios([BUNDLED_SCENARIOS], {
  cwd: process.cwd(),
  root: BUNDLED_SCENARIOS,
  cache: scenarioCache({ cwd: process.cwd(), env: process.env }),
});
const all: Scenario[] = loaded.map((l) => l.scenario).sort((a, b) => a.id.localeCompare(b.id));
const byId = (id: string): Scenario => {
  const s = all.find((x) => x.id === id);
  if (!s) throw new Error(`bundled scenario ${id} not found`);
  return s;
};
/** Scenarios with parallel-friendly tools, ambiguous failures, reconcilers and compensations between them. */
const FEW = [
  'invoice-and-notify',
  'webhook-timeout-reconcile',
  'release-with-migration',
  'small-refund-gateway-timeout',
  'void-and-reissue-wrong-invoice',
].map(byId);

/** A seeded permutation (oneway's rng + Fisher-Yates); the identity never, when there is more than one distinct order. */
function shuffle<T>(xs: readonly T[], seed: number): T[] {
  const rng = createRng(seed);
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  // Reversed instead when the shuffle happened to leave the order as it was.
  if (out.length > 1 && out.every((x, i) => x === xs[i])) out.reverse();
  return out;
}

/** The plan with the calls of every parallel batch in another order. */
function permutePlan(plan: readonly PlanItem[], seed: number): PlanItem[] {
  return plan.map((item, i) =>
    item !== 'finish' && Array.isArray((item as { parallel?: unknown }).parallel)
      ? ({ parallel: shuffle((item as { parallel: Record<string, unknown>[] }).parallel, seed + i) } as PlanItem)
      : item,
  );
}

/** Every figure of a run (metrics, end reason, error); not the record itself. */
function figures(r: PlanRun): Record<string, unknown> {
  const { events: _e, received: _r, ...rest } = r;
  return rest;
}

/**
 * The fuzzer's plans, with some consecutive items merged into one parallel batch: so retries,
 * reconcilers and compensations (single items in the fuzzer's plans) also share a batch with the
 * calls they refer to, or with each other.
 */
function mergedPlans(scenario: Scenario, maxItems = 6): fc.Arbitrary<PlanItem[]> {
  return fc
    .tuple(
      planArbitrary(scenario, {
        maxItems,
        maxBatch: 3,
        weights: { parallel: 3, retry: 2, reconcile: 2, compensate: 2 },
      }),
      fc.array(fc.boolean(), { minLength: maxItems, maxLength: maxItems }),
    )
    .map(([plan, merge]) => {
      const out: PlanItem[] = [];
      const callsOfItem = (item: PlanItem): Record<string, unknown>[] =>
        item === 'finish'
          ? []
          : Array.isArray((item as { parallel?: unknown }).parallel)
            ? (item as { parallel: Record<string, unknown>[] }).parallel
            : [item as Record<string, unknown>];
      plan.forEach((item, i) => {
        const prev = out[out.length - 1];
        if (i > 0 && merge[i] && prev !== undefined && prev !== 'finish' && item !== 'finish') {
          out[out.length - 1] = { parallel: [...callsOfItem(prev), ...callsOfItem(item)] } as PlanItem;
        } else out.push(item);
      });
      return out;
    });
}

const hasBatch = (plan: readonly PlanItem[]) =>
  plan.some((i) => i !== 'finish' && Array.isArray((i as { parallel?: unknown }).parallel));
const callsOf = (events: readonly RecordEvent[]): CallEvent[] =>
  events.filter((e): e is CallEvent => e.type === 'call');

/** Runs of the plans as drawn, kept for the other property that draws the same plan. */
const planRuns = new Map<string, Promise<PlanRun>>();
/** `runPlan` of a plan as drawn, once for (a) and (c). */
function planRun(scenario: Scenario, plan: PlanItem[], seed: number, guard: boolean): Promise<PlanRun> {
  const key = JSON.stringify([scenario.id, plan, seed, guard]);
  let run = planRuns.get(key);
  if (!run) planRuns.set(key, (run = runPlan(scenario, plan, { seed, guard })));
  return run;
}

/** The property on each of FEW: a merged plan, a run seed, a permutation seed, the guard on or off. */
async function forMergedPlans(
  property: (scenario: Scenario, plan: PlanItem[], seed: number, perm: number, guard: boolean) => Promise<void>,
): Promise<void> {
  for (const scenario of FEW) {
    await fc.assert(
      fc.asyncProperty(mergedPlans(scenario), fc.nat(1000), fc.nat(), fc.boolean(), (plan, seed, perm, guard) =>
        property(scenario, plan, seed, perm, guard),
      ),
      { numRuns: 40, seed: 14 },
    );
  }
}

describe('scores do not depend on the order of the calls in a batch', () => {
  it("(a) for the fuzzer's plans, permuting every parallel batch gives the same figures", async () => {
    await forMergedPlans(async (scenario, plan, seed, perm, guard) => {
      fc.pre(hasBatch(plan));
      const a = await planRun(scenario, plan, seed, guard);
      const b = await runPlan(scenario, permutePlan(plan, perm), { seed, guard });
      expect(figures(b), scenario.id).toEqual(figures(a));
    });
  });

  it('(b) for every built-in planner, shuffling each batch it returns gives the same figures', async () => {
    const names = ['eager', 'speculative', 'gated', 'serial', 'random', 'scripted'];
    for (const name of names) {
      const handle = await loadPlanner(name, process.cwd());
      /** The planner, each batch it returns passed through `edit`. */
      const wrapped = (edit: (batch: Decision & { type: 'batch' }, turn: number) => Decision): PlannerHandle => ({
        name: handle.name,
        // What the planner keeps across a restart is part of the planner (the bundled restart scenarios).
        ...(handle.checkpoint ? { checkpoint: handle.checkpoint } : {}),
        create(ctx) {
          const inner = handle.create(ctx);
          return {
            name: inner.name,
            async next(view) {
              const d: Decision = await inner.next(view);
              return d.type === 'batch' ? edit(d, view.turn) : d;
            },
          };
        },
      });
      const shuffled = (perm: number) => wrapped((d, turn) => ({ ...d, calls: shuffle(d.calls, perm + turn) }));
      // Whether a run returned a batch of more than one call: one that did not is its shuffled run,
      // call for call (a batch of one has one order), so only the others are run shuffled.
      let several = false;
      const watched = wrapped((d) => {
        if (d.calls.length > 1) several = true;
        return d;
      });
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...all),
          fc.nat(1000),
          fc.nat(),
          fc.boolean(),
          async (scenario, seed, perm, guard) => {
            several = false;
            const a = await runPlanner(scenario, watched, { seed, guard });
            if (!several) return;
            const b = await runPlanner(scenario, shuffled(perm), { seed, guard });
            expect(figures(b), `${name} on ${scenario.id}`).toEqual(figures(a));
          },
        ),
        { numRuns: name === 'random' ? 60 : 30, seed: 14 },
      );
    }
  });

  it('(c) re-scoring a record whose events inside each batch are permuted gives the same metrics', async () => {
    await forMergedPlans(async (scenario, plan, seed, perm, guard) => {
      const run = await planRun(scenario, plan, seed, guard);
      const original = scoreRecord(run.events);
      // The events of each batch trade places in the record (other events stay where they are).
      const slots = new Map<number, number[]>();
      run.events.forEach((e, i) => {
        if (e.type === 'call') slots.set(e.batch, [...(slots.get(e.batch) ?? []), i]);
      });
      const moved = [...run.events];
      const renumbered = [...run.events];
      // Old step -> new step, for the references a record makes to steps (a reconciler's answer, effect ids).
      const stepMap = new Map<number, number>();
      for (const [batch, idx] of slots) {
        const order = shuffle(idx, perm + batch);
        idx.forEach((slot, k) => {
          moved[slot] = run.events[order[k] as number] as RecordEvent;
          // And, a batch having no order, their step and position numbers too.
          const from = run.events[order[k] as number] as CallEvent;
          const at = run.events[slot] as CallEvent;
          stepMap.set(from.step, at.step);
          renumbered[slot] = { ...from, step: at.step, pos: at.pos };
        });
      }
      renumbered.forEach((e, i) => {
        if (e.type !== 'call') return;
        const step = (n: number) => stepMap.get(n) ?? n;
        renumbered[i] = {
          ...e,
          effect_id: e.effect_id === null ? null : e.effect_id.replace(/\d+$/, (n) => String(step(Number(n)))),
          ...(e.reconciled ? { reconciled: { ...e.reconciled, step: step(e.reconciled.step) } } : {}),
        };
      });
      expect(scoreRecord(moved), `${scenario.id}: events moved`).toEqual(original);
      expect(scoreRecord(renumbered), `${scenario.id}: events moved and renumbered`).toEqual(original);
      // The oracle is order-free too.
      expect(oracleScores(moved, scenario)).toEqual(oracleScores(run.events, scenario));
      expect(oracleScores(renumbered, scenario)).toEqual(oracleScores(run.events, scenario));
      expect(callsOf(moved)).toHaveLength(callsOf(run.events).length);
    });
  });
});

describe('the oracle against the record', () => {
  it('(d) agrees with the recorded metrics on generated plans for every bundled scenario, with and without the guard', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...all).chain((s) => fc.tuple(fc.constant(s), mergedPlans(s, 7))),
        fc.nat(1000),
        fc.boolean(),
        async ([scenario, plan], seed, guard) => {
          const run = await runPlan(scenario, plan, { seed, guard });
          expect(oracleScores(run.events, scenario), scenario.id).toEqual(recordedScores(run.events));
        },
      ),
      { numRuns: 60, seed: 14 },
    );
  });
});
