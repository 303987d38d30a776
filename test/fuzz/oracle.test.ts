import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fuzzScenario } from '../../harness/features/fuzz/fuzz.ts';
import { oracleScores, recordedScores } from '../../harness/features/fuzz/oracle.ts';
import { scoringOracle } from '../../harness/features/fuzz/properties.ts';
import { runPlan } from '../../harness/features/fuzz/run-plan.ts';
import type { PlanItem } from '../../harness/core/scenario.ts';
import { scenarioFrom } from '../helpers/run.ts';
import { bundled } from './fixtures.ts';

describe('the scoring oracle', () => {
  it('shares no code with the facts, templates, scoring, rules or planning modules it checks', () => {
    const source = readFileSync(new URL('../../harness/features/fuzz/oracle.ts', import.meta.url), 'utf8');
    const imports = [...source.matchAll(/^import [^;]* from '([^']+)';$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    for (const i of imports) expect(i).not.toMatch(/facts\/|templates\/|scoring\/|rules\/|planning\/|util\//);
    // Types only: nothing of the harness runs inside the oracle.
    expect(source).not.toMatch(/^import (?!type)/m);
    expect(source).not.toMatch(/\bimport\(|\brequire\(/);
  });

  it("reads the reconciler's answer from the calls, never from the record's `reconciled`", () => {
    const source = readFileSync(new URL('../../harness/features/fuzz/oracle.ts', import.meta.url), 'utf8');
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/\.reconciled\b|\breconciled\s*[:?]|\['reconciled'\]/);
  });

  it('counts a blocked attempt as premature against the world before its batch, as the record does', async () => {
    // The guard blocks the webhook (address not validated); its sibling validates the address in the same batch.
    const webhook = bundled('webhook-timeout-reconcile');
    const plan: PlanItem[] = [
      {
        parallel: [
          { trigger_fulfilment_webhook: { order: '{{inputs.order}}', warehouse: '{{inputs.warehouse}}' } },
          { validate_address: { order: '{{inputs.order}}' } },
        ],
      },
    ];
    const run = await runPlan(webhook, plan, { guard: true });
    const blocked = run.events.find((e) => e.type === 'call' && e.status === 'blocked');
    expect(blocked?.type === 'call' && blocked.preconditions.missing).toEqual([
      'address_validated(order=SO-2025-048317)',
    ]);
    expect(recordedScores(run.events)?.premature.irreversible).toBe(1);
    expect(oracleScores(run.events, webhook)).toEqual(recordedScores(run.events));
  });

  it('agrees with the record on generated plans for the bundled scenarios, with and without the guard', async () => {
    const scenarios = ['invoice-and-notify', 'webhook-timeout-reconcile', 'release-with-migration'].map(bundled);
    for (const scenario of scenarios) {
      for (const guard of [false, true]) {
        const report = await fuzzScenario({ scenario, properties: [scoringOracle], runs: 40, seed: 11, guard });
        expect(report.failures, `${scenario.id}${guard ? ' (guard)' : ''}`).toEqual([]);
      }
    }
  });

  // Found by this oracle: fact matching used to let a `*` in a world fact (or one substituted from a
  // call's arguments) match any value, so verifying "*" made an email to any address look timely and
  // the guard let it through. A `*` is a wildcard only where a template writes it.
  it('agrees with the record when plans pass "*" as an argument', async () => {
    const scenario = scenarioFrom(`
id: verify-then-send
title: Verify, then send
task: Email bob.
inputs: { email: bob@acme.example }
tools:
  - { name: verify, reversibility: reversible, read_only: true, parameters: { type: object, properties: { email: { type: string } }, required: [email] }, effects: [ { establish: "verified(email={{args.email}})" } ] }
  - { name: send, reversibility: irreversible, preconditions: ["verified(email={{args.to}})"], parameters: { type: object, properties: { to: { type: string } }, required: [to] }, effects: [ { establish: "sent(to={{args.to}})" } ] }
goal: ["sent(to={{inputs.email}})"]
`);
    const report = await fuzzScenario({
      scenario,
      properties: [scoringOracle],
      runs: 200,
      seed: 1,
      arbitrary: { wildcardRate: 0.3 },
    });
    expect(report.failures).toEqual([]);
  });
});
