/**
 * One function computes both the dangling score and recover's open effects: for
 * any run that did not complete, the dangling count equals the checklist's open
 * irreversible and compensable items, and for any run the checklist's
 * compensated/compensating pairs are the ledger's.
 */
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planArbitrary } from '../../harness/features/fuzz/arbitraries.ts';
import { runPlan } from '../../harness/features/fuzz/run-plan.ts';
import { loadScenarioFile } from '../../harness/engine/loader/load.ts';
import type { CallEvent, RunEndEvent, RunStartEvent } from '../../harness/core/record.ts';
import { buildChecklist } from '../../harness/features/recover/checklist.ts';

const scenario = (rel: string) => {
  const l = loadScenarioFile(fileURLToPath(new URL(`../../scenarios/${rel}`, import.meta.url)));
  if (!l.ok) throw new Error(l.problems.map((p) => p.message).join('\n'));
  return l.value.scenario;
};

const SCENARIOS = [
  'billing/invoice-and-notify.yaml',
  'payments/small-refund-gateway-timeout.yaml',
  'billing/void-and-reissue-wrong-invoice.yaml',
  'integrations/webhook-timeout-reconcile.yaml',
].map(scenario);
const OPEN = new Set(['compensate', 'compensate_with_approval', 'respond']);

describe('dangling effects and the recovery checklist', () => {
  it.each(SCENARIOS.map((s) => [s.id, s] as const))('agree on %s under generated plans (property)', async (_id, s) => {
    let withDangling = 0;
    await fc.assert(
      fc.asyncProperty(planArbitrary(s, { maxItems: 6 }), fc.nat({ max: 1000 }), async (plan, seed) => {
        const run = await runPlan(s, plan, { seed });
        const start = run.events.find((e): e is RunStartEvent => e.type === 'run_start');
        const end = run.events.find((e): e is RunEndEvent => e.type === 'run_end');
        if (!start || !end) throw new Error('incomplete record');
        const calls = run.events.filter((e): e is CallEvent => e.type === 'call');
        const checklist = buildChecklist({ file: 'mem', start, calls, end, events: run.events, warnings: [] }, s);
        const open = checklist.items.filter(
          (i) => OPEN.has(i.action) && (i.class === 'irreversible' || i.class === 'compensable'),
        );
        expect(run.dangling_effects).toBe(end.completed ? 0 : open.length);
        if (run.dangling_effects > 0) withDangling++;
      }),
      { numRuns: 40, seed: 42 },
    );
    // Not vacuous: the generated plans do leave effects behind.
    expect(withDangling).toBeGreaterThan(0);
  });
});
