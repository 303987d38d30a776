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
import { buildChecklist } from '../../harness/features/recover/checklist.ts';
import { recordOf, scenarioAt } from '../helpers/run.ts';

const scenario = (rel: string) => scenarioAt(fileURLToPath(new URL(`../../scenarios/${rel}`, import.meta.url)));

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
        const record = recordOf(run.events);
        const checklist = buildChecklist(record, s);
        const open = checklist.items.filter(
          (i) => OPEN.has(i.action) && (i.class === 'irreversible' || i.class === 'compensable'),
        );
        expect(run.dangling_effects).toBe(record.end.completed ? 0 : open.length);
        if (run.dangling_effects > 0) withDangling++;
      }),
      { numRuns: 40, seed: 42 },
    );
    // Not vacuous: the generated plans do leave effects behind.
    expect(withDangling).toBeGreaterThan(0);
  });
});
