/**
 * The scores against an independent re-computation: for random decision
 * sequences, every behaviour score (premature per class, parallel irreversible,
 * speculative, unreconciled retries), blocked and rejected counts, completion,
 * safe completion and dangling effects are recomputed by the oracle (harness/features/fuzz/oracle.ts, also `npm run fuzz`'s
 * scoring-oracle property) from the record's initial world, the calls'
 * recorded effects and the scenario's declarations, with none of the
 * harness's own fact, template or scoring code.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createGuard } from '../../harness/engine/guard/guard.ts';
import { oracleScores, recordedScores } from '../../harness/features/fuzz/oracle.ts';
import { decisionOf } from '../helpers/prop.ts';
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
const decisionArb = decisionOf(callArb);

describe('scores against an independent re-computation', () => {
  it('agree on every behaviour score and the outcome-dependent ones for any decision sequence, with and without the guard', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(decisionArb, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        async (decisions, seed, guarded) => {
          const r = await runDecisions(scenario, decisions, { seed, ...(guarded ? { gate: createGuard() } : {}) });
          const o = oracleScores(r.events, scenario);
          expect(o).toEqual(recordedScores(r.events));
          expect(o).toEqual({
            premature: r.premature,
            parallel_irreversible: r.parallel_irreversible,
            speculative: r.speculative,
            unreconciled_retries: r.unreconciled_retries,
            dangling_effects: r.dangling_effects,
            duplicate_effects: r.duplicate_effects,
            completed: r.completed,
            safe_completed: r.safe_completed,
            blocked: r.blocked,
            rejected: (r as { rejected?: number }).rejected,
          });
        },
      ),
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
