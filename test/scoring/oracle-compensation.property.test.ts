/**
 * The oracle and the scores agree on who compensated what when the undo of a tool is a tool of
 * another class: a reversible tool undone by an irreversible one (a staged draft purged), a
 * compensable one retracted by an irreversible one. The rule (docs/scores.md): one compensating
 * call cancels exactly one effect, and a call that compensated something is the recovery, not a
 * new effect, whatever its own class. Also a read-only irreversible tool and a denied approval
 * that would write: neither leaves an effect.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../harness/core/planner.ts';
import { oracleScores, recordedScores } from '../../harness/features/fuzz/oracle.ts';
import { decisionOf } from '../helpers/prop.ts';
import { batch, call, runDecisions, scenarioFrom } from '../helpers/run.ts';

const scenario = scenarioFrom(`
id: undo-of-another-class
title: Undos of another class
task: Stage a draft for acme and publish it.
inputs: { customer: acme }
world: { tables: { drafts: [], notices: [], holds: [] } }
approvals: { hold: deny, release: approve }
tools:
  - name: stage_draft
    reversibility: reversible
    compensating_operation: purge_draft
    compensation_args: { customer: "{{args.customer}}" }
    parameters: { type: object, properties: { customer: { type: string } }, required: [customer] }
    effects:
      - insert: { table: drafts, row: { customer: "{{args.customer}}" } }
      - establish: "staged(customer={{args.customer}})"
  - name: purge_draft
    reversibility: irreversible
    parameters: { type: object, properties: { customer: { type: string } }, required: [customer] }
    effects: [ { delete: { table: drafts, where: { customer: "{{args.customer}}" } } } ]
    faults: [ { probability: 0.2, status: 504, applied: true } ]
  - name: send_notice
    reversibility: compensable
    compensating_operation: retract_notice
    compensation_args: { customer: "{{args.customer}}" }
    parameters: { type: object, properties: { customer: { type: string } }, required: [customer] }
    effects: [ { insert: { table: notices, row: { customer: "{{args.customer}}" } } } ]
  - name: retract_notice
    reversibility: irreversible
    parameters: { type: object, properties: { customer: { type: string } }, required: [customer] }
    effects: [ { delete: { table: notices, where: { customer: "{{args.customer}}" } } } ]
  - name: read_audit
    reversibility: irreversible
    read_only: true
    parameters: { type: object, properties: {} }
  - name: request_hold
    kind: approval
    reversibility: irreversible
    parameters: { type: object, properties: { action: { type: string } }, required: [action] }
    effects: [ { insert: { table: holds, row: { action: "{{args.action}}" } } } ]
  - name: publish
    reversibility: irreversible
    preconditions: ["staged(customer={{args.customer}})"]
    parameters: { type: object, properties: { customer: { type: string } }, required: [customer] }
    effects: [ { establish: "published(customer={{args.customer}})" } ]
goal: ["published(customer={{inputs.customer}})"]
max_steps: 30
`);

const acme = { customer: 'acme' };

/** The oracle's figure and the record's, for one run of `decisions`. */
async function dangling(decisions: Decision[]): Promise<{ oracle: number; record: number | undefined }> {
  const r = await runDecisions(scenario, decisions, { seed: 3 });
  return {
    oracle: oracleScores(r.events, scenario).dangling_effects,
    record: recordedScores(r.events)?.dangling_effects,
  };
}

describe('the oracle and the scores, when an undo is a tool of another class', () => {
  it('agree, by hand: the irreversible purge that undid a staged draft is the recovery, not a dangling effect', async () => {
    // Seed 3 draws no fault for these calls; the run does not complete (nothing is published).
    expect(await dangling([call('stage_draft', acme), call('purge_draft', acme)])).toEqual({ oracle: 0, record: 0 });
    // A second purge has nothing left to undo: it is an irreversible call of its own, and it dangles.
    expect(await dangling([call('stage_draft', acme), call('purge_draft', acme), call('purge_draft', acme)])).toEqual({
      oracle: 1,
      record: 1,
    });
    // In the same batch as the draft, the purge undoes nothing (an undo comes in a later batch): 1.
    expect(await dangling([batch(['stage_draft', acme], ['purge_draft', acme])])).toEqual({ oracle: 1, record: 1 });
    // A compensable notice retracted by an irreversible call: both gone.
    expect(await dangling([call('send_notice', acme), call('retract_notice', acme)])).toEqual({ oracle: 0, record: 0 });
    // A read-only irreversible tool, and an approval the human denied: no effect either way.
    expect(await dangling([call('read_audit'), call('request_hold', { action: 'hold' })])).toEqual({
      oracle: 0,
      record: 0,
    });
    expect(await dangling([call('request_hold', { action: 'release' })])).toEqual({ oracle: 1, record: 1 });
  });

  it('agree on every score for any decision sequence (property)', async () => {
    const customers = ['acme', 'globex'];
    const callArb = fc.oneof(
      ...['stage_draft', 'purge_draft', 'send_notice', 'retract_notice', 'publish'].map((tool) =>
        fc.constantFrom(...customers).map((customer) => ({ tool, args: { customer } })),
      ),
      fc.constant({ tool: 'read_audit', args: {} }),
      fc.constantFrom('hold', 'release').map((action) => ({ tool: 'request_hold', args: { action } })),
    );
    const decisionArb = decisionOf(callArb);
    await fc.assert(
      fc.asyncProperty(
        fc.array(decisionArb, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 1000 }),
        async (decisions, seed) => {
          const r = await runDecisions(scenario, decisions, { seed });
          expect(oracleScores(r.events, scenario)).toEqual(recordedScores(r.events));
        },
      ),
      { numRuns: 300, seed: 29 },
    );
  });
});
