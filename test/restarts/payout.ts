/**
 * A small payout world for restart tests: verify the bank account, pay, then notify. How the payout's
 * outcome can be learnt: `status` (default) a payout_status tool that reconciles pay; `ledger` a
 * list_payouts tool that reads the payouts table pay writes (and reconciles nothing by name); `none`
 * no tool at all.
 */
import { scenarioFrom } from '../helpers/run.ts';

const STATUS_TOOL = `
  - name: payout_status
    reversibility: reversible
    read_only: true
    reconciles: [pay]
    parameters: { type: object, properties: { vendor: { type: string } }, required: [vendor] }`;

const LEDGER_TOOL = `
  - name: list_payouts
    reversibility: reversible
    read_only: true
    reads: [payouts]
    parameters: { type: object, properties: { vendor: { type: string } }, required: [vendor] }`;

export function payoutScenario(
  opts: {
    key?: boolean;
    /** Declare that pay's server keeps the keys of failed requests (`key_survives_failure`; needs `key`). */
    keyKept?: boolean;
    restarts?: number[];
    outcome?: 'status' | 'ledger' | 'none';
  } = {},
) {
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
    ${opts.keyKept ? 'key_survives_failure: true' : ''}
    preconditions: ["bank_verified(vendor={{args.vendor}})"]
    parameters:
      type: object
      properties: { vendor: { type: string }, amount: { type: number }${key ? ', idempotency_key: { type: string }' : ''} }
      required: [vendor, amount${key ? ', idempotency_key' : ''}]
    effects:
      - insert: { table: payouts, row: { id: "{{id}}", vendor: "{{args.vendor}}", amount: "{{args.amount}}" } }
      - establish: "paid(vendor={{args.vendor}})"
    returns: { payout_id: "po_{{id}}" }${opts.outcome === 'ledger' ? LEDGER_TOOL : opts.outcome === 'none' ? '' : STATUS_TOOL}
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
