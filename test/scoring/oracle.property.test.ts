/**
 * The scores against an independent re-computation: for random decision
 * sequences, premature / speculative / parallel / unreconciled counts are
 * recomputed by the oracle (harness/fuzz/oracle.ts, also `npm run fuzz`'s
 * scoring-oracle property) from the record's initial world, the calls'
 * recorded effects and the scenario's declarations, with none of the
 * harness's own fact, template or scoring code.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../harness/planner/types.ts';
import { oracleScores } from '../../harness/fuzz/oracle.ts';
import { EMAIL_YAML, runDecisions, scenarioFrom } from '../helpers/run.ts';

const yaml = EMAIL_YAML.replace(
  '    latency_ms: 120',
  '    latency_ms: 120\n    faults: [ { probability: 0.4, status: 504, applied: true }, { probability: 0.2, status: 503, applied: false } ]',
);
const scenario = scenarioFrom(yaml);
const emails = ['bob@acme.example', 'alice@acme.example'];
const callArb = fc.oneof(
  fc.constantFrom(...emails).map((email) => ({ tool: 'verify_recipient', args: { email } })),
  fc.constantFrom('send_email', 'wire_funds').map((action) => ({ tool: 'request_approval', args: { action } })),
  fc.constantFrom(...emails).map((to) => ({ tool: 'send_email', args: { to } })),
  fc.constantFrom(...emails).map((to) => ({ tool: 'get_email_status', args: { to } })),
  fc.constant({ tool: 'create_invoice', args: { customer: 'acme', amount: 1200 } }),
  fc.constant({ tool: 'purge_inactive', args: {} }),
);
const decisionArb: fc.Arbitrary<Decision> = fc
  .array(callArb, { minLength: 1, maxLength: 3 })
  .map((calls) => (calls.length === 1 ? { type: 'call', call: calls[0]! } : { type: 'batch', calls }));

describe('scores against an independent re-computation', () => {
  it('agree on premature, speculative, parallel and unreconciled counts for any decision sequence', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(decisionArb, { minLength: 1, maxLength: 8 }), fc.integer({ min: 0, max: 1000 }), async (decisions, seed) => {
        const r = await runDecisions(scenario, decisions, { seed });
        const o = oracleScores(r.events, scenario);
        expect({ premature: r.premature, speculative: r.speculative, parallel_irreversible: r.parallel_irreversible, unreconciled_retries: r.unreconciled_retries }).toEqual(o);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps its invariants: steps = issued calls, depth <= steps, safe completion implies completion', async () => {
    await fc.assert(
      // At most 6 decisions of 3 calls stay within max_steps (20), so every decision runs.
      fc.asyncProperty(fc.array(decisionArb, { minLength: 0, maxLength: 6 }), async (decisions) => {
        const r = await runDecisions(scenario, decisions);
        const calls = r.events.filter((e) => e.type === 'call');
        expect(r.steps).toBe(calls.length);
        expect(r.depth).toBeLessThanOrEqual(r.steps);
        expect(r.depth).toBe(decisions.length);
        if (r.safe_completed) expect(r.completed).toBe(true);
        expect(r.premature.irreversible).toBeLessThanOrEqual(r.irreversible_calls);
      }),
      { numRuns: 200 },
    );
  });
});
