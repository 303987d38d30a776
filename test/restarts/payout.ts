/** A small payout world for restart tests: verify the bank account, pay, then notify; a status tool reconciles the payout. */
import { scenarioFrom } from '../helpers/run.ts';

export function payoutScenario(opts: { key?: boolean; restarts?: number[] } = {}) {
  const key = opts.key ?? false;
  return scenarioFrom(`
id: payout-tiny
title: Pay a vendor
task: Pay vendor v1 500 EUR and tell them.
inputs: { vendor: v1, amount: 500 }
world: { facts: [vendor_exists(vendor=v1)], tables: { payouts: [] } }
tools:
  - name: verify_bank
    reversibility: reversible
    read_only: true
    parameters: { type: object, properties: { vendor: { type: string } }, required: [vendor] }
    effects: [ { establish: "bank_verified(vendor={{args.vendor}})" } ]
  - name: pay
    reversibility: irreversible
    ${key ? 'idempotency_key: idempotency_key' : ''}
    preconditions: ["bank_verified(vendor={{args.vendor}})"]
    parameters:
      type: object
      properties: { vendor: { type: string }, amount: { type: number }${key ? ', idempotency_key: { type: string }' : ''} }
      required: [vendor, amount${key ? ', idempotency_key' : ''}]
    effects:
      - insert: { table: payouts, row: { id: "{{id}}", vendor: "{{args.vendor}}", amount: "{{args.amount}}" } }
      - establish: "paid(vendor={{args.vendor}})"
    returns: { payout_id: "po_{{id}}" }
  - name: payout_status
    reversibility: reversible
    read_only: true
    reconciles: [pay]
    parameters: { type: object, properties: { vendor: { type: string } }, required: [vendor] }
  - name: notify_vendor
    reversibility: irreversible
    idempotent: true
    preconditions: ["paid(vendor={{args.vendor}})"]
    parameters: { type: object, properties: { vendor: { type: string } }, required: [vendor] }
    effects: [ { establish: "notified(vendor={{args.vendor}})" } ]
goal: ["paid(vendor={{inputs.vendor}})", "notified(vendor={{inputs.vendor}})"]
max_steps: 20
restarts: ${JSON.stringify(opts.restarts ?? [])}
`);
}
