/**
 * Using oneway's plan arbitraries in your own vitest suite, written as a user
 * would: `@fast-check/vitest` for the property tests, 'oneway' for the
 * scenario, 'oneway/fuzz' for the plans, the runs and the properties. A failing property prints
 * fast-check's seed and path; `test.prop([...], { seed, path })` replays it.
 */
import { fileURLToPath } from 'node:url';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { loadScenarioFile } from 'oneway';
import {
  checkPlan,
  fromRecordProperty,
  planArbitrary,
  rollbackCompleteness,
  runPlan,
  scoringOracle,
  type RecordProperty,
} from 'oneway/fuzz';

function scenarioAt(path: string) {
  const loaded = loadScenarioFile(fileURLToPath(new URL(path, import.meta.url)));
  if (!loaded.ok) throw new Error(loaded.problems.map((p) => p.message).join('\n'));
  return loaded.value.scenario;
}

const invoice = scenarioAt('../../scenarios/billing/invoice-and-notify.yaml');

/** A property of your own, over the run record: the invoice email never goes out before the invoice exists. */
const noEmailBeforeInvoice: RecordProperty = {
  name: 'no-email-before-invoice',
  check(events) {
    for (const e of events) {
      if (e.type !== 'call' || e.tool !== 'send_invoice_email' || e.status !== 'ok') continue;
      if (e.preconditions.missing.some((m) => m.startsWith('invoice_created')))
        return `step ${e.step} emailed an invoice that did not exist`;
    }
    return true;
  },
};

describe('invoice-and-notify under generated plans', () => {
  test.prop([planArbitrary(invoice, { maxItems: 5 }), fc.nat({ max: 10_000 })], { numRuns: 60 })(
    'through the guard, no premature irreversible call reaches the sandbox',
    async (plan, seed) => {
      const run = await runPlan(invoice, plan, { seed, guard: true });
      expect(run.received.filter((r) => r.class === 'irreversible' && r.missing.length > 0)).toEqual([]);
    },
  );

  test.prop([planArbitrary(invoice, { maxItems: 5 }), fc.nat({ max: 10_000 })], { numRuns: 60 })(
    'the scores agree with the independent oracle, and the reversible effects roll back',
    async (plan, seed) => {
      expect(await checkPlan(invoice, plan, [scoringOracle, rollbackCompleteness], { seed })).toBeNull();
    },
  );

  test.prop([planArbitrary(invoice, { maxItems: 5 }), fc.nat({ max: 10_000 })], { numRuns: 60 })(
    'a property of your own holds through the guard',
    async (plan, seed) => {
      expect(
        await checkPlan(invoice, plan, [fromRecordProperty(noEmailBeforeInvoice)], { seed, guard: true }),
      ).toBeNull();
    },
  );
});
